"""Training, export and the parity check, end to end on a few real pages (CI does not retrain the model).

Reads the training pages from $PITH_DATA or ../shared/data, as every training command does; skipped, saying
so, where they are not there.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*args, check=True):
    proc = subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=900)
    if check:
        assert proc.returncode == 0, f"{args}: {proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    return proc


@pytest.mark.slow  # about two minutes on two cores: three training subprocesses
def test_prepare_train_export_serve(tmp_path, real_data):
    data, model = tmp_path / "data", tmp_path / "model"
    out = run("export.prepare", "--out", str(data), "--limit", "12", "--workers", "2").stdout
    assert "pages" in out and (data / "tokenizer.json").is_file() and (data / "class_vocab.json").is_file()
    run("export.train", "--data", str(data), "--out", str(model), "--epochs", "1")
    summary = json.loads((model / "train.json").read_text())
    assert summary["parameters"] > 100_000 and len(summary["history"]) == 1
    assert 0 < summary["threshold"] < 1

    # The shipping gate: assets are written exactly when int8 loses at most .005 dev word-F1. A one-epoch
    # model sits near its threshold, so it may fail the gate; either way the decision must match the figures.
    gated = tmp_path / "gated"
    proc = run("export.onnx_export", "--data", str(data), "--run", str(model), "--assets", str(gated), check=False)
    lines = [ln.split() for ln in proc.stdout.splitlines() if "torch fp32" in ln]
    drops = [float(parts[-1]) for parts in lines if "/" not in parts[0]]  # the gate reads datasets, not types
    assert drops, proc.stdout
    assert (proc.returncode == 0) == (max(drops) <= 0.005) == (gated / "model.int8.onnx").exists(), proc.stdout

    # Cross-validation: the fold's sites are dev, nothing is chosen on them (the shipped threshold, the last
    # epoch, no dev scores), and the export checks parity on those same sites.
    fold = tmp_path / "fold"
    run("export.train", "--data", str(data), "--out", str(fold), "--folds", "2", "--fold", "1", "--epochs", "2")
    summary = json.loads((fold / "train.json").read_text())
    shipped = json.loads((ROOT / "native_host/assets/model.json").read_text())["threshold"]
    assert summary["dev_buckets"] == [5, 6, 7, 8, 9] and summary["threshold"] == shipped
    assert summary["best"] == {"epoch": 2, "threshold": shipped}
    assert [set(row) for row in summary["history"]] == [{"epoch", "loss", "seconds"}] * 2
    # Its held-out pages that carry a gold are scored once at the end, at every threshold of the grid.
    held = summary["held_out"]
    assert held["threshold"] == shipped and held["pages"]
    assert all(len(r["f1"]) == len(held["thresholds"]) for r in held["pages"].values())
    rows = run("export.held_out", str(fold / "train.json"), "--jsonl", str(tmp_path / "q.jsonl")).stdout
    assert f"{len(held['pages'])} rows of 1 recipes" in rows

    # The pack carries every page's inputs and labels exactly, and texts only of the datasets named.
    run("export.pack", "--data", str(data), "--out", str(tmp_path / "p.pack"), "--texts-for", "wcxb")
    run("export.pack", "--unpack", str(tmp_path / "p.pack"), "--data", str(tmp_path / "unpacked"))
    from export.prepare import load_pages

    before, after = load_pages(data), load_pages(tmp_path / "unpacked")
    assert [(p.id, p.source, p.site) for p in before] == [(p.id, p.source, p.site) for p in after]
    for p, q in zip(before, after):
        for name in ("text_ids", "tag_ids", "class_ids", "class_level", "numeric"):
            a, b = getattr(p.inputs, name), getattr(q.inputs, name)
            assert a.dtype == b.dtype and (a == b).all(), (p.id, name)
        assert (p.labels == q.labels).all() and (p.depth == q.depth).all() and (p.known == q.known).all()
        assert (q.texts, q.gold) == ((p.texts, p.gold) if p.dataset == "wcxb" else ([""] * len(p.texts), ""))
    assert (tmp_path / "unpacked/tokenizer.json").read_bytes() == (data / "tokenizer.json").read_bytes()
    proc = run("export.onnx_export", "--data", str(data), "--run", str(fold), "--assets", str(fold / "a"), check=False)
    assert f"dev pages @ threshold {shipped}" in proc.stdout, proc.stdout

    assets = tmp_path / "assets"
    out = run(
        "export.onnx_export", "--data", str(data), "--run", str(model), "--assets", str(assets), "--max-drop", "1"
    ).stdout
    assert "parity ok" in out
    meta = json.loads((assets / "model.json").read_text())
    assert meta["parity"]["max_score_diff"] < 0.25
    # The exported model serves through the runtime package alone.
    from native_host import Extractor

    r = Extractor(assets).extract_html((ROOT / "tests/pages/article/source.html").read_bytes())
    assert len(r.blocks) > 10 and all(0.0 <= b.scores["main"] <= 1.0 for b in r.blocks)


@pytest.mark.slow  # about a minute on two cores: five one-epoch trainings on a few pages
def test_seeds_ensembles_of_folds_and_a_teacher_to_distil(tmp_path, real_data):
    import pickle

    import torch

    from export.data import fold_buckets
    from export.prepare import load_pages
    from export.train import resplit

    data, cv = tmp_path / "data", tmp_path / "cv"
    run("export.prepare", "--out", str(data), "--limit", "8", "--workers", "2")
    for seed in ("1234", "7"):
        for fold in ("0", "1"):
            out = cv / f"s{seed}" / f"fold-{fold}"
            run(
                *("export.train", "--data", str(data), "--out", str(out), "--folds", "2", "--fold", fold),
                "--epochs",
                "1",
                "--seed",
                seed,
            )
    a, b = (torch.load(cv / s / "fold-0/model.pt") for s in ("s1234", "s7"))
    assert any(not torch.equal(a[k], b[k]) for k in a)  # another seed, another model

    # Each recipe alone scores its held-out pages as its training did; their mean is a third row per page.
    members = (str(cv / "s1234"), str(cv / "s7"), "--data", str(data), "--folds", "2")
    rows_file = tmp_path / "rows.jsonl"
    run("export.ensemble", "held-out", *members, "--jsonl", str(rows_file))
    rows = [json.loads(line) for line in rows_file.read_text().splitlines()]
    names = {r["extractor"] for r in rows}
    assert names == {"s1234", "s7", "s1234+s7"}
    by = {(r["extractor"], r["id"]): r["f1"] for r in rows}
    for recipe in ("s1234", "s7"):
        for fold in ("0", "1"):
            held = json.loads((cv / recipe / f"fold-{fold}" / "train.json").read_text())["held_out"]
            at = held["thresholds"].index(held["threshold"])
            for key, row in held["pages"].items():
                assert by[(recipe, key.rpartition("@")[0])] == pytest.approx(row["f1"][at], abs=2e-3)
    assert len(rows) == 3 * sum(1 for r in rows if r["extractor"] == "s7")

    # The teacher: each fold's members' mean score on every page they trained on, one per block.
    teacher = tmp_path / "teacher.pkl"
    run("export.ensemble", "teacher", *members, "--out", str(teacher))
    with open(teacher, "rb") as f:
        soft = pickle.load(f)
    pages = load_pages(data)
    for fold in (0, 1):
        resplit(pages, fold_buckets(fold, 2))
        trained = {p.id: p for p in pages if p.split == "train" and p.source == "html"}
        assert set(soft[fold]) == set(trained)
        assert all(len(s) == len(trained[i].labels) and 0 <= s.min() <= s.max() <= 1 for i, s in soft[fold].items())
    distilled = tmp_path / "distilled"
    run(
        "export.train",
        "--data",
        str(data),
        "--out",
        str(distilled),
        "--folds",
        "2",
        "--fold",
        "0",
        "--epochs",
        "1",
        "--teacher",
        str(teacher),
    )
    plain = json.loads((cv / "s1234/fold-0/train.json").read_text())["history"][0]["loss"]
    assert json.loads((distilled / "train.json").read_text())["history"][0]["loss"] != plain
