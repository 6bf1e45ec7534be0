"""The same page, the same reader: a product page (tests/pages/extension/settle/product.html) whose accordion
collapses, whose sections slide, fade and grow in, whose badge pulses for ever, with a closed <details> and a
`content-visibility: auto` section, all while the snapshot is taken. Opened five times in each browser, it gives
the same snapshot, the same main content and the same reader text each time, and the page's animations run on
untouched."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from browser import KINDS, browser_with_host, close

OPENS = 5
# The page's script has collapsed the accordion and the observer has revealed the section: the transitions
# are running (they last 30 s).
STARTED = "() => document.querySelector('#care.collapsed') !== null && document.querySelector('.reveal.seen') !== null"
RUNNING = "() => document.getAnimations().filter((a) => a.playState === 'running').length"


def first_difference(snapshots: Counter) -> tuple:
    """The first node (or the viewport) two of the snapshots disagree on."""
    (a, _), (b, _) = list(snapshots.items())[:2]
    (nodes_a, view_a), (nodes_b, view_b) = json.loads(a), json.loads(b)
    for x, y in zip(nodes_a, nodes_b):
        if x != y:
            return x, y
    return view_a, view_b


@pytest.fixture(scope="module", params=KINDS)
def browser(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"settle-{request.param}")
    with browser_with_host(request.param, tmp, None) as b:
        yield b


def test_a_page_in_motion_reads_the_same_every_time(browser):
    snapshots, mains, texts = Counter(), Counter(), Counter()
    for _ in range(OPENS):
        page = browser.open("settle/product.html")
        page.wait_for(STARTED)
        taken = browser.live_snapshot(page)
        snapshot = json.loads(taken["snapshot"]) if isinstance(taken["snapshot"], str) else taken["snapshot"]
        snapshots[json.dumps([snapshot["nodes"], snapshot["viewport"]], sort_keys=True)] += 1
        # the page's animations are where the snapshot found them, still running
        assert page.evaluate(RUNNING) == 6
        reply = browser.run("reader", page)
        assert reply["ok"], reply
        mains[tuple(reply["node_ids"])] += 1
        texts[reply["article"]["text"]] += 1
        close(page)
    assert len(snapshots) == 1, (
        f"{len(snapshots)} different snapshots in {OPENS} opens: "
        f"{sorted(snapshots.values())}; first difference: {first_difference(snapshots)}"
    )
    assert len(mains) == 1 and len(texts) == 1, (sorted(mains.values()), sorted(texts.values()))
    text = next(iter(texts))
    assert "heavy, close-woven throw of pure new wool" in text and "rebuilt by the family" in text
