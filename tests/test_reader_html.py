"""The reader's HTML is what a browser reads back: parsed by an HTML5 parser (lexbor, as the reader's
DOMParser does), it gives the tree the host wrote, so no paragraph is cut short by a block inside it and no
words end up outside every paragraph. A picture is itself where it stands (its alt on it, no caption made of
it), marked to stay in its line of text where words come before and after it; an emoji drawn as a picture is its
character."""

import os
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.reader_html import parted, reads_back_as_written
from native_host import snapshot_from_html
from native_host.pipeline.article import INLINE_PICTURE, build_article
from native_host.pipeline.blocks import blocks_from_snapshot

EXAMPLES = int(os.environ.get("PITH_FUZZ_EXAMPLES", "40"))


def reader_html(body: str) -> str:
    s = snapshot_from_html(f"<html><head><title>T</title></head><body>{body}</body></html>", url="https://e.example/")
    bl = blocks_from_snapshot(s)
    return build_article(s, bl, [True] * len(bl), views={"html"}).html


def test_the_check_sees_a_paragraph_a_browser_would_cut():
    assert reads_back_as_written("<p>Before <ul><li>item</li></ul> after</p>") is not None
    assert reads_back_as_written("<h1>Title <h2>Sub</h2></h1>") is not None
    assert reads_back_as_written("<p>Before</p><ul><li>item</li></ul><p>after</p>") is None


@pytest.mark.parametrize(
    "body",
    [
        # a page without a doctype: the parser leaves a table inside the paragraph
        "<p>The figures for the year, in full: <table><tr><td>Sales</td><td>12</td></tr></table> as reported.</p>",
        # a paragraph around a list, a quote, another paragraph (a CMS's markup, a script's DOM)
        "<p>Take these: <em>three <ul><li>eggs</li><li>flour</li></ul> things</em> and mix.</p>",
        "<blockquote><p><strong>THE TITLE OF THE QUOTE<blockquote><p>Its words, quoted at length here.</p>"
        "</blockquote></strong></p></blockquote>",
        "<p>Found in his home in <p>Kamiah</p>, Idaho, on the morning of the fourth.</p>",
        # a heading around a heading
        "<h1><p>Tax 101: the basics</p><h4>A guide to the taxes people pay and how they work</h4></h1>",
        # a link around a figure, in a paragraph
        '<p><a href="/ragu"><figure><img src="/ragu.jpg" alt="Pork ragu"><figcaption>Slow cooker pork ragu'
        "</figcaption></figure></a></p><p>A recipe worth the wait, for a cold evening.</p>",
        # a div of inline words inside a paragraph, and a picture as a block in a paragraph
        "<p>Call us on <div>0123 456 789</div> any day.</p><p><img src='/map.png' alt='Map of the area'></p>",
    ],
)
def test_the_readers_html_is_read_back_as_written(body):
    html = reader_html(body)
    assert reads_back_as_written(html) is None, html


def test_a_picture_is_itself_in_its_line_or_between_blocks_and_an_emoji_its_character():
    html = reader_html(
        "<article><p>We saw it all <img class='emoji' alt='😀' src='/1f600.svg'> and more, said the family.</p>"
        "<p>Download the <img src='/pdf.png' alt='PDF'> report here, all forty pages of it.</p>"
        "<p><img src='/fair.jpg' alt='The fair at night'></p>"
        "<div><img src='/crowd.jpg' alt='The crowd at noon'></div><p>Words after the pictures.</p></article>"
    )
    assert "We saw it all 😀 and more" in html and "1f600" not in html
    assert f'Download the <img src="https://e.example/pdf.png" alt="PDF" class="{INLINE_PICTURE}"> report' in html
    assert '<p><img src="https://e.example/fair.jpg" alt="The fair at night"></p>' in html  # a block there
    assert '<img src="https://e.example/crowd.jpg" alt="The crowd at noon">' in html  # its alt no caption
    assert "<figure>" not in html
    assert reads_back_as_written(html) is None


def test_the_reader_shows_a_picture_in_a_line_in_the_line():
    from pathlib import Path

    css = (Path(__file__).parents[1] / "extension" / "reader" / "reader.css").read_text(encoding="utf-8")
    assert re.search(rf"\.article img\.{INLINE_PICTURE} \{{[^}}]*display: inline", css)


_WORDS = st.sampled_from(["Words", "more words here", "and then", "a", " "])
_INLINE = ["a href='/x'", "em", "strong", "span", "code", "sup"]
_BLOCK = ["p", "div", "h2", "h3", "ul", "li", "blockquote", "table", "td", "figure", "pre", "dl", "dd"]


@st.composite
def _markup(draw, depth=0):
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 9 if depth < 4 else 2))
        if kind <= 2:
            parts.append(draw(_WORDS))
        elif kind == 3:
            parts.append(draw(st.sampled_from(["<br>", "<img src='/p.png' alt='P'>", "<img src='/e.png' alt='🙂'>"])))
        else:
            tag = draw(st.sampled_from(_INLINE if kind <= 5 else _BLOCK))
            parts.append(f"<{tag}>{draw(_markup(depth + 1))}</{tag.split()[0]}>")
    return "".join(parts)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_markup())
def test_any_page_gives_html_a_browser_reads_back_as_written(body):
    html = reader_html(f"<article>{body}</article>")
    assert reads_back_as_written(html) is None, (body, html)


def test_every_dev_page_gives_html_a_browser_reads_back_as_written(real_data):
    from export.data import iter_records
    from native_host import Extractor

    found = parted(iter_records(split="dev"), Extractor())
    assert found == {}, "\n".join(f"{k}\n{v}" for k, v in list(found.items())[:5])


def test_a_row_outside_its_table_is_read_as_its_cells():
    """A forum post that was a table row is a section now: its cells, outside any table, would be dropped by a
    browser, their words run together."""
    from native_host.pipeline.article import Element, _finished, to_html

    def text(words):
        return Element("p", children=[Element(None, words)])

    cells = [Element("td", children=[text("Ziphor")]), Element("td", children=[text("If only the policies")])]
    post = Element(
        "section", children=[Element("h3", children=[Element(None, "Ziphor")]), Element("tr", children=cells)]
    )
    html = to_html(_finished(Element("article", children=[post])))
    assert "<td>" not in html and "<tr>" not in html
    assert reads_back_as_written(html) is None, html
