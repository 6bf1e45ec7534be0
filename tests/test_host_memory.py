"""The host's memory is bounded by what one frame can cost, however a local writer fills its pipe.

A writer can pipeline frames faster than the host answers them; the reader thread must leave them in the
pipe once one request beyond the one in work is read, or once the bytes read and not yet answered would pass
one frame's cap (`limits.HOST_FRAMES_IN_FLIGHT`, `HOST_BYTES_IN_FLIGHT`). And decoding one frame must cost
a bounded multiple of its size, whatever it holds: the lone-surrogate check used to keep a backtracking
entry for every pair of a run of backslashes (2.6 GB resident for one 64 MiB frame).
"""

from __future__ import annotations

import io
import json
import threading
import time
import tracemalloc

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from native_host import limits
from native_host.browser.framing import decode_json, decode_message, encode_message, frame, read_frame
from native_host.browser.host import FramedTransport, Server
from native_host.errors import SnapshotError

HANG_GUARD_S = 120.0  # only ever reached when the host is broken: every wait below ends on an event


class _Pipe(io.RawIOBase):
    """The host's stdin with a writer that has already written everything: it records how far the host read."""

    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def readable(self) -> bool:
        return True

    def readinto(self, view) -> int:
        n = min(len(view), len(self.data) - self.pos)
        view[:n] = self.data[self.pos:self.pos + n]
        self.pos += n
        return n


class _BlockedEngine:
    """An engine whose extraction runs until the test releases it: a slow page in work."""

    info = {"model_id": "blocked-engine", "providers": ["CPUExecutionProvider"]}

    def __init__(self):
        self.working, self.release = threading.Event(), threading.Event()

    def get(self):
        return self

    def extract_snapshot(self, snapshot, views=()):
        self.working.set()
        assert self.release.wait(HANG_GUARD_S)
        raise SnapshotError("a page the test made slow", "$")


def _hello(rid: int, size: int = 0) -> bytes:
    """A hello request of `size` bytes (JSON whitespace pads it), framed."""
    payload = encode_message({"v": 1, "id": rid, "type": "hello"})
    return frame(payload[:-1] + b" " * max(0, size - len(payload)) + b"}")


def _wait_until(condition) -> None:
    deadline = time.monotonic() + HANG_GUARD_S
    while not condition():
        assert time.monotonic() < deadline, "the host neither read on nor held the next frame back"
        time.sleep(0.005)


@pytest.mark.parametrize("sizes, held", [
    pytest.param((30_000_000, 30_000_000), 2, id="two large frames: the second waits"),
    pytest.param((limits.MAX_REQUEST_BYTES,), 1, id="a frame at the cap: its bytes and the page's pass the cap"),
    pytest.param((0, 0), 2, id="two small frames: one read ahead at most"),
])
def test_pipelined_frames_stay_in_the_pipe_while_a_page_is_in_work(sizes, held):
    """A page in work (its extraction blocked), frames pipelined behind it: the host reads the next one and
    holds the one after in the pipe, its header read and none of its body, until the page is answered; then
    it answers every one, in order."""
    frames = [frame(encode_message({"v": 1, "id": 1, "type": "extract", "snapshot": {}}))]
    frames += [_hello(2 + i, size) for i, size in enumerate(sizes)]
    pipe, out, engine = _Pipe(b"".join(frames)), io.BytesIO(), _BlockedEngine()
    server = Server(FramedTransport(pipe, out), engine, idle_timeout=0)
    codes = []
    worker = threading.Thread(target=lambda: codes.append(server.serve()), daemon=True)
    worker.start()
    assert engine.working.wait(HANG_GUARD_S)
    header_end = sum(len(f) for f in frames[:held]) + 4
    _wait_until(lambda: pipe.pos > header_end or getattr(server.inbox, "held", 0))
    assert pipe.pos == header_end, f"the host read {pipe.pos - header_end} bytes of frame {held + 1} while " \
                                   "frame 1 was in work"
    assert server.inbox.held == len(frames[held]) - 4
    engine.release.set()
    worker.join(HANG_GUARD_S)
    assert codes == [0] and pipe.pos == len(pipe.data)
    replies = io.BytesIO(out.getvalue())
    got = [decode_message(read_frame(replies, limits.MAX_REPLY_FRAME_BYTES)) for _ in frames]
    assert [(r["id"], r["type"]) for r in got] == [(1, "error")] + [(2 + i, "hello") for i in range(len(sizes))]
    assert server.inbox.frames == 0 and server.inbox.bytes == 0


def _decode_peak(payload: bytes) -> int:
    """The most memory Python held while decoding `payload`, beyond what it held before (bytes)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        decode_message(payload)
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("text, size", [
    pytest.param("\\\\" * (limits.MAX_REQUEST_BYTES // 2 - 64) + "\\ud800", limits.MAX_REQUEST_BYTES,
                 id="a frame of escaped backslashes, then a lone surrogate"),
    pytest.param("\\\\" * 8 + "\\ud800", 4 << 20, id="short runs of escaped backslashes, each before a lone one"),
    pytest.param("\\\\" * 8 + "ud83d\\ude00", 4 << 20, id="short runs, text like a high half, a low one"),
    pytest.param("\\ud83d\\ude00", 4 << 20, id="pairs"),
    pytest.param("\\udc00", 4 << 20, id="lone low surrogates"),
])
def test_the_surrogate_check_costs_memory_linear_in_the_frame(text, size):
    """A frame of one JSON string made of `text` repeated (up to `size` bytes): decoding it, the surrogate check
    included, holds under 4 times the frame's size (the frame as text, the text with replacements, the decoded
    string); the check used to cost 38 times for a run of backslashes."""
    piece = text.encode()
    payload = b'{"v":1,"id":1,"type":"hello","x":"' + piece * max(1, (size - 64) // len(piece)) + b'"}'
    assert _decode_peak(payload) < 4 * len(payload)


def test_a_run_of_backslashes_is_read_with_its_surrogates_right():
    """A run of backslashes as long as a frame: the escape after it is read by the run's parity."""
    run = "\\\\" * 1_000_000
    message = decode_message(json.dumps({"x": "placeholder"}).replace("placeholder", run + "\\ud800" + run + "\\\\ud800")
                             .encode())
    assert message["x"] == "\\" * 1_000_000 + "\ufffd" + "\\" * 1_000_001 + "ud800"


# Escapes and text that look alike: any sequence of them is the body of a JSON string.
_PIECES = ("\\\\", "\\ud800", "\\udc00", "\\ud83d", "\\ude00", "\\uDBFF", "\\uDFFF", "\\u0041", "\\\"", "\\n",
           "u", "d800", "ud83d", "a")


@given(st.lists(st.sampled_from(_PIECES), max_size=16))
@example(["\\\\", "ud83d", "\\ude00"])                 # text like a high half, then a lone low one
@example(["\\\\", "\\\\", "\\ud83d", "\\ude00"])       # a pair after escaped backslashes
def test_the_surrogate_check_replaces_exactly_the_lone_surrogates_json_decodes(pieces):
    """Whatever runs of backslashes come before them: a pair stays a pair, every lone one reads as U+FFFD."""
    text = '"' + "".join(pieces) + '"'
    expected = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in json.loads(text))
    assert decode_json(text) == expected
