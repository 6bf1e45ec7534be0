"""Bad frames and requests: each gets an error answer, or a clean exit with a logged reason
where the stream itself is broken; never a hang, never a traceback on stdout. In process, on the real
Server, framing and protocol; tests/test_host.py does the same through the real host process."""

from __future__ import annotations

import io
import json

import pytest
from host_support import rows_text

from native_host import limits, snapshot_from_html
from native_host.browser.framing import HEADER, StreamClosed, decode_message, encode_message, frame, read_frame
from native_host.browser.host import FramedTransport, Server
from native_host.browser.protocol import parse_request, request_id
from native_host.errors import ProtocolError, SnapshotError
from native_host.pipeline.schema import validate_snapshot


class _EchoEngine:
    """Answers every extract with the snapshot's first text, so a test sees what reached the engine."""

    info = {"model_id": "echo", "providers": [], "version": "0"}

    def get(self):
        return self

    def extract_snapshot(self, snapshot, views=()):
        validate_snapshot(snapshot)
        raise SnapshotError(next(n["text"] for n in snapshot["nodes"] if "text" in n), "$")


def _serve(data: bytes) -> tuple[int, list[dict]]:
    out = io.BytesIO()
    code = Server(FramedTransport(io.BytesIO(data), out), _EchoEngine(), idle_timeout=0).serve()
    stream, replies = io.BytesIO(out.getvalue()), []
    while True:
        try:
            replies.append(json.loads(read_frame(stream, limits.MAX_REPLY_FRAME_BYTES)))
        except StreamClosed as closed:
            assert closed.clean
            return code, replies


HELLO = frame(b'{"v":1,"id":7,"type":"hello"}')


@pytest.mark.parametrize(
    "payload, fragment",
    [
        (b'{"v":1,"id":' + b"9" * 5000 + b',"type":"hello"}', "too many digits"),
        (b'{"v":1,"id":1,"type":"hello","x":-' + b"1" * 4400 + b"}", "too many digits"),
        (b"\x00\x00\x00", "not JSON"),
        (b"", "not JSON"),
        (b'"just a string"', "JSON object"),
        (b"null", "JSON object"),
        (b'{"x": Infinity}', "Infinity"),
        (b'{"x": -Infinity}', "Infinity"),
        (b"\xed\xa0\x80", "not UTF-8"),  # a surrogate written raw in UTF-8 is not UTF-8
        (b"\xc0\xaf", "not UTF-8"),  # an overlong encoding
    ],
)
def test_undecodable_payloads_are_bad_requests_and_the_host_goes_on(payload, fragment):
    with pytest.raises(ProtocolError) as err:
        decode_message(payload)
    assert fragment in err.value.message
    code, replies = _serve(frame(payload) + HELLO)
    assert code == 0
    assert [(r["id"], r["type"]) for r in replies] == [(None, "error"), (7, "hello")]
    assert replies[0]["error"]["code"] == "bad_request"


@pytest.mark.parametrize(
    "rid, answered",
    [
        (0, 0),
        (-5, -5),
        (2**53 - 1, 2**53 - 1),
        (-(2**53 - 1), -(2**53 - 1)),
        (2**53, None),
        (-(2**53), None),
        (10**300, None),
        (1.5, None),
        (True, None),
        ("1", None),
        (None, None),
    ],
)
def test_ids_javascript_cannot_hold_exactly_are_refused_with_a_null_id(rid, answered):
    message = {"v": 1, "id": rid, "type": "hello"}
    assert request_id(message) == answered
    if answered is None:
        with pytest.raises(ProtocolError, match="integer"):
            parse_request(message, 0.0)
    _, replies = _serve(frame(json.dumps(message).encode()))
    assert replies[0]["id"] == answered and replies[0]["type"] == ("hello" if answered is not None else "error")


def test_wrong_shapes_unknown_types_and_versions_each_get_their_code():
    messages = [
        ({"v": 1, "id": 1, "type": ["hello"]}, "bad_request"),
        ({"v": 1, "id": 2, "type": "extract", "snapshot": [], "want": "text"}, "bad_request"),
        ({"v": 1, "id": 3, "type": "extract", "snapshot": "<html>"}, "bad_snapshot"),
        ({"v": 1, "id": 4, "type": "extract", "snapshot": {"nodes": None}}, "bad_snapshot"),
        ({"v": 1, "id": 5, "type": "hello!" * 10_000}, "unknown_type"),
        ({"v": "1", "id": 6, "type": "hello"}, "unsupported_version"),
        ({"v": True, "id": 7, "type": "hello"}, "unsupported_version"),
        ({"v": 1.0, "id": 8, "type": "hello"}, None),  # JSON has one number type: 1.0 is 1
        ({"v": 2**70, "id": 9, "type": "hello"}, "unsupported_version"),
        ({"v": 1, "id": 10, "type": "extract", "want": ["pdf" * 10_000]}, "bad_request"),
        (
            {"v": 1, "id": 11, "type": "extract", "snapshot": {**snapshot_from_html("<p>hi</p>"), "k" * 10**5: 1}},
            "bad_snapshot",
        ),
        ({"v": ["x" * 10**5], "id": 12, "type": "hello"}, "unsupported_version"),
    ]
    _, replies = _serve(b"".join(frame(encode_message(m)) for m, _ in messages))
    assert [r["id"] for r in replies] == [m["id"] for m, _ in messages]
    for reply, (_, code) in zip(replies, messages):
        assert (reply["error"]["code"] if reply["type"] == "error" else None) == code
        assert len(json.dumps(reply)) < 2000  # an error never echoes a huge field back


@pytest.mark.parametrize(
    "data, reason",
    [
        (HEADER.pack(10), "inside a frame (0 of 10 bytes)"),
        (HEADER.pack(10) + b"{}", "inside a frame (2 of 10 bytes)"),
        (b"\x01\x00", "inside a frame header (2 of 4 bytes)"),
    ],
)
def test_a_broken_stream_ends_the_session_with_the_reason_logged(data, reason, caplog):
    code, replies = _serve(HELLO + data)
    assert code == 1 and [r["id"] for r in replies] == [7]
    assert any(reason in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("announced", [limits.MAX_REQUEST_BYTES + 1, 2**32 - 1])
def test_a_length_over_the_limit_is_answered_too_large_then_the_session_ends(announced, caplog):
    """Whatever follows such a header is not known to be a frame (the header may be corrupt), so the
    requests behind it are not read as frames: the host answers too_large, and ends with the reason logged."""
    code, replies = _serve(HELLO + HEADER.pack(announced) + b"x" * 1000 + HELLO)
    assert code == 1
    assert [(r["id"], r["type"]) for r in replies] == [(7, "hello"), (None, "error")]
    assert replies[1]["error"]["code"] == "too_large" and str(announced) in replies[1]["error"]["message"]
    assert any("where the next frame starts cannot be known" in r.getMessage() for r in caplog.records)


def _snapshot_with_text(escaped: str) -> bytes:
    snapshot = snapshot_from_html("<p>placeholder</p>")
    message = encode_message({"v": 1, "id": 3, "type": "extract", "snapshot": snapshot})
    return message.replace(b"placeholder", escaped.encode())


@pytest.mark.parametrize(
    "escaped, text",
    [
        ("a\\ud800b", "a\ufffdb"),
        ("\\udfff\\ud800", "\ufffd\ufffd"),
        ("\\ud83d\\ude00 pair", "\U0001f600 pair"),
        ("\\uD83D\\uDE00", "\U0001f600"),
        ("\\\\ud800 is text", "\\ud800 is text"),
        ("\\\\\\ud800", "\\\ufffd"),
        ("nul\\u0000 rtl\\u202e bom\\ufeff", "nul\x00 rtl\u202e bom\ufeff"),
    ],
)
def test_lone_surrogates_read_as_replacement_characters_and_the_rest_is_untouched(escaped, text):
    _, replies = _serve(frame(_snapshot_with_text(escaped)))
    assert replies[0]["error"]["message"] == f"$: {text}"
    assert all(not 0xD800 <= ord(c) <= 0xDFFF for c in replies[0]["error"]["message"])


def _with_json(rid: int, text) -> dict:
    return {"v": 1, "id": rid, "type": "extract", "snapshot_json": text}


def test_rows_make_the_nodes_and_a_row_that_cannot_is_a_bad_snapshot_at_that_row():
    """The extension's rows reach the engine as the same nodes; a row that makes no node is named by its path."""
    good = snapshot_from_html('<p class="a">first words <b>bold</b></p><img src="/x.png" alt="x">', url="http://a.b/")
    assert parse_request(_with_json(1, rows_text(good)), 0.0).message["snapshot"] == good
    head = json.dumps({k: v for k, v in good.items() if k != "nodes"})[:-1]

    def with_rows(rid: int, rows) -> dict:
        return _with_json(rid, f'{head}, "rows": {json.dumps(rows)}}}')

    messages = [
        (_with_json(1, rows_text(good)), "$: first words"),
        (with_rows(2, {"0": [0, "html"]}), "$.rows: must be a list"),
        (with_rows(3, [[0, "html"], "body"]), "$.rows[1]: a row is"),
        (with_rows(4, [[0, "html"], [1]]), "$.rows[1]: a row is"),
        (with_rows(5, [[0, "html"], [1, "p", {}, 4]]), "$.rows[1]: a row is"),
        (with_rows(6, [[0, "html"], [2, "p"]]), "$.rows[1][0]: must be an integer from 0 to 1"),
        (with_rows(7, [[0, "html"], [-1, "p"]]), "$.rows[1][0]"),
        (with_rows(8, [[0, "html"], [True, "p"]]), "$.rows[1][0]"),
        (with_rows(9, [[0, "html"], [1.0, "p"]]), "$.rows[1][0]"),
        (with_rows(10, [[0, "html"], [1, None]]), "$.rows[1][1]: must be a tag name"),
        (with_rows(11, [[0, "html"], [1, 0]]), "$.rows[1][1]"),
        (with_rows(12, [[0, "html"], [1, False, "x"]]), "$.rows[1][1]"),
        (with_rows(13, [[0, "html"], [1, "p", ["x"]]]), "$.rows[1][2]: must be an object"),
        (with_rows(14, [[0, "html"], [1, "p", {"parent": 0}]]), "$.rows[1][2]"),
        (with_rows(15, [[0, "html"], [1, 0, 5]]), "$.nodes[1].text"),  # a node made, then validated
        (with_rows(16, [[0, "html"], [1, 0, "x"], [1, "p"]]), "$.nodes[2].parent: a text node cannot be a parent"),
        ({**_with_json(17, rows_text(good)[:-1] + ', "nodes": []}')}, "not both"),
    ]
    _, replies = _serve(b"".join(frame(encode_message(m)) for m, _ in messages) + HELLO)
    assert [r["id"] for r in replies] == [m["id"] for m, _ in messages] + [7]
    for reply, (_, fragment) in zip(replies, messages):
        assert reply["error"]["code"] == "bad_snapshot" and fragment in reply["error"]["message"], reply


def test_a_snapshot_sent_as_json_text_is_read_under_the_same_rules_as_one_sent_as_an_object():
    """`snapshot_json` (the page's JSON text, as the extension sends it) reaches the engine as the object would;
    text that is not JSON is a bad snapshot at "$", a field that is not text a bad request; never a crash."""
    good = snapshot_from_html("<p>first words</p>")
    big = json.dumps(good).replace("first words", "x" * (limits.MAX_NODE_TEXT + 1))
    messages = [
        (_with_json(1, json.dumps(good)), "bad_snapshot", "$: first words"),  # the echo engine's word: it arrived
        (_with_json(2, json.dumps(good).replace("first words", "a\\ud800b")), "bad_snapshot", "$: a\ufffdb"),
        (_with_json(3, json.dumps(good)[:-1]), "bad_snapshot", "$: the snapshot's JSON text is not JSON"),
        (_with_json(4, "[" * 100_000 + "]" * 100_000), "bad_snapshot", "nests too deeply"),
        (_with_json(5, '{"x": NaN}'), "bad_snapshot", "NaN"),
        (_with_json(6, '{"x": ' + "1" * 5000 + "}"), "bad_snapshot", "too many digits"),
        (_with_json(7, "[1, 2]"), "bad_snapshot", "$: "),
        (_with_json(8, big), "bad_snapshot", f"at most {limits.MAX_NODE_TEXT}"),
        (_with_json(9, good), "bad_request", '"snapshot_json" must be a string'),
        (_with_json(10, None), "bad_request", '"snapshot_json" must be a string'),
        ({**_with_json(11, json.dumps(good)), "snapshot": good}, "bad_request", "not both"),
        ({**_with_json(12, json.dumps(good)), "want": ["pdf"]}, "bad_request", "pdf"),
    ]
    _, replies = _serve(b"".join(frame(encode_message(m)) for m, _, _ in messages) + HELLO)
    assert [r["id"] for r in replies] == [m["id"] for m, _, _ in messages] + [7]
    for reply, (_, code, fragment) in zip(replies, messages):
        assert reply["error"]["code"] == code and fragment in reply["error"]["message"], reply
        assert ("path" in reply["error"]) == (code == "bad_snapshot")
    assert replies[2]["error"]["path"] == "$" and replies[-1]["type"] == "hello"


@pytest.mark.parametrize(
    "field, value, path",
    [
        ("box", [0, 0, 1e400, 10], "$.nodes[1].box[2]"),  # 1e400 reads as infinity
        ("box", [-(10**400), 0, 1, 1], "$.nodes[1].box[0]"),  # an integer far past any float
        ("font_size", 1e400, "$.nodes[1].font_size"),
        ("font_weight", 10**5000 // 10**4999, None),  # 10: fine
        ("font_weight", 5000, "$.nodes[1].font_weight"),
    ],
)
def test_numbers_a_browser_cannot_produce_are_refused_naming_the_field(field, value, path):
    snapshot = snapshot_from_html("<p>hi</p>")
    snapshot["nodes"][1][field] = value
    if path is None:
        validate_snapshot(snapshot)
        return
    with pytest.raises(SnapshotError) as err:
        validate_snapshot(snapshot)
    assert err.value.path == path


@pytest.mark.parametrize(
    "viewport, ok",
    [
        ({"width": 0, "height": 0}, True),
        ({"width": 1280, "height": 800, "scroll_height": 90000}, True),
        ({"width": 1e-300, "height": 800}, False),
        ({"width": 1280, "height": 0.5}, False),
        ({"width": 1e400, "height": 800}, False),
    ],
)
def test_a_viewport_is_unknown_or_a_real_size(viewport, ok):
    snapshot = {**snapshot_from_html("<p>hi</p>"), "viewport": viewport}
    if ok:
        validate_snapshot(snapshot)
    else:
        with pytest.raises(SnapshotError, match=r"\$\.viewport"):
            validate_snapshot(snapshot)


# --- the real host process: broken streams and callers -------------------------------------------------------


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    from host_support import standin_model

    return standin_model(tmp_path_factory.mktemp("model"))


BAD_FRAMES = [
    frame(b"\xff"),
    frame(b"{"),
    frame(b"[]"),
    frame(b'{"v":1,"id":' + b"9" * 5000 + b"}"),
    frame(b'{"v":1,"id":1e400,"type":"hello"}'),
    frame(b'{"v":1,"id":3,"type":"extract","snapshot":{"nodes":[' + b"[" * 50_000 + b"]" * 50_000 + b"]}}"),
]


def test_the_real_host_answers_every_bad_frame_then_exits_cleanly_on_a_broken_stream(tmp_path, model_dir):
    from host_support import start_host

    with start_host(tmp_path / "logs", model_dir) as host:
        for data in BAD_FRAMES:
            host.send_raw(data)
        host.send_raw(HELLO + HEADER.pack(1000) + b'{"v":1,"id":8')  # then the browser dies mid-frame
        host.close_input()
        assert host.wait(timeout=60) == 1
        replies = []
        while True:
            try:
                replies.append(json.loads(read_frame(host.proc.stdout, limits.MAX_REPLY_FRAME_BYTES)))
            except StreamClosed as closed:
                assert closed.clean  # nothing but whole frames on stdout
                break
        stderr = host.stderr_text()
    assert [r["type"] for r in replies] == ["error"] * len(BAD_FRAMES) + ["hello"]
    assert all(r["error"]["code"] == "bad_request" for r in replies[:-1])
    assert "Traceback" not in stderr
    log = (tmp_path / "logs" / "host.log").read_text()
    assert "input closed inside a frame (13 of 1000 bytes)" in log and "Traceback" not in log


@pytest.mark.parametrize(
    "caller",
    [
        ("chrome-extension://ECKNENPNHAOMBHGABLLPKDBGLAHBLGAM/",),
        ("chrome-extension://ecknenpnhaombhgabllpkdbglahblgam/../evil/",),
        ("chrome-extension://ecknenpnhaombhgabllpkdbglahblgam",),
        ("https://ecknenpnhaombhgabllpkdbglahblgam/",),
        ("/home/u/.mozilla/native-messaging-hosts/org.pith.reader.json", "evil@example.org"),
        ("/home/u/.mozilla/native-messaging-hosts/org.pith.reader.json", "PITH@pith-reader.org"),
        ("pith@pith-reader.org",),
    ],
)
def test_any_other_caller_is_refused_with_the_reason_logged_and_nothing_served(tmp_path, model_dir, caller):
    from host_support import start_host

    with start_host(tmp_path / "logs", model_dir, caller=caller) as host:
        try:
            host.send({"v": 1, "id": 1, "type": "hello"})
        except BrokenPipeError:
            pass  # it may be gone already
        assert host.wait(timeout=60) == 3
        assert host.proc.stdout.read() == b""
    assert "refusing to serve" in (tmp_path / "logs" / "host.log").read_text()
