"""The article's Markdown round-trips: rendered back by a CommonMark renderer (GFM tables, strikethrough and
footnotes), it shows the reader's text, with code languages, tables, formulas as TeX, footnotes and links
whose text has no blank at its ends."""

import re
from html.parser import HTMLParser

import pytest
from markdown_support import commonmark_gfm
from mdit_py_plugins.footnote import footnote_plugin
from selectolax.lexbor import LexborHTMLParser

from native_host import Extractor, snapshot_from_html
from native_host.pipeline.article import build_article
from native_host.pipeline.blocks import blocks_from_snapshot

_NOT_LETTER = re.compile(r"[\W\d_]+")
_TEX = re.compile(r"\$\$.+?\$\$|\$.+?\$", re.S)


def render(markdown: str) -> LexborHTMLParser:
    md = commonmark_gfm().use(footnote_plugin)
    return LexborHTMLParser(md.render(markdown) or "<p></p>")


def letters(tree: LexborHTMLParser) -> str:
    """The tree's text, letters only, lower-cased, formulas left out (the reader shows MathML, Markdown TeX)."""
    for math in tree.css("math"):
        math.decompose()
    return _NOT_LETTER.sub("", _TEX.sub("", tree.text(separator=" ")).lower())


def article(html: str):
    """Every block main, so the answer does not depend on a model."""
    s = snapshot_from_html(html, url="https://e.example/post")
    blocks = blocks_from_snapshot(s)
    return build_article(s, blocks, [True] * len(blocks))


def test_a_docs_page_round_trips(page):
    r = Extractor().extract_html(page("docs-roundtrip"), url="https://docs.tidewater.example/logs")
    shown = render(r.markdown)
    assert letters(LexborHTMLParser(r.html)) == letters(render(r.markdown))
    reader = LexborHTMLParser(r.html)
    languages = [c.attributes.get("class") for c in shown.css("pre > code")]
    assert languages == [c.attributes.get("class") for c in reader.css("pre > code")]
    assert languages == ["language-python", "language-javascript", "language-haskell"]
    links = [a.text() for a in shown.css("a") if a.attributes["href"].startswith("https://docs.tidewater")]
    assert links == ["format guide", "weekly report"]
    rows = [[c.text() for c in tr.css("th, td")] for tr in shown.css("table tr")]
    assert rows == [
        ["Field", "Unit", "Example"],
        ["Height", "metres", "1.42"],
        ["Period", "seconds", "8 | 9"],
        ["Direction", "degrees from north", "270"],
    ]
    assert len(shown.css("sup.footnote-ref")) == 2 and len(shown.css("li.footnote-item")) == 2
    assert "$H^2$" in r.markdown and "\n\n$$E = \\frac{1}{16} \\rho g H^2$$\n\n" in r.markdown


@pytest.mark.parametrize(
    "markup, fence",
    [
        ('<pre><code class="language-python">x = 1</code></pre>', "```python\n"),
        ('<pre><code class="lang-rb">x = 1</code></pre>', "```rb\n"),
        ('<div class="highlight highlight-source-c++"><pre>x = 1</pre></div>', "```c++\n"),
        ('<pre><code class="hljs rust">x = 1</code></pre>', "```rust\n"),
        ('<pre class="brush: ruby;">x = 1</pre>', "```ruby\n"),
        ('<pre class="brush:php">x = 1</pre>', "```php\n"),
        (
            '<div class="sourceCode"><pre class="sourceCode numberSource haskell numberLines"><code>x = 1</code></pre>'
            "</div>",
            "```haskell\n",
        ),
        ('<pre><code class="hljs x`y">x = 1</code></pre>', "```\n"),  # a backtick would break the fence
        ('<pre><code class="hljs">x = 1</code></pre>', "```\n"),
    ],
)
def test_a_code_fence_names_the_language_the_page_names(markup, fence):
    md = article("<article><p>Some words before the code.</p>" + markup + "</article>").markdown
    assert md == "Some words before the code.\n\n" + fence + "x = 1\n```\n"


def test_a_table_is_a_gfm_table_with_its_header_pipes_and_breaks():
    md = article(
        "<article><table><tr><th>Key</th><th>Value</th></tr><tr><td>a|b</td><td>one<br>two</td></tr></table></article>"
    ).markdown
    assert md == "| Key | Value |\n|---|---|\n| a\\|b | one two |\n"


class Places(HTMLParser):
    """Each word of a rendering, and the lists, items, quotes, tables and code blocks it is inside."""

    NESTS = frozenset({"ul", "ol", "li", "blockquote", "table", "pre"})

    def __init__(self, html: str):
        super().__init__()
        self.open: list[str] = []
        self.places: dict[str, tuple[str, ...]] = {}
        self.quotes = 0
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        if tag in self.NESTS:
            self.open.append(tag)
            self.quotes += tag == "blockquote"

    def handle_endtag(self, tag):
        if tag in self.NESTS:
            self.open.pop()

    def handle_data(self, data):
        for word in data.split():
            self.places[word.strip(".")] = tuple(self.open)


def test_blocks_inside_list_items_and_quotes_stay_inside_them():
    """A paragraph, table, code block, quote or list inside a list item is indented under the item's text, and
    the blank line between two blocks of a quote keeps its ">": each word renders inside the same lists,
    items and quotes as in the reader, and a quote of two paragraphs stays one quote. Written at the quote's
    column, a table ended its list and the list after it turned into an indented code block."""
    r = article(
        "<article><p>Before the lists.</p><ul><li>alpha<p>beta paragraph</p><table><tr><th>gamma</th>"
        "<th>delta</th></tr><tr><td>epsilon</td><td>zeta</td></tr></table><pre>eta code</pre><ul><li>theta<ol>"
        "<li>iota</li></ol></li></ul></li><li>kappa<blockquote><p>lambda</p><p>mu</p><ul><li>nu<p>xi</p></li>"
        "</ul></blockquote></li></ul><blockquote><p>omicron</p><p>pi</p></blockquote><p>rho after.</p></article>"
    )
    reader, shown = Places(r.html), Places(commonmark_gfm().render(r.markdown))
    assert reader.places["xi"] == ("ul", "li", "blockquote", "ul", "li") and reader.places["eta"][-1] == "pre"
    assert shown.places == reader.places
    assert shown.quotes == reader.quotes == 2


LAYOUT = (
    "<article><table><tr><td></td><td><h3>The spring classics</h3> Dateline: 03/09 <p>Ten races in the spring and"
    " fall, the points to the top twenty-five.</p><p>Here are this year's races:</p><table><tr><td><p><strong>"
    "Milan-San Remo, Italy</strong></p></td></tr><tr><td><strong>Distance: </strong>294 km</td><td><strong>When:"
    "</strong> Sat, March 20</td></tr></table></td></tr></table></article>"
)


def test_a_page_laid_out_in_a_table_is_written_as_its_blocks():
    """A table that lays the page out (it holds another table, or a heading, or one column, or a cell of prose)
    is its cells' blocks in reading order; a table of data inside it stays a table. As one GFM cell, the
    article's headings and paragraphs ran together: "25th place.Last year's"."""
    md = article(LAYOUT).markdown
    assert md.startswith(
        "### The spring classics\n\nDateline: 03/09\n\nTen races in the spring and fall, the points to the top"
        " twenty-five.\n\nHere are this year's races:\n\n| **Milan-San Remo, Italy** |  |\n|---|---|\n"
        "| **Distance:** 294 km | **When:** Sat, March 20 |\n"
    ), md
    shown = render(md)
    assert [h.text() for h in shown.css("h3")] == ["The spring classics"] and len(shown.css("table")) == 1


PROSE = " ".join(["The column of the page's own text goes on."] * 13)  # 104 words: more than a value


@pytest.mark.parametrize(
    "markup, markdown",
    [
        ("<table><tr><td>First line.</td></tr><tr><td>Second line.</td></tr></table>", "First line.\n\nSecond line."),
        (f"<table><tr><td>Menu</td><td>{PROSE}</td></tr></table>", f"Menu\n\n{PROSE}"),
        ("<table><tr><td>Menu</td><td>Short value</td></tr></table>", "| Menu | Short value |\n|---|---|"),
    ],
    ids=["one column", "a cell of prose", "data"],
)
def test_a_layout_table_is_told_from_a_table_of_data(markup, markdown):
    assert article("<article><p>Words before.</p>" + markup + "</article>").markdown == (
        "Words before.\n\n" + markdown + "\n"
    )


@pytest.mark.parametrize(
    "markup, markdown",
    [
        # a cell's paragraphs and list items: one line, a blank between them
        (
            "<table><tr><th>Key</th><th>Value</th></tr><tr><td><p>one</p><p>two</p></td><td><ul><li>a</li>"
            "<li>b</li></ul></td></tr></table>",
            "| Key | Value |\n|---|---|\n| one two | a b |",
        ),
        # an item's text after its nested list: a paragraph of the item, after the list, not glued to its text
        (
            "<ul><li>item <b>bold</b> end<ul><li>sub</li></ul>tail <i>it</i></li></ul>",
            "- item **bold** end\n  - sub\n\n  tail *it*",
        ),
        # a definition's code stays code
        (
            "<dl><dt>accumulate()</dt><dd><p>Roughly:</p><pre>def f():\n    pass</pre></dd></dl>",
            "accumulate()\n\nRoughly:\n\n```\ndef f():\n    pass\n```",
        ),
        # an item opening with its picture: the picture on the bullet's line, before the text
        (
            '<ul><li><img src="/a.png" alt="A"> Across the marsh</li></ul>',
            "- ![A](https://e.example/a.png) Across the marsh",
        ),
        # a card: its title a heading on the bullet's line, its text under it
        (
            "<ul><li><h3>Moving</h3><p>We move your things.</p></li><li><h3>Storage</h3><p>We keep them.</p></li></ul>",
            "- ### Moving\n\n  We move your things.\n\n- ### Storage\n\n  We keep them.",
        ),
        # a card with an icon: the icon on the bullet's line, the title and text under it
        (
            '<ul><li><img src="/van.svg" alt="Van"><h3>Moving</h3><p>We move your things.</p></li></ul>',
            "- ![Van](https://e.example/van.svg)\n\n  ### Moving\n\n  We move your things.",
        ),
        # one opening with a figure: the text on the bullet, the figure under it
        (
            '<ul><li><figure><img src="/a.png" alt="A"><figcaption>The marsh</figcaption></figure>'
            "<p>Across the marsh</p></li></ul>",
            "- Across the marsh\n\n  ![A](https://e.example/a.png)\n\n  *The marsh*",
        ),
        # a pull quote in a figure is a quote, not a caption
        (
            "<figure><blockquote><p>Quoted words.</p></blockquote><figcaption>Someone</figcaption></figure>",
            "> Quoted words.\n\n*Someone*",
        ),
    ],
)
def test_no_text_is_glued_to_the_next_nor_loses_its_block(markup, markdown):
    assert (
        article("<article><p>Words before.</p>" + markup + "</article>").markdown
        == "Words before.\n\n" + markdown + "\n"
    )


def test_a_picture_in_a_sentence_stays_in_the_sentence():
    md = article('<article><p>Words before.</p><p>Sunny <img src="/sun.png" alt="sun"> today.</p></article>').markdown
    assert md.splitlines()[-1].startswith("Sunny ![sun](https://e.example/sun.png) ") and md.endswith(" today.\n")


def test_math_is_tex_from_katex_annotations_and_mathml_alttext():
    md = article(
        '<article><p>Area <math><semantics><mi>r</mi><annotation encoding="application/x-tex">\\pi r^2'
        '</annotation></semantics></math> of a disc.</p><p><math display="block" alttext="E = mc^2">'
        "<mi>E</mi></math></p><p>Mass and energy.</p></article>"
    ).markdown
    assert md == "Area $\\pi r^2$ of a disc.\n\n$$E = mc^2$$\n\nMass and energy.\n"


FOOTNOTES = (
    '<article><p>A claim<sup id="r1"><a href="#n1">1</a></sup> and another<a href="#n2" '
    'class="footnote-ref" id="r2">[2]</a>, and one without its note<sup><a href="#n9">3</a></sup>.</p>'
    '<section class="footnotes"><ol><li id="n1"><p>First note. <a href="#r1">↩</a></p></li>'
    '<li id="n2">Second note. <a href="#r2">↩</a></li></ol></section></article>'
)


def test_footnotes_are_gfm_footnotes_when_both_ends_are_kept():
    md = article(FOOTNOTES).markdown
    assert md == (
        "A claim[^1] and another[^2], and one without its note[3](https://e.example/post#n9).\n\n"
        "[^1]: First note.\n\n[^2]: Second note.\n"
    )
    shown = render(md)
    assert [a.text() for a in shown.css("sup.footnote-ref a")] == ["[1]", "[2]"]
    assert [li.text().strip() for li in shown.css("li.footnote-item")] == ["First note. ↩︎", "Second note. ↩︎"]


def test_a_table_of_contents_is_not_a_list_of_footnotes():
    """Short link texts that point to list items are footnote references only where they read as marks ("1",
    "[2]", "*", "iv"): a buying guide's contents link its picks' names to the reviews, each a list item, and
    as footnotes the names left the contents and the reviews went to the end."""
    md = article(
        '<article><ol><li><a href="#ring">Ring</a> - Top for DIY installation</li><li><a href="#arlo">Arlo</a>'
        ' - Top video resolution</li></ol><ol><li id="ring"><h3>1. Ring</h3><p>Easy to set up.</p></li>'
        '<li id="arlo"><h3>2. Arlo</h3><p>Sharp pictures.</p></li></ol></article>'
    ).markdown
    assert md.startswith(
        "1. [Ring](https://e.example/post#ring) - Top for DIY installation\n"
        "2. [Arlo](https://e.example/post#arlo) - Top video resolution\n"
    ), md
    assert "[^" not in md and md.index("Easy to set up") < md.index("Sharp pictures")


@pytest.mark.parametrize(
    "markup, markdown",
    [
        ("<p>the <a href='/r'>report </a>on</p>", "the [report](https://e.example/r) on"),
        ("<p>the<a href='/r'> report</a> on</p>", "the [report](https://e.example/r) on"),
        ("<p>the <a href='/r'><b>full report </b></a>on</p>", "the [**full report**](https://e.example/r) on"),
        ("<p>an <em>odd </em>word</p>", "an *odd* word"),
    ],
)
def test_link_and_emphasis_text_keeps_its_blanks_outside(markup, markdown):
    assert article("<article>" + markup + "</article>").markdown == markdown + "\n"


def test_mathjax2_scripts_are_kept_as_tex_without_their_drawings():
    """MathJax 2 keeps a formula's TeX in `<script type="math/tex">` (`; mode=display` for display math) beside
    its drawing: the Markdown holds the TeX between $ and $$, once (not the drawing's letters, nor its MathML for
    assistive technology), the reader shows it, and no other script's text reaches the article."""
    from test_article import READER_PAGES

    r = article((READER_PAGES / "mathjax2.html").read_text(encoding="utf-8"))
    md = r.markdown
    assert "the height at time $t$ is the mean level" in md
    assert "\n\n$$h(t) = Z_0 + \\sum_{n} A_n \\cos(\\omega_n t + \\phi_n)$$\n\n" in md
    assert "constituent is $\\omega_{M_2} = 28.984^\\circ$ an hour" in md
    assert "<math" not in md and "not a formula" not in md and "MathJax.Hub" not in md and "Z+∑" not in md
    assert r.html.count("<math") == 3 and '<math display="block"><mtext>h(t) = Z_0' in r.html
    assert letters(LexborHTMLParser(r.html)) == letters(render(md))


@pytest.mark.parametrize(
    "name", ["docs-roundtrip/source.html", "extension/reader/footnotes.html", "extension/reader/table.html"]
)
def test_each_element_of_the_html_has_its_place_in_the_markdown(name):
    """`markdown_blocks`: one [start, end) per top-level element of the reader's HTML, in order, without
    overlap; each element's Markdown, rendered alone, shows its text (the reader copies a selection's blocks by
    them). A footnote list shows its notes only beside their references, so it is read with the whole."""
    from itertools import pairwise
    from pathlib import Path

    r = article((Path(__file__).parent / "pages" / name).read_text(encoding="utf-8"))
    elements = list(LexborHTMLParser(r.html).body.iter())
    spans = r.markdown_blocks
    assert len(spans) == len(elements) > 3
    assert all(a <= b <= c for (a, b), (c, _) in pairwise(spans)) and spans[-1][1] <= len(r.markdown)
    for element, (start, end) in zip(elements, spans):
        part = r.markdown[start:end]
        assert part == part.strip() and part, element.html
        if not part.startswith("[^"):
            assert letters(render(part)) == letters(LexborHTMLParser(element.html)), part
