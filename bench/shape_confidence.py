"""How sure the page-type head must be before the reader takes a page's form (limits.SHAPE_MIN_CONFIDENCE):
for each threshold, on WCXB's dev pages, the share of pages the model's type decides, how often that type is
right, and the pages it would give a wrong form (a form other than the article's, for a page of another form);
then the form each page took, by its WCXB type.

    python -m bench.shape_confidence                 # WCXB dev, the shipped model
    python -m bench.shape_confidence --limit 40      # a quick look
    python -m bench.shape_confidence --folds runs/cv # every WCXB page, each by its fold's model (new sites)

The reader's forms follow pipeline/shape.py's SHAPE_OF_TYPE; a page whose type has no form of its own reads as
an article whatever the model says, so it is wrong only where the model gives it another form.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

import numpy as np

from export.data import fold_buckets, in_buckets, iter_records
from native_host import Extractor, snapshot_from_html
from native_host.limits import SHAPE_MIN_CONFIDENCE
from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.pipeline.shape import SHAPE_OF_TYPE, SHAPES
from native_host.progress import progress
from native_host.result import PAGE_TYPES

THRESHOLDS = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
FOLDS = 5  # --folds reads scripts/cv.sh's five folds


def predictions(
    limit: int | None, folds: Path | None = None
) -> tuple[list[tuple[str, str, float]], Counter[tuple[str, str]]]:
    """(gold type, predicted type, its probability) per WCXB dev page that has blocks; and how many pages of
    each gold type the whole extraction gave each form. With `folds` (scripts/cv.sh's OUT, five folds), every
    WCXB page instead, each by the model of the fold that held its site out."""
    buckets = [fold_buckets(k, FOLDS) for k in range(FOLDS)]
    models = [Extractor(folds / f"fold-{k}" / "assets") for k in range(FOLDS)] if folds else [Extractor()]
    split = None if folds else "dev"
    records = [r for r in iter_records(["wcxb"], split=split, limit=limit) if r["page_type"] and r["html"]]
    out = []
    forms: Counter[tuple[str, str]] = Counter()
    for record in progress(records, desc="pages"):
        extractor = next(m for m, b in zip(models, buckets) if in_buckets(record, b)) if folds else models[0]
        snapshot = snapshot_from_html(record["html"], url=record["url"])
        blocks = blocks_from_snapshot(snapshot)
        _, types = extractor.model.predict(extractor.featurize(snapshot, blocks))
        forms[record["page_type"], extractor.extract_html(record["html"], url=record["url"], views=()).shape] += 1
        if types is None:  # a page without blocks: nothing to type
            continue
        k = int(np.argmax(types))
        out.append((record["page_type"], PAGE_TYPES[k], float(types[k])))
    return out, forms


def form(page_type: str) -> str:
    return SHAPE_OF_TYPE.get(page_type, "article")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=None, help="at most N pages")
    parser.add_argument("--folds", type=Path, default=None, help="cross-validation folds' folder (fold-K/assets)")
    args = parser.parse_args()
    if args.folds and not all((args.folds / f"fold-{k}" / "assets").is_dir() for k in range(FOLDS)):
        parser.error(f"{args.folds} lacks fold-0/assets ... fold-4/assets: FOLDS=5 bash scripts/cv.sh makes them")
    rows, forms = predictions(args.limit, args.folds)
    print(
        f"{len(rows)} WCXB {'pages, out of fold' if args.folds else 'dev pages'}; type right on {sum(g == p for g, p, _ in rows) / len(rows):.3f}"
    )
    print("| threshold | pages decided | type right there | form right, all pages | wrong non-article forms |")
    print("|---:|---:|---:|---:|---:|")
    for t in THRESHOLDS:
        decided = [(g, p) for g, p, c in rows if c >= t]
        shown = [(form(g), form(p) if c >= t else "article") for g, p, c in rows]
        wrong = sum(s != g and s != "article" for g, s in shown)
        right = sum(g == p for g, p in decided) / len(decided) if decided else float("nan")
        mark = " (limits)" if t == SHAPE_MIN_CONFIDENCE else ""
        print(
            f"| {t:.2f}{mark} | {len(decided) / len(rows):.3f} | {right:.3f} |"
            f" {sum(g == s for g, s in shown) / len(rows):.3f} | {wrong} |"
        )
    print("\nThe form each page took (the whole extraction, structure checks included):\n")
    print("| page type | " + " | ".join(SHAPES) + " |")
    print("|---|" + "---:|" * len(SHAPES))
    for page_type in sorted({g for g, _ in forms}):
        print(f"| {page_type} | " + " | ".join(str(forms[page_type, f]) for f in SHAPES) + " |")


if __name__ == "__main__":
    main()
