"""HTML nested past what the parser can take in time: the page limit covers the parse (docs/security.md,
"Corpus jobs")."""

import pytest

from native_host import limits
from native_host.corpus.pages import Page
from native_host.corpus.rows import PageRows
from native_host.pipeline.html_input import bound_nesting
from native_host.pipeline.snapshot import snapshot_from_html


# Item 5: the page limit covers the parse.

def _deepest(snapshot: dict) -> int:
    return max(node["depth"] for node in snapshot["nodes"])


def test_a_page_nested_200000_deep_gets_its_row_within_the_page_limit():
    """The page of issue 32: 2.2 MB, <div> nested 200,000 deep. The parser's time grows with the square of the
    depth, so its row took minutes; with the nesting bounded before the parse it is a result, cut short."""
    depth = 200_000
    html = "<html><body>" + "<div>" * depth + "<p>At the bottom of the well.</p>" + "</div>" * depth
    snapshot = snapshot_from_html(html)
    assert snapshot["truncated"] is True and _deepest(snapshot) <= limits.MAX_PARSE_DEPTH + 8
    row = PageRows(("path", "text", "truncated", "error"))(Page("deep.html", html.encode()))
    assert row["error"] is None and row["truncated"] is True
    assert "At the bottom of the well." in row["text"]  # the text inside the dropped tags stays


# Markup that would fool a scan that believes every end tag: the parser keeps these nested, so the scan must too.
N = limits.DEPTH_SCAN_MIN_TAGS
FOOLING = {
    "an end tag out of scope": "<div><marquee></div>" * N,
    "an end tag past a special element": "<span><div></span>" * N,
    "self-closing in HTML after leaving SVG": "<svg><div/>" + "<article/>" * N,
    "a heading's end tag closes the nearest heading": ("<h1>" + "<div>" * 30 + "<h2></h1>") * (N // 30),
    "</form> leaves what is above it open": ("<form>" + "<div>" * 30 + "</form>") * (N // 30),
    "a quoted <script> in an attribute": '<a title="<script>">' + "<div>" * N,
    "an unquoted value with a quote": "<div a=b'>" * N + "'",
    "end tags of no open element": "<span>" * N + "</x>" * N,
    "a comment closed at once": "<!-->" + "<div>" * N + "-->",
}


@pytest.mark.parametrize("shape", FOOLING)
def test_markup_built_to_fool_the_depth_scan_still_parses_within_the_cap(shape):
    snapshot = snapshot_from_html("<html><body>" + FOOLING[shape])
    assert _deepest(snapshot) <= limits.MAX_PARSE_DEPTH + 8


ORDINARY = {  # over DEPTH_SCAN_MIN_TAGS tags, as big pages write them: none of these nests deep
    "table without end tags": "<table>" + "<tr><td>cell<td>cell" * N + "</table>",
    "lists without end tags": ("<ul>" + "<li>item<p>para" * 50 + "</ul>") * (N // 100),
    "svg icons": ("<svg viewBox='0 0 9 9'>" + "<path d='M0 0'/>" * 40 + "</svg>") * (N // 40),
    "scripts writing markup": "<script>for (i = 0; i<n; i++) s += '<div>';</script>" * N,
    "paragraphs without end tags": "<div>" + "<p>text <b>bold</b>" * N + "</div>",
    "misnested formatting": "<p><b><i>x</b></i>" * N,
}


@pytest.mark.parametrize("shape", ORDINARY)
def test_ordinary_markup_with_many_tags_is_parsed_as_it_is(shape):
    html = "<!doctype html><html><body>" + ORDINARY[shape] + "</body></html>"
    assert bound_nesting(html) == (html, False)
