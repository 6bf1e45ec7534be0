"""bench.live: models side by side on HTML, live and stripped-live snapshots of the same recorded pages."""

from __future__ import annotations

import json

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
    rows, columns, unrendered = bench_live.score(
        recorded, bench_live.parse_models(["a=" + str(default_model_dir()), "shipped"])
    )
    assert unrendered == []
    assert columns == [f"{m}: {c}" for m in ("a", "shipped") for c in bench_live.INPUTS]
    assert [dataset for dataset, _ in rows] == ["wcxb"]  # only the recorded page is scored
    f1s = rows[0][1]
    assert f1s["a: html"] == f1s["shipped: html"] and 0.5 < f1s["shipped: live"] <= 1.0
    md = bench_live.table(rows, columns)
    assert "| wcxb | 1 |" in md and "| all | 1 |" in md and "shipped: live, stripped" in md


def test_a_recording_is_read_at_the_pages_own_address_not_the_recorders(tmp_path, monkeypatch):
    """The recorder serves each page from 127.0.0.1, where a reader's browser has the page's own address, which
    the extractor reads (a section's front page, the site's name): bench.live hands it that one."""
    from native_host.pipeline.extractor import Extractor

    monkeypatch.setenv("PITH_DATA", str(write_tiny_data(tmp_path / "data")))
    recorded = tmp_path / "dev.msgpack"
    snapshot = snapshot_from_html(article_page("A bridge opens", BRIDGE), url="http://127.0.0.1:40123/page/0")
    with recordings.Writer(recorded) as w:
        w.add({"id": "wcxb/dev-1", "snapshot": snapshot})
    seen = []
    extract = Extractor.extract_snapshot
    monkeypatch.setattr(
        Extractor, "extract_snapshot", lambda self, s, **k: seen.append(s["url"]) or extract(self, s, **k)
    )
    bench_live.score(recorded, bench_live.parse_models([]))
    assert seen and set(seen) == {"https://example.org/wcxb/dev-1"}
    browsed = {**snapshot, "url": "https://example.org/a"}
    assert recordings.as_browsed(browsed, "https://example.org/b") is browsed  # a browser's own snapshot stays


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


def test_a_fold_scores_its_sites_pages_of_both_splits(tmp_path, monkeypatch):
    """--folds N --fold K: the fold's pages, training split included (a fold model never saw them), and no
    page of another fold; the dev split alone without it."""
    from export.data import FOLD_COUNTS, bucket_of, fold_buckets, iter_records

    monkeypatch.setenv("PITH_DATA", str(write_tiny_data(tmp_path / "data")))
    recorded = tmp_path / "all.msgpack"
    pages = {r["id"]: r for r in iter_records() if r["main_text"].strip()}
    with recordings.Writer(recorded) as w:
        for r in pages.values():
            w.add({"id": r["id"], "snapshot": snapshot_from_html(r["html"])})
    folds = min(FOLD_COUNTS)
    train = pages["cleaneval/train-1"]
    fold = next(k for k in range(folds) if bucket_of(train.get("site") or train["id"]) in fold_buckets(k, folds))
    in_fold = _scored(recorded, fold_buckets(fold, folds))
    assert "cleaneval/train-1" in in_fold
    assert in_fold == {i for i, r in pages.items() if bucket_of(r.get("site") or i) in fold_buckets(fold, folds)}
    assert "cleaneval/train-1" not in _scored(recorded, None)  # the dev split alone


def _scored(recorded, buckets) -> set[str]:
    """The ids of the pages bench.live scores from `recorded`, read back from its rows."""
    import io

    out = io.StringIO()
    bench_live.score(recorded, bench_live.parse_models([]), out, buckets=buckets)
    return {json.loads(line)["id"] for line in out.getvalue().splitlines()}


def test_folds_and_fold_go_together(tmp_path, capsys):
    recorded = tmp_path / "all.msgpack"
    with recordings.Writer(recorded):
        pass
    for argv in (["--folds", "5"], ["--fold", "1"], ["--folds", "5", "--fold", "7"]):
        try:
            bench_live.main(["--snapshots", str(recorded), *argv])
        except SystemExit as e:
            assert e.code == 2
        else:
            raise AssertionError(f"{argv} was taken")
    assert "--fold" in capsys.readouterr().err


def test_a_page_the_recorder_did_not_render_is_set_aside_and_named(tmp_path, monkeypatch, capsys):
    """An app whose scripts cannot load offline records an empty shell: it measures the recorder, not the
    reader, so it is left out of the table and named; --keep-unrendered scores it."""
    monkeypatch.setenv("PITH_DATA", str(write_tiny_data(tmp_path / "data")))
    recorded = tmp_path / "dev.msgpack"
    shell = "<html><head><title>A bridge opens</title></head><body><div id=app>Loading…</div></body></html>"
    with recordings.Writer(recorded) as w:
        w.add({"id": "wcxb/dev-1", "snapshot": snapshot_from_html(shell)})
        w.add({"id": "wcxb/dev-2", "snapshot": snapshot_from_html(_html_of("wcxb/dev-2"))})
    rows, _, unrendered = bench_live.score(recorded, bench_live.parse_models([]))
    assert unrendered == ["wcxb/dev-1"] and len(rows) == 1
    rows, _, unrendered = bench_live.score(recorded, bench_live.parse_models([]), keep_unrendered=True)
    assert unrendered == [] and len(rows) == 2
    assert bench_live.main(["--snapshots", str(recorded)]) == 0
    err = capsys.readouterr().err
    assert "1 page(s) set aside" in err and "wcxb/dev-1" in err


def _html_of(page_id: str) -> str:
    from export.data import iter_records

    return next(r["html"] for r in iter_records() if r["id"] == page_id)
