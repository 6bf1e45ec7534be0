"""Segmentation: formatting folds into blocks, block elements split them, menus combine, ids map back."""

import pytest

from native_host import snapshot_from_html
from native_host.pipeline import blocks as blocks_module
from native_host.pipeline.blocks import PATH_DEPTH, blocks_from_snapshot


@pytest.fixture(autouse=True, params=["compiled", "python"])
def segmenter(request, monkeypatch):
    """Each rule holds for both segmenters: the compiled one where it is built, and the Python reference."""
    if request.param == "python":
        monkeypatch.setattr(blocks_module, "_segmenter", None)
    elif blocks_module._segmenter is None:
        pytest.skip("the compiled segmenter is not built here")


def blocks(html, **kw):
    return blocks_from_snapshot(snapshot_from_html(html), **kw)


def test_inline_tags_fold_into_their_block():
    (b,) = blocks("<p>Some <b>bold <i>and italic</i></b> text, <a href=/x>a link</a>.</p>")
    assert b.text == "Some bold and italic text, a link."
    assert b.link_chars == len("a link")
    assert b.tag_path == ["html", "body", "p"]


def test_a_capital_after_a_lower_case_letter_at_an_elements_edge_starts_a_word():
    """A run-in title the page's style sets apart reads as two words, not "CompetencyOur"; code and raised text
    (an identifier drawn in spans, a ™) stay joined, as do a drop cap and a word's emphasised end. A word in
    capitals, then a capitalised one, is two words too ("LUXColumbia", a brand over its product's name), but
    not a capital after a lower-case letter ("PvP" then "Co-op") nor a word's capitals over two texts."""
    got = [
        b.text
        for b in blocks(
            "<ul><li><b>Industry Competency</b>Our experts</li><li><a href=/a>Gaz Williams</a><em>Shipwreck</em>Rack</li></ul>"
            "<p>Acme<sup>TM</sup> and <code>get<span>Value</span></code>, <span>S</span>amurai, <em>Today</em>s, 3<b>D</b></p>"
            "<pre>tail<b>Head</b></pre>"
            "<ul><li><span>LUX</span>Columbia</li><li><a href=/r>RPG</a><a href=/f>Fantasy</a>, <b>X</b>Share</li>"
            "<li><b>PvP</b>Co-op, <b>NA</b><b>S</b>ASA, <b>NAS</b>A, <b>US</b>Army, <code>HTML<b>Element</b></code></li></ul>"
        )
    ]
    assert got == [
        "Industry Competency Our experts",
        "Gaz Williams Shipwreck Rack",
        "AcmeTM and getValue, Samurai, Todays, 3D",
        "tailHead",
        "LUX Columbia",
        "RPG Fantasy, X Share",
        "PvPCo-op, NASASA, NASA, US Army, HTMLElement",
    ]


def test_block_elements_split_text_of_their_parent():
    got = [b.text for b in blocks("<div>intro <p>para</p> outro</div>")]
    assert got == ["intro", "para", "outro"]


def test_node_ids_cover_owner_inline_elements_and_text():
    s = snapshot_from_html("<p>a <b>b</b></p>")
    (b,) = blocks_from_snapshot(s)
    assert [s["nodes"][i]["tag"] for i in b.node_ids] == ["p", "#text", "b", "#text"]
    assert b.owner == b.node_ids[0]


def test_br_is_a_line_break_inside_the_block():
    (b,) = blocks("<p>one<br>two</p>")
    assert b.text == "one\ntwo"


def test_tables_and_lists():
    got = blocks("<table><tr><th>h</th><td>cell <b>x</b></td></tr></table><ul><li>one</li><li>two</li></ul>")
    assert [b.text for b in got] == ["h", "cell x", "one", "two"]
    assert got[0].flags["table"] and not got[0].flags["list"]
    assert got[2].flags["list"]


def test_link_menus_combine_content_does_not():
    got = blocks(
        "<ul class=m><li><a href=/a>Home</a></li><li><a href=/b>News</a></li></ul>"
        "<div><p>First para.</p><p>Second para.</p></div>"
    )
    assert [b.text for b in got] == ["Home\nNews", "First para.", "Second para."]
    assert got[0].merged == 2
    assert [b.index for b in got] == [0, 1, 2]


def test_combine_needs_same_tag_and_classes():
    got = blocks("<ul><li class=a><a href=/a>A</a></li><li class=b><a href=/b>B</a></li></ul>")
    assert len(got) == 2
    assert len(blocks("<ul><li><a href=/a>A</a></li><li><a href=/b>B</a></li></ul>", combine=False)) == 2


def test_forms_and_media_make_no_blocks_hidden_is_flagged():
    got = blocks(
        "<form><label>Name</label><input value=x><select><option>One</option></select>"
        "<textarea>typed</textarea></form><div hidden><p>collapsed answer</p></div>"
    )
    assert [b.text for b in got] == ["Name", "collapsed answer"]
    assert got[1].flags["hidden"] and not got[0].flags["hidden"]


def test_class_path_and_depth():
    (b,) = blocks('<div id=main class="content wide"><section><p class=lead>x</p></section></div>')
    assert b.class_path == ["div.content.wide#main", "p.lead"]
    assert b.depth == 4


def test_whitespace_collapses_and_empty_blocks_vanish():
    got = blocks("<div>  \n </div><p>  a \t\n b  </p><p>\u00a0</p>")
    assert [b.text for b in got] == ["a b"]


def test_headings_flagged(page):
    got = blocks_from_snapshot(snapshot_from_html(page("article")))
    h1 = next(b for b in got if b.text == "How Tides Work")
    assert h1.flags["heading"]
    assert any(b.text.startswith("Twice a day") and b.flags["paragraph"] for b in got)


def test_deep_nesting_segments_without_recursion():
    html = "<ul>" + "<div>" * 10_000 + "deep" + "</div>" * 10_000 + "</ul>"
    (b,) = blocks(html)
    assert b.text == "deep" and b.depth > 10_000
    assert b.tag_path == ["div"] * PATH_DEPTH and b.flags["list"]  # the nearest ancestors; flags see all


def test_many_blocks_under_deep_nesting_cost_no_more_than_their_nearest_ancestors():
    """1,500 blocks under 2,000 levels: building each block's whole path cost depth x blocks (10 s on a real
    page damaged this way), so paths stop PATH_DEPTH ancestors up."""
    html = "<div class='wrap'>" * 2_000 + "".join(f"<p class='c{i}'>block {i}</p>" for i in range(1_500))
    got = blocks(html)
    assert len(got) == 1_500 and all(len(b.tag_path) == PATH_DEPTH for b in got)
    assert got[7].class_path == ["div.wrap"] * (PATH_DEPTH - 1) + ["p.c7"]
