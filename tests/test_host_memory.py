"""The host's memory is bounded by what one frame can cost.

Decoding one frame must cost a bounded multiple of its size, whatever it holds: the lone-surrogate check used
to keep a backtracking entry for every pair of a run of backslashes (2.6 GB resident for one 64 MiB frame).
"""

from __future__ import annotations

import json
import tracemalloc

import pytest

from native_host import limits
from native_host.browser.framing import decode_message


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
