"""bench.class_words: a class word is credited with the F1 change of its blocks, page by page, and counted by the
sites it moves: the audit behind the class-word rules."""

from __future__ import annotations

import argparse

from host_support import write_standin_model
from tiny_data import BRIDGE, article_page, write_tiny_data

from bench import out_of_fold
from bench.class_words import audit_page, class_words, summarise
from export import recordings
from native_host import Extractor
from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.pipeline.snapshot import snapshot_from_html

STORY = "The harbour master opened the new lock gates this morning after two years of repairs."
PROMO = "Subscribe today and save forty percent on every issue of the quarterly magazine."


def page(site: str, promo_class: str = "promo-strip") -> dict:
    html = (
        f"<html><body><main><h1>Lock gates</h1><p>{STORY}</p><p>{STORY} Again.</p>"
        f'<div class="{promo_class}"><p>{PROMO}</p></div><p class="spec_note">Gates: 4</p></main></body></html>'
    )
    return {
        "id": f"t/{site}",
        "dataset": "t",
        "site": site,
        "page_type": None,
        "html": html,
        "main_text": f"{STORY}\n{STORY} Again.\nGates: 4",
    }


def test_class_words_are_the_class_names_split_below_body():
    snapshot = snapshot_from_html(
        '<body class="home-page"><div class="share-count lg:hidden x1"><p>Shared 12 times by readers today.</p></div>'
    )
    (block,) = blocks_from_snapshot(snapshot)
    assert class_words(block) == {"share", "count", "hidden"}
    assert class_words(block, whole=True) == {"share-count", "lg:hidden"}  # "x1" too short to name anything


def test_dropping_a_kept_promo_gains_on_every_site_and_adding_a_dropped_spec_too(tmp_path):
    """The stand-in model keeps every block of 55 characters or more: the promo, not the short spec line."""
    extractor = Extractor(write_standin_model(tmp_path / "m"))
    dropped = [audit_page(extractor, page(site), "drop") for site in ("a", "b")]
    assert all(row is not None and row["changes"]["promo"] > 0 for row in dropped)
    promo = next(w for w in summarise(dropped) if w.word == "promo")
    assert (promo.pages_up, promo.pages_down, promo.sites_up, promo.sites_down) == (2, 0, 2, 0)
    assert promo.mean > 0 and "spec" not in {w.word for w in summarise(dropped)}

    added = [audit_page(extractor, page(site), "add") for site in ("a", "b")]
    found = {w.word: w for w in summarise(r for r in added if r is not None)}
    assert found["spec"].mean > 0 and found["spec"].sites_up == 2 and "promo" not in found


def test_a_word_one_site_gains_on_and_another_loses_on_is_counted_both_ways(tmp_path):
    extractor = Extractor(write_standin_model(tmp_path / "m"))
    gains = audit_page(extractor, page("a"), "drop")
    loses = audit_page(extractor, {**page("b"), "main_text": f"{STORY}\n{STORY} Again.\n{PROMO}"}, "drop")
    promo = next(w for w in summarise([gains, loses]) if w.word == "promo")  # type: ignore[list-item]
    assert (promo.sites_up, promo.sites_down) == (1, 1)


def test_a_page_without_gold_words_is_not_audited(tmp_path):
    extractor = Extractor(write_standin_model(tmp_path / "m"))
    assert audit_page(extractor, {**page("a"), "main_text": " "}) is None


def test_with_snapshots_the_audit_reads_the_page_the_browser_recorded(tmp_path, monkeypatch):
    """--snapshots: a page is audited as recorded (here with a chat box its HTML does not hold, which the
    stand-in model keeps and the gold does not), a recording that did not render is left out, and so is a
    page with no recording; the HTML path reads the same page without the box."""
    monkeypatch.setenv("PITH_DATA", str(write_tiny_data(tmp_path / "data")))
    chat = "<div class='chat-launcher'><p>Questions about your order? Our team answers within the hour.</p></div>"
    recorded = tmp_path / "recorded.msgpack"
    with recordings.Writer(recorded) as w:
        w.add({"id": "wcxb/dev-1", "snapshot": snapshot_from_html(article_page("A bridge opens", BRIDGE) + chat)})
        w.add({"id": "cleaneval/dev-1", "snapshot": snapshot_from_html("<body><p>Loading the page...</p></body>")})
    model = write_standin_model(tmp_path / "m")
    args = argparse.Namespace(model=model, folds=None, split="dev", datasets=None, snapshots=recorded)
    (extractor, record), *more = list(out_of_fold.pages(args))
    assert record["id"] == "wcxb/dev-1" and not more  # cleaneval/dev-1 did not render; wcxb/dev-2 is not recorded
    row = audit_page(extractor, record, "drop")
    assert row is not None and row["changes"]["chat"] > 0 and row["changes"]["launcher"] > 0
    from_html = audit_page(extractor, {k: v for k, v in record.items() if k != "snapshot"}, "drop")
    assert from_html is not None and "chat" not in from_html["changes"]
