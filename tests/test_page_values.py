"""One bad value never fails a page: hostile URLs, charset labels, attribute values and text shapes, each
costing that value alone. The helpers of native_host/pipeline/page_values.py one by one, then whole pages
through snapshot_from_html, the extractor and `pith extract`, then random attributes (hypothesis)."""

from __future__ import annotations

import html as htmlmod
import json
import logging
import os
import signal
from contextlib import contextmanager
from urllib.parse import urljoin

import pytest
from host_support import standin_model
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from native_host import Extractor, snapshot_from_html, validate_snapshot
from native_host.cli.main import main as pith
from native_host.limits import MAX_BLOCK_TEXT
from native_host.pipeline.article import MAX_NESTING
from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.pipeline.page_values import _BROWSER_CODECS, _plain_absolute, join_url, text_codec, url_host
from native_host.pipeline.snapshot import decode_html

BASE = "https://news.example/story/1"
# Values Python's URL parser refuses: a bracketed host that is no IP address (seen on a real news page), an
# unclosed bracket, and hosts that NFKC-normalise to a separator.
BAD_URLS = [
    "http://[ccpa-preferences]",
    "http://[::1",
    "//ex\u2100mple.com/a",
    "https://a\uff03b/c",
    "http://[v7.::1",
    "https://user@[x]:80/",
]


@contextmanager
def hang_guard(seconds: int):
    """Fails the test, instead of hanging the run, if the block takes over `seconds` (a regex is interrupted
    too: the engine checks for signals as it goes). Generous: it guards against hangs, it times nothing."""

    def expired(signum, frame):
        raise AssertionError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# --- the helpers --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ref", BAD_URLS)
def test_a_url_python_cannot_parse_is_no_url(ref):
    assert join_url(BASE, ref) is None and join_url(ref, "/x") is None
    assert url_host(ref) is None


def test_urls_that_parse_are_joined_and_their_host_read():
    assert join_url(BASE, "../about?x=1#top") == "https://news.example/about?x=1#top"
    assert join_url(BASE, "http://[::1]:8080/a") == "http://[::1]:8080/a"
    assert join_url(None, "/a") == "/a" and join_url("", "/a") == "/a"
    assert url_host("https://News.Example:8443/x") == "news.example"
    assert url_host("http://[::1]/") == "::1" and url_host("/relative") is None and url_host(None) is None


_URL_PIECES = [
    "http://",
    "https://",
    "HTTP://",
    "a.example",
    "x",
    "/",
    "//",
    ";",
    "?",
    "#",
    "=",
    "&",
    ".",
    "..",
    "%20",
    " ",
    "\t",
    "\n",
    ":",
    "@",
    "[",
    "]",
    "\\",
    "é",
    "ｅ",
    "p;q",
    ":8080",
]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(_URL_PIECES), max_size=12).map("".join),
    st.sampled_from(["https://news.example/a/b?q#f", "http://h/", "https://h.example/x;y", "ftp://h/"]),
)
def test_an_address_taken_as_written_is_what_urljoin_gives(ref, base):
    """The shortcut that skips urljoin for plain absolute addresses never changes a link."""
    if _plain_absolute(ref):
        assert urljoin(base, ref) == ref


def test_plain_absolute_addresses_are_told_from_the_ones_urljoin_rewrites():
    assert _plain_absolute("https://a.example/p;q?x=1#f") and _plain_absolute("http://a.example")
    for ref in (
        "https://a.example/x?",
        "https://a.example/x#",
        "https://a.example/x;",
        "https://a.example/?#f",
        "http:///x",
        "https://a.example/\tx",
        "http://[ccpa-preferences]",
        "https://é.example/",
        "/x",
    ):
        assert not _plain_absolute(ref), ref


@pytest.mark.parametrize(
    "label, codec",
    [
        ("utf-8", "utf-8"),
        (" UTF8 ", "utf-8"),
        ("windows-1252", "cp1252"),
        ("iso-8859-1", "cp1252"),
        ("latin1", "cp1252"),
        ("us-ascii", "cp1252"),
        ("iso-8859-9", "cp1254"),
        ("shift_jis", "cp932"),
        ("windows-31j", "cp932"),
        ("euc-kr", "cp949"),
        ("gb2312", "gbk"),
        ("big5", "big5hkscs"),
        ("koi8-r", "koi8-r"),
        ("x-mac-cyrillic", "mac-cyrillic"),
        ("windows-874", "cp874"),
        ("utf-16le", "utf-16-le"),
        ("utf-16", "utf-16-le"),
    ],
)
def test_charset_labels_are_read_as_browsers_read_them(label, codec):
    assert text_codec(label) == codec


@pytest.mark.parametrize(
    "label",
    [
        "rot13",
        "base64",
        "hex",
        "zlib",
        "bz2",
        "uu",
        "quopri",
        "undefined",
        "idna",
        "punycode",
        "unicode_escape",
        "raw_unicode_escape",
        "utf-7",
        "utf-32",
        "x-user-defined",
        "mbcs",
        "__init__",
        "aliases",
        "",
        "a\x00b",
        "x" * 500,
    ],
)
def test_charset_labels_no_browser_honours_give_no_codec(label):
    assert text_codec(label) is None


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300))
def test_every_codec_a_label_can_pick_decodes_any_bytes(data):
    for codec in set(_BROWSER_CODECS.values()):
        assert isinstance(data.decode(codec, errors="replace"), str)


# --- whole pages ------------------------------------------------------------------------------------------


def _links(snapshot: dict) -> list[str]:
    return [n["href"] for n in snapshot["nodes"] if n["tag"] == "a"]


def test_one_unparsable_link_keeps_its_href_and_the_others_are_made_absolute():
    links = "".join(f'<a href="{htmlmod.escape(u)}">x</a>' for u in BAD_URLS)
    s = snapshot_from_html(
        f'<p><a href="/a">a</a>{links}<img src="http://[ccpa]/i.png"><a href="b">b</a></p>', url=BASE
    )
    validate_snapshot(s)
    assert _links(s) == ["https://news.example/a", *BAD_URLS, "https://news.example/story/b"]
    assert [n["src"] for n in s["nodes"] if n["tag"] == "img"] == ["http://[ccpa]/i.png"]


def test_under_a_base_that_cannot_be_parsed_links_stay_as_written_as_in_chromium():
    s = snapshot_from_html('<head><base href="http://[base]/"></head><p><a href="a">a</a></p>', url=BASE)
    assert _links(s) == ["a"]


@pytest.mark.parametrize("url", ["http://[ccpa-preferences]/page", "https://a\uff03b/", "not a url"])
def test_a_page_url_python_cannot_parse_costs_only_the_joins(url):
    s = snapshot_from_html('<head><base href="http://[base]/"></head><p><a href="/a">a</a></p>', url=url)
    validate_snapshot(s)
    assert s["url"] == url and _links(s) == ["/a"]


@pytest.mark.parametrize("label", ["rot13", "base64", "undefined", "idna", "punycode", "utf-32", "__init__", "hex"])
def test_a_charset_no_browser_honours_is_ignored_and_the_page_read_as_utf8(label):
    data = f'<meta charset="{label}"><title>Café</title><p>crème brûlée</p>'.encode()
    s = snapshot_from_html(data)
    assert s["title"] == "Café" and "crème brûlée" in [n.get("text") for n in s["nodes"]]


def test_a_charset_browsers_know_is_used():
    data = '<meta charset="shift_jis"><p>日本語</p>'.encode("cp932")
    assert "日本語" in decode_html(data)
    # UTF-16 is honoured from HTTP; a <meta> read as ASCII cannot declare it (HTML spec): UTF-8
    assert decode_html("<p>café</p>".encode("utf-16-le"), charset="utf-16") == "<p>café</p>"
    assert "café" in decode_html('<meta charset="utf-16"><p>café</p>'.encode())


def test_many_text_nodes_of_spaces_before_a_line_break_segment_in_linear_time():
    """`<p>a<b> </b><b> </b>...x<br>b</p>`: the spaces of 199,990 text nodes join into one run, and a regex
    that tried ` *\\n` at each of its spaces took quadratic time (over a minute at this size)."""
    texts = ["a", *[" "] * 199_990, "x"]
    nodes = [{"id": 0, "parent": -1, "depth": 0, "tag": "p"}]
    nodes += [{"id": i, "parent": 0, "depth": 1, "tag": "#text", "text": t} for i, t in enumerate(texts, 1)]
    nodes += [
        {"id": len(nodes), "parent": 0, "depth": 1, "tag": "br"},
        {"id": len(nodes) + 1, "parent": 0, "depth": 1, "tag": "#text", "text": "b"},
    ]
    with hang_guard(20):
        blocks = blocks_from_snapshot({"nodes": nodes})
    assert [b.text for b in blocks] == [("a" + " " * 199_990 + "x\nb")[:MAX_BLOCK_TEXT]]


def test_metadata_inside_a_deep_noscript_is_left_out_in_linear_time():
    """20,000 <meta> under 20,000 levels inside <noscript>: a walk to the root per element (or lexbor's
    descendant selector) cost elements x depth, 7 s at 8,000."""
    html = "<body><p>x</p><noscript>" + "<div>" * 20_000 + '<meta name="a" content="b">' * 20_000 + "</noscript>"
    with hang_guard(30):
        snapshot = snapshot_from_html(html)
    assert snapshot["meta"] == []


@pytest.fixture(scope="module")
def standin(tmp_path_factory):
    return standin_model(tmp_path_factory.mktemp("model"))


@pytest.fixture(scope="module")
def extractor(standin):
    return Extractor(standin)


HOSTILE_PAGE = (
    '<html><head><meta charset="rot13"><base href="http://[base]/"><title>Story</title></head><body>'
    "<article><h1>Story</h1><p>"
    + "A long paragraph of the story, well over the stand-in's length. "
    * 3
    + '<a href="http://[ccpa-preferences]">Do not sell my data</a></p>'
    '<table><tr><td colspan="x" rowspan="-1e999" width="50%%">cell</td></tr></table>'
    '<img src="//ex\u2100mple.com/i.png" srcset="a.png 1x, , [::1 2x" width="NaN"></article></body></html>'
)


def test_formatting_nested_20000_deep_renders_in_linear_time(extractor):
    """Rendering looks for text under each element it opens: unbounded nesting of <b><i> cost depth squared
    (39 s at 8,000), so formatting deeper than article.MAX_NESTING is unwrapped to its text."""
    text = "A long paragraph of the story, well over the stand-in's length, at the bottom of the nesting."
    with hang_guard(60):
        result = extractor.extract_html("<p>" + "<b><i>" * 10_000 + text + "</i></b>" * 10_000 + "</p>")
    assert text in result.html and text in result.markdown
    assert result.html.count("<strong>") + result.html.count("<em>") <= MAX_NESTING


def test_the_extractor_answers_a_page_full_of_bad_values(extractor):
    for data in (HOSTILE_PAGE, HOSTILE_PAGE.encode()):
        result = extractor.extract_html(data, url="https://news.example/[story]")
        assert "A long paragraph of the story" in result.text
        assert 'href="http://[ccpa-preferences]"' in result.html


@pytest.mark.parametrize("url", [None, BASE])
def test_metadata_values_no_parser_accepts_cost_only_themselves(extractor, url):
    """Dates whose month name matched case-insensitively but has no lower-case key ("NİSAN", "ſept"), and
    URLs no parser accepts, in every place metadata reads them: each value is dropped, no source is lost."""
    page = (
        '<html lang="tr"><head><title>Haber | Site</title>'
        '<meta property="article:published_time" content="3 NİSAN 2024">'
        '<meta name="date" content="3 ſept 2024"><meta property="og:image" content="http://[x/i.png">'
        '<link rel="canonical" href="http://[ccpa-preferences]/a">'
        '<script type="application/ld+json">{"@type": "NewsArticle", "headline": "Haber", '
        '"datePublished": "NİSAN 3, 2024", "image": "http://[::1", "url": "//ex\u2100mple.com/",'
        ' "author": {"@type": "Person", "name": "Ayşe Yılmaz", "url": "http://[y"}}</script></head>'
        '<body><article><h1>Haber</h1><p class="byline">Ayşe Yılmaz, 3 NİSAN 2024</p>'
        "<p>" + "Uzun bir paragraf, stand-in modelin ana metin sayacağı kadar uzun bir metin. " * 3 + "</p>"
        '<img src="http://[z/i.png"></article></body></html>'
    )
    with caught_exceptions() as caught:
        result = extractor.extract_html(page, url=url)
    assert caught == []
    assert result.title == "Haber" and result.date is None and result.canonical_url is None


STORY = "<h1>Story</h1><p>" + "A long paragraph of the story, well over the stand-in's length. " * 3 + "</p>"


def test_a_lone_by_with_no_block_after_it_is_no_byline(extractor):
    """A page that ends (or was cut) right after a lone "By" in an author-classed block: the name it
    announces is not there, so no byline, and nothing else of what the page says is lost."""
    for by in ('<span class="author">By</span>', '<div class="post-meta">von:</div>'):
        with caught_exceptions() as caught:
            result = extractor.extract_html(f"<html><body><article>{STORY}{by}</article></body></html>")
        assert caught == []
        assert result.title == "Story" and result.byline is None


def test_a_field_read_from_the_blocks_that_fails_costs_that_field_alone(extractor, monkeypatch):
    """Each field read from the page's blocks (headline, byline, date, image) is read under its own guard:
    one that raises is logged and lost, the others are kept."""

    def broken(*args, **kwargs):
        raise IndexError("list index out of range")

    monkeypatch.setattr("native_host.pipeline.metadata.dom_byline", broken)
    page = (
        f"<html><body><article>{STORY}<p class='byline'>By Ann Lee</p><time datetime='2024-03-03'>"
        "3 March 2024</time></article></body></html>"
    )
    with caught_exceptions() as caught:
        result = extractor.extract_html(page)
    assert len(caught) == 1 and "byline" in caught[0]
    assert result.title == "Story" and result.byline is None and result.date == "2024-03-03"


def test_pith_extract_answers_a_page_full_of_bad_values(tmp_path, standin, capsys):
    page = tmp_path / "page.html"
    page.write_text(HOSTILE_PAGE, encoding="utf-8")
    assert pith(["extract", str(page), "-u", "https://news.example/story", "--model-dir", standin]) == 0
    assert "A long paragraph of the story" in capsys.readouterr().out


# --- random attribute values ------------------------------------------------------------------------------

TAGS = [
    "a",
    "a",
    "img",
    "img",
    "base",
    "meta",
    "meta",
    "td",
    "th",
    "col",
    "div",
    "p",
    "span",
    "li",
    "ol",
    "iframe",
    "table",
    "input",
    "source",
    "picture",
    "html",
    "body",
    "link",
    "time",
    "h1",
    "br",
    "figure",
    "math",
]
URL_ATTRS = ["href", "src", "data-src", "srcset", "data-srcset"]
OTHER_ATTRS = [
    "sizes",
    "class",
    "id",
    "style",
    "charset",
    "content",
    "http-equiv",
    "lang",
    "dir",
    "colspan",
    "rowspan",
    "width",
    "height",
    "tabindex",
    "start",
    "value",
    "role",
    "aria-label",
    "aria-hidden",
    "hidden",
    "type",
    "alt",
    "datetime",
    "rel",
    "name",
    "property",
    "itemprop",
    "itemscope",
    "itemtype",
]
URL_FRAGMENTS = [
    "http://",
    "https:",
    "//",
    "[",
    "]",
    "[::1",
    "ccpa",
    "\u2100",
    "\uff03",
    "@",
    ":",
    ":99999",
    "%",
    "%zz",
    "\\",
    "javascript:",
    "mailto:",
    "data:",
    "a.png",
    " 1x",
    " 2.5x",
    " 300w",
    " 1e9w",
    ",",
    "/",
    "?",
    "#",
    " ",
    "\x00",
    "\n",
]
# Numbers, charset labels, styles, and what meta tags and bylines say: names of metadata fields, and dates
# with month names that case-insensitive matching takes but whose lower case is no month ("NİSAN", "ſept").
FRAGMENTS = [
    "1e999",
    "NaN",
    "-0",
    "99999999999999999999",
    " ",
    "\x00",
    "&#0;",
    "&amp",
    "\n",
    "utf-32",
    "rot13",
    "undefined",
    "idna",
    "shift_jis",
    "charset=",
    "text/html;",
    ",",
    "1x",
    "display:none",
    ";",
    "<",
    ">",
    '"',
    "'",
    "\ud7ff",
    "\U0001f600",
    "%",
    "og:image",
    "article:published_time",
    "og:url",
    "author",
    "canonical",
    "datePublished",
    "3 ",
    "31 ",
    "NİSAN",
    "ſept",
    "März",
    "2024",
    "-02-30",
    "T25:61",
    "/",
    ".",
    "年",
    "月",
    "+99:99",
]
# JSON-LD, whole or broken: objects of odd shapes where strings are expected, deep nesting, huge numbers.
JSON_LD = st.one_of(
    st.recursive(
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(),
            st.floats(allow_nan=False),
            st.text(max_size=12),
            st.sampled_from(["NewsArticle", "Person", "2024-03-03", "NİSAN 3, 2024", "http://[x"]),
        ),
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(
                st.sampled_from(
                    [
                        "@type",
                        "@id",
                        "@graph",
                        "author",
                        "name",
                        "headline",
                        "image",
                        "url",
                        "datePublished",
                        "dateModified",
                        "publisher",
                        "logo",
                        "itemListElement",
                        "mainEntityOfPage",
                    ]
                ),
                inner,
                max_size=5,
            ),
        ),
        max_leaves=20,
    ).map(json.dumps),
    st.sampled_from(["[" * 5000, '{"a": ' + "9" * 5000 + "}", "<!-- {} -->", '{"@type": "NewsArticle",}']),
)


def _value(fragments: list[str]):
    return st.one_of(st.text(max_size=20), st.lists(st.sampled_from(fragments), max_size=6).map("".join))


attributes = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(URL_ATTRS), _value(URL_FRAGMENTS), st.booleans()),
        st.tuples(st.sampled_from(OTHER_ATTRS), _value(FRAGMENTS), st.booleans()),
    ),
    max_size=4,
)
texts = st.one_of(st.text(max_size=40), st.lists(st.sampled_from(FRAGMENTS), max_size=8).map("".join))
META_NAMES = [
    "og:image",
    "og:url",
    "og:title",
    "og:site_name",
    "og:type",
    "article:published_time",
    "article:modified_time",
    "author",
    "date",
    "description",
    "twitter:image",
    "datePublished",
]
DATES = st.lists(
    st.sampled_from(
        [
            "3 ",
            "31 ",
            "NİSAN",
            "ſept",
            "März",
            "March",
            "2024",
            "-02-30",
            "T25:61",
            "/",
            ".",
            "年",
            "月",
            "日",
            "+99:99",
            " ",
            "٢٠٢٤",
            "12:30",
            "pm",
            ",",
        ]
    ),
    max_size=8,
).map("".join)
metadata = st.one_of(
    st.tuples(
        st.just("meta"),
        st.tuples(
            st.tuples(st.sampled_from(["property", "name", "itemprop"]), st.sampled_from(META_NAMES), st.just(True)),
            st.tuples(st.just("content"), st.one_of(DATES, _value(URL_FRAGMENTS)), st.just(True)),
        ).map(list),
        st.just(""),
    ),
    st.tuples(
        st.just("link"),
        st.tuples(
            st.tuples(st.just("rel"), st.sampled_from(["canonical", "author"]), st.just(True)),
            st.tuples(st.just("href"), _value(URL_FRAGMENTS), st.just(True)),
        ).map(list),
        st.just(""),
    ),
    st.tuples(
        st.sampled_from(["p", "time", "span"]),
        st.sampled_from([[("class", "byline date", True)], [("datetime", "", True)]]),
        DATES,
    ),
    st.tuples(st.just("script"), st.just([("type", "application/ld+json", True)]), JSON_LD),
)
elements = st.lists(st.one_of(st.tuples(st.sampled_from(TAGS), attributes, texts), metadata), min_size=1, max_size=12)
page_urls = st.one_of(st.none(), st.sampled_from([BASE, *BAD_URLS, ""]), _value(URL_FRAGMENTS))


def _page(parts) -> str:
    """Each element with its attributes, quoted as written (escaped) or raw (which breaks the markup too)."""
    out = []
    for tag, attrs, text in parts:
        written = "".join(
            f' {name}="{htmlmod.escape(value)}"' if quote else f" {name}={value}" for name, value, quote in attrs
        )
        out.append(f"<{tag}{written}>{text if tag == 'script' else htmlmod.escape(text)}")
    return "".join(out)


EXAMPLES = int(os.environ.get("PITH_FUZZ_EXAMPLES", "40"))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(elements, page_urls, st.booleans())
def test_random_attribute_values_never_fail_a_page_nor_a_source(extractor, parts, url, as_bytes):
    """Nothing raises, and no stage catches an exception to go on without one of its sources or fields
    (metadata.py guards each: a value that fails there costs the whole source or field)."""
    html = _page(parts)
    data = html.encode() if as_bytes else html
    snapshot = snapshot_from_html(data, url=url)
    validate_snapshot(snapshot)
    with caught_exceptions() as caught:
        extractor.extract_html(data, url=url)
    assert caught == [], caught


class _Caught(logging.Handler):
    """The exceptions the engine caught and logged."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.records.append(f"{record.getMessage()}: {record.exc_info[1]!r}")


@contextmanager
def caught_exceptions():
    """The exceptions the engine caught and logged while the block ran (a list, filled as they come)."""
    caught = _Caught()
    engine_log = logging.getLogger("native_host")
    engine_log.addHandler(caught)
    try:
        yield caught.records
    finally:
        engine_log.removeHandler(caught)
