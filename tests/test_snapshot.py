"""HTML -> snapshot v2: structure, text, encodings, hidden nodes, skipped subtrees, broken and deep markup."""

import codecs
import json

import pytest

from native_host import snapshot_from_html, validate_snapshot
from native_host.pipeline.snapshot import decode_html


def texts(snapshot):
    return [n["text"] for n in snapshot["nodes"] if n["tag"] == "#text"]


def by_tag(snapshot, tag):
    return [n for n in snapshot["nodes"] if n["tag"] == tag]


def test_page_fields_and_valid(page):
    s = snapshot_from_html(page("article"), url="https://gazette.example/science/tides")
    validate_snapshot(s)
    assert s["format"] == "pith-snapshot" and s["version"] == 2 and s["source"] == "html"
    assert s["title"] == "How Tides Work | The Coastal Gazette"
    assert s["lang"] == "en"
    assert s["viewport"] is None
    assert s["dir"] is None and s["meta"] == [] and s["links"] == [] and s["json_ld"] == []


def test_the_pages_metadata_is_carried_from_head_and_body():
    s = snapshot_from_html(
        '<html lang="ar" dir=" RTL "><head><base href="/b/"><meta property="og:title" content=" Tides ">'
        '<meta name="author" content="A. Writer"><meta charset="utf-8"><meta name="empty" content="  ">'
        '<link rel="Canonical" href="story"><link rel="stylesheet" href="s.css">'
        '<script type="application/ld+json; charset=utf-8">{"@type": "NewsArticle"}</script>'
        '<script type="text/javascript">var x = 1</script></head><body>'
        '<noscript><meta name="hidden" content="no"><link rel="author" href="/no"></noscript>'
        '<article itemscope itemtype="https://schema.org/Article"><meta itemprop="datePublished" content="2024-05-01">'
        '<a rel="author" href="/who">Ann</a> <time datetime="2024-05-01T08:00Z">May 1</time>'
        '<span itemprop="author">Ann</span><p itemtype="x">no scope</p>'
        '<lit-timestamp date-time="2023-01-01" publishdate=" 2024-03-05T10:00:00-05:00 "></lit-timestamp></article>'
        '<script type="application/ld+json">{"@type": "Person"}</script></body></html>',
        url="https://e.example/a/",
    )
    validate_snapshot(s)
    assert s["dir"] == "rtl" and s["lang"] == "ar"
    assert s["meta"] == [
        {"property": "og:title", "content": "Tides"},
        {"name": "author", "content": "A. Writer"},
        {"itemprop": "datePublished", "content": "2024-05-01"},
    ]
    assert s["links"] == [{"rel": "Canonical", "href": "https://e.example/b/story"}]
    assert s["json_ld"] == ['{"@type": "NewsArticle"}', '{"@type": "Person"}']
    node = {n["tag"]: n for n in s["nodes"] if n["tag"] != "#text"}
    assert node["article"]["itemtype"] == "https://schema.org/Article" and "itemtype" not in node["p"]
    assert node["a"]["rel"] == "author" and node["time"]["datetime"] == "2024-05-01T08:00Z"
    assert node["span"]["itemprop"] == "author"
    assert node["lit-timestamp"]["datetime"] == "2024-03-05T10:00:00-05:00"  # limits.DATE_ATTRIBUTES' order


def test_json_ld_over_the_limit_is_left_out_not_cut(monkeypatch):
    from native_host import limits

    monkeypatch.setattr(limits, "MAX_JSON_LD_CHARS", 20)
    s = snapshot_from_html(
        '<script type="application/ld+json">{"name": "a long name here"}</script>'
        '<script type="application/ld+json">{"a": 1}</script>'
    )
    assert s["json_ld"] == ['{"a": 1}'] and "truncated" not in s


def test_nested_inline_tags_keep_order_and_parents():
    s = snapshot_from_html("<p>a <b>b <i>c</i> d</b> e</p>")
    nodes = s["nodes"]
    assert [n["tag"] for n in nodes] == ["html", "body", "p", "#text", "b", "#text", "i", "#text", "#text", "#text"]
    assert "".join(texts(s)) == "a b c d e"
    i = next(n for n in nodes if n["tag"] == "i")
    assert nodes[i["parent"]]["tag"] == "b" and i["depth"] == nodes[i["parent"]]["depth"] + 1


def test_script_style_template_head_skipped_noscript_kept(page):
    s = snapshot_from_html(
        "<head><title>T</title><style>p{}</style></head><body><script>var x=1</script>"
        "<template><p>tpl</p></template><noscript><p>no js</p></noscript><p>ok</p></body>"
    )
    tags = {n["tag"] for n in s["nodes"]}
    assert not tags & {"script", "style", "template", "head", "title"}
    assert "no js" in texts(s) and "ok" in texts(s)
    assert not any("var x" in t or "tpl" in t for t in texts(s))


def test_leaf_only_elements_have_no_children():
    s = snapshot_from_html(
        "<body><svg><title>icon</title><text>x</text></svg><select><option>Pick</option></select><p>t</p></body>"
    )
    assert by_tag(s, "svg") and by_tag(s, "select")
    assert "icon" not in texts(s) and "Pick" not in texts(s)


@pytest.mark.parametrize(
    "markup",
    [
        "<div hidden>x</div>",
        '<div aria-hidden="true">x</div>',
        '<div style="color:red; display: none">x</div>',
        '<div style="visibility:hidden">x</div>',
        '<input type="hidden" value="x">',
    ],
)
def test_hidden_by_markup_is_marked(markup):
    s = snapshot_from_html(f"<body>{markup}</body>")
    element = s["nodes"][2]
    assert element.get("hidden") is True


def test_visible_elements_are_not_marked_hidden():
    s = snapshot_from_html('<body><div style="display:block" aria-hidden="false">x</div></body>')
    assert "hidden" not in s["nodes"][2]


def test_links_images_made_absolute_with_base():
    s = snapshot_from_html(
        '<head><base href="/docs/"></head><body><a href="page">p</a><a name=x>n</a>'
        '<img src="i.png" alt=" An image "></body>',
        url="https://e.example/a/b",
    )
    a, a2 = by_tag(s, "a")
    assert a["href"] == "https://e.example/docs/page" and "href" not in a2
    img = by_tag(s, "img")[0]
    assert img["src"] == "https://e.example/docs/i.png" and img["alt"] == "An image"


def test_attributes_classes_id_role():
    s = snapshot_from_html('<div class=" a  b " id="main" role="main" aria-label="Story">t</div>')
    d = by_tag(s, "div")[0]
    assert d["classes"] == ["a", "b"] and d["html_id"] == "main" and d["role"] == "main"
    assert d["aria_label"] == "Story"


def test_whitespace_only_text_becomes_one_space():
    s = snapshot_from_html("<p><a>x</a>\n   \t<a>y</a></p>")
    assert texts(s) == ["x", " ", "y"]


def test_cp1252_meta_charset(page):
    s = snapshot_from_html(page("cp1252"))
    assert "Café crème “quoted”" in texts(s)
    assert s["title"] == "Café"


def test_utf8_bom(page):
    assert "BOM über" in texts(snapshot_from_html(page("utf8-bom")))


def test_utf16_bom():
    data = "\ufeff<p>sechzehn Bit</p>".encode("utf-16-le")
    assert decode_html(data).endswith("<p>sechzehn Bit</p>")


def test_undeclared_non_utf8_falls_back_to_cp1252():
    assert "naïve" in texts(snapshot_from_html(b"<p>na\xefve</p>"))


def test_broken_html_never_raises(page):
    s = snapshot_from_html(page("broken"))
    validate_snapshot(s)
    joined = " ".join(texts(s))
    for word in ("Unclosed", "cell two", "After the mess", "trailing"):
        assert word in joined
    assert "not here" not in joined


@pytest.mark.parametrize("junk", [b"", b"\x00\x00\x00", b"<<<>>>", b"</p></div>", b"\xff\xfe\xfa", "<p>\ud800</p>"])
def test_garbage_input_gives_valid_snapshot(junk):
    validate_snapshot(snapshot_from_html(junk))


def test_deep_nesting_10000_levels():
    depth = 10_000
    html = "<div>" * depth + "deep text" + "</div>" * depth
    s = snapshot_from_html(html)
    validate_snapshot(s)
    text = by_tag(s, "#text")[0]
    assert text["text"] == "deep text" and text["depth"] > depth


def test_compact_json_for_10000_nodes():
    html = "<body>" + "".join(f'<div class="row item"><span>cell {i}</span></div>' for i in range(3400)) + "</body>"
    s = snapshot_from_html(html)
    assert len(s["nodes"]) > 10_000
    size = len(json.dumps(s, separators=(",", ":")))
    assert size < 2_000_000, size


def test_node_limit_truncates(monkeypatch):
    from native_host import limits

    monkeypatch.setattr(limits, "MAX_NODES", 50)
    s = snapshot_from_html("<body>" + "<p>x</p>" * 100 + "</body>")
    assert len(s["nodes"]) == 50 and s["truncated"] is True
    validate_snapshot(s)


def test_whitespace_inside_pre_is_kept_as_written():
    s = snapshot_from_html("<pre><span>a</span>\n\n    <span>b</span></pre><p><b>x</b>\n\n<i>y</i></p>")
    texts = [n["text"] for n in s["nodes"] if n["tag"] == "#text"]
    assert texts == ["a", "\n\n    ", "b", "x", " ", "y"]  # a code block's blank line and indentation; elsewhere " "


@pytest.mark.parametrize(
    "img, src",
    [
        ('<img src="real.png">', "real.png"),
        ('<img src="data:image/gif;base64,R0l" data-src="lazy.png">', "lazy.png"),  # a lazy loader's
        ('<img src="placeholder.png" data-src="lazy.png">', "lazy.png"),  # its real address wins
        ('<img data-lazy-src="a.png">', "a.png"),
        ('<img data-original="b.png" src="">', "b.png"),
        ('<img srcset="s.png 320w, l.png 1280w, m.png 640w">', "l.png"),  # the largest
        ('<img srcset="one.png, two.png 2x">', "two.png"),
        ('<img srcset="a.png 2x, b.png 2x">', "a.png"),  # a tie: the first
        ('<img src="data:image/gif;base64,R0l" data-srcset="d.png 1x, e.png 3x">', "e.png"),
        ('<picture><source srcset="p.webp 2x"><img src="data:,x"></picture>', "p.webp"),  # its <picture>'s
        ('<picture><source data-srcset="q.webp"><img src="fallback.png"></picture>', "fallback.png"),
        ('<img src="data:image/png;base64,AAAA">', "data:image/png;base64,AAAA"),  # nothing better
    ],
)
def test_an_image_s_source_is_the_one_a_reader_would_load(img, src):
    s = snapshot_from_html(f"<body>{img}</body>")
    assert next(n for n in s["nodes"] if n["tag"] == "img")["src"] == src


@pytest.mark.parametrize(
    "attrs, size",
    [
        ('width="16" height="16"', {"width": 16, "height": 16}),
        ('width=" 300px" height="200.7"', {"width": 300, "height": 200}),  # as a browser reads a dimension
        ('width="50%" height="auto"', {}),  # relative, or no number: the reader's own size
        ('width="0" height="100001"', {}),  # nothing, or past limits.MAX_IMAGE_PX
        ('width="0000012" height="٣"', {}),  # seven digits; a digit that is not ASCII
        ('height="40"', {"height": 40}),
    ],
)
def test_an_image_s_width_and_height_are_the_pixels_its_attributes_state(attrs, size):
    """The page's size for a picture, so the reader shows an icon at an icon's size and keeps a photo's box
    while it loads (extension/content/snapshot.js reads the attributes alike: test_extension_e2e's parity)."""
    s = snapshot_from_html(f'<body><img src="a.png" {attrs}><p width="9">x</p></body>')
    img = next(n for n in s["nodes"] if n["tag"] == "img")
    assert {k: img[k] for k in ("width", "height") if k in img} == size
    assert all("width" not in n for n in s["nodes"] if n["tag"] != "img")
    validate_snapshot(s)


def test_http_charset_beats_meta_and_a_bom_beats_both():
    page = '<meta charset="windows-1252"><p>Grüße</p>'.encode()
    assert "Grüße" in decode_html(page, charset="utf-8")  # the server's word wins over the page's
    assert "Grüße" in decode_html(page)  # without it, bytes that are UTF-8 are UTF-8
    assert "Grüße" in decode_html(page.decode().encode("cp1252"))  # and bytes that are not: the meta is believed
    assert "Grüße" in decode_html(codecs.BOM_UTF8 + page, charset="latin-1")


@pytest.mark.parametrize("charset", ["no-such-charset", "base64", "rot13", "idna", "undefined", "", "  "])
def test_unusable_http_charset_is_passed_over(charset):
    page = '<meta charset="utf-8"><p>Grüße</p>'.encode()
    assert "Grüße" in decode_html(page, charset=charset)
    assert "Grüße" in decode_html(page.replace(b"utf-8", charset.encode()), charset=charset)
