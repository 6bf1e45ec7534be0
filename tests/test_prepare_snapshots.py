"""export.prepare on recorded snapshots: a split's snapshots come from a msgpack corpus, gold and labels from
the data records, pages missing from the corpus left out."""

from __future__ import annotations

from tiny_data import BRIDGE, GARDEN, article_page, write_tiny_data

from export import recordings
from native_host.pipeline import features as F
from native_host.pipeline.snapshot import snapshot_from_html


def test_prepare_reads_recorded_snapshots(tmp_path, monkeypatch):
    monkeypatch.setenv("PITH_DATA", str(write_tiny_data(tmp_path / "data")))
    recorded = tmp_path / "dev.msgpack"
    with recordings.Writer(recorded) as w:
        w.add({"id": "cleaneval/dev-1", "snapshot": snapshot_from_html(article_page("Growing tomatoes", GARDEN))})
        # what the browser saw differs from the stored HTML: one more paragraph, which must reach the page
        w.add(
            {
                "id": "wcxb/dev-1",
                "snapshot": snapshot_from_html(article_page("A bridge opens", BRIDGE + ["Recorded only here."])),
            }
        )
    from export.prepare import prepare

    pages = {p.id: p for p in prepare(tmp_path / "out", workers=1, snapshots={"dev": recorded})}
    # wcxb/dev-2 was not recorded; the train split keeps its HTML snapshots
    assert set(pages) == {"cleaneval/dev-1", "wcxb/dev-1", "cleaneval/train-1", "wcxb/dev-3"}
    bridge = pages["wcxb/dev-1"]
    assert "Recorded only here." in bridge.texts
    main = dict(zip(bridge.texts, bridge.labels[:, 0]))
    assert main["Recorded only here."] == 0 and main[BRIDGE[0]] == 1  # gold from the record, aligned as ever
    html_pages = {p.id: p for p in prepare(tmp_path / "out-html", workers=1)}
    assert pages["cleaneval/dev-1"].texts == html_pages["cleaneval/dev-1"].texts
    assert (pages["cleaneval/dev-1"].labels == html_pages["cleaneval/dev-1"].labels).all()


def test_strip_live_drops_only_the_render_fields():
    live = {
        "format": "pith-snapshot",
        "nodes": [
            {
                "id": 0,
                "tag": "p",
                "visible": True,
                "box": [0, 0, 1, 1],
                "font_size": 16,
                "font_weight": 400,
                "display": "block",
            }
        ],
    }
    assert recordings.strip_live(live)["nodes"] == [{"id": 0, "tag": "p"}] and live["nodes"][0]["visible"] is True


def test_mix_keeps_the_html_page_and_adds_the_recorded_one(tmp_path, monkeypatch):
    monkeypatch.setenv("PITH_DATA", str(write_tiny_data(tmp_path / "data")))
    recorded = tmp_path / "train.msgpack"
    live = snapshot_from_html(article_page("Growing tomatoes", GARDEN + ["Seen in the browser only."]))
    for node in live["nodes"]:
        if node["tag"] != "#text":
            node["visible"] = True  # a live field, as a rendered page has
    with recordings.Writer(recorded) as w:
        w.add({"id": "cleaneval/train-1", "snapshot": live})
    from export.prepare import prepare

    pages = prepare(tmp_path / "out", workers=1, snapshots={"train": recorded}, mix=True)
    train = sorted((p for p in pages if p.id == "cleaneval/train-1"), key=lambda p: p.source)
    assert [p.source for p in train] == ["html", "live"]
    assert "Seen in the browser only." in train[1].texts and "Seen in the browser only." not in train[0].texts
    assert (
        train[1].inputs.numeric[:, F.NUMERIC_NAMES.index("has_live")].max() == 1.0
        and train[0].inputs.numeric[:, F.NUMERIC_NAMES.index("has_live")].max() == 0.0
    )  # has_live
    assert all(p.source == "html" for p in pages if p.split == "dev")  # a split without a corpus is untouched
    # the tokenizer is learnt from the HTML pages alone, so recording pages never changes the text ids
    prepare(tmp_path / "out-html", workers=1)
    assert (tmp_path / "out" / "tokenizer.json").read_text() == (tmp_path / "out-html" / "tokenizer.json").read_text()


def test_a_recording_that_did_not_render_is_not_trained_on(tmp_path, monkeypatch):
    """An app shell recorded offline (its scripts could not load) holds none of the gold: labelled, it would
    teach that nothing on the page is content. Mixed, the page's HTML snapshot stays."""
    monkeypatch.setenv("PITH_DATA", str(write_tiny_data(tmp_path / "data")))
    recorded = tmp_path / "train.msgpack"
    shell = snapshot_from_html("<html><head><title>Growing tomatoes</title></head><body><div>Loading…</div></body>")
    with recordings.Writer(recorded) as w:
        w.add({"id": "cleaneval/train-1", "snapshot": shell})
    from export.prepare import prepare

    pages = prepare(tmp_path / "out", workers=1, snapshots={"train": recorded}, mix=True)
    assert [p.source for p in pages if p.id == "cleaneval/train-1"] == ["html"]
    assert not recordings.rendered(shell, "\n".join(GARDEN))
    assert recordings.rendered(snapshot_from_html(article_page("Growing tomatoes", GARDEN)), "\n".join(GARDEN))
