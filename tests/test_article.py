"""Main blocks -> article HTML, Markdown and text; the article carries structure, never page code."""

import json
import re
from pathlib import Path

import pytest

from native_host import snapshot_from_html
from native_host.pipeline.article import build_article
from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.pipeline.decisions import whole_units

BOILER = {"Home", "Footer text", "Advert"}


def article(html, url="https://e.example/post"):
    s = snapshot_from_html(html, url=url)
    bl = blocks_from_snapshot(s)
    main = [b.text not in BOILER for b in bl]
    return build_article(s, bl, main)


PAGE = """<html><head><title>Post</title></head><body><nav><a href="/">Home</a></nav><article>
<h1>Big news</h1><div class="byline">By Ann Smith</div>
<div>Intro with <b>bold</b>, <a href="/more">a link</a> and <a href="javascript:alert(1)">a trap</a>.
<p>First paragraph.</p><img src="/cat.png" alt="A cat"><p>Second paragraph.</p>
<ol><li>one</li><li>two <i>it</i></li></ol>
<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>
<pre>x = 1
  y = 2</pre></div></article><div class="ad">Advert</div><footer>Footer text</footer></body></html>"""


def test_html_structure_and_allowlist():
    a = article(PAGE)
    assert a.html.startswith("<h1>Big news</h1>")
    assert '<a href="https://e.example/more">a link</a>' in a.html
    assert "javascript" not in a.html and "a trap" in a.html
    assert '<img src="https://e.example/cat.png" alt="A cat">' in a.html and "<figure>" not in a.html
    assert "<ol><li>one</li>" in a.html and "<em>it</em>" in a.html
    assert "<th>k</th>" in a.html and "<td>1</td>" in a.html
    assert "<pre>x = 1\n  y = 2</pre>" in a.html
    for junk in ("Home", "Advert", "Footer", "<div", "class=", "<nav"):
        assert junk not in a.html


def test_loose_text_becomes_paragraphs_per_container():
    a = article(PAGE)
    assert "<p>By Ann Smith</p>" in a.html
    assert "<p>Intro with <strong>bold</strong>" in a.html


def test_markdown():
    md = article(PAGE).markdown
    assert md.startswith("# Big news\n\nBy Ann Smith\n\nIntro with **bold**, [a link](https://e.example/more)")
    assert "![A cat](https://e.example/cat.png)" in md
    assert "1. one\n2. two *it*" in md
    assert "| k | v |\n|---|---|\n| a | 1 |" in md
    assert "```\nx = 1\n  y = 2\n```" in md


def test_text_is_main_blocks_separated_by_blank_lines():
    a = article(PAGE)
    assert a.text.startswith("Big news\n\nBy Ann Smith\n\nIntro with bold, a link and a trap.\n\nFirst paragraph.")
    assert "Advert" not in a.text


def test_hostile_markup_never_survives():
    a = article(
        '<p onclick="steal()" style="x">Click <img src=x onerror=alert(1)> '
        '<a href="javascript:alert(1)">me</a> <a href="data:text/html,x">data</a></p>'
        '<script>alert(2)</script><p><iframe src="https://evil.example"></iframe>ok</p>'
    )
    for bad in ("onclick", "onerror", "style", "javascript", "data:", "<script", "iframe", "alert"):
        assert bad not in a.html and bad not in a.markdown


def test_text_escaped_in_html():
    a = article("<p>1 &lt; 2 &amp; &lt;b&gt;not bold&lt;/b&gt;</p>")
    assert a.html == "<p>1 &lt; 2 &amp; &lt;b&gt;not bold&lt;/b&gt;</p>"


def test_an_empty_inline_element_still_parts_the_words_around_it():
    """An element of blanks only is left out of the reader, its blank kept: a journal's "modality<sup> </sup>for"
    read "modalityfor" in the reader while its text and Markdown had the blank."""
    a = article("<p>the modality<sup> </sup>for masses, the different<span>\n</span>types<em></em>, one.</p>")
    assert a.html == "<p>the modality for masses, the different types, one.</p>"


def test_words_a_pages_style_sets_apart_are_apart_in_every_view():
    """A run-in title that the page's style shows as a block ("<b>Industry Competency</b>Our experts") read as
    "CompetencyOur" in the reader, the Markdown and the text; now each view has the words apart, as segmentation
    gives them to the model. Code and a ™ stay joined. The blank goes before the link or emphasis that a word
    opens, which starts at its word ("<em> Shipwreck</em>" underlined the blank)."""
    a = article(
        "<ul><li><b>Industry Competency</b>Our experts</li></ul>"
        "<h2><a href='/a'>Gaz Williams</a><em>Shipwreck</em>Rack</h2>"
        "<p>Dylan<a href='/t'><b>Thomas</b> reads</a>Poems</p>"
        "<p>Acme<sup>TM</sup> and <code>get<span>Value</span></code>, <span>S</span>amurai.</p>"
    )
    assert a.html == (
        "<ul><li><strong>Industry Competency</strong> Our experts</li>\n</ul>\n"
        '<h2><a href="https://e.example/a">Gaz Williams</a> <em>Shipwreck</em> Rack</h2>\n'
        '<p>Dylan <a href="https://e.example/t"><strong>Thomas</strong> reads</a> Poems</p>\n'
        "<p>Acme<sup>TM</sup> and <code>getValue</code>, Samurai.</p>"
    )
    assert a.markdown == (
        "- **Industry Competency** Our experts\n\n## [Gaz Williams](https://e.example/a) *Shipwreck* Rack\n\n"
        "Dylan [**Thomas** reads](https://e.example/t) Poems\n\n"
        "AcmeTM and `getValue`, Samurai.\n"
    )
    assert a.text == (
        "Industry Competency Our experts\n\nGaz Williams Shipwreck Rack\n\nDylan Thomas reads Poems\n\nAcmeTM and getValue, Samurai."
    )


def test_a_picture_has_the_pages_size_and_a_spacer_none():
    """The reader shows a picture at the size the page states (an icon an icon's size, a photo's box kept while
    it loads); a picture the page states to be 2 px or thinner is a spacer or a tracking pixel, in no view."""
    a = article(
        '<p>Rated <img src="star.png" alt="star" width="16" height="16"> by readers of this page.</p>'
        '<img src="spacer.gif" width="1" height="20"><img src="pixel.gif" width="1" height="1" alt="">'
        '<p>Two years<img src="s.gif" width="40" height="2"> on.</p><img src="photo.jpg" alt="Harbour" height="600">'
        "<p>The end.</p>"
    )
    assert a.html == (
        '<p>Rated <img src="https://e.example/star.png" alt="star" width="16" height="16" class="pith-inline">'
        " by readers of this page.</p>\n<p>Two years on.</p>\n"
        '<img src="https://e.example/photo.jpg" alt="Harbour" height="600"><p>The end.</p>'
    )
    assert "spacer" not in a.markdown and "gif" not in a.markdown and "![Harbour]" in a.markdown


def test_a_picture_the_page_hides_is_in_no_view_but_a_hidden_slides_is():
    """A spinner the page shows only while a vote is sent (`style="display:none"`, or `hidden`) is no picture of
    the article; a carousel's other slide, hidden from assistive technology by an ancestor, is the product's."""
    a = article(
        '<p>Voted by 44 readers<img style="display:none" class="loading" src="loading.gif" alt="Loading"> so far,'
        ' <img hidden src="wait.png" alt="Wait">and counting.</p>'
        '<div aria-hidden="true"><img src="side.jpg" alt="The lamp from the side"></div><p>The end.</p>'
    )
    assert "loading.gif" not in a.html and "wait.png" not in a.html and "Loading" not in a.markdown
    assert "![The lamp from the side](https://e.example/side.jpg)" in a.markdown


def test_nothing_main_gives_empty_article():
    s = snapshot_from_html("<p>a</p>")
    bl = blocks_from_snapshot(s)
    a = build_article(s, bl, [False])
    assert a.html == "" and a.markdown == "" and a.text == ""


def test_words_apart_under_deep_inline_nesting_cost_linear_time():
    """Where a blank goes between two words is read from each text node's ancestors: once a page, so 10,000 text
    nodes under 20,000 nested spans (a script's DOM) build in linear time, not 200 million steps."""
    nodes = [{"id": 0, "parent": -1, "depth": 0, "tag": "html"}, {"id": 1, "parent": 0, "depth": 1, "tag": "p"}]
    for k in range(20_000):
        nodes.append({"id": len(nodes), "parent": len(nodes) - 1, "depth": k + 2, "tag": "span"})
    bottom = nodes[-1]
    for _ in range(10_000):
        nodes.append(
            {"id": len(nodes), "parent": bottom["id"], "depth": bottom["depth"] + 1, "tag": "#text", "text": "Ab"}
        )
    snapshot = {"format": "pith-snapshot", "version": 2, "source": "live", "url": None, "nodes": nodes}
    bl = blocks_from_snapshot(snapshot)
    a = build_article(snapshot, bl, [True] * len(bl), {"html", "markdown"})
    assert a.text.startswith("Ab Ab Ab") and a.html.count("Ab") == 10_000


def test_deep_nesting_renders():
    html = "<blockquote>" * 5000 + "deep words" + "</blockquote>" * 5000
    a = article(html)
    assert "deep words" in a.html and "deep words" in a.markdown


def test_page_figure_keeps_its_own_caption_only():
    a = article(
        '<article><p>Text before the figure.</p><figure><img src="/f.png" alt="alt words">'
        "<figcaption>The real caption</figcaption></figure><p>Text after it.</p></article>"
    )
    assert a.html.count("<figure>") == 1 and a.html.count("<figcaption>") == 1
    assert "The real caption" in a.html and "alt words</figcaption>" not in a.html


def test_relative_urls_kept_without_a_page_url_dangerous_schemes_never():
    s = snapshot_from_html(
        '<p>See <a href="/next">next</a>, <a href=" java\tscript:alert(1)">x</a>, '
        '<a href="vbscript:x">y</a> <img src="pic.png" alt="p"> end.</p>'
    )
    bl = blocks_from_snapshot(s)
    a = build_article(s, bl, [True] * len(bl))
    assert '<a href="/next">next</a>' in a.html and 'src="pic.png"' in a.html
    assert "script" not in a.html and "script" not in a.markdown


def test_markdown_figure_keeps_caption():
    md = article(
        '<article><p>Before.</p><figure><img src="/f.png" alt="a"><figcaption>Caption here'
        "</figcaption></figure><p>After.</p></article>"
    ).markdown
    assert "![a](https://e.example/f.png)\n\n*Caption here*" in md


# What the reader view must keep right, on the pages the browser tests open (tests/pages/extension/reader/).
READER_PAGES = Path(__file__).parent / "pages" / "extension" / "reader"


def reader_article(name: str, url: str | None = None):
    """The article of a reader test page, with every block of 55 characters or more called main (what the
    stand-in model of tests/host_support.py does), so the answer does not depend on a model."""
    s = snapshot_from_html((READER_PAGES / name).read_bytes(), url=url or f"https://e.example/reader/{name}")
    bl = blocks_from_snapshot(s)
    return build_article(s, bl, whole_units(s, bl, [len(b.text) >= 55 for b in bl]))


def emitted(html: str) -> dict[str, set[str]]:
    """Every tag of `html` with the attributes it carries anywhere."""
    from html.parser import HTMLParser

    found: dict[str, set[str]] = {}

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.setdefault(tag, set()).update(name for name, _ in attrs)

    Collect().feed(html)
    return found


@pytest.mark.parametrize("name", sorted(p.name for p in READER_PAGES.glob("*.html")))
def test_the_article_holds_only_the_allowlisted_tags_and_attributes(name):
    from native_host.pipeline.article import HTML_TAGS, MATHML_TAGS

    allowed = {**HTML_TAGS, **MATHML_TAGS}
    for tag, attrs in emitted(reader_article(name).html).items():
        assert tag in allowed and attrs <= set(allowed[tag]), (tag, attrs)


def test_code_blocks_keep_whitespace_and_their_language():
    a = reader_article("docs.html")
    assert '<pre class="language-python">from tidepool import load_config, Station\n\ndef main(' in a.html
    assert '<pre><code class="language-toml"># tidepool.toml\n[station]' in a.html
    assert '<pre class="language-shell">$ tidepool check' in a.html  # GitHub's wrapper names it
    assert "```python\nfrom tidepool import load_config, Station\n\ndef main(path: str) -> None:\n" in a.markdown
    assert "\n    config = load_config(path)\n" in a.markdown and "```toml\n# tidepool.toml" in a.markdown


def test_a_code_block_holding_backticks_gets_a_longer_fence():
    a = article(
        "<html><body><article><p>" + "Words of the article around a code block. " * 3 + "</p>"
        "<pre><code class='language-md'>```js\nx\n```</code></pre><p>" + "More words. " * 6 + "</p>"
        "</article></body></html>"
    )
    assert "````md\n```js\nx\n```\n````" in a.markdown


def test_formulas_are_mathml_with_tex_in_markdown_and_no_drawn_copy():
    a = reader_article("math.html")
    assert a.html.count("<math") == 5 and 'class="katex' not in a.html
    assert "e iπ" not in a.html and "e−x2dx" not in a.html  # KaTeX's drawn copy, hidden by markup
    assert '<math display="block"><semantics>' in a.html
    assert "<annotation>e^{i\\pi}+1=0</annotation>" in a.html
    assert "Euler's identity $e^{i\\pi}+1=0$ links" in a.markdown
    assert "$$\\int_0^\\infty e^{-x^2}\\,dx = \\frac{\\sqrt{\\pi}}{2}$$" in a.markdown
    assert "the roots of a quadratic are <math><mi>x</mi>" in a.markdown  # no TeX: the MathML itself
    assert "triangle.svg" not in a.html  # Wikipedia's picture of the formula


def test_lazy_pictures_resolve_to_their_real_address_and_keep_the_pages_size():
    html = reader_article("images.html").html
    assert re.findall(r'<img src="([^"]+)"', html) == [
        "https://e.example/images/lazy.png?from=data-src",
        "https://e.example/images/lazy2.png?from=srcset-large",
        "https://e.example/images/lens.png?from=picture",
        "https://e.example/images/lazy2.png?from=data-lazy-src",
        "https://e.example/images/lens.png?from=icon",
        "https://e.example/images/lazy.png?from=sized",
    ]
    assert '<img src="https://e.example/images/lens.png?from=icon" alt="icon" width="16" height="10"' in html
    assert 'alt="sized" width="32" height="20">' in html and html.count("width=") == 2


def test_footnotes_link_both_ways_and_are_gfm_footnotes_in_markdown():
    a = reader_article("footnotes.html", url="https://e.example/essay")
    assert '<sup id="fnref1"><a href="#fn1">1</a></sup>' in a.html
    assert '<li id="fn1"><p>' in a.html and '<a href="#fnref1">' in a.html
    assert '<a href="https://e.example/essay#missing">' in a.html  # no such id in the article: the page's
    assert "distress[^1]. Many kept" in a.markdown and "rocks[^2], and" in a.markdown
    assert "\n\n[^1]: The Northern Lighthouse Board's instructions of 1830" in a.markdown
    assert "[a section that the page does not have](https://e.example/essay#missing)" in a.markdown
    assert "↩" not in a.markdown and "#fnref" not in a.markdown  # the back links: GFM writes its own


def test_a_data_table_is_kept_whole_with_its_caption_and_header():
    a = reader_article("table.html")
    assert "<caption>Tides and crossings" in a.html and a.html.count("<th>") == 7 and a.html.count("<tr>") == 5
    assert (
        "*Tides and crossings at the north pier, winter 2025 to 2026*\n\n| Month of the season | Highest" in a.markdown
        and "| November 2025 | 4.21 m on the 12th |" in a.markdown
    )


def test_a_row_keeps_every_cell_so_values_stay_under_their_column():
    html = (
        "<p>Which one to buy, measured over two weeks in the same flat.</p><table><tr><th>Model</th><th>S1</th>"
        "<th>S2</th></tr><tr><th>Mapping</th><td>—</td><td>yes</td></tr><tr><th>Price</th><td>$199</td>"
        "<td>$249</td></tr></table>"
    )
    s = snapshot_from_html(html, url="https://e.example/")
    bl = blocks_from_snapshot(s)
    a = build_article(s, bl, [b.text not in ("Mapping", "—") for b in bl])  # a cell-by-cell decision
    assert "|  |  | yes |" in a.markdown and "| Price | $199 | $249 |" in a.markdown
    assert "<tr><th></th>\n<td></td>\n<td>yes</td>" in a.html


def test_a_layout_table_is_left_to_the_model_cell_by_cell():
    page = (
        "<html><body><table><tr><td><a href='/'>Home</a> <a href='/a'>About</a></td><td><p>"
        + "The article's own paragraph, long enough to be main content on its own. " * 3
        + "</p></td></tr></table></body></html>"
    )
    s = snapshot_from_html(page, url="https://e.example/")
    bl = blocks_from_snapshot(s)
    a = build_article(s, bl, whole_units(s, bl, [len(b.text) >= 55 for b in bl]))
    assert "Home" not in a.html and "article's own paragraph" in a.html


def test_a_lead_picture_is_kept_when_its_caption_is_main():
    a = reader_article("news.html")
    assert '<figure><img src="https://e.example/reader/images/harbour.svg"' in a.html
    assert "<figcaption>The harbour light at dusk, seen from the Saltire" in a.html


def test_a_figure_is_kept_whole_image_and_caption():
    html = (
        '<article><p>Text before the figure, long.</p><figure><img src="/f.png" alt="a">'
        "<figcaption>Caption, photo: Agency</figcaption></figure><p>Text after it.</p></article>"
    )
    s = snapshot_from_html(html, url="https://e.example/")
    bl = blocks_from_snapshot(s)
    caption_only = [b.text.startswith("Caption") for b in bl]
    a = build_article(s, bl, caption_only)
    assert '<img src="https://e.example/f.png"' in a.html and "Caption, photo: Agency" in a.html
    around_only = [not c for c in caption_only]  # the image sits between main text: its caption comes too
    b = build_article(s, bl, whole_units(s, bl, around_only))
    assert "<figcaption>Caption, photo: Agency</figcaption>" in b.html


# Every kind of whitespace and control character, and the characters around them.
_AWKWARD = " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2007\u200a\u200b\u2028\u2029\u202f\u205f\u3000\x00\x7f\xadab.:/#"


def test_the_shortcuts_around_whitespace_give_what_the_regular_expressions_give():
    """`_folded` and `safe_url` skip their regular expression for printable text; on any text they answer as
    the expression does."""
    from hypothesis import example, given, settings
    from hypothesis import strategies as st

    from native_host.pipeline.article import _SPACE, _URL_IGNORED, _folded, safe_url

    def reference_safe_url(url):
        url = url.strip()  # what is written is checked: a no-break space before "www.x:" hid its scheme
        if not url:
            return None
        from native_host.pipeline.article import _SCHEME, SAFE_SCHEMES

        match = _SCHEME.match(_URL_IGNORED.sub("", url))
        return None if match and match.group(1).lower() not in SAFE_SCHEMES else url

    @settings(max_examples=400, deadline=None)
    @example("a  b", "")
    @example("two words", "https://e.example/a b")
    @example("a\u3000b\xa0c", "/p q")
    @example("\xa0www.e.example:-", "")
    @given(
        st.text(alphabet=st.sampled_from(_AWKWARD), max_size=12) | st.text(max_size=40),
        st.sampled_from(["", "https://e.example/a b", "java\tscript:x", "javascript:x", " mailto:a@b", "/p q"]),
    )
    def check(text, url):
        assert _folded(text) == _SPACE.sub(" ", text)
        for u in (text, url + text, text + url):
            assert safe_url(u) == reference_safe_url(u)

    check()


# --- nothing the model selected is lost on the way to the reader ------------------------------------------

_NOT_LETTER = re.compile(r"[\W\d_]+")


def _letters(text: str) -> str:
    """Letters only, lower-cased: renderings differ in spacing, marks, escapes and list numbers, never in these."""
    return _NOT_LETTER.sub("", text.lower())


def unshown(result) -> dict[str, list[str]]:
    """The body's blocks (its `text`, block by block) that the reader's html or the Markdown does not show,
    by view. The Markdown is rendered by a CommonMark renderer (with GFM tables and strikethrough), so that
    only the text a reader of it sees is compared, whatever its escapes and link targets."""
    from markdown_support import commonmark_gfm
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(result.html or "<p></p>")
    rendered = commonmark_gfm().render(result.markdown or "")
    markdown = LexborHTMLParser(rendered or "<p></p>").text(separator=" ")
    views = {"html": _letters(tree.text(separator=" ")), "markdown": _letters(markdown)}
    blocks = [b for b in result.text.split("\n\n") if _letters(b)]

    def shown(block: str, view: str) -> bool:
        # whole, or line by line: a picture's alt text may sit between a block's lines (links around images)
        return _letters(block) in view or all(_letters(line) in view for line in block.split("\n"))

    return {name: [b for b in blocks if not shown(b, view)] for name, view in views.items()}


def test_a_numbered_list_broken_by_an_advert_is_read_to_its_last_item(page):
    """Items 21-28 were typed as paragraphs inside the list after an advert: the Markdown showed 20."""
    from native_host import Extractor

    r = Extractor().extract_html(page("listicle"), url="https://courier.example/travel/skerry-light")
    assert "28. The volunteers" in r.text
    assert unshown(r) == {"html": [], "markdown": []}
    assert "**28. The volunteers.** The volunteers repaint the tower" in r.markdown


def test_every_block_the_model_selected_is_shown_on_every_dev_page(real_data):
    """Over the whole dev split: each block of the body is in the reader's html and in the Markdown."""
    from export.data import iter_records
    from native_host import Extractor

    extractor = Extractor()
    lost = {}
    pages = 0
    for record in iter_records(split="dev"):
        r = extractor.extract_html(record["html"], url=record.get("url"))
        pages += 1
        missing = {view: blocks for view, blocks in unshown(r).items() if blocks}
        if missing:
            lost[record["id"]] = {view: [b[:80] for b in blocks[:3]] for view, blocks in missing.items()}
    assert pages > 700
    assert lost == {}, json.dumps(lost, ensure_ascii=False, indent=1)


ALL_PAGES = Path(__file__).parent / "pages"


@pytest.mark.parametrize("path", sorted(p.relative_to(ALL_PAGES).as_posix() for p in ALL_PAGES.rglob("*.html")))
def test_the_first_screen_is_the_whole_articles_first_elements(path):
    """The reader's first part (`first_screen`) is built from the start of the page alone: its HTML must be the
    whole tree's first top-level elements, each as the whole writes it, for any main blocks and any length."""
    from random import Random

    from native_host.pipeline.article import _html, build_tree, first_screen, to_html

    s = snapshot_from_html((ALL_PAGES / path).read_bytes(), url="https://e.example/page")
    bl = blocks_from_snapshot(s)
    rng = Random(path)
    mains = [[True] * len(bl)] + [[rng.random() < 0.8 for _ in bl] for _ in range(3)]
    for main in mains:
        whole = build_tree(s, bl, main)
        for chars in (20, 100, 400, 1500):
            got = first_screen(s, bl, main, chars)
            if got is None:
                continue
            head, kept = got
            tops = [_html(whole.children[:k]).lstrip() for k in range(len(whole.children) + 1)]
            assert head in tops, (main, chars)
            assert to_html(build_tree(s, bl, main, kept)) == to_html(whole)
            text = sum(len(e.text) for top in whole.children[: tops.index(head)] for e in top.walk() if e.tag is None)
            assert text >= chars


def test_a_long_article_gives_its_first_screen_and_a_short_one_none():
    long = "<html><body><article>" + "".join(f"<p>Paragraph {i} " + "word " * 40 + "</p>" for i in range(60))
    s = snapshot_from_html(long + "</article></body></html>", url="https://e.example/long")
    bl = blocks_from_snapshot(s)
    from native_host.pipeline.article import first_screen

    head, _ = first_screen(s, bl, [True] * len(bl), 1000)
    whole = build_article(s, bl, [True] * len(bl), {"html"}).html
    assert whole.startswith(head) and 1000 < len(head) < len(whole) / 2
    assert first_screen(s, bl, [True] * len(bl), 100_000) is None


def test_the_text_keeps_a_sentence_a_picture_parts_in_one_paragraph():
    """Segmentation ends a block at an <img>, an icon's <svg>, a form control or a frame; the text view joins the
    two halves of the sentence with a blank, as the Markdown does, while blocks that a rule or another element
    parts stay paragraphs of their own."""
    a = article(
        "<article><p>Download the <img src='/pdf.png' alt='PDF'> report here, all forty pages of it.</p>"
        "<p>Or read it online on <a href='/book'>the book's site<svg><path d='M0 0'/></svg></a> as it grows.</p>"
        "<p>Tick <input type=checkbox> the box and watch <iframe src='/clip'></iframe> the clip to the end.</p>"
        "<div><font>The first part of a box<hr>and the second part of the same box</font></div></article>"
    )
    assert a.text == (
        "Download the report here, all forty pages of it.\n\n"
        "Or read it online on the book's site as it grows.\n\n"
        "Tick the box and watch the clip to the end.\n\n"
        "The first part of a box\n\nand the second part of the same box"
    )
    assert "Tick the box and watch the clip to the end." in a.markdown
