"""Host figures for docs/protocol.md: extraction time through the real host and framing, and cold start.

    python -m bench.host_roundtrip [--model-dir DIR] [--repeats 9]

Synthetic pages of about 1,000 and 10,000 blocks (headings, paragraphs, lists, tables, link menus) are
snapshotted once, then sent to one running `pith host` process, repeatedly. Reported, as medians:
* engine: the reply's `timings.total`, the extractor's stages (validation to article);
* host: the reply's `timings.host`, from the request fully read to its reply shaped (decode excluded);
* round trip: from the first byte sent to the whole reply received and joined, as the browser would see it;
* cold start: process start -> `hello` answered (the model loads on `hello`), and -> first extract answered.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass
from typing import Iterator

from native_host import snapshot_from_html
from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.browser.client import HostProcess, host_command
from native_host.browser.framing import encode_message, frame
from native_host.browser.identity import chromium_origin

WORDS = ("river stone bridge valley mill summer town builder hill water road market council winter harvest "
         "school station garden library festival").split()


def _sentence(i: int, n: int = 14) -> str:
    return " ".join(WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(n)).capitalize() + "."


def _section(i: int) -> str:
    """About ten blocks of mixed kinds; class names vary so neighbouring blocks do not merge into one."""
    menu = "".join(f"<li><a href='/s{i}/{k}'>{WORDS[(i + k) % len(WORDS)]}</a></li>" for k in range(4))
    rows = "".join(f"<tr><td>{WORDS[k % len(WORDS)]}</td><td>{i * k}</td></tr>" for k in range(3))
    return (f"<section class='s{i % 7}'><h2>Section {i}: {_sentence(i, 5)}</h2>"
            f"<p class='lead'>{_sentence(i)} {_sentence(i + 1)}</p><div class='note'>{_sentence(i + 2, 9)}</div>"
            f"<p class='body'>{_sentence(i + 3)} {_sentence(i + 4)} {_sentence(i + 5)}</p>"
            f"<ul class='m{i % 5}'>{menu}</ul><table class='t'>{rows}</table>"
            f"<blockquote>{_sentence(i + 6, 10)}</blockquote><aside class='ad'>Advertisement {i}</aside></section>")


def synthetic_snapshot(target_blocks: int) -> tuple[dict, int]:
    """A snapshot with about `target_blocks` blocks, and its exact block count."""
    sections = max(1, target_blocks // 10)
    for _ in range(4):
        html = (f"<html lang='en'><head><title>Synthetic {target_blocks}</title></head><body>"
                "<nav><a href='/'>Home</a> <a href='/a'>About</a></nav><main>"
                + "".join(_section(i) for i in range(sections)) + "</main><footer>Footer</footer></body></html>")
        snapshot = snapshot_from_html(html, url="https://bench.example/page")
        count = len(blocks_from_snapshot(snapshot))
        if abs(count - target_blocks) <= target_blocks // 50:
            break
        sections = max(1, round(sections * target_blocks / count))
    return snapshot, count


def _start(model_dir: str | None) -> HostProcess:
    env = {"PITH_MODEL_DIR": model_dir} if model_dir else {}
    return HostProcess(host_command([chromium_origin()], "--idle-timeout", "0"), env)


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


def warm(host: HostProcess, snapshot: dict, want: list[str], repeats: int, stages: dict | None = None
         ) -> tuple[list[float], list[float], list[float], int]:
    """Engine, host and round-trip ms of `repeats` requests after a first one; `stages`, when given,
    collects each of the engine's stage timings too."""
    engine_ms, host_ms, round_trip_ms = [], [], []
    frames = 0
    for i in range(repeats + 1):
        # Encoded before the clock starts: the browser's JSON of a snapshot is the content script's cost
        # (bench.content_script), and Python's json.dumps of it took ~10 ms at 5k nodes.
        data = frame(encode_message({"v": 1, "id": i, "type": "extract", "snapshot": snapshot, "want": want}))
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
            if stages is not None:
                for stage, ms in reply["timings"].items():
                    stages.setdefault(stage, []).append(ms)
            frames = len(host.frame_sizes) - before
    return engine_ms, host_ms, round_trip_ms, frames


WANTS = (["highlight"], ["highlight", "article", "text", "markdown"])


@dataclass
class Row:
    """One page size and `want` through a running host: medians come from these lists."""

    size: int                 # the size asked for (blocks or nodes, as the caller counts)
    snapshot: dict
    blocks: int
    megabytes: float          # the snapshot's JSON
    want: list[str]
    engine_ms: list[float]
    host_ms: list[float]
    trip_ms: list[float]
    frames: int
    stages: dict[str, list[float]]


def sweep(host: HostProcess, snapshots: dict[int, tuple[dict, int]], repeats: int) -> Iterator[Row]:
    """Every snapshot with every `want` of WANTS, `repeats` warm requests each."""
    for n, (snapshot, count) in snapshots.items():
        size = len(encode_message(snapshot)) / 1e6
        for want in WANTS:
            stages: dict[str, list[float]] = {}
            engine_ms, host_ms, trip_ms, frames = warm(host, snapshot, want, repeats, stages)
            yield Row(n, snapshot, count, size, want, engine_ms, host_ms, trip_ms, frames, stages)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model-dir", default=None, help="model directory (default: the shipped model)")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000])
    args = parser.parse_args()
    median = statistics.median
    snapshots = {n: synthetic_snapshot(n) for n in args.sizes}
    print("| page | blocks | snapshot JSON | want | engine | host | round trip | reply frames |")
    print("|---|---|---|---|---|---|---|---|")
    with _start(args.model_dir) as host:
        info = host.request({"v": 1, "id": 0, "type": "hello"})
        for r in sweep(host, snapshots, args.repeats):
            print(f"| ~{r.size:,} blocks | {r.blocks:,} | {r.megabytes:.1f} MB | {'+'.join(r.want)} | "
                  f"{median(r.engine_ms):.0f} ms | {median(r.host_ms):.0f} ms | {median(r.trip_ms):.0f} ms | "
                  f"{r.frames} |")
    to_hello, to_extract = cold_start(args.model_dir, snapshots[min(snapshots)][0], max(3, args.repeats // 2))
    print()
    print("| cold start | median |")
    print("|---|---|")
    print(f"| process start -> hello answered (model loaded) | {median(to_hello):.0f} ms |")
    print(f"| process start -> first extract answered (~{min(snapshots):,} blocks) | {median(to_extract):.0f} ms |")
    print()
    print(f"model {info.get('model_id')} on {', '.join(info.get('providers', []))}; {args.repeats} warm repeats")


if __name__ == "__main__":
    main()
