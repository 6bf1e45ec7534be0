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
from importlib import resources

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from native_host import limits, validate_snapshot
from native_host.browser.framing import (
    _SKELETON_WINDOW,
    OverCountError,
    _structure_counts,
    decode_json,
    decode_message,
    encode_message,
    frame,
    read_frame,
)
from native_host.browser.host import FramedTransport, Inbox, Server
from native_host.browser.protocol import parse_request
from native_host.errors import ProtocolError, SnapshotError

HANG_GUARD_S = 120.0  # only ever reached when the host is broken: every wait below ends on an event


class _Pipe(io.RawIOBase):
    """The host's stdin with a writer that has already written everything: it records how far the host read."""

    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def readable(self) -> bool:
        return True

    def readinto(self, view) -> int:
        n = min(len(view), len(self.data) - self.pos)
        view[:n] = self.data[self.pos : self.pos + n]
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


@pytest.mark.parametrize(
    "sizes, held",
    [
        pytest.param((30_000_000, 30_000_000), 2, id="two large frames: the second waits"),
        pytest.param((limits.MAX_REQUEST_BYTES,), 1, id="a frame at the cap: its bytes and the page's pass the cap"),
        pytest.param((0, 0), 2, id="two small frames: one read ahead at most"),
    ],
)
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
    assert pipe.pos == header_end, (
        f"the host read {pipe.pos - header_end} bytes of frame {held + 1} while frame 1 was in work"
    )
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


@pytest.mark.parametrize(
    "text, size",
    [
        pytest.param(
            "\\\\" * (limits.MAX_REQUEST_BYTES // 2 - 64) + "\\ud800",
            limits.MAX_REQUEST_BYTES,
            id="a frame of escaped backslashes, then a lone surrogate",
        ),
        pytest.param("\\\\" * 8 + "\\ud800", 4 << 20, id="short runs of escaped backslashes, each before a lone one"),
        pytest.param("\\\\" * 8 + "ud83d\\ude00", 4 << 20, id="short runs, text like a high half, a low one"),
        pytest.param("\\ud83d\\ude00", 4 << 20, id="pairs"),
        pytest.param("\\udc00", 4 << 20, id="lone low surrogates"),
    ],
)
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
    message = decode_message(
        json.dumps({"x": "placeholder"}).replace("placeholder", run + "\\ud800" + run + "\\\\ud800").encode()
    )
    assert message["x"] == "\\" * 1_000_000 + "\ufffd" + "\\" * 1_000_001 + "ud800"


# Escapes and text that look alike: any sequence of them is the body of a JSON string.
_PIECES = (
    "\\\\",
    "\\ud800",
    "\\udc00",
    "\\ud83d",
    "\\ude00",
    "\\uDBFF",
    "\\uDFFF",
    "\\u0041",
    '\\"',
    "\\n",
    "u",
    "d800",
    "ud83d",
    "a",
)


@given(st.lists(st.sampled_from(_PIECES), max_size=16))
@example(["\\\\", "ud83d", "\\ude00"])  # text like a high half, then a lone low one
@example(["\\\\", "\\\\", "\\ud83d", "\\ude00"])  # a pair after escaped backslashes
def test_the_surrogate_check_replaces_exactly_the_lone_surrogates_json_decodes(pieces):
    """Whatever runs of backslashes come before them: a pair stays a pair, every lone one reads as U+FFFD."""
    text = '"' + "".join(pieces) + '"'
    expected = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in json.loads(text))
    assert decode_json(text) == expected


def _schema_most(schema: dict) -> tuple[int, int]:
    """(objects and arrays, keys) the largest value `schema` accepts holds (a property of several types
    counted as its costliest)."""
    types = schema.get("type")
    types = types if isinstance(types, list) else [types]
    most = (0, 0)
    if "object" in types:
        props = [_schema_most(p) for p in schema.get("properties", {}).values()]
        most = max(most, (1 + sum(c for c, _ in props), len(props) + sum(k for _, k in props)))
    if "array" in types:
        item = _schema_most(schema.get("items", {}))
        most = max(most, (1 + schema["maxItems"] * item[0], schema["maxItems"] * item[1]))
    return most


def test_the_limits_on_containers_and_keys_are_the_schema_s_most_and_the_envelope():
    """A valid request is never refused for its containers or keys, and the limits leave no more room than an
    envelope needs (its object, `want`, `first`, and their keys)."""
    schema = json.loads(resources.files("native_host.pipeline").joinpath("snapshot.schema.json").read_text())
    containers, keys = _schema_most(schema)
    assert 3 <= limits.MAX_REQUEST_CONTAINERS - containers <= 64
    assert 8 <= limits.MAX_REQUEST_KEYS - keys <= 64


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='{}[]:,"\\ab\u00e9\U0001f600\n'),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(alphabet='{[:"\\a'), inner, max_size=4),
    max_leaves=24,
)


def _count(value) -> tuple[int, int]:
    if isinstance(value, list):
        inner = [_count(v) for v in value]
        return 1 + sum(c for c, _ in inner), sum(k for _, k in inner)
    if isinstance(value, dict):
        inner = [_count(v) for v in value.values()]
        return 1 + sum(c for c, _ in inner), len(value) + sum(k for _, k in inner)
    return 0, 0


@given(_JSON, st.booleans())
@example(['\\\\"{', {"\\": "[:\\"}], True)
def test_the_exact_count_skips_what_strings_hold(value, ascii_only):
    """Brackets, colons, quotes and backslashes inside strings (as JSON writes them, escaped or not) never
    count; every object, array and key outside them does, in one window or across several."""
    text = json.dumps(value, ensure_ascii=ascii_only)
    assert _structure_counts(text.encode()) == _count(value)
    padded = " " * (_SKELETON_WINDOW - 3) + text  # a string across the edge of a window
    assert _structure_counts(padded.encode()) == _count(value)


# Over the limits: `[{}]` (2 containers in 5 bytes) and `"":0` (1 key in 5 bytes): 1.5 MB and 22 MB.
_BOMBS = [
    pytest.param(b"[{}]", limits.MAX_REQUEST_CONTAINERS // 2 + 1, id="objects and arrays"),
    pytest.param(b"{" + b'"":0,' * (limits.MAX_REQUEST_KEYS + 1) + b'"":0}', 1, id="keys"),
]


def _envelope(nodes: bytes) -> bytes:
    return b'{"v":1,"id":7,"type":"extract","snapshot":{"format":"pith-snapshot","nodes":[' + nodes + b"]}}"


@pytest.mark.parametrize("piece, count", _BOMBS)
def test_a_frame_over_the_containers_or_keys_a_request_holds_is_refused_before_it_is_decoded(piece, count):
    """Decoding such a frame cost ~35 bytes of memory a byte; it is refused holding under twice the frame
    (its skeleton, a translation at a time), and answered with the id its first members give."""
    payload = bytearray(_envelope(b",".join([piece] * count)))
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        with pytest.raises(OverCountError) as refused:
            decode_message(payload)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert peak < 2 * len(payload)
    assert refused.value.rid == 7 and refused.value.code == "bad_request"
    reply = Server(FramedTransport(io.BytesIO(), io.BytesIO()), _BlockedEngine())._decode(payload)
    assert (
        reply["id"] == 7
        and reply["error"]["code"] == "bad_request"
        and "more than a valid request" in reply["error"]["message"]
    )


@pytest.mark.parametrize("piece, count", _BOMBS)
def test_a_snapshot_json_over_the_containers_or_keys_is_a_bad_snapshot(piece, count):
    """The extension's way: the snapshot as JSON text inside the request, counted before it is decoded."""
    inner = (b'{"format":"pith-snapshot","nodes":[' + b",".join([piece] * count) + b"]}").decode()
    payload = encode_message({"v": 1, "id": 7, "type": "extract", "snapshot_json": inner})
    reply = Server(FramedTransport(io.BytesIO(), io.BytesIO()), _BlockedEngine())._decode(bytearray(payload))
    assert reply["id"] == 7 and reply["error"]["code"] == "bad_snapshot" and reply["error"]["path"] == "$"
    assert "more than a valid request" in reply["error"]["message"]


def _code_snapshot() -> dict:
    """A valid snapshot of code: more brackets in its text than a request may hold objects and arrays, more
    colons than keys, escaped quotes and backslashes among them."""
    code = 'if (a[i]) { s = "{[\\"]}"; m = {k: v}; } '
    each = limits.MAX_NODE_TEXT
    count = limits.MAX_REQUEST_CONTAINERS // code.count("{") // (each // len(code)) + 2
    nodes = [{"id": 0, "parent": -1, "depth": 0, "tag": "html"}, {"id": 1, "parent": 0, "depth": 1, "tag": "pre"}]
    nodes += [
        {"id": 2 + i, "parent": 1, "depth": 2, "tag": "#text", "text": code * (each // len(code))} for i in range(count)
    ]
    return {"format": "pith-snapshot", "version": 2, "source": "html", "nodes": nodes}


def test_a_page_of_code_with_more_brackets_than_the_limit_inside_its_strings_is_accepted():
    """Brackets inside strings are counted out exactly, as a message and as the extension's snapshot_json."""
    snapshot = _code_snapshot()
    payload = encode_message({"v": 1, "id": 7, "type": "extract", "snapshot": snapshot})
    assert payload.count(b"{") + payload.count(b"[") > limits.MAX_REQUEST_CONTAINERS
    assert decode_message(payload)["snapshot"] == snapshot
    text = json.dumps(snapshot, ensure_ascii=False)
    message = decode_message(encode_message({"v": 1, "id": 7, "type": "extract", "snapshot_json": text}))
    request = parse_request(message, 0.0)
    assert request.message["snapshot"] == snapshot
    validate_snapshot(request.message["snapshot"])


_WIDE_PIECES = _PIECES + ("\U0001f600", "\U00010000", "\U0010ffff", "\\\\\U0001f600", "\u00e9", "\u20ac")


@given(st.lists(st.sampled_from(_WIDE_PIECES), max_size=16))
@example(["\\ud83d", "\U0001f600", "\\ude00"])  # escaped halves around a character written as a pair
def test_characters_past_u_ffff_read_the_same_when_escaped_first(pieces):
    """A frame whose text would take 4 bytes a character is read with those characters escaped as pairs: the
    value is what json reads, each lone surrogate as U+FFFD (the pad makes escaping the smaller text)."""
    text = '["' + "".join(pieces) + '", "' + "a" * 200 + '"]'
    expected = json.loads(text)
    expected[0] = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in expected[0])
    assert decode_json(text.encode()) == expected


def test_a_backslash_before_a_character_past_u_ffff_is_refused_as_json_refuses_it():
    with pytest.raises(ProtocolError, match="not JSON"):
        decode_json(('["\\\U0001f600", "' + "a" * 200 + '"]').encode())


def test_one_character_past_u_ffff_does_not_make_the_frame_s_text_4_bytes_a_character():
    """A 16 MB frame of numbers after one emoji: its text used to take 4 bytes a character (67 MB) while its
    numbers were decoded; escaped as a pair first, the text takes one."""
    payload = _envelope('"\U0001f600",'.encode() + b",".join([b"0"] * (8 << 20)))
    assert _decode_peak(payload) < 6 * len(payload)
    assert decode_message(payload)["snapshot"]["nodes"][:2] == ["\U0001f600", 0]


def test_the_pause_after_a_part_ends_once_a_message_is_in_or_waits_to_be_admitted():
    """The host's pause between a reply's part and its rest (Server._send_part) never holds up a request: it
    ends as soon as the reader has one, handed over or waiting for admission behind the one in work."""
    inbox = Inbox(max_frames=1)
    assert inbox.wait(0) is False
    inbox.admit(10)  # the request in work
    reader = threading.Thread(target=inbox.admit, args=(20,))  # the next frame, held back while it works
    reader.start()
    assert inbox.wait(60) is True and inbox.held == 20
    inbox.done(10)
    reader.join()
    assert inbox.wait(0) is False
    inbox.put("the next request", 20)
    assert inbox.wait(60) is True
