"""Highlight on a product page whose content starts below the first screen (tests/pages/extension/highlight/),
in Chromium and Firefox with the real host and the shipped model: the first outlined block is scrolled into
view, a list whose items are all main is one region (no two outline boxes overlap), and the headline is
outlined as the title. The page's small-screen summary, hidden at this width, is main content before the
headline: a first block with no box must not stop the scroll."""

from __future__ import annotations

import pytest
from browser import KINDS, browser_with_host, close

from native_host.render.reply import shape_result
from native_host.result import BlockResult, Result

# Every mark's outline box (its border box grown by the outline's offset and width), its kind and tag, the
# marks it is drawn inside (a region holding its headline), and whether it is drawn at all.
MARKS = """() => [...document.querySelectorAll('[data-pith-hl]')].map((e, index, all) => {
    const s = getComputedStyle(e);
    const r = e.getBoundingClientRect();
    const grow = s.outlineStyle === 'none' ? 0 : parseFloat(s.outlineOffset) + parseFloat(s.outlineWidth);
    return {index, inside: all.flatMap((o, i) => (o !== e && o.contains(e) ? [i] : [])),
            kind: e.getAttribute('data-pith-hl'), tag: e.localName, text: e.textContent.trim().slice(0, 40),
            shown: e.getClientRects().length > 0, drawn: s.outlineStyle !== 'none' || s.boxShadow !== 'none',
            box: [r.left - grow, r.top - grow, r.right + grow, r.bottom + grow]};
  })"""
# The first body-text region that is rendered is in the viewport once any smooth scroll has ended.
FIRST_IN_VIEW = """() => {
    const first = [...document.querySelectorAll('[data-pith-hl]')]
      .find((e) => e.getClientRects().length && e.getAttribute('data-pith-hl') !== 'title');
    const r = first.getBoundingClientRect();
    return r.top >= 0 && r.top < innerHeight && r.bottom > 0;
  }"""


@pytest.fixture(scope="module", params=KINDS)
def browser(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"highlight-{request.param}")
    with browser_with_host(request.param, tmp, None) as b:
        yield b


def overlaps(a: list[float], b: list[float], slack: float = 0.5) -> bool:
    """Whether two boxes share more than a sliver (boxes that touch meet at fractional pixels mid-scroll)."""
    return a[0] + slack < b[2] and b[0] + slack < a[2] and a[1] + slack < b[3] and b[1] + slack < a[3]


def test_highlight_scrolls_to_the_content_draws_regions_and_outlines_the_headline(browser):
    page = browser.open("highlight/product.html")
    assert page.evaluate("() => scrollY") == 0
    reply = browser.run("highlight", page)
    assert reply["ok"] and reply["highlighted"] is True, reply
    page.wait_for(FIRST_IN_VIEW)
    marks = page.evaluate(MARKS)
    shown = [m for m in marks if m["shown"]]
    assert all(m["drawn"] for m in shown), shown
    # the headline, outlined as the title
    assert [m["tag"] for m in marks if m["kind"] == "title"] == ["h1"], marks
    # the list is one region: its items are not outlined one by one
    assert not [m for m in marks if m["tag"] == "li"], marks
    assert page.evaluate("() => document.querySelector('ul.features').closest('[data-pith-hl]') !== null")
    # no two outline boxes overlap, but for a region and the headline or a heading drawn inside it
    for i, a in enumerate(shown):
        for b in shown[i + 1 :]:
            assert not overlaps(a["box"], b["box"]) or a["index"] in b["inside"] or b["index"] in a["inside"], (a, b)
    again = browser.run("highlight", page)
    assert again["ok"] and again["highlighted"] is False
    assert page.evaluate("() => document.querySelectorAll('[data-pith-hl], [data-pith-hl-run]').length") == 0
    close(page)


@pytest.mark.parametrize("main", [True, False])
def test_the_outline_names_the_headline_main_or_not(main):
    """The host's `headline` is the headline block's node ids whether or not the model calls it main; a main
    headline is outlined as the title, whatever its scores say."""
    scores = {"main": 0.9, "title": 0.1, "heading": 0.9}
    blocks = [
        BlockResult(0, [0, 1], "nav", {"main": 0.1}, False),
        BlockResult(1, [2, 3], "Headline", scores, main),
        BlockResult(2, [4, 5], "Body", {"main": 0.9}, True),
    ]
    result = Result(
        url=None,
        title="Headline",
        byline=None,
        lang=None,
        text="Body",
        markdown="",
        html="",
        node_ids=[4, 5],
        blocks=blocks,
        headline_block=1,
    )
    reply = shape_result(1, result, frozenset({"outline"}))
    assert reply["headline"] == [2, 3]
    assert reply["outline"] == ([{"node_ids": [2, 3], "kind": "title"}] if main else []) + [
        {"node_ids": [4, 5], "kind": "main"}
    ]
    result.headline_block = None
    assert shape_result(1, result, frozenset({"outline"}))["headline"] == []


# In the content scripts' world: outline the first `count` list items of the page's last snapshot as main
# blocks (as if the host had found them alone), through the highlighter itself.
SHOW_ITEMS = """async ([tabId, count]) => (await api.scripting.executeScript({target: {tabId}, args: [count],
    func: (n) => {
      const map = globalThis.__pith;
      const items = [];
      map.nodes.forEach((node, id) => { if (node.nodeType === 1 && node.localName === 'li') items.push(id); });
      const blocks = items.slice(0, n).map((id) => ({node_ids: [id], kind: 'main'}));
      return globalThis.__pithHighlight.show(blocks, map.takenAt, []);
    }}))[0].result"""


def test_some_items_of_a_list_are_one_frame_in_parts_that_never_overlap(browser):
    """Three of a list's five items: not the whole list, so the list is not the region; the three draw one
    frame, top, middle and bottom, each inside its own box."""
    page = browser.open("highlight/product.html?items")
    reply = browser.run("highlight", page)  # the stylesheet in, and the page's snapshot taken
    assert reply["ok"], reply
    assert browser.call(SHOW_ITEMS, [browser.tab_id(page), 3]) == 3
    marks = page.evaluate(MARKS)
    assert [(m["tag"], m["kind"]) for m in marks] == [("li", "main")] * 3, marks
    places = page.evaluate("() => [...document.querySelectorAll('li')].map((e) => e.getAttribute('data-pith-hl-run'))")
    assert places == ["first", "middle", "last", None, None]
    assert all(m["drawn"] for m in marks)
    for i, a in enumerate(marks):
        for b in marks[i + 1 :]:
            assert not overlaps(a["box"], b["box"]), (a, b)
    browser.run("highlight", page)  # off
    assert page.evaluate("() => document.querySelectorAll('[data-pith-hl], [data-pith-hl-run]').length") == 0
    close(page)
