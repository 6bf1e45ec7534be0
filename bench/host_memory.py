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
the cap alone), and decoding a frame costs at most DECODE_FACTOR bytes per byte. That holds because a frame
with more objects and arrays, or keys, than a valid request can hold is refused before it is decoded (a frame
of `[{}]` would cost 34 bytes a byte); the cases are the costliest shapes left: those counts at their limits,
the scalars that cost the most per byte, and text made 4 bytes a character by one wide character.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from native_host import limits
from native_host.browser.client import HostProcess, host_command
from native_host.browser.framing import HEADER, encode_message
from native_host.browser.identity import chromium_origin

from .hostile import outcome, total_text_at_limit

DECODE_FACTOR = 17  # bytes of memory per byte of frame, decoded (the cases below: 15.8 at most)
PAGE_WORK_MB = 400  # the most a valid page's work adds (bench.hostile: million_elements, total_text_at_limit)
MODEL_HOST_MB = 100  # a host that answered hello, model loaded (bench.hostile's baseline: 82 MB)
BOUND_MB = MODEL_HOST_MB + PAGE_WORK_MB + DECODE_FACTOR * limits.HOST_BYTES_IN_FLIGHT / 1e6
TIMEOUT_S = 900.0


def _extract_frame(nodes: bytes, size: int, first: bytes = b"") -> bytes:
    """An extract request of `size` bytes whose snapshot's nodes are `first` (if any), then `nodes` repeated
    (comma-joined)."""
    head = (
        b'{"v":1,"id":1,"type":"extract","snapshot":{"format":"pith-snapshot","version":1,"source":"live",'
        b'"nodes":[' + (first + b"," if first else b"")
    )
    count = max(1, (size - len(head) - 4) // (len(nodes) + 1))
    return head + nodes + (b"," + nodes) * (count - 1) + b"]}}"


# Scalars that cost the most per byte: an integer outside the small ones Python shares (`-6,`: 3 bytes for a
# 32-byte int and its list slot), and a string of two characters (`"ab",`: 5 bytes for a 56-byte string).
NUMBER = b"-6"
STRING = b'"ab"'
# One character outside the Basic Multilingual Plane makes the frame's text 4 bytes a character.
WIDE = '"\U0001f600"'.encode()


def containers(size: int) -> bytes:
    """The JSON that costs the most memory per byte to decode: an empty object in a list, over and over."""
    return _extract_frame(b"[{}]", size)


def containers_at_limit(size: int) -> bytes:
    """As many `[{}]` as a request may hold objects and arrays, the rest of the frame small numbers, its text
    wide."""
    pairs = (limits.MAX_REQUEST_CONTAINERS - 8) // 2
    return _extract_frame(NUMBER, size, WIDE + b"," + b",".join([b"[{}]"] * pairs))


def _unique_keys(count: int) -> bytes:
    """An object of `count` distinct keys of 3 or 4 letters, each of a small number: each decoded key is a new
    string, held by the object and by json's memo of keys."""
    letters = [bytes([c]) for c in range(ord("a"), ord("z") + 1)] + [bytes([c]) for c in range(ord("A"), ord("Z") + 1)]
    keys = (a + b + c + d for d in [b""] + letters for a in letters for b in letters for c in letters)
    return b"{" + b",".join(b'"' + k + b'":' + NUMBER for k, _ in zip(keys, range(count))) + b"}"


def keys_at_limit(size: int) -> bytes:
    """One object of as many distinct keys as a request may hold, the rest of the frame small numbers, its
    text wide."""
    return _extract_frame(NUMBER, size, WIDE + b"," + _unique_keys(limits.MAX_REQUEST_KEYS - 16))


def short_strings(size: int) -> bytes:
    """Two-character strings, over and over."""
    return _extract_frame(STRING, size)


def small_numbers(size: int) -> bytes:
    """Integers Python makes one object for each, over and over."""
    return _extract_frame(NUMBER, size)


def wide_numbers(size: int) -> bytes:
    """The same, after one character that makes the frame's text 4 bytes a character."""
    return _extract_frame(NUMBER, size, WIDE)


def deep_nesting(size: int) -> bytes:
    """Arrays nested as deep as a request may hold containers (json stops at Python's recursion limit)."""
    depth = limits.MAX_REQUEST_CONTAINERS - 8
    return _extract_frame(b"0", size, b"[" * depth + b"]" * depth)


CODE = "if (a[i]) { b[j] = {k: c[i]}; } "


def code_page(size: int) -> bytes:
    """A valid page of code: MAX_TOTAL_TEXT characters of text, one in 6 an opening bracket (3.1 million,
    inside strings: 5 times the objects and arrays a request may hold, counted blindly)."""
    nodes = [{"id": 0, "parent": -1, "depth": 0, "tag": "html"}, {"id": 1, "parent": 0, "depth": 1, "tag": "body"}]
    total = limits.MAX_TOTAL_TEXT
    while total > 0:
        n = min(total, limits.MAX_NODE_TEXT)
        p = len(nodes)
        nodes += [
            {"id": p, "parent": 1, "depth": 2, "tag": "pre"},
            {"id": p + 1, "parent": p, "depth": 3, "tag": "#text", "text": (CODE * (n // len(CODE) + 1))[:n]},
        ]
        total -= n
    snapshot = {"format": "pith-snapshot", "version": 1, "source": "live", "nodes": nodes}
    return encode_message({"v": 1, "id": 1, "type": "extract", "snapshot": snapshot})


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
    Case(
        "containers_at_limit",
        "one frame: `[{}]` up to MAX_REQUEST_CONTAINERS, then `-6`, its text wide",
        lambda cap: [containers_at_limit(cap)],
    ),
    Case(
        "keys_at_limit",
        "one frame: an object of MAX_REQUEST_KEYS distinct keys, then `-6`, its text wide",
        lambda cap: [keys_at_limit(cap)],
    ),
    Case("short_strings", 'one frame of `"ab"`', lambda cap: [short_strings(cap)]),
    Case("small_numbers", "one frame of `-6`", lambda cap: [small_numbers(cap)]),
    Case("wide_numbers", "one frame of `-6`, its text wide", lambda cap: [wide_numbers(cap)]),
    Case("deep_nesting", "one frame: arrays nested MAX_REQUEST_CONTAINERS deep", lambda cap: [deep_nesting(cap)]),
    Case("backslashes", "one frame of escaped backslashes, then a lone surrogate", lambda cap: [backslashes(cap)]),
    Case("lone_surrogates", "one frame of lone surrogate escapes", lambda cap: [lone_surrogates(cap)]),
    Case("code_page", "a valid page of 20,000,000 characters of code", lambda cap: [code_page(cap)]),
    Case(
        "pipelined",
        "a slow page, then 3 frames of `-6`, their text wide, written at once",
        lambda cap: [_slow_page(cap)] + [wide_numbers(cap)] * 3,
    ),
    Case(
        "pipelined_fill",
        "a slow page, then 3 frames of `-6`, their text wide, that fit beside it in the bytes in flight",
        lambda cap: [_slow_page(cap)] + [wide_numbers(cap - len(_slow_page(cap)) - 4)] * 3,
    ),
)


@dataclass
class Row:
    case: str
    frames_mb: float
    seconds: float
    peak_mb: float | None
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
        peak = host.peak_rss_mb()
    return Row(case.name, len(data) / 1e6, seconds, peak, ", ".join(got), alive)


def table(rows: list[Row], check: bool) -> str:
    lines = [
        "| case | frames MB | time s | host peak RSS MB | bound MB | replies | within |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        within = ("yes" if r.peak_mb is not None and r.peak_mb <= BOUND_MB else "NO") if check else "-"
        peak = "-" if r.peak_mb is None else f"{r.peak_mb:.0f}"
        lines.append(
            f"| {r.case} | {r.frames_mb:.1f} | {r.seconds:.2f} | {peak} | {BOUND_MB:.0f} | {r.replies} | {within} |"
        )
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
    print(
        f"\nbound: {MODEL_HOST_MB} MB (host, model) + {PAGE_WORK_MB} MB (a page's work) + {DECODE_FACTOR} x "
        f"{limits.HOST_BYTES_IN_FLIGHT / 1e6:.1f} MB (requests in flight, decoded) = {BOUND_MB:.0f} MB"
    )
    over = [r for r in rows if not r.ok or (check and (r.peak_mb is None or r.peak_mb > BOUND_MB))]
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
