"""Models on what the browser sees versus what the HTML says, on the same dev pages.

    python -m export.record --split dev                 # once: the recorded corpus
    python -m bench.live [--snapshots FILE] [--model NAME=DIR ...] [--out runs/live.md] [--jsonl runs/live.jsonl]
    python -m bench.by_type runs/live.jsonl --extractor "pith@live"   # by WCXB page type, with intervals

`--folds N --fold K` scores the pages of cross-validation fold K instead (train and dev split alike, as in
bench.evaluate), from a corpus recorded with `--split all`: each fold's model on the live snapshots of the
sites it never saw (`bash scripts/cv.sh live NAME` runs every fold).

Three inputs per page, word-F1 against the gold main text (export/metric.py): the snapshot built from the
stored HTML (snapshot_from_html), the recorded live snapshot as recorded, and the same live snapshot with its
live-render fields stripped. The third separates the rendered DOM's effect from the live features' effect.
Each model named (default: the shipped one) is scored on all three, in the same run, so a retrained model is
set beside the one it replaces. Only pages present in the corpus (and with a non-empty gold) are scored.

A page whose recording holds under `recordings.RENDERED_GOLD_SHARE` of its gold's words did not render in
the recorder (an app whose scripts cannot load offline: Discourse forums show no post), so it measures the
recorder, not what a reader's browser shows: it is set aside and named on stderr (`--keep-unrendered` scores
it too).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
from pathlib import Path
from typing import IO

from export import recordings
from export.data import DataError, fold_buckets, iter_records
from export.metric import word_prf, words
from native_host.pipeline.extractor import Extractor
from native_host.progress import progress

INPUTS = ("html", "live", "live, stripped")


def page_scores(extractor: Extractor, record: dict, live: dict) -> dict[str, tuple[float, float, float]]:
    """Input -> (precision, recall, F1) of the page's extracted body against its gold."""
    texts = {
        "html": extractor.extract_html(record["html"], url=record.get("url")).text,
        "live": extractor.extract_snapshot(live).text,
        "live, stripped": extractor.extract_snapshot(recordings.strip_live(live)).text,
    }
    return {name: word_prf(text, record["main_text"]) for name, text in texts.items()}


def table(rows: list[tuple[str, dict[str, float]]], columns: list[str] | None = None) -> str:
    """Markdown: mean word-F1 per dataset and overall, one column per input (or per model and input)."""
    columns = columns or list(INPUTS)
    groups: dict[str, list[dict[str, float]]] = {}
    for dataset, f1s in rows:
        groups.setdefault(dataset, []).append(f1s)
    groups["all"] = [f for _, f in rows]
    lines = ["| dataset | pages | " + " | ".join(columns) + " |", "|---|---:|" + "---:|" * len(columns)]
    for name, scored in groups.items():
        means = [statistics.fmean(s[k] for s in scored) for k in columns]
        lines.append(f"| {name} | {len(scored)} | " + " | ".join(f"{m:.3f}" for m in means) + " |")
    return "\n".join(lines)


def parse_models(items: list[str]) -> dict[str, Path | None]:
    """NAME=DIR pairs; "shipped" alone names the model in native_host/assets."""
    models: dict[str, Path | None] = {}
    for item in items or ["shipped"]:
        name, sep, folder = item.partition("=")
        models[name] = Path(folder) if sep else None
    return models


def score(
    snapshots: Path,
    models: dict[str, Path | None],
    jsonl: IO[str] | None = None,
    datasets: list[str] | None = None,
    buckets: frozenset[int] | None = None,
    keep_unrendered: bool = False,
) -> tuple[list[tuple[str, dict[str, float]]], list[str], list[str]]:
    """(dataset, {column: F1}) per scored page, the columns ("<model>: <input>" when several models run), and
    the ids of the pages set aside as not rendered (`recordings.rendered`; none with `keep_unrendered`).
    With `jsonl`, one `bench.evaluate`-shaped row per page, model and input (extractor "pith@<input>", or
    "<model>@<input>"), so `bench.by_type` breaks the live figures down by page type. The pages: the dev
    split's, or with `buckets` those sites' pages of both splits (a cross-validation fold, `fold_buckets`)."""
    spans = recordings.index(snapshots)
    extractors = {name: Extractor(folder) for name, folder in models.items()}
    chosen = iter_records(datasets, split=None if buckets else "dev", buckets=buckets)
    todo = [r for r in chosen if r["id"] in spans and words(r["main_text"])]
    rows = []
    unrendered = []
    for record in progress(todo, desc="scoring"):
        live = recordings.as_browsed(recordings.load_at(snapshots, spans[record["id"]])["snapshot"], record.get("url"))
        if not keep_unrendered and not recordings.rendered(live, record["main_text"]):
            unrendered.append(record["id"])
            continue
        f1s = {}
        for name, extractor in extractors.items():
            for column, (p, r, f1) in page_scores(extractor, record, live).items():
                f1s[column if len(models) == 1 else f"{name}: {column}"] = f1
                if jsonl is not None:
                    row = {
                        "id": record["id"],
                        "dataset": record["dataset"],
                        "page_type": record.get("page_type"),
                        "extractor": f"{'pith' if name == 'shipped' else name}@{column}",
                        "precision": p,
                        "recall": r,
                        "f1": f1,
                    }
                    jsonl.write(json.dumps(row) + "\n")
        rows.append((record["dataset"], f1s))
    columns = list(INPUTS) if len(models) == 1 else [f"{m}: {c}" for m in models for c in INPUTS]
    return rows, columns, unrendered


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--snapshots", type=Path, default=recordings.default_path("dev"))
    ap.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="NAME=DIR",
        help="a model folder to score (repeatable); 'shipped' alone is native_host/assets",
    )
    ap.add_argument("--out", type=Path, default=None, help="also write the table here")
    ap.add_argument("--jsonl", type=Path, default=None, help="also write one row per page, model and input here")
    ap.add_argument("--datasets", default=None, help="comma-separated dataset names (default: all)")
    ap.add_argument("--folds", type=int, default=None, help="cross-validation: the number of site-grouped folds")
    ap.add_argument("--fold", type=int, default=None, help="with --folds: this fold's pages (both splits), not dev")
    ap.add_argument(
        "--keep-unrendered",
        action="store_true",
        help=f"also score pages whose recording holds under {recordings.RENDERED_GOLD_SHARE:g} of the gold's words",
    )
    args = ap.parse_args(argv)
    if not args.snapshots.is_file():
        ap.error(f"{args.snapshots} not found; record it first: python -m export.record --split dev")
    if (args.folds is None) != (args.fold is None):
        ap.error("--folds and --fold go together, e.g. --folds 5 --fold 0")
    try:
        buckets = fold_buckets(args.fold, args.folds) if args.folds is not None else None
    except DataError as e:
        ap.error(str(e))
    datasets = [d.strip() for d in args.datasets.split(",") if d.strip()] if args.datasets else None
    with open(args.jsonl, "w", encoding="utf-8") if args.jsonl else contextlib.nullcontext() as rows:
        scored, columns, unrendered = score(
            args.snapshots, parse_models(args.model), rows, datasets, buckets, args.keep_unrendered
        )
    if unrendered:
        print(
            f"bench.live: {len(unrendered)} page(s) set aside, their recording holding under "
            f"{recordings.RENDERED_GOLD_SHARE:.0%} of the gold's words (not rendered offline; --keep-unrendered scores them): "
            + ", ".join(unrendered),
            file=sys.stderr,
        )
    if not scored:
        print("bench.live: no recorded page to score: check --snapshots, --datasets and --fold", file=sys.stderr)
        return 1
    out = table(scored, columns)
    print(out)
    if args.out:
        args.out.write_text(out + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
