"""Per-page rows of `bench.evaluate --jsonl` -> mean word-F1 by dataset and WCXB page type, each with a bootstrap
95% interval over pages, the share of pages under LOW_F1, and, given a second file of the same pages, the
change per group (the rules of one model compared: a Pith row of each file, the peers' from the first).

    python -m bench.evaluate --extractors pith,trafilatura,readability-lxml --jsonl runs/dev.jsonl
    python -m bench.by_type runs/dev.jsonl                      # the table
    python -m bench.by_type runs/before.jsonl --after runs/after.jsonl   # Pith before -> after, per group

A group of a handful of pages has a wide interval: that is the point of printing it.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict
from pathlib import Path

from .report import ALL, SEP

LOW_F1 = 0.5  # a page under this word-F1 is a failed page for a reader
RESAMPLES = 2000  # bootstrap draws per group
SEED = 1234


def read_rows(path: Path) -> dict[str, dict[str, dict]]:
    """extractor -> page id -> row."""
    out: dict[str, dict[str, dict]] = defaultdict(dict)
    with path.open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            out[row["extractor"]][row["id"]] = row
    return out


def groups(rows: dict[str, dict]) -> dict[str, list[str]]:
    """Group name -> page ids: all pages, each dataset, each WCXB page type."""
    out: dict[str, list[str]] = defaultdict(list)
    for pid, row in rows.items():
        out[ALL].append(pid)
        out[row["dataset"]].append(pid)
        if row["dataset"] == "wcxb" and row.get("page_type"):
            out[row["dataset"] + SEP + row["page_type"]].append(pid)
    return dict(sorted(out.items(), key=lambda kv: (kv[0] != ALL, kv[0])))


def interval(values: list[float], rng: random.Random) -> tuple[float, float]:
    """The bootstrap 95% interval of the mean of `values` (percentiles of RESAMPLES resampled means)."""
    n = len(values)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(RESAMPLES))
    return means[int(0.025 * RESAMPLES)], means[int(0.975 * RESAMPLES) - 1]


def table(by_extractor: dict[str, dict[str, dict]], names: list[str]) -> str:
    rng = random.Random(SEED)
    first = by_extractor[names[0]]
    head = (
        "| group | pages | "
        + " | ".join(f"{n} (95% interval)" for n in names)
        + " | "
        + " | ".join(f"{n} < {LOW_F1}" for n in names)
        + " |"
    )
    lines = [head, "|---|---:|" + "---:|" * (2 * len(names))]
    for name, ids in groups(first).items():
        means, lows = [], []
        for n in names:
            f1 = [by_extractor[n][i]["f1"] for i in ids if i in by_extractor[n]]
            lo, hi = interval(f1, rng)
            means.append(f"{sum(f1) / len(f1):.3f} ({lo:.3f}–{hi:.3f})")
            lows.append(f"{sum(v < LOW_F1 for v in f1) / len(f1):.1%}")
        lines.append(f"| {name} | {len(ids)} | " + " | ".join(means) + " | " + " | ".join(lows) + " |")
    return "\n".join(lines)


def changes(before: dict[str, dict], after: dict[str, dict]) -> str:
    """Pith before -> after per group, with the pages that moved by more than .01 either way."""
    rng = random.Random(SEED)
    lines = [
        "| group | pages | before | after | change (95% interval) | pages up | pages down |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, ids in groups(before).items():
        ids = [i for i in ids if i in after]
        if not ids:
            continue
        deltas = [after[i]["f1"] - before[i]["f1"] for i in ids]
        lo, hi = interval(deltas, rng)
        b = sum(before[i]["f1"] for i in ids) / len(ids)
        a = sum(after[i]["f1"] for i in ids) / len(ids)
        lines.append(
            f"| {name} | {len(ids)} | {b:.3f} | {a:.3f} | {a - b:+.4f} ({lo:+.4f}–{hi:+.4f}) | "
            f"{sum(d > 0.01 for d in deltas)} | {sum(d < -0.01 for d in deltas)} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.by_type", description=__doc__.split("\n\n")[0])
    parser.add_argument("jsonl", type=Path, help="rows of `bench.evaluate --jsonl`")
    parser.add_argument("--after", type=Path, help="a second run's rows: Pith's change per group")
    parser.add_argument("--extractor", default="pith", help="the row compared with --after (default pith)")
    args = parser.parse_args(argv)
    rows = read_rows(args.jsonl)
    if args.after is not None:
        print(changes(rows[args.extractor], read_rows(args.after)[args.extractor]))
    else:
        names = [args.extractor] + sorted(n for n in rows if n != args.extractor)
        print(table(rows, names))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
