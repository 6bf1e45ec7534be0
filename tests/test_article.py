"""Main blocks -> article HTML, Markdown and text; the article carries structure, never page code."""

from native_host import snapshot_from_html
from native_host.pipeline.article import build_article
from native_host.pipeline.blocks import blocks_from_snapshot

BOILER = {"Home", "Footer text", "Advert"}


def article(html, url="https://e.example/post"):
    s = snapshot_from_html(html, url=url)
    bl = blocks_from_snapshot(s)
    main = [b.text not in BOILER for b in bl]
    return build_article(s, bl, main, s["title"])


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
    assert '<figure><img src="https://e.example/cat.png" alt="A cat"><figcaption>A cat</figcaption>' in a.html
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
    assert "1. one\n2. two _it_" in md
    assert "| k | v |\n|---|---|\n| a | 1 |" in md
    assert "```\nx = 1\n  y = 2\n```" in md


def test_text_is_main_blocks_separated_by_blank_lines():
    a = article(PAGE)
    assert a.text.startswith("Big news\n\nBy Ann Smith\n\nIntro with bold, a link and a trap.\n\nFirst paragraph.")
    assert "Advert" not in a.text


def test_byline_from_classes():
    assert article(PAGE).byline == "By Ann Smith"


def test_hostile_markup_never_survives():
    a = article('<p onclick="steal()" style="x">Click <img src=x onerror=alert(1)> '
                '<a href="javascript:alert(1)">me</a> <a href="data:text/html,x">data</a></p>'
                '<script>alert(2)</script><p><iframe src="https://evil.example"></iframe>ok</p>')
    for bad in ("onclick", "onerror", "style", "javascript", "data:", "<script", "iframe", "alert"):
        assert bad not in a.html and bad not in a.markdown


def test_text_escaped_in_html():
    a = article("<p>1 &lt; 2 &amp; &lt;b&gt;not bold&lt;/b&gt;</p>")
    assert a.html == "<p>1 &lt; 2 &amp; &lt;b&gt;not bold&lt;/b&gt;</p>"


def test_nothing_main_gives_empty_article():
    s = snapshot_from_html("<p>a</p>")
    bl = blocks_from_snapshot(s)
    a = build_article(s, bl, [False], None)
    assert a.html == "" and a.markdown == "" and a.text == ""


def test_deep_nesting_renders():
    html = "<blockquote>" * 5000 + "deep words" + "</blockquote>" * 5000
    a = article(html)
    assert "deep words" in a.html and "deep words" in a.markdown


def test_page_figure_keeps_its_own_caption_only():
    a = article('<article><p>Text before the figure.</p><figure><img src="/f.png" alt="alt words">'
                '<figcaption>The real caption</figcaption></figure><p>Text after it.</p></article>')
    assert a.html.count("<figure>") == 1 and a.html.count("<figcaption>") == 1
    assert "The real caption" in a.html and "alt words</figcaption>" not in a.html


def test_relative_urls_kept_without_a_page_url_dangerous_schemes_never():
    s = snapshot_from_html('<p>See <a href="/next">next</a>, <a href=" java\tscript:alert(1)">x</a>, '
                           '<a href="vbscript:x">y</a> <img src="pic.png" alt="p"> end.</p>')
    bl = blocks_from_snapshot(s)
    a = build_article(s, bl, [True] * len(bl), None)
    assert '<a href="/next">next</a>' in a.html and 'src="pic.png"' in a.html
    assert "script" not in a.html and "script" not in a.markdown


def test_markdown_figure_keeps_caption():
    md = article('<article><p>Before.</p><figure><img src="/f.png" alt="a"><figcaption>Caption here'
                 '</figcaption></figure><p>After.</p></article>').markdown
    assert "![a](https://e.example/f.png)\n\n_Caption here_" in md
