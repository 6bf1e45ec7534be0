"""What the compiled-against-Python benches share (bench.walk_speed, bench.segment_speed, bench.feature_speed):
the dev pages' snapshots, the alternating timing of a stage with its compiled module on and off, and the
table of the two."""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable, Iterator
from pathlib import Path

from export import recordings
from export.data import iter_records

from .speed import pct


def dev_options(doc: str, argv: list[str] | None, live: bool = True) -> argparse.Namespace:
    """The benches' options: `--repeats` and `--limit`, and `--snapshots` for those that also read the
    recorded live snapshots (`live`)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None, help="pages per dataset")
    if live:
        parser.add_argument(
            "--snapshots",
            type=Path,
            default=recordings.default_path("dev"),
            help="recorded live snapshots (python -m export.record; skipped if absent)",
        )
    return parser.parse_args(argv)


def dev_snapshots(kind: str, limit: int | None, corpus_file: Path) -> Iterator[dict]:
    """One snapshot at a time (held all at once, the live ones made every gc pass cost seconds): "html",
    built from each dev page's HTML, or "live", recorded, for the dev pages in the corpus file (none when
    it is absent)."""
    from native_host.pipeline.snapshot import snapshot_from_html

    records = iter_records(split="dev", limit=limit)
    if kind == "html":
        yield from (snapshot_from_html(r["html"], url=r.get("url")) for r in records)
    elif corpus_file.exists():
        spans = recordings.index(corpus_file)
        yield from (recordings.load_at(corpus_file, spans[r["id"]])["snapshot"] for r in records if r["id"] in spans)


def alternate(page: int, repeats: int, switch: Callable[[bool], None], run: Callable[[bool], None]) -> None:
    """`run(compiled)` `repeats` times with the compiled module switched on (`switch(True)`) and as often
    off, which of the two goes first alternating by page and repeat, so that neither always meets the caches
    the other left; the module is left switched on."""
    try:
        for rep in range(repeats):
            first = (page + rep) % 2 == 0
            for compiled in (first, not first):
                switch(compiled)
                run(compiled)
    finally:
        switch(True)


def print_compiled_against_python(times: dict[str, list[float]], repeats: int, what: str) -> None:
    """Per-page CPU ms, median and p95, for each kind of run in `times` (the compiled one first, then the
    Python one), and the ratio Python ÷ compiled for `what`."""
    print(f"CPU ms per page (median of {repeats} runs each, alternating):")
    print("| | median (ms) | p95 (ms) |\n|---|---:|---:|")
    for kind, values in times.items():
        print(f"| {kind} | {statistics.median(values):.2f} | {pct(values, 0.95):.2f} |")
    compiled, python = list(times.values())[:2]
    ratio = statistics.median(python) / statistics.median(compiled), pct(python, 0.95) / pct(compiled, 0.95)
    print(f"| **{what}: Python ÷ compiled** | {ratio[0]:.2f} × | {ratio[1]:.2f} × |")
