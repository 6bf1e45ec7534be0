"""Property-based tests over frames and snapshots.

The default run tries a few dozen examples per property. The long fuzz run sets PITH_FUZZ_EXAMPLES:

    PITH_FUZZ_EXAMPLES=3000 python -m pytest -q -p no:randomly tests/test_fuzz.py

(docs/security.md has its figures). Properties: any byte stream ends the session cleanly with one
well-formed reply per whole frame; any JSON value as a snapshot is either refused as `bad_snapshot` or
extracted; any schema-valid snapshot, with any Unicode in it, is extracted into a reply that encodes, fits
the frame cap once chunked, and names only the snapshot's nodes.
"""

from __future__ import annotations

import io
import json
import os

import pytest
from host_support import standin_model
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from native_host import limits
from native_host.browser.framing import HEADER, StreamClosed, decode_message, encode_message, frame, read_frame
from native_host.browser.host import FramedTransport, Server
from native_host.browser.protocol import LazyExtractor, reply_payloads
from native_host.errors import SnapshotError
from native_host.pipeline.schema import validate_snapshot
from native_host.render.reply import shape_result

EXAMPLES = int(os.environ.get("PITH_FUZZ_EXAMPLES", "25"))
FUZZ = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
ALL_WANTS = frozenset({"highlight", "article", "text", "markdown"})


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    return LazyExtractor(standin_model(tmp_path_factory.mktemp("model")))


# --- frames -------------------------------------------------------------------------------------------------

_messages = st.one_of(
    st.binary(max_size=64),
    st.builds(
        lambda m: json.dumps(m).encode(),
        st.dictionaries(
            st.sampled_from(["v", "id", "type", "want", "x"]),
            st.one_of(st.integers(), st.text(max_size=8), st.none(), st.booleans()),
        ),
    ),
    st.just(b'{"v":1,"id":5,"type":"hello"}'),
)
_pieces = st.one_of(
    st.builds(frame, _messages),  # a whole frame
    st.builds(lambda n: HEADER.pack(n), st.integers(0, 2**32 - 1)),  # a bare length: the rest is whatever follows
    st.binary(max_size=16),  # loose bytes
)


class _Hello:
    """The engine never loads here: only hello and envelope errors are in play."""

    info = {"model_id": "none", "providers": []}

    def get(self):
        return self


@FUZZ
@given(st.lists(_pieces, max_size=10))
def test_any_byte_stream_ends_cleanly_with_wellformed_replies(pieces):
    data = b"".join(pieces)
    out = io.BytesIO()
    code = Server(FramedTransport(io.BytesIO(data), out, frame_cap=4096), _Hello(), idle_timeout=0).serve()
    assert code in (0, 1)
    stream = io.BytesIO(out.getvalue())
    while True:
        try:
            reply = decode_message(read_frame(stream, 4096))
        except StreamClosed as closed:
            assert closed.clean
            break
        assert reply["v"] == 1 and reply["type"] in ("hello", "error")
        assert reply["type"] == "hello" or reply["error"]["message"]


# --- snapshots ----------------------------------------------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=30,
)
_near_snapshot = st.fixed_dictionaries(
    {
        "format": st.sampled_from(["pith-snapshot", "x"]),
        "version": st.sampled_from([1, 2, True]),
        "source": st.sampled_from(["html", "live", 3]),
        "nodes": st.lists(
            st.dictionaries(
                st.sampled_from(["id", "parent", "depth", "tag", "text", "box", "classes"]), _json, max_size=6
            ),
            max_size=6,
        ),
    },
    optional={"url": _json, "title": _json, "viewport": _json, "truncated": _json},
)


@FUZZ
@given(st.one_of(_json, _near_snapshot))
def test_any_json_as_a_snapshot_is_refused_as_bad_snapshot_or_extracted(engine, value):
    try:
        engine.get().extract_snapshot(value)
    except SnapshotError as exc:
        assert exc.path.startswith("$") and exc.message


# Any Unicode but surrogates (a Python str from JSON never keeps one: framing makes them U+FFFD).
_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=120) | st.sampled_from(
    ["\u202e\u0000", "\ufeff", "a" * 2000, "Z" + "\u0336" * 400, " ", "\n\t", "中文 العربية"]
)
_tags = st.sampled_from(
    [
        "html",
        "body",
        "div",
        "p",
        "a",
        "img",
        "h1",
        "li",
        "ul",
        "table",
        "td",
        "pre",
        "svg",
        "math",
        "frameset",
        "frame",
        "nav",
        "x-custom",
        "#text",
    ]
)
_number = st.floats(min_value=-1e9, max_value=1e9, allow_nan=False)


@st.composite
def snapshots(draw):
    """A schema-valid snapshot: a random tree (wide, deep or both) with random fields on its nodes."""
    count = draw(st.integers(1, 60))
    nodes, depth_of = [], []
    for i in range(count):
        elements = [j for j in range(i) if nodes[j]["tag"] != "#text"]
        parent = -1 if not elements else draw(st.sampled_from(elements[-3:] + elements[:2]))
        depth = 0 if parent < 0 else depth_of[parent] + 1
        tag = "html" if i == 0 else draw(_tags)
        node = {"id": i, "parent": parent, "depth": depth, "tag": tag}
        if tag == "#text":
            node["text"] = draw(_text)
        else:
            extra = draw(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "classes": st.lists(st.text(max_size=12), max_size=4),
                        "html_id": st.text(max_size=12),
                        "href": st.text(max_size=30),
                        "src": st.text(max_size=30),
                        "alt": _text,
                        "hidden": st.booleans(),
                        "visible": st.booleans(),
                        "box": st.lists(_number, min_size=4, max_size=4),
                        "font_size": st.floats(0, 1e6),
                        "font_weight": st.floats(0, 1000),
                        "display": st.text(max_size=10),
                        "role": st.text(max_size=10),
                        "aria_label": _text,
                    },
                )
            )
            node.update(extra)
        nodes.append(node)
        depth_of.append(depth)
    viewport = draw(
        st.none()
        | st.fixed_dictionaries({"width": st.just(0) | st.floats(1, 1e9), "height": st.just(0) | st.floats(1, 1e9)})
    )
    return {
        "format": "pith-snapshot",
        "version": 1,
        "source": draw(st.sampled_from(["html", "live"])),
        "url": draw(st.none() | st.text(max_size=40)),
        "title": draw(st.none() | _text),
        "lang": draw(st.none() | st.text(max_size=8)),
        "viewport": viewport,
        "nodes": nodes,
        "truncated": draw(st.booleans()),
    }


@FUZZ
@given(snapshots())
def test_any_valid_snapshot_is_extracted_into_a_reply_that_travels(engine, snapshot):
    validate_snapshot(snapshot)
    result = engine.get().extract_snapshot(snapshot)
    reply = shape_result(1, result, ALL_WANTS)
    payloads = reply_payloads(reply, cap=4096)
    assert all(len(p) <= 4096 for p in payloads)
    assert set(reply["node_ids"]) <= set(range(len(snapshot["nodes"])))
    assert reply["truncated"] is snapshot["truncated"] or reply["truncated"]
    assert all(0.0 <= s <= 1.0 for b in reply["blocks"] for s in b["scores"].values())


@FUZZ
@given(snapshots(), st.sampled_from(["\\ud800", "\\udfff", "\\ud83d\\ude00", "\\\\ud800", "\\u0000"]))
def test_a_snapshot_with_escaped_surrogates_travels_through_the_framing(engine, snapshot, escape):
    snapshot["nodes"].append({"id": len(snapshot["nodes"]), "parent": 0, "depth": 1, "tag": "#text", "text": "MARK"})
    data = encode_message({"v": 1, "id": 1, "type": "extract", "snapshot": snapshot}).replace(b"MARK", escape.encode())
    message = decode_message(data)
    result = engine.get().extract_snapshot(message["snapshot"])
    encode_message(shape_result(1, result, ALL_WANTS)).decode("ascii")
    assert all(not 0xD800 <= ord(c) <= 0xDFFF for c in message["snapshot"]["nodes"][-1]["text"])


def test_the_fuzz_budget_is_read_from_the_environment():
    assert EXAMPLES >= 1 and limits.MAX_REPLY_FRAME_BYTES > 4096
