"""Each page with the model that never saw its site: the page loop the audits share (`bench.rule_audit`,
`bench.class_words`). With `--folds K` and `--model runs/cv/fold-{fold}/assets`, each fold's pages go to that
fold's model; without, every page (or a `--split`'s) goes to one model (the shipped one by default). With
`--snapshots`, each page is read as the browser recorded it (`export.record`) instead of from its HTML: what
the reader sees, consent managers, pop-ups and chat boxes open."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

from export import recordings
from export.data import DATASETS, fold_buckets, iter_records
from native_host import Extractor
from native_host.pipeline.snapshot import snapshot_from_html
from native_host.progress import progress


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """The options that choose the model(s) and the pages."""
    ap.add_argument("--model", default=None, help="a model folder; with --folds, {fold} in it names each fold's")
    ap.add_argument("--folds", type=int, default=None, help="score each fold's pages with its own model")
    ap.add_argument("--split", default=None, help="train or dev (without --folds; default: every page)")
    ap.add_argument("--datasets", default=None, help="comma-separated (default: all)")
    ap.add_argument(
        "--snapshots",
        type=Path,
        default=None,
        help="read each page's recorded snapshot (export.record) instead of its HTML; the pages not recorded, "
        "or whose recording did not render (recordings.rendered), are left out",
    )


def check(ap: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse `--folds` without a model path that names each fold's folder."""
    if args.folds is not None and (args.model is None or "{fold}" not in args.model):
        ap.error("--folds needs --model with {fold} in it (runs/cv/fold-{fold}/assets)")


def pages(args: argparse.Namespace) -> Iterator[tuple[Extractor, dict]]:
    """(the extractor that never saw the page's site, the page), for every page the options name, with progress."""
    datasets = args.datasets.split(",") if args.datasets else list(DATASETS)
    runs = (
        [(args.model.format(fold=k), fold_buckets(k, args.folds), None) for k in range(args.folds)]
        if args.folds is not None
        else [(args.model, None, args.split)]
    )
    spans = recordings.index(args.snapshots) if args.snapshots is not None else None
    for k, (model, buckets, split) in enumerate(runs):
        extractor = Extractor(model)
        records = iter_records(datasets, split=split, buckets=buckets)
        if spans is not None:
            records = (r for r in records if r["id"] in spans)
        for record in progress(records, desc=f"fold {k}" if buckets is not None else "pages"):
            if spans is not None:
                live = recordings.load_at(args.snapshots, spans[record["id"]])["snapshot"]
                live = recordings.as_browsed(live, record.get("url"))
                if not recordings.rendered(live, record.get("main_text") or ""):
                    continue
                record = {**record, "snapshot": live}
            yield extractor, record


def snapshot_of(record: dict) -> dict:
    """The page as the audit reads it: its recorded snapshot where `pages` gave one, else built from its HTML."""
    if "snapshot" in record:
        return record["snapshot"]
    return snapshot_from_html(record["html"], url=record.get("url"))
