"""The blocks stage, compiled segmenter against the Python segmenter, on the dev pages.

    python -m bench.segment_speed [--repeats 3] [--limit N] [--live PATH]

For every dev page's HTML snapshot, and its live snapshot where the corpus of browser snapshots (--live, as
bench.live reads it) holds one: whether the two segmenters give equal blocks with combine on and off (the
count of snapshots that differ must be 0), how many the compiled one handed to Python (input it does not
model), and the CPU time (time.process_time: the machine is shared) of `blocks_from_snapshot` with each, the
two alternating, the median of `repeats` runs per snapshot. Prints medians and p95s (nearest rank, as
bench.speed) over the snapshots, in ms (docs/performance.md, "Where the time goes").
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
from pathlib import Path

from export import corpus
from export.data import iter_records
from native_host import limits
from native_host.pipeline import blocks
from native_host.pipeline.snapshot import snapshot_from_html

from .schema_speed import cpu_ms
from .speed import pct

LIVE = Path("/work/runs/snapshots-all.msgpack")


def snapshots(limit: int | None, live: Path) -> dict[str, list[dict]]:
    """The dev pages' snapshots by kind: "html" (snapshot_from_html) and "live" (where the corpus has one)."""
    records = list(iter_records(split="dev", limit=limit))
    out: dict[str, list[dict]] = {"html": [snapshot_from_html(r["html"], url=r.get("url")) for r in records]}
    if live.exists():
        spans = corpus.index(live)
        out["live"] = [corpus.load_at(live, spans[r["id"]])["snapshot"] for r in records if r["id"] in spans]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None, help="pages per dataset")
    parser.add_argument("--live", type=Path, default=LIVE, help="corpus of live snapshots (skipped if absent)")
    args = parser.parse_args(argv)
    segmenter = blocks._segmenter
    if segmenter is None:
        print("the compiled segmenter is not in use here (not built, failed its probe, or PITH_PURE_PYTHON)")
        return 1
    failed = 0
    print("| snapshots | count | differ | handed to Python | compiled: median (ms) | compiled: p95 (ms) "
          "| Python: median (ms) | Python: p95 (ms) | Python ÷ compiled (median) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for kind, snaps in snapshots(args.limit, args.live).items():
        times: dict[bool, list[float]] = {True: [], False: []}
        differ = handed = 0
        gc.freeze()  # the snapshots held here are long-lived: a collection per page scans only what it made
        gc.disable()
        try:
            for i, snap in enumerate(snaps):
                nodes = snap["nodes"]
                handed += segmenter.segment(nodes, True, limits.MAX_BLOCKS, limits.MAX_BLOCK_TEXT,
                                            blocks.PATH_DEPTH, blocks.MEMO_DEPTH) is None
                for combine in (True, False):
                    differ += (blocks.blocks_from_snapshot(snap, combine)
                               != blocks.python_blocks_from_snapshot(snap, combine))
                runs: dict[bool, list[float]] = {True: [], False: []}
                for rep in range(args.repeats):
                    first = (i + rep) % 2 == 0
                    for compiled in (first, not first):
                        blocks._segmenter = segmenter if compiled else None
                        runs[compiled].append(cpu_ms(lambda: blocks.blocks_from_snapshot(snap)))
                    blocks._segmenter = segmenter
                for compiled in (True, False):
                    times[compiled].append(statistics.median(runs[compiled]))
                gc.collect()
        finally:
            blocks._segmenter = segmenter
            gc.enable()
            gc.unfreeze()
        failed += differ
        c, p = times[True], times[False]
        print(f"| {kind} | {len(snaps)} | {differ} | {handed} | {statistics.median(c):.2f} | {pct(c, 0.95):.2f} "
              f"| {statistics.median(p):.2f} | {pct(p, 0.95):.2f} "
              f"| {statistics.median(p) / statistics.median(c):.2f} × |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
