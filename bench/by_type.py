"""Per-page rows of `bench.evaluate --jsonl` -> mean word-F1 by dataset and WCXB page type, each with a bootstrap
95% interval over pages, the share of pages under LOW_F1, and, given a second file of the same pages, the
change per group (the rules of one model compared: a Pith row of each file, the peers' from the first).

    python -m bench.evaluate --extractors pith,trafilatura,readability-lxml --jsonl runs/dev.jsonl
    python -m bench.by_type runs/dev.jsonl                      # the table
    python -m bench.by_type runs/before.jsonl --after runs/after.jsonl   # Pith before -> after, per group
    python -m bench.by_type runs/cv/fold-*.jsonl                # cross-validation folds as one table
    python -m bench.by_type runs/cv/fold-*.jsonl --losses       # where each group's word-F1 is lost
    python -m bench.by_type runs/cv/fold-*.jsonl --versus trafilatura   # Pith's lead per group, paired

Several files are the folds of a cross-validation (scripts/cv.sh): each scored its own model (`pith:DIR`),
so an extractor is named without its argument and the files' pages, which must not repeat, are pooled.

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


def pool_folds(paths: list[Path]) -> dict[str, dict[str, dict]]:
    """The rows of several folds' files as one run: `pith:DIR` counts as `pith` (each fold names its own
    model). A page scored twice by one extractor means the files are not disjoint folds: SystemExit."""
    out: dict[str, dict[str, dict]] = defaultdict(dict)
    for path in paths:
        for name, rows in read_rows(path).items():
            pooled = out[name.split(":", 1)[0]]
            for pid, row in rows.items():
                if pid in pooled:
                    raise SystemExit(f"by_type: page {pid} is in two of the files; give each fold's file once")
                pooled[pid] = row
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


def changes(before: dict[str, dict], after: dict[str, dict], names: tuple[str, str] = ("before", "after")) -> str:
    """Pith before -> after per group (or a peer -> Pith, `names` heading the two columns), with the pages that
    moved by more than .01 either way."""
    rng = random.Random(SEED)
    lines = [
        f"| group | pages | {names[0]} | {names[1]} | change (95% interval) | pages up | pages down |",
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


def losses(rows: dict[str, dict]) -> str:
    """Per group, what one extractor loses (1 - word-F1, summed over pages) split by the page's failure: kept
    too much (precision below recall: furniture, link lists, side boxes kept), dropped content (recall at or
    below precision: items, sections, the end of an article lost), nothing extracted; and the pages under
    LOW_F1 by the same split."""
    lines = [
        "| group | pages | mean loss | kept too much | dropped content | nothing extracted "
        f"| < {LOW_F1}: too much / dropped / nothing |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, ids in groups(rows).items():
        kinds = {"much": [0.0, 0], "dropped": [0.0, 0], "nothing": [0.0, 0]}
        for i in ids:
            row = rows[i]
            kind = "nothing" if not row.get("words") else "much" if row["precision"] < row["recall"] else "dropped"
            kinds[kind][0] += 1 - row["f1"]
            kinds[kind][1] += row["f1"] < LOW_F1
        total = sum(v[0] for v in kinds.values()) or 1.0
        shares = " | ".join(f"{v[0] / len(ids):.3f} ({v[0] / total:.0%})" for v in kinds.values())
        lows = " / ".join(str(v[1]) for v in kinds.values())
        lines.append(
            f"| {name} | {len(ids)} | {sum(v[0] for v in kinds.values()) / len(ids):.3f} | {shares} | {lows} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.by_type", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "jsonl", type=Path, nargs="+", help="rows of `bench.evaluate --jsonl` (several: cross-validation folds)"
    )
    parser.add_argument("--after", type=Path, help="a second run's rows: Pith's change per group")
    parser.add_argument(
        "--versus", help="a peer in the same rows: --extractor's change from it per group, paired by page"
    )
    parser.add_argument(
        "--losses", action="store_true", help="where --extractor loses word-F1 per group, instead of the table"
    )
    parser.add_argument("--extractor", default="pith", help="the row compared with --after (default pith)")
    args = parser.parse_args(argv)
    rows = read_rows(args.jsonl[0]) if len(args.jsonl) == 1 else pool_folds(args.jsonl)
    if args.versus is not None:
        if args.versus not in rows:
            raise SystemExit(f"by_type: no {args.versus} rows; the files hold {', '.join(sorted(rows))}")
        print(changes(rows[args.versus], rows[args.extractor], (args.versus, args.extractor)))
    elif args.losses:
        print(losses(rows[args.extractor]))
    elif args.after is not None:
        print(changes(rows[args.extractor], read_rows(args.after)[args.extractor]))
    else:
        names = [args.extractor] + sorted(n for n in rows if n != args.extractor)
        print(table(rows, names))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
