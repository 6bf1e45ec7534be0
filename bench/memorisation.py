"""How much of a model's quality is memorised sites: its word-F1 on training pages beside dev pages alike.

    python -m bench.memorisation                         # the shipped model
    python -m bench.memorisation --model pith:runs/prev  # any model folder the harness can load

Dev is drawn by site, so a dev page comes from a site the model never saw; a training page's site it saw,
often many pages of it. The training pages scored here are drawn like the dev pages (the same number per
dataset and WCXB page type, seeded), so the gap between the two columns is what the model learnt of the
training sites themselves rather than of pages in general. A model that learnt what main content looks like
scores both alike; one that learnt its sites' class names and boilerplate scores its training pages higher.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from export.data import iter_records
from export.metric import word_prf, words
from native_host.progress import progress

from . import extractors as registry
from .report import groups_of, row_order

SEED = 1234


def like_dev(train: list[dict], dev: list[dict], rng: random.Random) -> list[dict]:
    """Training records drawn to match the dev records' count per (dataset, page type)."""
    pool: dict[tuple, list[dict]] = defaultdict(list)
    for r in train:
        pool[(r["dataset"], r.get("page_type"))].append(r)
    wanted: dict[tuple, int] = defaultdict(int)
    for r in dev:
        wanted[(r["dataset"], r.get("page_type"))] += 1
    out = []
    for key in sorted(wanted, key=lambda k: (k[0], k[1] or "")):
        have = pool.get(key, [])
        out += rng.sample(have, min(len(have), wanted[key]))
    return out


def scores(loaded: registry.Loaded, records: list[dict], desc: str) -> dict[str, list[float]]:
    """Report group -> word-F1 of each page in it."""
    per: dict[str, list[float]] = defaultdict(list)
    for r in progress(records, total=len(records), desc=desc):
        f1 = word_prf(registry.call(loaded, r).text, r["main_text"])[2]
        for g in groups_of(r["dataset"], r.get("page_type")):
            per[g].append(f1)
    return per


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.memorisation", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--model", default="pith", help="an extractor name the harness knows (default: pith)")
    ap.add_argument("--datasets", default=None, help="comma-separated (default: all)")
    ap.add_argument("--out", type=Path, default=None, help="also write the table here (markdown)")
    args = ap.parse_args(argv)
    datasets = args.datasets.split(",") if args.datasets else None
    try:
        loaded = registry.load(args.model)
    except registry.Unavailable as exc:
        print(f"bench: {args.model} unavailable: {exc}", file=sys.stderr)
        return 1
    records = [r for r in iter_records(datasets=datasets) if words(r.get("main_text"))]
    dev = [r for r in records if r["split"] == "dev"]
    train = like_dev([r for r in records if r["split"] == "train"], dev, random.Random(SEED))
    dev_f1, train_f1 = scores(loaded, dev, "dev pages"), scores(loaded, train, "train pages")
    lines = [
        f"Memorisation check of {args.model} ({loaded.version}): mean word-F1 on dev pages (sites never "
        f"seen) and on training pages drawn alike",
        "",
        "| dataset · page type | dev pages | dev F1 | train pages | train F1 | gap |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for g in row_order(set(dev_f1) | set(train_f1)):
        d, t = dev_f1.get(g, []), train_f1.get(g, [])
        if not d or not t:
            continue
        dm, tm = statistics.fmean(d), statistics.fmean(t)
        lines.append(f"| {g} | {len(d)} | {dm:.3f} | {len(t)} | {tm:.3f} | {tm - dm:+.3f} |")
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
