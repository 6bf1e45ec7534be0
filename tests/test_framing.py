"""Framing, protocol shaping and chunking, in process: the byte-level contract with the browser."""

from __future__ import annotations

import io
import json
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from native_host import limits
from native_host.browser.client import ChunkError, Reassembler
from native_host.browser.framing import StreamClosed, decode_message, encode_message, frame, read_frame, write_frame
from native_host.browser.host import FramedTransport, JsonLinesTransport, Server, caller_refusal
from native_host.browser.identity import FIREFOX_EXTENSION_ID, chromium_origin
from native_host.browser.protocol import Request, answer, chunk_messages, parse_request, parse_want, reply_payloads
from native_host.errors import ProtocolError, SnapshotError, TooLargeError, UnknownTypeError, UnsupportedVersionError
from native_host.render.reply import DEFAULT_WANT, shape_result
from native_host.result import BlockResult, Result


def test_frames_round_trip_with_a_native_order_length():
    out = io.BytesIO()
    write_frame(out, b'{"a":1}')
    write_frame(out, b'{"b":"\xc3\xa9"}')
    data = out.getvalue()
    assert data[:4] == struct.pack("=I", 7)
    stream = io.BytesIO(data)
    assert bytes(read_frame(stream, 100)) == b'{"a":1}'
    assert decode_message(read_frame(stream, 100)) == {"b": "é"}
    with pytest.raises(StreamClosed) as closed:
        read_frame(stream, 100)
    assert closed.value.clean


@pytest.mark.parametrize(
    "data, fragment",
    [
        (b"\x05\x00", "frame header"),
        (struct.pack("=I", 10) + b"abc", "3 of 10 bytes"),
    ],
)
def test_end_of_input_inside_a_frame_is_an_unclean_close_with_a_reason(data, fragment):
    with pytest.raises(StreamClosed) as closed:
        read_frame(io.BytesIO(data), 100)
    assert not closed.value.clean
    assert fragment in closed.value.reason


def test_an_over_limit_length_is_refused_before_any_of_its_bytes_is_read():
    stream = io.BytesIO(frame(b"y" * 300) + frame(b"{}"))
    with pytest.raises(TooLargeError) as err:
        read_frame(stream, 100)
    assert err.value.code == "too_large" and "300 bytes" in err.value.message
    assert stream.tell() == 4  # just past the header: nothing of the 300 bytes was waited for


def test_an_over_limit_length_whose_bytes_never_come_is_refused_at_once():
    """A corrupt header announces gigabytes nobody sends: reading it must not wait for them. On a real pipe
    kept open (the reader thread is only released by closing it, should the read block)."""
    import os
    import threading

    read_end, write_end = os.pipe()
    outcome = []
    with open(read_end, "rb", buffering=0) as stream, open(write_end, "wb", buffering=0) as writer:
        writer.write(struct.pack("=I", 2**31))
        reader = threading.Thread(
            target=lambda: outcome.append(_raised(read_frame, stream, limits.MAX_REQUEST_BYTES)), daemon=True
        )
        reader.start()
        reader.join(timeout=30)
        hung = reader.is_alive()
        writer.close()  # releases a reader that is still waiting
        reader.join(timeout=30)
    assert not hung, "read_frame waited for the bytes an over-limit header announced"
    assert outcome == ["too_large"]


def _raised(function, *args):
    try:
        function(*args)
    except ProtocolError as exc:
        return exc.code
    return None


@pytest.mark.parametrize(
    "payload, fragment",
    [
        (b'{"a": "\xff"}', "not UTF-8"),
        (b"{nope", "not JSON"),
        (b"[1, 2]", "JSON object"),
        (b'{"x": NaN}', "NaN"),
        (b"[" * 100_000 + b"]" * 100_000, "nests too deeply"),
    ],
)
def test_undecodable_messages_are_bad_requests(payload, fragment):
    with pytest.raises(ProtocolError) as err:
        decode_message(payload)
    assert err.value.code == "bad_request" and fragment in err.value.message


def test_encoding_is_ascii_even_for_lone_surrogates():
    data = encode_message({"t": "é \ud800 中"})
    assert data.isascii()
    assert json.loads(data) == {"t": "é \ud800 中"}


def _reply_text(draw_text: str) -> str:
    return encode_message({"v": 1, "id": 7, "type": "result", "article": {"text": draw_text}}).decode("ascii")


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from('ab"\\\n\t é中😀'), max_size=3000),
    cap=st.integers(min_value=120, max_value=700),
)
def test_chunks_stay_under_the_cap_and_join_back_to_the_reply(text, cap):
    whole = _reply_text(text)
    chunks = chunk_messages(7, whole, cap)
    assert all(len(encode_message(c)) <= cap for c in chunks)
    assert [c["seq"] for c in chunks] == list(range(len(chunks)))
    assert {c["count"] for c in chunks} == {len(chunks)}
    assert "".join(c["data"] for c in chunks) == whole


def test_a_reply_over_the_cap_goes_out_as_chunks_a_client_reassembles():
    reply = {"v": 1, "id": 3, "type": "result", "article": {"text": 'x"\\' * 2000}}
    payloads = reply_payloads(reply, cap=1000)
    assert len(payloads) > 1 and all(len(p) <= 1000 for p in payloads)
    joiner = Reassembler()
    results = [joiner.feed(json.loads(p)) for p in payloads]
    assert results[:-1] == [None] * (len(payloads) - 1)
    assert results[-1] == reply
    assert reply_payloads({"v": 1, "id": 4, "type": "hello"}) == [b'{"v":1,"id":4,"type":"hello"}']


def test_reassembly_refuses_chunks_out_of_order_and_ignores_progress():
    joiner = Reassembler()
    assert joiner.feed({"v": 1, "id": 1, "type": "progress", "stage": "model", "done": 1, "total": 2}) is None
    with pytest.raises(ChunkError):
        joiner.feed({"v": 1, "id": 1, "type": "chunk", "seq": 1, "count": 2, "data": "{}"})


@pytest.mark.parametrize("second", [{"seq": 1, "count": 3, "data": "}"}, {"seq": 1, "count": 2, "data": None}])
def test_reassembly_refuses_what_the_extension_refuses(second):
    """Twin of extension/background/host.js: one count for all of a reply's chunks, and text data."""
    joiner = Reassembler()
    assert joiner.feed({"v": 1, "id": 1, "type": "chunk", "seq": 0, "count": 2, "data": "{"}) is None
    with pytest.raises(ChunkError):
        joiner.feed({"v": 1, "id": 1, "type": "chunk", **second})


@pytest.mark.parametrize(
    "message, error",
    [
        ({"v": 1, "type": "hello"}, ProtocolError),
        ({"v": 1, "id": True, "type": "hello"}, ProtocolError),
        ({"v": 2, "id": 1, "type": "hello"}, UnsupportedVersionError),
        ({"id": 1, "type": "hello"}, UnsupportedVersionError),
        ({"v": 1, "id": 1}, ProtocolError),
        ({"v": 1, "id": 1, "type": "summarise"}, UnknownTypeError),
    ],
)
def test_request_envelope_errors(message, error):
    with pytest.raises(error):
        parse_request(message, 0.0)


def test_want_defaults_and_refuses_unknown_items():
    assert parse_want({}) == frozenset(DEFAULT_WANT)
    assert parse_want({"want": []}) == frozenset()
    for bad in ("text", ["text", 3], ["pdf"]):
        with pytest.raises(ProtocolError):
            parse_want({"want": bad})


def _result() -> Result:
    block = BlockResult(
        0,
        [3, 4],
        "Hello there",
        {"main": 0.9, "title": 0.1, "heading": 0.0, "paragraph": 0.8, "list": 0.0, "table": 0.0},
        True,
    )
    return Result(
        url="http://e.com/",
        title="T",
        byline=None,
        lang="en",
        text="Hello there",
        markdown="Hello there",
        html="<p>Hello there</p>",
        node_ids=[3, 4],
        blocks=[block],
        timings={"total": 1.0},
    )


@pytest.mark.parametrize(
    "want, present, absent",
    [
        ({"highlight"}, {"node_ids", "blocks"}, {"html", "text", "markdown"}),
        ({"article"}, {"html"}, {"node_ids", "blocks", "text", "markdown"}),
        ({"text", "markdown"}, {"text", "markdown"}, {"node_ids", "html"}),
        ({"outline", "text"}, {"outline", "text"}, {"node_ids", "blocks", "html", "markdown"}),
    ],
)
def test_replies_carry_only_what_was_wanted(want, present, absent):
    reply = shape_result(5, _result(), frozenset(want))
    keys = set(reply) | set(reply["article"])
    assert present <= keys and not absent & keys
    assert {"title", "byline", "lang", "url"} <= set(reply["article"])
    assert reply["id"] == 5 and reply["type"] == "result" and reply["truncated"] is False


def test_the_outline_holds_the_main_blocks_each_marked_title_heading_or_body():
    """What the extension outlines, and how: its only reading of the scores."""
    scores = [
        ({"main": 0.9, "title": 0.8, "heading": 0.6}, True),
        ({"main": 0.9, "title": 0.1, "heading": 0.9}, True),
        ({"main": 0.9, "title": 0.1, "heading": 0.2}, True),
        ({"main": 0.1, "title": 0.9, "heading": 0.9}, False),
        ({"main": 0.9, "title": 0.5, "heading": 0.5}, True),
        ({"main": 0.9}, True),
    ]
    blocks = [BlockResult(i, [2 * i, 2 * i + 1], "x", s, main) for i, (s, main) in enumerate(scores)]
    result = Result(
        url=None,
        title=None,
        byline=None,
        lang=None,
        text="x",
        markdown="",
        html="",
        node_ids=[i for b in blocks if b.main for i in b.node_ids],
        blocks=blocks,
        timings={},
    )
    assert shape_result(1, result, frozenset({"outline"}))["outline"] == [
        {"node_ids": [0, 1], "kind": "title"},
        {"node_ids": [2, 3], "kind": "heading"},
        {"node_ids": [4, 5], "kind": "main"},
        {"node_ids": [8, 9], "kind": "main"},
        {"node_ids": [10, 11], "kind": "main"},
    ]


class _BrokenEngine:
    """An engine whose extraction fails the way a bug would, to exercise the `internal` path."""

    info = {"model_id": "failing-engine", "providers": ["CPUExecutionProvider"], "version": "0"}

    def get(self):
        return self

    def extract_snapshot(self, snapshot, views=()):
        raise RuntimeError("boom")


class _RefusingEngine(_BrokenEngine):
    def extract_snapshot(self, snapshot, views=()):
        raise SnapshotError("missing required field 'nodes'", "$")


def test_a_failing_extraction_becomes_an_error_reply():
    request = Request(9, "extract", {"v": 1, "id": 9, "type": "extract", "snapshot": {}}, 0.0)
    internal = answer(request, _BrokenEngine(), "/tmp/host.log")
    assert internal["type"] == "error" and internal["id"] == 9
    assert internal["error"]["code"] == "internal" and "boom" in internal["error"]["message"]
    refused = answer(request, _RefusingEngine())
    assert refused["error"] == {"code": "bad_snapshot", "message": "$: missing required field 'nodes'", "path": "$"}


def _serve(transport_class, data: bytes, engine) -> bytes:
    out = io.BytesIO()
    code = Server(transport_class(io.BytesIO(data), out), engine, idle_timeout=0).serve()
    assert code == 0
    return out.getvalue()


def _all_replies(written: bytes) -> list[dict]:
    """Every framed reply the server wrote, in order."""
    out = io.BytesIO(written)
    replies = []
    while True:
        try:
            replies.append(decode_message(read_frame(out, limits.MAX_REPLY_FRAME_BYTES)))
        except StreamClosed:
            return replies


def test_the_server_answers_in_order_and_survives_bad_messages():
    data = b"".join(
        frame(p)
        for p in (b'{"v":1,"id":1,"type":"extract","snapshot":{}}', b"garbage", b'{"v":1,"id":2,"type":"nope"}')
    )
    replies = _all_replies(_serve(FramedTransport, data, _BrokenEngine()))
    assert [(r["id"], r["error"]["code"]) for r in replies] == [
        (1, "internal"),
        (None, "bad_request"),
        (2, "unknown_type"),
    ]


def test_json_lines_transport_skips_blank_lines_and_answers_one_line_each():
    data = b'\n{"v":1,"id":1,"type":"extract","snapshot":{}}\n\n{"v":1,"id":2,"type":"nope"}\n'
    lines = _serve(JsonLinesTransport, data, _RefusingEngine()).splitlines()
    assert [json.loads(line)["error"]["code"] for line in lines] == ["bad_snapshot", "unknown_type"]


def test_json_lines_transport_refuses_a_long_line_and_reads_on_from_the_next(monkeypatch):
    """A line ends where its newline is, so unlike a frame the next request can be found: it is answered."""
    monkeypatch.setattr(limits, "MAX_REQUEST_BYTES", 1000)
    data = b'{"v":1,"id":1,"type":"hello","pad":"' + b"x" * 5000 + b'"}\n{"v":1,"id":2,"type":"nope"}\n'
    lines = _serve(JsonLinesTransport, data, _RefusingEngine()).splitlines()
    assert [(json.loads(line)["id"], json.loads(line)["error"]["code"]) for line in lines] == [
        (None, "too_large"),
        (2, "unknown_type"),
    ]


@pytest.mark.parametrize(
    "caller, allowed",
    [
        ([], True),
        ([chromium_origin()], True),
        (["/home/u/.mozilla/native-messaging-hosts/org.pith.reader.json", FIREFOX_EXTENSION_ID], True),
        (["chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"], False),
        (["/x/org.pith.reader.json", "evil@example.org"], False),
        (["something"], False),
    ],
)
def test_only_the_pith_extension_may_start_the_host(caller, allowed):
    assert (caller_refusal(caller) is None) == allowed


_payloads = st.one_of(
    st.binary(max_size=200),
    st.builds(
        lambda v, i, t: encode_message({"v": v, "id": i, "type": t, "snapshot": {}}),
        st.one_of(st.just(1), st.integers(), st.none(), st.text(max_size=3)),
        st.one_of(st.integers(), st.booleans(), st.none(), st.text(max_size=3)),
        st.one_of(st.sampled_from(["hello", "extract", "x"]), st.integers()),
    ),
)


@settings(max_examples=80, deadline=None)
@given(st.lists(_payloads, max_size=12))
def test_any_sequence_of_frames_gets_one_wellformed_reply_each(payloads):
    """Whatever arrives, every frame is answered, in order, with a reply of the documented shape."""
    replies = _all_replies(_serve(FramedTransport, b"".join(frame(p) for p in payloads), _RefusingEngine()))
    assert len(replies) == len(payloads)
    for reply in replies:
        assert reply["v"] == 1 and reply["type"] in ("hello", "error")
        if reply["type"] == "error":
            assert reply["error"]["code"] in ("bad_request", "bad_snapshot", "unknown_type", "unsupported_version")
            assert reply["error"]["message"]
