"""Cross-validation folds' models together: the mean of several recipes' scores, and a teacher to distil.

    python -m export.ensemble held-out runs/gpu/a runs/gpu/b --data runs/data --jsonl F
    python -m export.ensemble teacher runs/gpu/a runs/gpu/b --data runs/data --out runs/gpu/teacher.pkl
    python -m bench.by_type F --extractor a+b --versus a

Each recipe folder holds `fold-K/model.pt` and `fold-K/train.json` for every fold K (`export.train --folds 5
--fold K`). `held-out` scores every fold's held-out pages with each recipe alone and with the mean of their
main scores (block selection alone, as `export.held_out`), a row per page and recipe, the mean named by
joining the recipes' names with "+". How much of a recipe's figure is chance shows in two seeds of it; what
averaging them gives back, in their mean. `teacher` writes, for each fold K, the members' mean main score on
every page they trained on (the pages outside fold K): `export.train --teacher FILE --fold K` mixes it into the
main target (distillation: one model learns what the ensemble says, at one model's cost).
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import torch

from native_host.progress import progress

from .data import fold_buckets
from .model import ContentModel
from .prepare import Page, load_pages
from .train import THRESHOLDS, f1_at, load_trained, page_scores, resplit, shipped_threshold


def _folds(
    pages: list[Page], recipes: list[Path], split: str, folds: int
) -> Iterator[tuple[int, list[Page], list[ContentModel]]]:
    """Per fold: its pages of `split` ("dev": held out; "train": trained on) and each recipe's model."""
    for k in range(folds):
        resplit(pages, fold_buckets(k, folds))
        chosen = [p for p in pages if p.split == split]
        yield k, chosen, [load_trained(r / f"fold-{k}")[0] for r in recipes]


def held_out(pages: list[Page], recipes: list[Path], folds: int) -> list[dict]:
    names = [r.name for r in recipes]
    mean = "+".join(names)
    at = THRESHOLDS.index(shipped_threshold())
    rows = []
    for k, chosen, models in _folds(pages, recipes, "dev", folds):
        scored = [p for p in chosen if p.gold]
        for p in progress(scored, desc=f"fold {k}"):
            scores = [page_scores(m, p)[:, 0] for m in models]
            for name, s in [*zip(names, scores), (mean, np.mean(scores, 0))]:
                f1 = f1_at(p, s, THRESHOLDS)[at]
                rows.append({"id": p.id, "dataset": p.dataset, "page_type": p.page_type, "extractor": name, "f1": f1})
    return rows


def teacher(pages: list[Page], recipes: list[Path], folds: int) -> dict[int, dict[str, np.ndarray]]:
    out: dict[int, dict[str, np.ndarray]] = {}
    for k, chosen, models in _folds(pages, recipes, "train", folds):
        out[k] = {
            p.id: np.mean([page_scores(m, p)[:, 0] for m in models], 0).astype(np.float16)
            for p in progress([p for p in chosen if p.source == "html"], desc=f"fold {k}")
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("held-out", "teacher"))
    ap.add_argument("recipes", nargs="+", type=Path, help="recipe folders, each with fold-0 ... fold-4")
    ap.add_argument("--data", type=Path, default=Path("runs/data"), help="the prepared pages the folds trained on")
    ap.add_argument("--jsonl", type=Path, help="held-out: where the rows go")
    ap.add_argument("--out", type=Path, help="teacher: where the pickle goes")
    ap.add_argument("--folds", type=int, default=5, help="the folds the recipes were trained on (default 5)")
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    missing = [str(r / f"fold-{k}") for r in args.recipes for k in range(args.folds) if not (r / f"fold-{k}").is_dir()]
    if missing:
        ap.error(f"no fold model in {', '.join(missing[:3])}: train every fold first (docs/model.md)")
    pages = load_pages(args.data)
    if args.what == "held-out":
        if args.jsonl is None:
            ap.error("held-out writes rows: give --jsonl FILE")
        rows = held_out(pages, args.recipes, args.folds)
        args.jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
        print(f"{len(rows)} rows in {args.jsonl}", file=sys.stderr)
    else:
        if args.out is None:
            ap.error("teacher writes a pickle: give --out FILE")
        with open(args.out, "wb") as f:
            pickle.dump(teacher(pages, args.recipes, args.folds), f)
        print(f"teacher scores for {args.folds} folds in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
