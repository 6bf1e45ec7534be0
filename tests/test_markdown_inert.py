"""The article's Markdown is inert: page text renders as that text and nothing else, under CommonMark with
GFM tables and strikethrough (markdown-it-py), whatever the page writes."""

import os
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_support import commonmark_gfm

from native_host import snapshot_from_html
from native_host.pipeline.article import Element, build_article, safe_url, to_markdown
from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.render.document import default_front_matter

PAGES = Path(__file__).parent / "pages"
EXAMPLES = int(os.environ.get("PITH_FUZZ_EXAMPLES", "40"))
# Every element and attribute Markdown of an article may render to.
ALLOWED = {
    **{
        tag: set()
        for tag in "p h1 h2 h3 h4 h5 h6 ul li blockquote pre em strong s br hr table thead tbody tr th td".split()
    },
    "ol": {"start"},
    "a": {"href"},
    "img": {"src", "alt"},
    "code": {"class"},
}
SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")  # no scheme: a relative target, which runs nothing
# What a browser ignores in a URL: "java\tscript:" is javascript:.
URL_IGNORED = re.compile(r"[\x00-\x20\x7f]")
DROPPED = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ufdd0-\ufdef\s]")  # controls, marks, and blanks


def renderer() -> MarkdownIt:
    md = commonmark_gfm()
    md.validateLink = lambda url: True  # markdown-it's own filter would hide a javascript: link we wrote
    return md


MD = renderer()


class Rendered(HTMLParser):
    """The rendered HTML's elements (tag, attributes) and its text, an image's alt text in its place."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag == "img":
            self.text.append(dict(attrs).get("alt") or "")

    def handle_data(self, data):
        self.text.append(data)


def check_inert(markdown: str, text: str, links: int, images: int) -> None:
    """`markdown` renders to allowlisted elements and attributes only, with http(s), mailto or relative
    targets, exactly `links` links and `images` images, and `text` as its text (blanks aside)."""
    page = Rendered(MD.render(markdown))
    for tag, attrs in page.elements:
        assert tag in ALLOWED, (tag, markdown)
        assert set(attrs) <= ALLOWED[tag], (tag, attrs, markdown)
        for name in ("href", "src"):
            if name in attrs:
                target = URL_IGNORED.sub("", attrs[name])
                scheme = SCHEME.match(target)
                assert not scheme or scheme.group(1).lower() in ("http", "https", "mailto"), (target, markdown)
    assert sum(tag == "a" for tag, _ in page.elements) == links, markdown
    assert sum(tag == "img" for tag, _ in page.elements) == images, markdown
    assert DROPPED.sub("", "".join(page.text)) == DROPPED.sub("", text), markdown


# Hostile material: Markdown and HTML syntax, entities, terminal controls, the noncharacters the builder
# uses as marks, and the attacks of issue 32 whole.
ATTACKS = [
    '<img src="x" onerror="alert(1)">',
    "[x](javascript:alert(1))",
    "![a](javascript:alert(1))",
    "<script>alert(1)</script>",
    "<http://e.example>",
    "](javascript:alert(1))",
    "&amp;",
    "&#x3C;",
    "&copy;",
    "```",
    "~~~",
    "~~x~~",
    "**x**",
    "__x__",
    "*",
    "_",
    "1. ",
    "2) ",
    "- ",
    "+ ",
    "# ",
    "> ",
    "---",
    "===",
    ":-",
    "|",
    "\\",
    "`",
    "\x1b]52;c;SGVsbG8=\x07",
    "\x1b[31m",
    "\x9b",
    "\x08",
    "\r",
    "\ufdd0",
    "\ufdd3",
    "www.e.example",
    "a_b",
    "[^1]: x",
    "<!-- x -->",
    "$x$",
]
CHARS = st.sampled_from(list("ab1 é\t\n.,;:!?\"'()[]{}<>/\\`*_~#|&=+-^$%@\u00a0\u2028\u3000") + ["日"])
TEXT = st.lists(st.sampled_from(ATTACKS) | CHARS, max_size=8).map("".join)
TARGETS = (
    st.sampled_from(
        [
            "https://e.example/a",
            "http://e.example/a_(b)",
            "https://e.example/a)b](javascript:alert(1))",
            'https://e.example/<x> "q" `t` |p| \\s &amp; &copy; {x}',
            "mailto:a@e.example",
            "/relative)path",
            "../up",
            "#fragment",
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            "java\tscript:alert(1)",
            " javascript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "vbscript:msgbox(1)",
            "https://e.example/((((((((((deep))))))))))",
            "https://e.example/\x1b]52;c;x\x07",
            "",
        ]
    )
    | TEXT
)


def _text(s):
    return Element(None, s)


INLINE = st.recursive(
    st.builds(_text, TEXT)
    | st.just(Element("br"))
    | st.builds(lambda code: Element("code", children=[_text(code)]), TEXT),
    lambda inner: (
        st.builds(
            lambda tag, kids: Element(tag, children=kids),
            st.sampled_from(["strong", "em", "s", "sup", "span"]),
            st.lists(inner, max_size=4),
        )
        | st.builds(
            lambda href, first, kids: Element("a", attrs={"href": href}, children=[_text(first + "a")] + kids),
            TARGETS,
            TEXT,
            st.lists(inner, max_size=3),
        )
    ),
    max_leaves=12,
)


def _holder(tag):
    return st.builds(lambda kids: Element(tag, children=kids), st.lists(INLINE, min_size=1, max_size=5))


def _table(rows):
    return Element(
        "table",
        children=[
            Element(
                "tbody",
                children=[
                    Element("tr", children=[Element("th" if r == 0 else "td", children=cells) for cells in row])
                    for r, row in enumerate(rows)
                ],
            )
        ],
    )


CELL = st.lists(INLINE, max_size=3)
LEAF_BLOCKS = (
    _holder("p")
    | _holder("h2")
    | _holder("h6")
    | st.builds(
        lambda code, lang: Element("pre", attrs={"class": lang}, children=[Element("code", children=[_text(code)])]),
        TEXT,
        st.sampled_from(["", "language-py", "a`b"]),
    )
    | st.builds(
        lambda n, rows: _table([r[:n] + [[]] * (n - len(r[:n])) for r in rows]),
        st.integers(1, 3),
        st.lists(st.lists(CELL, max_size=3), min_size=1, max_size=3),
    )
    | st.builds(
        lambda src, alt, caption: Element(
            "figure", children=[Element("img", attrs={"src": src, "alt": alt}), Element("figcaption", children=caption)]
        ),
        TARGETS,
        TEXT,
        st.lists(INLINE, max_size=3),
    )
    | st.just(Element("hr"))
)
BLOCKS = st.recursive(
    LEAF_BLOCKS,
    lambda inner: (
        st.builds(
            lambda tag, items: Element(tag, children=items),
            st.sampled_from(["ul", "ol"]),
            st.lists(
                st.builds(
                    lambda kids, sub: Element("li", children=kids + sub),
                    st.lists(INLINE, max_size=3),
                    st.lists(inner, max_size=1),
                ),
                min_size=1,
                max_size=3,
            ),
        )
        | st.builds(lambda kids: Element("blockquote", children=kids), st.lists(inner, min_size=1, max_size=3))
    ),
    max_leaves=6,
)


def expected(root: Element) -> tuple[str, int, int]:
    """The text the Markdown must render to, and how many links and images: those with a safe target, a link
    inside a link giving its text only. An image without a safe target gives its alt text."""
    text: list[str] = []
    links = images = 0
    stack = [(root, False)]
    while stack:
        el, in_link = stack.pop()
        if el.tag is None:
            text.append(el.text)
            continue
        if el.tag == "img":
            text.append(el.attrs["alt"])
            images += bool(safe_url(el.attrs["src"]))
            continue
        if el.tag == "a" and not in_link and safe_url(el.attrs["href"]):
            links += 1
            in_link = True
        stack.extend((c, in_link) for c in reversed(el.children))
    return "".join(text), links, images


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(BLOCKS, min_size=1, max_size=4))
def test_hostile_trees_render_inert(blocks):
    root = Element("article", children=blocks)
    check_inert(to_markdown(root), *expected(root))


@settings(max_examples=EXAMPLES, deadline=None)
@given(TEXT, TEXT, TARGETS)
def test_hostile_text_in_a_page_renders_as_text(before, after, href):
    """The same through the whole path: HTML text (escaped as a page would hold it) -> snapshot -> article."""
    import html

    page = (
        f'<article><p>{html.escape(before)}<a href="{html.escape(href)}">{html.escape(after)}</a></p>'
        f"<ul><li>{html.escape(after)}</li></ul></article>"
    )
    s = snapshot_from_html(page, url="https://e.example/post")
    blocks = blocks_from_snapshot(s)
    a = build_article(s, blocks, [True] * len(blocks))
    tree_text, links, images = expected(a.tree)
    check_inert(a.markdown, tree_text, links, images)


def test_the_attack_page_renders_inert():
    """tests/pages/hostile/markdown/source.html: each attack of issue 32, item 2, as a page's visible text, links and
    images. Its Markdown shows the attacks as text and links nowhere but to the page's https targets."""
    s = snapshot_from_html((PAGES / "hostile" / "markdown" / "source.html").read_bytes(), url="https://e.example/post")
    blocks = blocks_from_snapshot(s)
    a = build_article(s, blocks, [True] * len(blocks))
    text, links, images = expected(a.tree)
    check_inert(a.markdown, text, links, images)
    rendered = Rendered(MD.render(a.markdown))
    targets = [unquote(attrs.get("href") or attrs["src"]) for tag, attrs in rendered.elements if tag in ("a", "img")]
    assert targets == [
        "https://e.example/a)b](javascript:alert(1))",
        "https://e.example/ok",
        "mailto:desk@e.example",
        "https://e.example/i.png?q=)",
    ]  # the page's own, whole
    text = "".join(rendered.text)
    for attack in (
        '<img src="x" onerror="alert(1)">',
        "[x](javascript:alert(1))",
        "<javascript:alert(1)>",
        "text ](javascript:alert(1)) [",
        "alt ](javascript:alert(1)) ![y](data:x)",
        "# Heading?",
        "1. Step?",
        "> Quote?",
        "- Item?",
        "<script>alert(1)</script>",
        "a `` b ` c",
        "**not bold**",
        "~~not struck~~",
        "a | b",
        "cell | with pipe",
        "x|y",
        "&lt;b&gt;",
        "a javascript link",
    ):
        assert attack in text, attack


@pytest.mark.parametrize(
    "source, shown",
    [
        ("Text with *stars* and _under_ and a_b", "Text with *stars* and _under_ and a_b"),
        ("ends with a backslash \\", "ends with a backslash \\"),
        ("&amp;copy; is &copy;", "&amp;copy; is &copy;"),
    ],
)
def test_minimal_escapes_keep_text(source, shown):
    root = Element("article", children=[Element("p", children=[_text(source)])])
    assert "".join(Rendered(MD.render(to_markdown(root))).text).strip() == shown


def test_escaping_is_minimal_where_nothing_is_read():
    """A `#` or `>` inside a line, `_` inside a word, `&` that names no entity: written as they are."""
    md = to_markdown(Element("article", children=[Element("p", children=[_text("C# > B and snake_case & co")])]))
    assert md == "C# > B and snake_case & co\n"


# What a front matter value loses: controls, what YAML cannot hold, and blanks (each run of them one space,
# render/document.py's _clean; U+FEFF too, which Python's \s leaves out).
YAML_DROPPED = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff\ufeff\s]")


@settings(max_examples=EXAMPLES, deadline=None)
@given(TEXT | st.text())
def test_front_matter_values_stay_one_yaml_string(value):
    """Any title, byline or URL is one YAML string in the front matter (the default template's, which the
    host's reply carries and `pith extract -f markdown` writes), with the page's text in it (controls and what
    YAML cannot hold aside), and no terminal control. Read without YAML's implicit types, as a date is
    written bare on purpose."""
    head = default_front_matter({"title": value, "byline": value, "url": "https://e.example/" + value})
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", head)
    parsed = yaml.load(head.strip("-\n"), Loader=yaml.BaseLoader)
    assert parsed["source"].replace(" ", "") == YAML_DROPPED.sub("", "https://e.example/" + value)
    if YAML_DROPPED.sub("", value):
        assert [parsed["title"]] == parsed["author"]
        assert YAML_DROPPED.sub("", parsed["title"]) == YAML_DROPPED.sub("", value)
    else:
        assert "title" not in parsed and "author" not in parsed


def test_front_matter_drops_c1_controls():
    head = default_front_matter({"title": "CSI \x9b2J and OSC \x1b]52;c;eA==\x07 here"})
    assert yaml.safe_load(head.strip("-\n"))["title"] == "CSI 2J and OSC ]52;c;eA== here"


def test_formulas_stay_inert():
    """A formula's TeX (its annotation) and a formula without one (its MathML, text escaped) hold no HTML
    and no link, whatever the page wrote in them."""
    from native_host.pipeline.article import MATH_TAGS

    tex = Element(
        "math",
        children=[
            Element(
                "semantics",
                children=[
                    Element("mi", children=[_text("x")]),
                    Element(
                        "annotation", children=[_text('x<img src=x onerror="alert(1)"> [x](javascript:alert(1)) <b>')]
                    ),
                ],
            )
        ],
    )
    mathml = Element("math", children=[Element("mi", children=[_text("[y](javascript:alert(1)) <script>alert(1)")])])
    alttext = Element(
        "math",
        tex='z<img src=x onerror="alert(1)"> [z](javascript:alert(1))',
        children=[Element("mi", children=[_text("z")])],
    )
    root = Element("article", children=[Element("p", children=[_text("a "), tex, _text(" b "), mathml, alttext])])
    markdown = to_markdown(root)
    page = Rendered(MD.render(markdown))
    for tag, attrs in page.elements:
        assert tag in ALLOWED or tag in MATH_TAGS, (tag, markdown)
        assert not attrs or (tag in ALLOWED and set(attrs) <= ALLOWED[tag]), (tag, attrs, markdown)
    assert not any(tag in ("a", "img", "script", "b") for tag, _ in page.elements), markdown
    assert "[y](javascript:alert(1)) <script>alert(1)" in "".join(page.text)


def test_footnotes_stay_inert():
    """A page's footnotes, references and notes holding Markdown and HTML, become GFM footnotes (rendered
    with the footnote plugin) and nothing else: the notes' text as text, links only to the notes and back."""
    import html

    from mdit_py_plugins.footnote import footnote_plugin

    attack = "[^1]: x ![a](javascript:alert(1)) <img src=x onerror=alert(1)> [x](javascript:alert(1))"
    page = (
        f'<article><p>Text{html.escape(attack)}<sup id="r1"><a href="#n1">1</a></sup> more.</p><ol>'
        f'<li id="n1">{html.escape(attack)} <a href="#r1">back</a></li></ol></article>'
    )
    s = snapshot_from_html(page, url="https://e.example/post")
    blocks = blocks_from_snapshot(s)
    markdown = build_article(s, blocks, [True] * len(blocks)).markdown
    md = renderer().use(footnote_plugin)
    rendered = Rendered(md.render(markdown))
    plugin = {
        "sup": {"class"},
        "section": {"class"},
        "hr": {"class"},
        "ol": {"class"},
        "li": {"id", "class"},
        "a": {"href", "id", "class"},
    }
    for tag, attrs in rendered.elements:
        assert tag in ALLOWED or tag in plugin, (tag, markdown)
        assert set(attrs) <= ALLOWED.get(tag, set()) | plugin.get(tag, set()), (tag, attrs, markdown)
    assert sorted(a["href"] for tag, a in rendered.elements if tag == "a") == ["#fn1", "#fnref1"]
    assert "".join(rendered.text).count(attack) == 2, markdown


@pytest.mark.parametrize(
    "note",
    ["javascript:alert(1)", 'JaVaScRiPt:alert(1) "title"', "data:text/html,x", "vbscript\\:x", "https://e.example/ok"],
)
def test_a_footnote_never_defines_an_unsafe_link_without_footnote_support(note):
    """Read without footnotes, `[^1]: word` is a link reference definition that makes `[^1]` a link to that
    word: a note whose first word names an unsafe scheme stays a list item, its reference a plain link."""
    import html

    page = (
        f'<article><p>A claim<sup id="r1"><a href="#n1">1</a></sup> here.</p><ol>'
        f'<li id="n1">{html.escape(note)}</li></ol></article>'
    )
    s = snapshot_from_html(page, url="https://e.example/post")
    blocks = blocks_from_snapshot(s)
    markdown = build_article(s, blocks, [True] * len(blocks)).markdown
    for _tag, attrs in Rendered(MD.render(markdown)).elements:
        target = URL_IGNORED.sub("", attrs.get("href", ""))
        assert not SCHEME.match(target) or SCHEME.match(target).group(1).lower() in ("http", "https"), markdown
    assert ("[^1]: " in markdown) == note.startswith("https:")
