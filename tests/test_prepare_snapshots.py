"""export.prepare on recorded snapshots: a split's snapshots come from a msgpack corpus, gold and labels from
the data records, pages missing from the corpus left out."""

from __future__ import annotations

from native_host import corpus
from native_host.snapshot import snapshot_from_html
from tiny_data import BRIDGE, GARDEN, article_page, write_tiny_data


def test_prepare_reads_recorded_snapshots(tmp_path, monkeypatch):
    monkeypatch.setenv("PITH_DATA", str(write_tiny_data(tmp_path / "data")))
    recorded = tmp_path / "dev.msgpack"
    with corpus.Writer(recorded) as w:
        w.add({"id": "cleaneval/dev-1", "snapshot": snapshot_from_html(article_page("Growing tomatoes", GARDEN))})
        # what the browser saw differs from the stored HTML: one more paragraph, which must reach the page
        w.add({"id": "wcxb/dev-1",
               "snapshot": snapshot_from_html(article_page("A bridge opens", BRIDGE + ["Recorded only here."]))})
    from export.prepare import prepare

    pages = {p.id: p for p in prepare(tmp_path / "out", workers=1, snapshots={"dev": recorded})}
    assert set(pages) == {"cleaneval/dev-1", "wcxb/dev-1", "cleaneval/train-1"}  # wcxb/dev-2 was not recorded
    bridge = pages["wcxb/dev-1"]
    assert "Recorded only here." in bridge.texts
    main = dict(zip(bridge.texts, bridge.labels[:, 0]))
    assert main["Recorded only here."] == 0 and main[BRIDGE[0]] == 1  # gold from the record, aligned as ever
    html_pages = {p.id: p for p in prepare(tmp_path / "out-html", workers=1)}
    assert pages["cleaneval/dev-1"].texts == html_pages["cleaneval/dev-1"].texts
    assert (pages["cleaneval/dev-1"].labels == html_pages["cleaneval/dev-1"].labels).all()


def test_strip_live_drops_only_the_render_fields():
    live = {"format": "pith-snapshot", "nodes": [{"id": 0, "tag": "p", "visible": True, "box": [0, 0, 1, 1],
                                                  "font_size": 16, "font_weight": 400, "display": "block"}]}
    assert corpus.strip_live(live)["nodes"] == [{"id": 0, "tag": "p"}] and live["nodes"][0]["visible"] is True
