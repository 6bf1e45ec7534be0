"""The HTML path's snapshot, compiled walk against the Python walk, on the dev pages.

    python -m bench.walk_speed [--repeats 3] [--limit N]

For every dev page: whether the two walks give the same snapshot (the count of pages that differ must be
0), and the CPU time (time.process_time: the machine is shared) of `snapshot_from_html` with each walk,
the two alternating, the median of `repeats` runs per page; then the walk alone and lexbor's parse alone.
Prints medians and p95s (nearest rank, as bench.speed) over the pages, in ms (docs/performance.md, "Where
the time goes").
"""

from __future__ import annotations

import gc
import statistics
import sys

from selectolax.lexbor import LexborHTMLParser

from export.data import iter_records
from native_host.pipeline import snapshot

from .compiled import alternate, dev_options, print_compiled_against_python
from .schema_speed import cpu_ms


def main(argv: list[str] | None = None) -> int:
    args = dev_options(__doc__, argv, live=False)
    compiled = snapshot._compiled
    if compiled is None:
        print("the compiled walk is not in use here (not built, another selectolax, or PITH_PURE_PYTHON)")
        return 1
    pages = [(r["html"], r.get("url")) for r in iter_records(split="dev", limit=args.limit)]
    kinds = (
        "snapshot, compiled walk",
        "snapshot, Python walk",
        "walk alone, compiled",
        "walk alone, Python",
        "lexbor parse alone",
    )
    times: dict[str, list[float]] = {k: [] for k in kinds}
    differ = 0

    def switch(on: bool) -> None:
        snapshot._compiled = compiled if on else None

    gc.disable()
    try:
        for i, (html, url) in enumerate(pages):
            runs: dict[str, list[float]] = {k: [] for k in kinds}
            text = snapshot.decode_html(html)
            tree = LexborHTMLParser(text)
            _, base = snapshot._head_fields(tree, url)
            root = tree.root

            def run(use_compiled: bool) -> None:
                runs[kinds[0] if use_compiled else kinds[1]].append(
                    cpu_ms(lambda: snapshot.snapshot_from_html(html, url=url))
                )
                if use_compiled:
                    runs[kinds[2]].append(cpu_ms(lambda: compiled.walk(root.mem_id, base, snapshot)))
                    runs[kinds[4]].append(cpu_ms(lambda: LexborHTMLParser(text)))
                else:
                    runs[kinds[3]].append(cpu_ms(lambda: snapshot._walk(root, base)))

            alternate(i, args.repeats, switch, run)
            switch(False)
            python = snapshot.snapshot_from_html(html, url=url)
            switch(True)
            differ += snapshot.snapshot_from_html(html, url=url) != python
            for kind in kinds:
                times[kind].append(statistics.median(runs[kind]))
            gc.collect()
    finally:
        switch(True)
        gc.enable()
    print(f"{len(pages)} dev pages; snapshots that differ between the walks: {differ}")
    print_compiled_against_python(times, args.repeats, "snapshot")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
