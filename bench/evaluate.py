"""Score extractors side by side on the same pages with the field's metric, and write a markdown report.

    python -m bench.evaluate                                   # Pith and the three peers on the dev split
    python -m bench.evaluate --extractors trafilatura,resiliparse --datasets wcxb --limit 20
    python -m bench.evaluate --extractors pith,pith:runs/model --out runs/compare.md --jsonl runs/pages.jsonl
    python -m bench.evaluate --extractors pith:runs/cv/fold-0/assets,trafilatura --folds 5 --fold 0

`--folds N --fold K` scores the pages of cross-validation fold K (its sites' hash buckets, train and dev
split alike: `export.data.fold_buckets`), the pages a model trained with `export.train --folds N --fold K`
never saw (scripts/cv.sh).

Every quality claim about Pith is made with this command. Extractors run one page at a time in this one
process, so their seconds per page are comparable; an extractor that cannot be loaded is reported as
unavailable and the others still run. Pages whose gold main text has no words are skipped and counted.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import TextIO

from export.data import Record, fold_buckets, iter_records
from export.metric import snippet_accuracy, word_prf, words
from native_host.errors import PithError
from native_host.progress import progress

from . import extractors as registry
from .report import PageScore, RunInfo, groups_of, render, summarize

DEFAULT_EXTRACTORS = "pith,trafilatura,readability-lxml,resiliparse"


def score_page(record: Record, loaded: list[registry.Loaded], timeout_s: float) -> list[PageScore]:
    """Every extractor on one page, scored against its gold."""
    gold = record["main_text"]
    scores = []
    for ex in loaded:
        outcome = registry.call(ex, record, timeout_s)
        p, r, f1 = word_prf(outcome.text, gold)
        scores.append(
            PageScore(
                record["id"],
                record["dataset"],
                record.get("page_type"),
                ex.name,
                p,
                r,
                f1,
                snippet_accuracy(outcome.text, record.get("with"), record.get("without")),
                outcome.seconds,
                outcome.error,
                len(outcome.text),
                len(words(outcome.text)),
            )
        )
    return scores


def cpu_model() -> str:
    """The processor's name where the OS tells it (Linux), so timings can be set beside other machines'."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> str:
    return f"{platform.system()} {cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def evaluate(
    names: list[str],
    datasets: list[str] | None,
    split: str,
    limit: int | None,
    timeout_s: float = registry.PAGE_TIMEOUT_S,
    jsonl: TextIO | None = None,
    command: str = "",
    detail: list[str] | None = None,
    buckets: frozenset[int] | None = None,
) -> tuple[str, RunInfo]:
    """Run the extractors named over the pages chosen (`split`, or with `buckets` the sites in those hash
    buckets whatever their split); the markdown report and the run's facts."""
    loaded, info = (
        [],
        RunInfo(
            command=command,
            date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            machine=machine(),
            split=split if buckets is None else "sites in buckets " + ",".join(map(str, sorted(buckets))),
            versions={},
            unavailable={},
        ),
    )
    for name in names:
        try:
            ex = registry.load(name)
        except registry.Unavailable as exc:
            info.unavailable[name] = str(exc)
            print(f"bench: {name} unavailable: {exc}", file=sys.stderr)
            continue
        loaded.append(ex)
        info.versions[name] = ex.version
        if ex.uses_gold:
            info.sees_gold.add(name)
    if not loaded:
        return render(info, {}, names, detail), info
    chosen = split if buckets is None else None
    records = list(iter_records(datasets=datasets, split=chosen, limit=limit, buckets=buckets))
    scores: list[PageScore] = []
    for record in progress(records, total=len(records), desc="fold pages" if buckets else f"{split} pages"):
        scored = bool(words(record.get("main_text")))
        for group in groups_of(record["dataset"], record.get("page_type")):
            tally = info.pages if scored else info.skipped
            tally[group] = tally.get(group, 0) + 1
        if not scored:
            continue
        page = score_page(record, loaded, timeout_s)
        scores.extend(page)
        if jsonl:
            for s in page:
                jsonl.write(json.dumps(asdict(s), ensure_ascii=False) + "\n")
    return render(info, summarize(scores), names, detail), info


def positive_int(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="python -m bench.evaluate", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--extractors",
        default=DEFAULT_EXTRACTORS,
        help=f"comma-separated, from: {', '.join(registry.REGISTRY)}; NAME:ARG passes ARG to the "
        f"loader (pith:DIR scores the model in DIR) (default: %(default)s)",
    )
    ap.add_argument("--datasets", default=None, help="comma-separated dataset names (default: all)")
    ap.add_argument("--split", default="dev", choices=["dev", "train"], help="(default: %(default)s)")
    ap.add_argument("--limit", type=positive_int, default=None, help="at most N pages per dataset (quick runs)")
    ap.add_argument(
        "--timeout",
        type=float,
        default=registry.PAGE_TIMEOUT_S,
        help="seconds one extractor may take on one page; past it the page counts as empty and an "
        "error (0 = no limit) (default: %(default)s)",
    )
    ap.add_argument(
        "--detail",
        default=None,
        help="comma-separated extractors that get a table per dataset and page type; the others get one row "
        "over all pages (default: every extractor)",
    )
    ap.add_argument(
        "--folds", type=int, default=None, help="cross-validation: the number of site-grouped folds (2, 5 or 10)"
    )
    ap.add_argument(
        "--fold", type=int, default=None, help="with --folds: score this fold's pages (both splits) instead of --split"
    )
    ap.add_argument("--out", type=Path, default=None, help="markdown report to write (default: runs/eval-SPLIT.md)")
    ap.add_argument("--jsonl", type=Path, default=None, help="also write one JSON line per page and extractor")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    names = [n.strip() for n in args.extractors.split(",") if n.strip()]
    if not names:
        print("bench: --extractors names none; give e.g. --extractors trafilatura,resiliparse", file=sys.stderr)
        return 2
    datasets = [d.strip() for d in args.datasets.split(",") if d.strip()] if args.datasets else None
    detail = [d.strip() for d in args.detail.split(",") if d.strip()] if args.detail is not None else None
    if detail is not None and set(detail) - set(names):
        unknown = ", ".join(sorted(set(detail) - set(names)))
        print(f"bench: --detail names {unknown}, which --extractors does not; name it in both", file=sys.stderr)
        return 2
    if (args.folds is None) != (args.fold is None):
        print("bench: --folds and --fold go together, e.g. --folds 5 --fold 0", file=sys.stderr)
        return 2
    out = args.out or Path("runs") / (f"eval-fold{args.fold}.md" if args.folds else f"eval-{args.split}.md")
    command = "python -m bench.evaluate " + shlex.join(sys.argv[1:] if argv is None else argv)
    jsonl = None
    try:
        if args.jsonl:
            args.jsonl.parent.mkdir(parents=True, exist_ok=True)
            jsonl = open(args.jsonl, "w", encoding="utf-8")
        buckets = fold_buckets(args.fold, args.folds) if args.folds is not None else None
        report, info = evaluate(
            names, datasets, args.split, args.limit, args.timeout, jsonl, command.strip(), detail, buckets
        )
    except PithError as exc:
        print(f"bench: {exc.message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("bench: interrupted; no report written", file=sys.stderr)
        return 130
    finally:
        if jsonl:
            jsonl.close()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report + "\n", encoding="utf-8")
    print(report)
    print(f"bench: report written to {out}", file=sys.stderr)
    if not info.versions:
        print("bench: no extractor could run (see 'unavailable' above)", file=sys.stderr)
        return 1
    if not info.pages:
        print("bench: no page to score: check --datasets, --split and the data folder", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
