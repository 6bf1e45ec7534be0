"""The blocks stage, compiled segmenter against the Python segmenter, on the dev pages.

    python -m bench.segment_speed [--repeats 3] [--limit N] [--snapshots FILE]

For every dev page's HTML snapshot, and its live snapshot where the corpus of browser snapshots
(--snapshots, as bench.live reads it) holds one: whether the two segmenters give equal blocks with combine on and off (the
count of snapshots that differ must be 0), how many the compiled one handed to Python (input it does not
model), and the CPU time (time.process_time: the machine is shared) of `blocks_from_snapshot` with each, the
two alternating, the median of `repeats` runs per snapshot. Prints medians and p95s (nearest rank, as
bench.speed) over the snapshots, in ms (docs/performance.md, "Where the time goes").
"""

from __future__ import annotations

import gc
import statistics
import sys

from native_host.pipeline import blocks

from .compiled import alternate, dev_options, dev_snapshots
from .schema_speed import cpu_ms
from .speed import pct


def main(argv: list[str] | None = None) -> int:
    args = dev_options(__doc__, argv)
    segmenter = blocks._segmenter
    if segmenter is None:
        print("the compiled segmenter is not in use here (not built, failed its probe, or PITH_PURE_PYTHON)")
        return 1
    failed = 0
    print(
        "| snapshots | count | differ | handed to Python | compiled: median (ms) | compiled: p95 (ms) "
        "| Python: median (ms) | Python: p95 (ms) | Python ÷ compiled (median) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")

    def switch(on: bool) -> None:
        blocks._segmenter = segmenter if on else None

    for kind in ("html", "live"):
        times: dict[bool, list[float]] = {True: [], False: []}
        differ = handed = count = 0
        gc.disable()
        try:
            for i, snap in enumerate(dev_snapshots(kind, args.limit, args.snapshots)):
                count += 1
                handed += blocks.compiled_blocks(segmenter, snap["nodes"]) is None
                for combine in (True, False):
                    differ += blocks.blocks_from_snapshot(snap, combine) != blocks.python_blocks_from_snapshot(
                        snap, combine
                    )
                runs: dict[bool, list[float]] = {True: [], False: []}
                alternate(
                    i,
                    args.repeats,
                    switch,
                    lambda compiled: runs[compiled].append(cpu_ms(lambda: blocks.blocks_from_snapshot(snap))),
                )
                for compiled in (True, False):
                    times[compiled].append(statistics.median(runs[compiled]))
                gc.collect()
        finally:
            switch(True)
            gc.enable()
        if not count:
            continue
        failed += differ
        c, p = times[True], times[False]
        print(
            f"| {kind} | {count} | {differ} | {handed} | {statistics.median(c):.2f} | {pct(c, 0.95):.2f} "
            f"| {statistics.median(p):.2f} | {pct(p, 0.95):.2f} "
            f"| {statistics.median(p) / statistics.median(c):.2f} × |"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
