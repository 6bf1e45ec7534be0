"""The host's CPU time for a warm reader request on recorded live pages: tables, never pass/fail.

    python -m bench.reader_cpu --snapshots runs/snapshots-dev.msgpack
    python -m bench.reader_cpu --snapshots F --page wcxb/dev-4284 --page wcxb/dev-0057 --runs 9

Each page's snapshot goes through the host's own handling of the reader's request (`snapshot_json` as the
extension writes it, its nodes as rows, decoded; `want` outline, article, Markdown and text with `first` outline
and article; both replies encoded), after two warm-up requests; "to the part": from the request's decoding to
its first part encoded; the token cache is emptied before each one, so every request meets texts not seen before.
CPU is `time.process_time` (all the process's threads: onnxruntime's included), so a busy machine's other
work is left out; "article" is the reader views' share (`build_article` and the later `add_views`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from export import recordings
from native_host.browser import protocol
from native_host.gc_pause import GcHold
from native_host.pipeline import extractor as stages

PAGES = ("wcxb/dev-4284", "wcxb/dev-0057")  # 1,490 and 3,898 elements: the reader's click targets
WARMUP = 2


def reader_request(snapshot_json: str) -> dict:
    return {
        "v": 1,
        "id": 2,
        "type": "extract",
        "snapshot_json": snapshot_json,
        "want": ["outline", "article", "markdown", "text"],
        "first": ["outline", "article"],
    }


def measure(snapshot_json: str, runs: int) -> tuple[list[float], list[float], list[float]]:
    """(CPU ms per request, CPU ms of its reader views, CPU ms to its first part sent) for `runs` warm
    requests."""
    engine = protocol.LazyExtractor()
    extractor = engine.get()
    spent = [0.0]
    originals = {name: getattr(stages, name) for name in ("build_article", "add_views")}

    def timed(fn):
        def run(*args, **kwargs):
            t0 = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[0] += time.process_time() - t0

        return run

    for name, fn in originals.items():
        setattr(stages, name, timed(fn))
    total, views, part = [], [], []
    at_part = [0.0]

    def early(reply: dict) -> None:
        protocol.reply_payloads(reply)
        at_part[0] = time.process_time()

    try:
        for k in range(WARMUP + runs):
            extractor.featurize._known.clear()  # texts not seen before
            spent[0] = 0.0
            t0 = time.process_time()
            hold = GcHold()  # as the host: the collector paused from the decoding to the reply sent
            request = protocol.parse_request(reader_request(snapshot_json), time.perf_counter())
            rest = protocol.answer(request, engine, early=early)
            protocol.reply_payloads(rest)
            del request, rest
            hold.end()
            if k >= WARMUP:
                total.append((time.process_time() - t0) * 1000)
                views.append(spent[0] * 1000)
                part.append((at_part[0] - t0) * 1000)
    finally:
        for name, fn in originals.items():
            setattr(stages, name, fn)
    return total, views, part


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--snapshots", type=Path, default=recordings.default_path("dev"))
    ap.add_argument("--page", action="append", default=[], help=f"a page id (repeatable; default {', '.join(PAGES)})")
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args(argv)
    if not args.snapshots.is_file():
        ap.error(f"{args.snapshots} not found; record it first: python -m export.record --split dev")
    spans = recordings.index(args.snapshots)
    missing = [p for p in args.page or PAGES if p not in spans]
    if missing:
        ap.error(f"{missing[0]} is not in {args.snapshots}")
    print("| page | elements | request CPU, median (ms) | min | reader views CPU, median (ms) | to the part (ms) |")
    print("|---|---:|---:|---:|---:|---:|")
    for page in args.page or PAGES:
        snapshot = recordings.load_at(args.snapshots, spans[page])["snapshot"]
        elements = sum(node["tag"] != "#text" for node in snapshot["nodes"])
        rows = {
            **{k: v for k, v in snapshot.items() if k != "nodes"},
            "rows": protocol.rows_from_nodes(snapshot["nodes"]),
        }
        total, views, part = measure(json.dumps(rows, separators=(",", ":"), ensure_ascii=False), args.runs)
        print(
            f"| {page} | {elements:,} | {statistics.median(total):.1f} | {min(total):.1f} "
            f"| {statistics.median(views):.1f} | {statistics.median(part):.1f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
