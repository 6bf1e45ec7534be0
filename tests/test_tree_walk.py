"""The compiled snapshot walk (native_host/pipeline/tree_walk.pyx) gives the Python walk's snapshot, to the
last field, on every page here and on hostile and generated ones; and it is in use wherever it was built."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from compiled_support import compiled_module, pure_python_prints
from hypothesis import given, settings
from hypothesis import strategies as st

from native_host import limits
from native_host.pipeline import snapshot as snapshot_module
from native_host.pipeline.snapshot import snapshot_from_html

PAGES = Path(__file__).parent / "pages"

tree_walk = compiled_module("tree_walk")

needs_compiled = pytest.mark.skipif(tree_walk is None, reason="the compiled walk is not built here")


def both(html, url=None, charset=None) -> tuple[dict, dict]:
    """The snapshot from the compiled walk and from the Python walk."""
    assert snapshot_module._compiled is not None
    compiled = snapshot_from_html(html, url=url, charset=charset)
    saved, snapshot_module._compiled = snapshot_module._compiled, None
    try:
        python = snapshot_from_html(html, url=url, charset=charset)
    finally:
        snapshot_module._compiled = saved
    return compiled, python


def assert_same(html, url="https://example.com/dir/page.html", charset=None):
    for address in (url, None):
        compiled, python = both(html, address, charset)
        assert compiled == python
        assert [list(n) for n in compiled["nodes"]] == [list(n) for n in python["nodes"]]  # field order too


@needs_compiled
def test_the_compiled_walk_is_in_use_where_it_is_built():
    """Built for this selectolax, it must have passed its probe: a failed probe means a layout changed."""
    import selectolax

    if selectolax.__version__ != tree_walk.SELECTOLAX_VERSION:
        pytest.skip(f"built for selectolax {tree_walk.SELECTOLAX_VERSION}, {selectolax.__version__} installed")
    assert snapshot_module._compiled is tree_walk


def test_pith_pure_python_keeps_the_python_walk():
    assert pure_python_prints("from native_host.pipeline import snapshot; print(snapshot._compiled is None)") == [
        "True"
    ]


@needs_compiled
@pytest.mark.parametrize("path", sorted(p.relative_to(PAGES).as_posix() for p in PAGES.rglob("*.htm*")))
def test_every_page_here_gives_the_same_snapshot(path):
    assert_same((PAGES / path).read_bytes())


SENTENCE = "The old mill by the river still grinds flour for the valley every autumn. "

HOSTILE = {
    "deep_nesting": "<div>" * 3000 + "<p>" + SENTENCE + "</p>" + "</div>" * 3000,
    "deep_unclosed": "<span><b><i>" * 1500 + SENTENCE,
    "broken": "<p>a<div>b</p></div><table><tr><td>c<p>d</table><li>e<li>f</ul><a href=x><a href=y>g</a>"
    "<<<>>><p <!-- x --><!DOCTYPE html><html><body><p>late</body></html><frameset><frame>",
    "frameset": "<html><head><title>F</title></head><frameset cols='50%,50%'><frame src='/f.html'></frameset>"
    "<noframes><p>No frames.</p></noframes></html>",
    "svg_mathml": "<svg viewBox='0 0 1 1'><clipPath><circle/></clipPath><foreignObject><p>in</p></foreignObject>"
    "</svg><math><mi>x</mi><annotation-xml encoding='text/html'><p>h</p></annotation-xml>"
    "<mtext definitionURL=u xlink:href=v>t</mtext></math><math alttext=' x^2 '><mi>x</mi></math>"
    "<math alttext=' '></math><p alttext=no>" + SENTENCE + "</p>",
    "unicode": "<h1>\u202egnp.exe</h1><p>\u202e" + SENTENCE + "\u202c \u2066iso\u2069 \x00nul \ufeff\u200d</p>"
    "<p>Z" + "\u0336\u0337" * 500 + "</p><p>\ud800 lone</p><p>\U0001f600 pair</p>",
    "whitespace": "<p> </p><p>\xa0</p><p>\u3000\u2009</p><p>\x1c\x1f\x0b</p><p>\x85</p><pre>  \n\xa0 </pre>"
    "<pre><b> </b>\n<code>\u3000</code></pre><textarea> a </textarea><p>\r\n\t\f</p>",
    "lazy_images": "<img src='data:image/gif;base64,R0' data-src=' /real.jpg '><img data-lazy-src=l.png>"
    "<img data-original=o.png><img srcset='a.jpg 1x, b.jpg 2x'><img data-srcset='c.jpg 300w, d.jpg'>"
    "<picture><source srcset='p.jpg 2x'><source data-srcset='q.jpg 3x'><!-- c -->"
    "<img src='data:x' alt=' picture '></picture><picture><img src=' plain.png '></picture>"
    "<img src='http://[bad/x.png'><img><img alt=''><img src=''>",
    "hidden": "<div hidden>a</div><div aria-hidden=' TRUE '>b</div><div aria-hidden=false>c</div>"
    "<p style='color:red;DISPLAY: NONE !important'>d</p><p style='visibility:hidden'>e</p>"
    "<p style='display:nonex'>f</p><input type=Hidden><input type=text><INPUT TYPE=HIDDEN>"
    "<p style>g</p><p hidden=false>h</p>",
    "attributes": "<div CLASS=' a  b\tc ' ID=' x ' role='' aria-label=' l ' itemprop=p itemscope itemtype=' t '"
    " class=second id=second>a</div><div itemtype=t>no scope</div><div class=''>e</div>"
    "<div class='" + " ".join(f"c{i}" for i in range(50)) + "'>many</div>"
    "<a href=' /rel?q#f ' rel=' nofollow '>l</a><a>no href</a><a href>empty</a>"
    "<time datetime=' 2020-01-02 '>t</time><time>none</time><x-el data-src=d role=r>custom</x-el>"
    "<lit-timestamp publishdate=' 2024-03-05T10:00:00-05:00 '></lit-timestamp><p data-date=''"
    " date-time=x data-timestamp=y>dated</p><picture><source srcset=s.jpg><img data-published=p>"
    "</picture><time datetime=' ' data-date=d>blank first</time>"
    "<div id='" + "i" * 5000 + "' class='" + "k" * 5000 + "'>huge</div>"
    "<a href='javascript:void(0)'>js</a><a href='http://[::1]:x/'>bad</a><a href='//cdn.example/x'>"
    "proto</a><a href='https://other.example/?'>q</a><svg><a xlink:href=xl href=h>s</a></svg>",
    "custom_and_odd_tags": "<my-element><another-one-with-a-very-long-name-past-the-limit-of-sixty-four-chars-x>"
    "text</another-one-with-a-very-long-name-past-the-limit-of-sixty-four-chars-x>"
    "</my-element><SEARCH>s</SEARCH><selectedcontent>c</selectedcontent><blink>b</blink>"
    "<video><p>leaf</p></video><select><option>o</select><iframe>i</iframe><canvas>c</canvas>"
    "<template><p>t</p></template><noscript><p>ns</p></noscript><object>o</object>",
    "skipped": "<script>var x = '<p>no</p>';</script><style>p{}</style><head><title>late</title></head><p>y</p>"
    "<?php echo 1 ?><!-- comment --><![CDATA[ data ]]>",
    "menu": "<ul>" + "".join(f"<li><a href='/p/{i % 7}'>page {i}</a></li>" for i in range(300)) + "</ul>",
    "empty": "",
}


@needs_compiled
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_pages_give_the_same_snapshot(name):
    html = HOSTILE[name]
    assert_same(html)
    assert_same(
        f"<!doctype html><html lang=' en-GB ' dir=RTL><head><title> t </title>"
        f"<base href='/sub/'></head><body>{html}</body></html>"
    )


@needs_compiled
@pytest.mark.parametrize("encoding", ["utf-8", "cp1252", "utf-16", "shift_jis", "koi8-r"])
def test_encoded_pages_give_the_same_snapshot(encoding):
    text = "<p>Caf\u00e9 \u2014 na\u00efve \u00e6\u00f8\u00e5</p>" if encoding != "shift_jis" else "<p>\u65e5\u672c</p>"
    if encoding == "koi8-r":
        text = "<p>\u041f\u0440\u0438\u0432\u0435\u0442</p>"
    data = f"<html><head><meta charset={encoding}></head><body>{text}</body></html>".encode(encoding)
    assert_same(data)
    assert_same(data, charset=encoding)
    assert_same(b"<p>bad \xff\xfe utf-8 \xc3</p>")


@needs_compiled
@pytest.mark.parametrize(
    "limit, value",
    [
        ("MAX_NODES", 50),
        ("MAX_NODE_TEXT", 30),
        ("MAX_TOTAL_TEXT", 200),
        ("MAX_ATTR_CHARS", 3),
        ("MAX_CLASSES", 2),
        ("MAX_TAG_CHARS", 2),
    ],
)
def test_the_limits_cut_both_walks_alike(monkeypatch, limit, value):
    monkeypatch.setattr(limits, limit, value)
    for html in (
        HOSTILE["menu"],
        HOSTILE["attributes"],
        HOSTILE["custom_and_odd_tags"],
        "<p>" + "a" * 100 + "</p>" * 3 + ("<p>" + SENTENCE + "</p>") * 20,
    ):
        compiled, python = both(html, "https://example.com/")
        assert compiled == python
    if limit in ("MAX_NODES", "MAX_TOTAL_TEXT"):
        assert both(HOSTILE["menu"])[0].get("truncated") is True


@needs_compiled
def test_a_tag_id_not_learnt_sends_the_page_to_the_python_walk(monkeypatch):
    def refuse(*args):
        raise tree_walk.UnknownName("not learnt")

    fake = type("Fake", (), {"walk": staticmethod(refuse), "UnknownName": tree_walk.UnknownName})
    monkeypatch.setattr(snapshot_module, "_compiled", fake)
    assert snapshot_from_html("<p>x</p>")["nodes"][-1]["text"] == "x"


_TAGS = st.sampled_from(
    [
        "div",
        "p",
        "span",
        "a",
        "img",
        "pre",
        "time",
        "input",
        "picture",
        "source",
        "svg",
        "math",
        "ul",
        "li",
        "table",
        "td",
        "tr",
        "b",
        "x-el",
        "script",
        "style",
        "template",
        "head",
        "title",
        "noscript",
        "select",
        "video",
        "br",
        "h1",
        "code",
        "textarea",
    ]
)
_NAMES = st.sampled_from(
    [
        "class",
        "id",
        "role",
        "aria-label",
        "itemprop",
        "itemscope",
        "itemtype",
        "href",
        "rel",
        "datetime",
        "src",
        "alt",
        "style",
        "hidden",
        "aria-hidden",
        "type",
        "data-src",
        "data-lazy-src",
        "data-original",
        "data-srcset",
        "srcset",
        "CLASS",
        "data-x",
        "title",
        "publishdate",
        "data-published",
        "date-time",
        "data-timestamp",
        "alttext",
        "width",
        "height",
    ]
)
_VALUES = st.one_of(
    st.none(),
    st.text(max_size=12),
    st.sampled_from(
        [
            " ",
            "hidden",
            "display:none",
            "true",
            " TRUE ",
            "a.jpg 2x, b.jpg 3x",
            "data:x",
            "/x",
            "http://[x/",
            "a b  c",
            "\xa0",
            "16",
            " 300px",
            "50%",
            "0",
            "2.5",
            "1234567",
        ]
    ),
)
_TEXT = st.one_of(st.text(max_size=20), st.sampled_from([" ", "\n\t", "\xa0", "\u3000", "&amp;", "&nbsp;"]))


@st.composite
def soups(draw):
    parts = []
    for _ in range(draw(st.integers(0, 40))):
        kind = draw(st.integers(0, 3))
        if kind == 0:
            attrs = "".join(
                f" {n}" if v is None else f' {n}="{v.replace(chr(34), "")}"'
                for n, v in draw(st.lists(st.tuples(_NAMES, _VALUES), max_size=4))
            )
            parts.append(f"<{draw(_TAGS)}{attrs}>")
        elif kind == 1:
            parts.append(f"</{draw(_TAGS)}>")
        else:
            parts.append(draw(_TEXT))
    return "".join(parts)


@needs_compiled
@settings(max_examples=int(os.environ.get("PITH_FUZZ_EXAMPLES", "200")), deadline=None)
@given(soups())
def test_generated_tag_soup_gives_the_same_snapshot(html):
    compiled, python = both(html, "https://example.com/a/")
    assert compiled == python
