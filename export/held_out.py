"""Cross-validation folds' quick scores as rows for `bench.by_type`: one row per held-out page and recipe.

    python -m export.held_out runs/gpu/*/fold-*/train.json --jsonl runs/gpu/quick.jsonl
    python -m bench.by_type runs/gpu/quick.jsonl --extractor wide --versus base

Each fold's train.json (export.train with --folds, --fold) holds the word-F1 of its held-out pages at every
threshold, block selection alone: no article builder and no rules after the model, so these figures rank
recipes against each other; the figures to report come from the exported model through `bench.evaluate`.
A recipe is named by its folder (runs/gpu/NAME/fold-K/train.json); `--threshold` scores another threshold
than the recipe's own, `--best-threshold` the one best over all its pages (chosen on the pages it scores).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path


def rows(files: list[Path], threshold: float | None = None, best: bool = False) -> list[dict]:
    """One row per page and recipe; a recipe's folds must share their thresholds."""
    by_recipe: dict[str, list[dict]] = defaultdict(list)
    for f in files:
        summary = json.loads(f.read_text())
        if "held_out" not in summary:
            raise ValueError(f"{f} has no held-out scores: train it with --folds and --fold")
        by_recipe[f.parent.parent.name].append(summary["held_out"])
    out = []
    for recipe, folds in sorted(by_recipe.items()):
        grid = folds[0]["thresholds"]
        pages = {pid: row for fold in folds for pid, row in fold["pages"].items()}
        if best:
            at = max(range(len(grid)), key=lambda i: statistics.mean(r["f1"][i] for r in pages.values()))
        else:
            t = folds[0]["threshold"] if threshold is None else threshold
            if t not in grid:
                raise ValueError(f"threshold {t} is not one of the scored {grid}")
            at = grid.index(t)
        for pid, row in sorted(pages.items()):
            page_id, _, source = pid.rpartition("@")
            out.append(
                {
                    "id": page_id if source == "html" else pid,
                    "dataset": row["dataset"],
                    "page_type": row["page_type"],
                    "extractor": recipe,
                    "f1": row["f1"][at],
                    "threshold": grid[at],
                }
            )
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", type=Path, help="folds' train.json files")
    ap.add_argument("--jsonl", type=Path, required=True)
    ap.add_argument("--threshold", type=float, default=None)
    ap.add_argument("--best-threshold", action="store_true")
    args = ap.parse_args(argv)
    try:
        out = rows(args.files, args.threshold, args.best_threshold)
    except (OSError, ValueError, KeyError) as exc:
        print(f"held_out: {exc}", file=sys.stderr)
        return 2
    args.jsonl.write_text("".join(json.dumps(r) + "\n" for r in out))
    recipes = sorted({r["extractor"] for r in out})
    print(f"{len(out)} rows of {len(recipes)} recipes ({', '.join(recipes)}) in {args.jsonl}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
