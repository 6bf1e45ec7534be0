"""The native host as the browser meets it: round trips of live snapshots through the real framing, cold start,
the host's peak memory, and the size of the model files it ships.

    python -m bench.host_speed [--nodes 1000 5000 20000] [--repeats 9] [--model-dir DIR]

Live snapshots of bench.synthetic's blog page at each size (about eight nodes a block; `--nodes 80000` gives
some 10,000 blocks, whose full reply is chunked) are sent `repeats` times each to one running `pith host` after
a first request: as the extension sends them (the page's JSON text as `snapshot_json`, with its highlight and
its reader view's wants) and as a Python caller does (the snapshot object, `highlight` with every view).
Reported, as medians:
* validate ... article: the engine's stages (the reply's `timings`);
* engine: the reply's `timings.total`; host: `timings.host`, from the request fully read to its reply shaped;
* round trip: from the first byte sent to the whole reply received and joined, as the browser would see it
  (the request is encoded before the clock starts: the browser's encoding is the content script's cost,
  bench.content_script);
* every request's texts are new (a run tag in front of each), as a page the host has never read: it keeps
  the token ids of the texts it has seen;
* frames: how many frames the reply took (over 1 MiB it is chunked);
* cold start: process start -> `hello` answered (the model loads on `hello`), and -> first extract answered;
* the host's peak RSS after all the requests (Linux: VmHWM), and the model files' sizes.
`--model-dir` serves another model, e.g. the stand-in of tests/host_support.py, for the cost of everything
but the model.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from native_host.browser.client import HostProcess, host_command
from native_host.browser.framing import encode_message, frame
from native_host.browser.identity import chromium_origin
from native_host.pipeline.inference import default_model_dir

from .bytecode import compile_pith
from .synthetic import live_snapshot

# (how the snapshot travels, want): the extension's highlight and reader actions (extension/background/actions.js),
# then a Python caller's request with every block's scores and every view.
REQUESTS = (
    ("snapshot_json", ["outline", "text"]),
    ("snapshot_json", ["outline", "article", "markdown", "text"]),
    ("snapshot", ["highlight", "article", "text", "markdown"]),
)
STAGES = ("validate", "blocks", "features", "inference", "article")


def _start(model_dir: str | None) -> HostProcess:
    env = {"PITH_MODEL_DIR": model_dir} if model_dir else {}
    return HostProcess(host_command([chromium_origin()], "--idle-timeout", "0"), env)


@dataclass
class Row:
    """One snapshot and `want` through a running host: medians come from these lists."""

    snapshot: dict
    blocks: int
    megabytes: float  # the snapshot's JSON
    carried: str  # "snapshot" (the object) or "snapshot_json" (its JSON text)
    want: list[str]
    engine_ms: list[float]
    host_ms: list[float]
    trip_ms: list[float]
    frames: int
    stages: dict[str, list[float]]


_RUNS = itertools.count()


def renewed(snapshot: dict) -> dict:
    """The snapshot with a new run tag in front of every text: the host keeps the token ids of texts it has
    read, and each request is to meet the page as new, as a page never read before would be."""
    tag = f"r{next(_RUNS)} "
    nodes = [{**n, "text": tag + n["text"]} if (n.get("text") or "").strip() else n for n in snapshot["nodes"]]
    return {**snapshot, "nodes": nodes}


def warm(
    host: HostProcess, snapshot: dict, carried: str, want: list[str], repeats: int
) -> tuple[list[float], list[float], list[float], int, dict[str, list[float]]]:
    """Engine, host and round-trip ms of `repeats` requests after a first one, the last reply's frame count,
    and each engine stage's ms. The snapshot goes as `carried` names: the object, or its JSON text; each
    request's texts are new (`renewed`)."""
    engine_ms, host_ms, round_trip_ms = [], [], []
    stages: dict[str, list[float]] = {}
    frames = 0
    for i in range(repeats + 1):
        page = renewed(snapshot)
        payload = encode_message(page).decode("utf-8") if carried == "snapshot_json" else page
        data = frame(encode_message({"v": 1, "id": i, "type": "extract", carried: payload, "want": want}))
        t0 = time.perf_counter()
        before = len(host.frame_sizes)
        host.send_raw(data)
        reply = host.receive()
        elapsed = (time.perf_counter() - t0) * 1000
        assert reply["type"] == "result", reply
        if i:  # the first extract warms caches; it is what cold start measures
            engine_ms.append(reply["timings"]["total"])
            host_ms.append(reply["timings"]["host"])
            round_trip_ms.append(elapsed)
            for stage, ms in reply["timings"].items():
                stages.setdefault(stage, []).append(ms)
            frames = len(host.frame_sizes) - before
    return engine_ms, host_ms, round_trip_ms, frames, stages


def sweep(host: HostProcess, snapshots: list[tuple[dict, int]], repeats: int) -> Iterator[Row]:
    """Every snapshot in every way of REQUESTS, `repeats` warm requests each."""
    for snapshot, blocks in snapshots:
        size = len(encode_message(snapshot)) / 1e6
        for carried, want in REQUESTS:
            engine_ms, host_ms, trip_ms, frames, stages = warm(host, snapshot, carried, want, repeats)
            yield Row(snapshot, blocks, size, carried, want, engine_ms, host_ms, trip_ms, frames, stages)


def cold_start(model_dir: str | None, snapshot: dict, repeats: int) -> tuple[list[float], list[float]]:
    to_hello, to_extract = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        with _start(model_dir) as host:
            host.request({"v": 1, "id": 1, "type": "hello"})
            to_hello.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        with _start(model_dir) as host:
            reply = host.request({"v": 1, "id": 1, "type": "extract", "snapshot": snapshot, "want": ["highlight"]})
            assert reply["type"] == "result", reply
            to_extract.append((time.perf_counter() - t0) * 1000)
    return to_hello, to_extract


def model_files(model_dir: Path) -> list[tuple[str, float]]:
    return [(p.name, p.stat().st_size / 1e6) for p in sorted(model_dir.iterdir()) if p.is_file()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.host_speed", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--nodes", type=int, nargs="+", default=[1_000, 5_000, 20_000])
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--model-dir", default=None, help="model directory (default: the shipped model)")
    args = ap.parse_args(argv)
    median = statistics.median
    snapshots = [live_snapshot(n) for n in args.nodes]
    print("### Host round trip, live snapshots through the real framing (medians, ms)\n")
    print(
        "| nodes | blocks | snapshot JSON | sent as | want | "
        + " | ".join(STAGES)
        + " | engine | host | round trip | reply frames |"
    )
    print("|---:|---:|---:|---|---|" + "---:|" * (len(STAGES) + 4))
    with _start(args.model_dir) as host:
        info = host.request({"v": 1, "id": 0, "type": "hello"})
        for r in sweep(host, snapshots, args.repeats):
            cells = " | ".join(f"{median(r.stages[s]):.1f}" for s in STAGES)
            print(
                f"| {len(r.snapshot['nodes']):,} | {r.blocks:,} | {r.megabytes:.2f} MB | {r.carried} | {'+'.join(r.want)} | "
                f"{cells} | {median(r.engine_ms):.1f} | {median(r.host_ms):.1f} | {median(r.trip_ms):.1f} | "
                f"{r.frames} |"
            )
        rss = host.peak_rss_mb()
    smallest = min(snapshots, key=lambda s: len(s[0]["nodes"]))[0]
    bytecode = compile_pith()
    to_hello, to_extract = cold_start(args.model_dir, smallest, max(3, args.repeats // 2))
    print("\n### Cold start, memory, size\n")
    print("| measure | value |\n|---|---:|")
    print(f"| process start → hello answered (model loaded), median | {median(to_hello):.0f} ms |")
    print(
        f"| process start → first extract answered ({len(smallest['nodes']):,} nodes), median | "
        f"{median(to_extract):.0f} ms |"
    )
    print(
        "| host peak RSS after all the requests above | "
        + (f"{rss:.0f} MB |" if rss is not None else "n/a (no /proc) |")
    )
    files = model_files(Path(args.model_dir) if args.model_dir else default_model_dir())
    for name, mb in files:
        print(f"| model file {name} | {mb:.2f} MB |")
    print(f"| model files, total | {sum(mb for _, mb in files):.2f} MB |")
    print(
        f"\nmodel {info.get('model_id')} on {', '.join(info.get('providers', []))}; {args.repeats} warm repeats; "
        f"{bytecode}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
