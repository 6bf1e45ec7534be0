"""The features stage, compiled counts (feature_core.pyx) against the Python reference, on the dev pages.

    python -m bench.feature_speed [--repeats 3] [--limit N] [--snapshots FILE]

For every dev page (the snapshot built from its HTML, and the recorded live snapshot when the corpus file is
there): whether the two give the same model inputs (every PageInputs array; the count of pages that differ
must be 0), and the CPU time (time.process_time: the machine is shared) of the whole features stage
(`Featurizer.__call__`, the tokenizer included) with each, the two alternating, the median of `repeats` runs
per page; then the tokenizer's part alone (`Featurizer.text_ids`), the floor under both. Prints medians and
p95s (nearest rank, as bench.speed) over the pages, in ms (docs/performance.md, "Where the time goes").
"""

from __future__ import annotations

import gc
import statistics
import sys
from collections.abc import Iterable

import numpy as np

from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.pipeline.features import Featurizer, PageInputs
from native_host.pipeline.inference import default_model_dir

from .compiled import alternate, dev_options, dev_snapshots, print_compiled_against_python
from .schema_speed import cpu_ms

KINDS = ("features, compiled counts", "features, Python", "tokenizer part alone (text_ids)")


def same_inputs(a: PageInputs, b: PageInputs) -> bool:
    return all(
        x.dtype == y.dtype and np.array_equal(x, y)
        for x, y in zip(
            (a.text_ids, a.tag_ids, a.class_ids, a.class_level, a.numeric),
            (b.text_ids, b.tag_ids, b.class_ids, b.class_level, b.numeric),
        )
    )


def measure(featurize: Featurizer, pages: Iterable[dict], repeats: int) -> tuple[int, int, dict[str, list[float]]]:
    """(pages, pages whose inputs differ, {kind: per-page median CPU ms})."""
    core = featurize._core
    times: dict[str, list[float]] = {k: [] for k in KINDS}
    differ = i = 0

    def switch(on: bool) -> None:
        featurize._core = core if on else None

    gc.disable()
    try:
        for i, snapshot in enumerate(pages, 1):
            blocks = blocks_from_snapshot(snapshot)
            runs: dict[str, list[float]] = {k: [] for k in KINDS}

            def run(use_compiled: bool) -> None:
                runs[KINDS[0] if use_compiled else KINDS[1]].append(cpu_ms(lambda: featurize(snapshot, blocks)))
                if use_compiled:
                    runs[KINDS[2]].append(cpu_ms(lambda: featurize.text_ids(blocks)))

            alternate(i, repeats, switch, run)
            switch(False)
            python = featurize(snapshot, blocks)
            switch(True)
            differ += not same_inputs(featurize(snapshot, blocks), python)
            for kind in KINDS:
                times[kind].append(statistics.median(runs[kind]))
            gc.collect()
    finally:
        switch(True)
        gc.enable()
    return i, differ, times


def main(argv: list[str] | None = None) -> int:
    args = dev_options(__doc__, argv)
    featurize = Featurizer(default_model_dir())
    if featurize._core is None:
        print("the compiled feature counts are not in use here (not built, or PITH_PURE_PYTHON)")
        return 1
    bad = 0
    for kind in ("html", "live"):
        count, differ, times = measure(featurize, dev_snapshots(kind, args.limit, args.snapshots), args.repeats)
        if not count:
            print(f"\n{kind} snapshots: none ({args.snapshots} not found)")
            continue
        bad += differ
        print(f"\n{count} dev pages, {kind} snapshots; pages whose model inputs differ: {differ}")
        print_compiled_against_python(times, args.repeats, "features")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
