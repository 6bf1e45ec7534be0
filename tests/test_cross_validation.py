"""Site-grouped cross-validation: the folds, the pages each fold scores, and the folds' rows pooled."""

import json

import pytest
from tiny_data import write_tiny_data

from bench import by_type, evaluate
from export.data import BUCKETS, FOLD_COUNTS, DataError, bucket_of, fold_buckets, iter_records


@pytest.fixture
def data(tmp_path, monkeypatch):
    folder = write_tiny_data(tmp_path / "data")
    monkeypatch.setenv("PITH_DATA", str(folder))
    return folder


@pytest.mark.parametrize("folds", FOLD_COUNTS)
def test_folds_partition_the_buckets_and_fold_0_holds_the_dev_split(folds):
    parts = [fold_buckets(k, folds) for k in range(folds)]
    assert sorted(b for p in parts for b in p) == list(range(BUCKETS))
    assert 0 in parts[0]  # the data's own dev split (bucket 0) is inside fold 0
    assert fold_buckets(2, 5) == {4, 5}


@pytest.mark.parametrize(("fold", "folds", "message"), [(0, 3, "2, 5, 10"), (5, 5, "0 to 4"), (-1, 5, "0 to 4")])
def test_a_bad_fold_names_the_valid_choices(fold, folds, message):
    with pytest.raises(DataError, match=message):
        fold_buckets(fold, folds)


def test_a_fold_takes_its_sites_pages_whatever_their_split(data):
    every = list(iter_records())
    for fold in range(5):
        buckets = fold_buckets(fold, 5)
        got = [r["id"] for r in iter_records(buckets=buckets)]
        assert got == [r["id"] for r in every if bucket_of(r.get("site") or r["id"]) in buckets]
    pooled = [r["id"] for fold in range(5) for r in iter_records(buckets=fold_buckets(fold, 5))]
    assert sorted(pooled) == sorted(r["id"] for r in every)


def test_evaluate_scores_exactly_the_folds_pages(data, tmp_path):
    every = {r["id"]: r for r in iter_records() if r["main_text"].strip()}
    seen = []
    for fold in range(2):
        jsonl = tmp_path / f"fold-{fold}.jsonl"
        rc = evaluate.main(
            ["--extractors", "trafilatura", "--folds", "2", "--fold", str(fold), "--jsonl", str(jsonl)]
            + ["--out", str(tmp_path / f"fold-{fold}.md")]
        )
        assert rc in (0, 1)  # 1 only when the fold holds no page worth scoring
        ids = [json.loads(line)["id"] for line in jsonl.read_text().splitlines()]
        want = fold_buckets(fold, 2)
        assert all(bucket_of(every[i].get("site") or i) in want for i in ids)
        seen += ids
    assert sorted(seen) == sorted(every)  # both splits' pages, each in exactly one fold


def test_evaluate_wants_folds_and_fold_together(data, tmp_path, capsys):
    assert evaluate.main(["--extractors", "trafilatura", "--folds", "5", "--out", str(tmp_path / "r.md")]) == 2
    assert "--folds and --fold go together" in capsys.readouterr().err
    assert evaluate.main(["--extractors", "trafilatura", "--folds", "3", "--fold", "0"]) == 1
    assert "choose among 2, 5, 10" in capsys.readouterr().err


def rows(path, extractor, pages):
    path.write_text(
        "".join(
            json.dumps({"id": pid, "dataset": "wcxb", "page_type": kind, "extractor": extractor, "f1": f1}) + "\n"
            for pid, kind, f1 in pages
        )
    )
    return path


def test_by_type_pools_the_folds_each_with_its_own_model(tmp_path, capsys):
    a = rows(tmp_path / "a.jsonl", "pith:runs/cv/fold-0/assets", [("p1", "forum", 1.0), ("p2", "listing", 0.4)])
    b = rows(tmp_path / "b.jsonl", "pith:runs/cv/fold-1/assets", [("p3", "forum", 0.6)])
    peer = rows(tmp_path / "c.jsonl", "trafilatura", [("p1", "forum", 0.5), ("p2", "listing", 0.5)])
    peer_b = rows(tmp_path / "d.jsonl", "trafilatura", [("p3", "forum", 0.2)])
    assert by_type.main([str(a), str(b), str(peer), str(peer_b)]) == 0
    table = {line.split("|")[1].strip(): line for line in capsys.readouterr().out.splitlines()[2:]}
    forum = [c.strip() for c in table["wcxb · forum"].strip("|").split("|")]
    assert forum[1] == "2" and forum[2].startswith("0.800") and forum[3].startswith("0.350")
    assert table["all pages"].split("|")[2].strip() == "3"
    assert forum[4:] == ["0.0%", "50.0%"]  # pith, then trafilatura, under .5


def test_by_type_refuses_a_page_in_two_folds(tmp_path):
    a = rows(tmp_path / "a.jsonl", "pith:x", [("p1", "forum", 1.0)])
    b = rows(tmp_path / "b.jsonl", "pith:y", [("p1", "forum", 0.5)])
    with pytest.raises(SystemExit, match="p1 is in two of the files"):
        by_type.main([str(a), str(b)])


def test_losses_split_what_is_lost_by_the_pages_failure(tmp_path, capsys):
    pages = [  # id, type, precision, recall, f1, words
        ("p1", "service", 0.4, 1.0, 0.57, 300),  # kept too much
        ("p2", "service", 0.9, 0.3, 0.45, 40),  # dropped content, under .5
        ("p3", "service", 0.0, 0.0, 0.0, 0),  # nothing extracted
        ("p4", "service", 1.0, 1.0, 1.0, 120),
    ]
    path = tmp_path / "rows.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {"id": i, "dataset": "wcxb", "page_type": t, "extractor": "pith", "precision": p}
                | {"recall": r, "f1": f, "words": w}
            )
            + "\n"
            for i, t, p, r, f, w in pages
        )
    )
    assert by_type.main([str(path), "--losses"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("| wcxb · service"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[1:] == ["4", "0.495", "0.108 (22%)", "0.138 (28%)", "0.250 (51%)", "0 / 1 / 1"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--folds", "5"], "--folds and --fold go together"),
        (["--folds", "5", "--fold", "1", "--holdout", "3"], "give one"),
        (["--folds", "4", "--fold", "1"], "choose among 2, 5, 10"),
    ],
)
def test_train_refuses_an_unclear_fold_before_reading_data(args, message, capsys):
    from export import train

    with pytest.raises(SystemExit) as exc:
        train.main(["--data", "/nonexistent", *args])
    assert exc.value.code == 2 and message in capsys.readouterr().err


def test_resplit_holds_out_exactly_the_buckets_sites():
    from export.train import resplit

    class Page:
        def __init__(self, site, id_):
            self.site, self.id, self.split = site, id_, "train"

    pages = [Page(f"site{n}.example" if n % 3 else None, f"x/{n}") for n in range(60)]
    buckets = fold_buckets(3, 5)
    resplit(pages, buckets)
    assert [p.split for p in pages] == ["dev" if bucket_of(p.site or p.id) in buckets else "train" for p in pages] and {
        "dev",
        "train",
    } == {p.split for p in pages}


def test_versus_gives_the_lead_over_a_peer_paired_by_page(tmp_path, capsys):
    a = rows(tmp_path / "a.jsonl", "pith:x", [("p1", "forum", 0.9), ("p2", "forum", 0.5)])
    peer = rows(tmp_path / "b.jsonl", "trafilatura", [("p1", "forum", 0.6), ("p2", "forum", 0.6)])
    assert by_type.main([str(a), str(peer), "--versus", "trafilatura"]) == 0
    out = capsys.readouterr().out
    assert "| trafilatura | pith |" in out.splitlines()[0]
    forum = next(ln for ln in out.splitlines() if ln.startswith("| wcxb · forum"))
    cells = [c.strip() for c in forum.strip("|").split("|")]
    assert cells[1:4] == ["2", "0.600", "0.700"] and cells[5:] == ["1", "1"]  # p1 up .3, p2 down .1
    with pytest.raises(SystemExit, match="no readability-lxml rows"):
        by_type.main([str(a), str(peer), "--versus", "readability-lxml"])


def _fold_summary(path, pages, threshold=0.3, grid=(0.2, 0.3, 0.4)):
    path.parent.mkdir(parents=True)
    rows = {f"{pid}@html": {"dataset": "wcxb", "page_type": t, "f1": list(f1)} for pid, t, f1 in pages}
    held = {"threshold": threshold, "thresholds": list(grid), "means": {}, "pages": rows}
    path.write_text(json.dumps({"held_out": held}))
    return path


def test_held_out_rows_name_each_recipe_by_its_folder_and_score_its_threshold(tmp_path):
    from export import held_out

    a = _fold_summary(tmp_path / "base/fold-0/train.json", [("wcxb/1", "forum", (0.5, 0.6, 0.9))])
    b = _fold_summary(tmp_path / "base/fold-1/train.json", [("wcxb/2", "listing", (0.8, 0.7, 0.1))])
    c = _fold_summary(tmp_path / "wide/fold-0/train.json", [("wcxb/1", "forum", (0.1, 0.2, 0.3))])
    rows = held_out.rows([a, b, c])
    got = {(r["extractor"], r["id"]): (r["page_type"], r["f1"]) for r in rows}
    assert got == {
        ("base", "wcxb/1"): ("forum", 0.6),
        ("base", "wcxb/2"): ("listing", 0.7),
        ("wide", "wcxb/1"): ("forum", 0.2),
    }
    # The best threshold is the recipe's best over all its pages (0.2 for base: mean .65 against .65 and .5).
    assert {r["threshold"] for r in held_out.rows([a, b], best=True)} == {0.2}
    assert [r["f1"] for r in held_out.rows([a, b], threshold=0.4)] == [0.9, 0.1]
    with pytest.raises(ValueError, match="not one of the scored"):
        held_out.rows([a], threshold=0.35)


def test_held_out_refuses_a_run_that_was_no_fold(tmp_path, capsys):
    from export import held_out

    run = tmp_path / "model/fold-0/train.json"
    run.parent.mkdir(parents=True)
    run.write_text(json.dumps({"best": {"epoch": 8}}))
    assert held_out.main([str(run), "--jsonl", str(tmp_path / "q.jsonl")]) == 2
    assert "no held-out scores" in capsys.readouterr().err
    assert not (tmp_path / "q.jsonl").exists()
