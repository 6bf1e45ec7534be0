"""The host's peak memory against its documented bound, under the frames a local writer can send.

    python -m bench.host_memory                  # every case at full size (each frame at the 64 MiB cap)
    python -m bench.host_memory --only pipelined # cases whose name contains "pipelined"
    python -m bench.host_memory --scale 0.25     # frames a quarter of the cap (the bound is not checked)

Each case starts its own host as Chromium does (`python -m native_host host --preload <the extension's
origin>`), a writer thread writes all of the case's frames at once, as fast as the pipe takes them, and the
replies are read as they come; then the host must still answer `hello`. Peak RSS is the host's resident
high-water mark (VmHWM in /proc/PID/status), model included.

The bound (docs/security.md, Memory) is the model's host plus a page's work plus what the requests in flight can
cost: the host holds at most 2 requests read and not yet answered, of at most 64 MiB together (one frame at
the cap alone), and decoding JSON costs at most DECODE_FACTOR bytes per byte of frame (a frame of `[{}]`: an
empty object in a list, 4 bytes of JSON, costs ~140 bytes of Python objects).
"""

from __future__ import annotations

import argparse
import math
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable

from native_host import limits
from native_host.browser.client import HostProcess, host_command
from native_host.browser.framing import HEADER, encode_message
from native_host.browser.identity import chromium_origin

from .hostile import outcome, peak_rss_mb, total_text_at_limit

DECODE_FACTOR = 36        # bytes of memory per byte of frame, decoded (measured: `[{}]` frames, below)
PAGE_WORK_MB = 400        # the most a valid page's work adds (bench.hostile: million_elements, total_text_at_limit)
MODEL_HOST_MB = 100       # a host that answered hello, model loaded (bench.hostile's baseline: 82 MB)
BOUND_MB = MODEL_HOST_MB + PAGE_WORK_MB + DECODE_FACTOR * limits.HOST_BYTES_IN_FLIGHT / 1e6
TIMEOUT_S = 900.0


def _extract_frame(nodes: bytes, size: int) -> bytes:
    """An extract request of `size` bytes whose snapshot's nodes are `nodes` repeated (comma-joined)."""
    head = (b'{"v":1,"id":1,"type":"extract","snapshot":{"format":"pith-snapshot","version":1,"source":"live",'
            b'"nodes":[')
    count = max(1, (size - len(head) - 4) // (len(nodes) + 1))
    return head + nodes + (b"," + nodes) * (count - 1) + b"]}}"


def containers(size: int) -> bytes:
    """The JSON that costs the most memory per byte to decode: an empty object in a list, over and over."""
    return _extract_frame(b"[{}]", size)


def backslashes(size: int) -> bytes:
    """One string of escaped backslashes, a lone surrogate escape at its end: the surrogate check's worst run."""
    run = b"\\\\" * ((size - 100) // 2)
    return b'{"v":1,"id":1,"type":"extract","snapshot":{"format":"pith-snapshot","title":"' + run + b'\\ud800"}}'


def lone_surrogates(size: int) -> bytes:
    """One string of lone surrogate escapes: every one of them replaced."""
    run = b"\\udc00" * ((size - 100) // 6)
    return b'{"v":1,"id":1,"type":"extract","snapshot":{"format":"pith-snapshot","title":"' + run + b'"}}'


def _slow_page(size: int) -> bytes:
    """A valid page that keeps the host busy for seconds: as much text as a snapshot may carry."""
    return total_text_at_limit(1.0)


@dataclass(frozen=True)
class Case:
    name: str
    what: str
    frames: Callable[[int], list[bytes]]  # the frames' payloads, given the size of a frame at the cap


CASES = (
    Case("containers", "one frame of `[{}]`", lambda cap: [containers(cap)]),
    Case("backslashes", "one frame of escaped backslashes, then a lone surrogate", lambda cap: [backslashes(cap)]),
    Case("lone_surrogates", "one frame of lone surrogate escapes", lambda cap: [lone_surrogates(cap)]),
    Case("pipelined", "a slow page, then 3 frames of `[{}]` written at once",
         lambda cap: [_slow_page(cap)] + [containers(cap)] * 3),
    Case("pipelined_fill", "a slow page, then 3 frames of `[{}]` that fit beside it in the bytes in flight",
         lambda cap: [_slow_page(cap)] + [containers(cap - len(_slow_page(cap)) - 4)] * 3),
)


@dataclass
class Row:
    case: str
    frames_mb: float
    seconds: float
    peak_mb: float
    replies: str
    ok: bool


def run_case(case: Case, cap: int) -> Row:
    frames = case.frames(cap)
    data = b"".join(HEADER.pack(len(f)) + f for f in frames)
    with HostProcess(host_command((chromium_origin(),), "--preload", "--idle-timeout", "0")) as host:
        host.request({"v": 1, "id": 0, "type": "hello"})
        t0 = time.perf_counter()
        writer = threading.Thread(target=host.send_raw, args=(data,), daemon=True)
        writer.start()
        got = [outcome(host.receive()) for _ in frames]
        seconds = time.perf_counter() - t0
        writer.join(TIMEOUT_S)
        alive = host.request({"v": 1, "id": 2, "type": "hello"}).get("type") == "hello"
        peak = peak_rss_mb(host.proc.pid)
    return Row(case.name, len(data) / 1e6, seconds, peak, ", ".join(got), alive)


def table(rows: list[Row], check: bool) -> str:
    lines = ["| case | frames MB | time s | host peak RSS MB | bound MB | replies | within |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        within = ("yes" if r.peak_mb <= BOUND_MB else "NO") if check else "-"
        lines.append(f"| {r.case} | {r.frames_mb:.1f} | {r.seconds:.2f} | {r.peak_mb:.0f} | {BOUND_MB:.0f} | "
                     f"{r.replies} | {within} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="frame size as a fraction of the cap (default 1)")
    parser.add_argument("--only", default="", help="run only cases whose name contains this")
    args = parser.parse_args(argv)
    cap = int(limits.MAX_REQUEST_BYTES * args.scale)
    check = args.scale == 1.0
    rows = []
    for case in CASES:
        if args.only in case.name:
            rows.append(run_case(case, cap))
            print(table(rows[-1:], check).splitlines()[-1], file=sys.stderr, flush=True)
    print(table(rows, check))
    print(f"\nbound: {MODEL_HOST_MB} MB (host, model) + {PAGE_WORK_MB} MB (a page's work) + {DECODE_FACTOR} x "
          f"{limits.HOST_BYTES_IN_FLIGHT / 1e6:.1f} MB (requests in flight, decoded) = {BOUND_MB:.0f} MB")
    over = [r for r in rows if not r.ok or (check and (math.isnan(r.peak_mb) or r.peak_mb > BOUND_MB))]
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
