"""bench.live: models side by side on HTML, live and stripped-live snapshots of the same recorded pages."""

from __future__ import annotations

from tiny_data import BRIDGE, article_page, write_tiny_data

from bench import live as bench_live
from export import recordings
from native_host.pipeline.inference import default_model_dir
from native_host.pipeline.snapshot import snapshot_from_html


def test_two_models_score_the_same_recorded_pages_on_three_inputs(tmp_path, monkeypatch):
    monkeypatch.setenv("PITH_DATA", str(write_tiny_data(tmp_path / "data")))
    recorded = tmp_path / "dev.msgpack"
    snapshot = snapshot_from_html(article_page("A bridge opens", BRIDGE))
    for node in snapshot["nodes"]:
        if node["tag"] != "#text":
            node.update(visible=True, box=[0, 0, 800, 20], font_size=16.0, font_weight=400.0, display="block")
    with recordings.Writer(recorded) as w:
        w.add({"id": "wcxb/dev-1", "snapshot": snapshot})
    rows, columns = bench_live.score(recorded, bench_live.parse_models(["a=" + str(default_model_dir()), "shipped"]))
    assert columns == [f"{m}: {c}" for m in ("a", "shipped") for c in bench_live.INPUTS]
    assert [dataset for dataset, _ in rows] == ["wcxb"]  # only the recorded page is scored
    f1s = rows[0][1]
    assert f1s["a: html"] == f1s["shipped: html"] and 0.5 < f1s["shipped: live"] <= 1.0
    md = bench_live.table(rows, columns)
    assert "| wcxb | 1 |" in md and "| all | 1 |" in md and "shipped: live, stripped" in md


def test_page_rows_carry_the_page_type_for_the_by_type_table(tmp_path, monkeypatch):
    """--jsonl writes evaluate-shaped rows, one per page and input, that bench.by_type reads."""
    import io
    import json

    from bench import by_type

    monkeypatch.setenv("PITH_DATA", str(write_tiny_data(tmp_path / "data")))
    recorded = tmp_path / "dev.msgpack"
    with recordings.Writer(recorded) as w:
        w.add({"id": "wcxb/dev-1", "snapshot": snapshot_from_html(article_page("A bridge opens", BRIDGE))})
    out = io.StringIO()
    bench_live.score(recorded, bench_live.parse_models([]), out)
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["extractor"] for r in rows] == [f"pith@{c}" for c in bench_live.INPUTS]
    assert {r["id"] for r in rows} == {"wcxb/dev-1"} and all(0 <= r["recall"] <= 1 for r in rows)
    path = tmp_path / "live.jsonl"
    path.write_text(out.getvalue())
    table = by_type.table(by_type.read_rows(path), ["pith@live", "pith@html"])
    assert "| wcxb | 1 |" in table
