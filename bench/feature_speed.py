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

import argparse
import gc
import statistics
import sys
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from export import corpus
from export.data import iter_records
from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.pipeline.features import Featurizer, PageInputs
from native_host.pipeline.inference import default_model_dir
from native_host.pipeline.snapshot import snapshot_from_html

from .schema_speed import cpu_ms
from .speed import print_compiled_against_python

KINDS = ("features, compiled counts", "features, Python", "tokenizer part alone (text_ids)")


def same_inputs(a: PageInputs, b: PageInputs) -> bool:
    return all(x.dtype == y.dtype and np.array_equal(x, y) for x, y in
               zip((a.text_ids, a.tag_ids, a.class_ids, a.class_level, a.numeric),
                   (b.text_ids, b.tag_ids, b.class_ids, b.class_level, b.numeric)))


def snapshots(kind: str, limit: int | None, corpus_file: Path) -> Iterator[dict]:
    """One snapshot at a time (held all at once, the live ones made every gc pass cost seconds): "html",
    built from each dev page's HTML, or "live", recorded, for the dev pages in the corpus file."""
    records = iter_records(split="dev", limit=limit)
    if kind == "html":
        yield from (snapshot_from_html(r["html"], url=r.get("url")) for r in records)
    elif corpus_file.exists():
        spans = corpus.index(corpus_file)
        yield from (corpus.load_at(corpus_file, spans[r["id"]])["snapshot"] for r in records if r["id"] in spans)


def measure(featurize: Featurizer, pages: Iterable[dict], repeats: int) -> tuple[int, int, dict[str, list[float]]]:
    """(pages, pages whose inputs differ, {kind: per-page median CPU ms})."""
    core = featurize._core
    times: dict[str, list[float]] = {k: [] for k in KINDS}
    differ = i = 0
    gc.disable()
    try:
        for i, snapshot in enumerate(pages, 1):
            blocks = blocks_from_snapshot(snapshot)
            runs: dict[str, list[float]] = {k: [] for k in KINDS}
            for rep in range(repeats):
                first_compiled = (i + rep) % 2 == 0
                for use_compiled in (first_compiled, not first_compiled):
                    featurize._core = core if use_compiled else None
                    runs[KINDS[0] if use_compiled else KINDS[1]].append(cpu_ms(lambda: featurize(snapshot, blocks)))
                runs[KINDS[2]].append(cpu_ms(lambda: featurize.text_ids(blocks)))
            featurize._core = None
            python = featurize(snapshot, blocks)
            featurize._core = core
            differ += not same_inputs(featurize(snapshot, blocks), python)
            for kind in KINDS:
                times[kind].append(statistics.median(runs[kind]))
            gc.collect()
    finally:
        featurize._core = core
        gc.enable()
    return i, differ, times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None, help="pages per dataset")
    parser.add_argument("--snapshots", type=Path, default=corpus.default_path("dev"),
                        help="recorded live snapshots (python -m export.record)")
    args = parser.parse_args(argv)
    featurize = Featurizer(default_model_dir())
    if featurize._core is None:
        print("the compiled feature counts are not in use here (not built, or PITH_PURE_PYTHON)")
        return 1
    bad = 0
    for kind in ("html", "live"):
        count, differ, times = measure(featurize, snapshots(kind, args.limit, args.snapshots), args.repeats)
        if not count:
            print(f"\n{kind} snapshots: none ({args.snapshots} not found)")
            continue
        bad += differ
        print(f"\n{count} dev pages, {kind} snapshots; pages whose model inputs differ: {differ}")
        print_compiled_against_python(times, args.repeats, "features")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
