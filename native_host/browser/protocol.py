"""The host's side of protocol v1 (docs/protocol.md): check a request, run it, shape the reply, chunk it.

Transport-free on purpose: the serving loop (host.py) moves bytes, this module turns one decoded message
into one reply dict, so the framed and the JSON-lines transports answer exactly alike.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__, limits
from ..errors import (
    ModelError,
    PithError,
    ProtocolError,
    SnapshotError,
    UnknownTypeError,
    UnsupportedVersionError,
    quoted,
)
from ..gc_pause import GcHold, gc_paused
from ..pipeline.compiled import load_compiled
from ..render.reply import (
    ARTICLE_FIELDS,
    DEFAULT_WANT,
    PROTOCOL,
    WANTS,
    envelope,
    reader_views,
    shape_part,
    shape_rest,
    shape_result,
    with_selection,
)
from .framing import decode_json, encode_message, is_wide

if TYPE_CHECKING:  # for its type only: LazyExtractor.get imports it on first use
    from ..pipeline.extractor import Extractor

log = logging.getLogger(__name__)
Send = Callable[[dict], None]  # sends one reply message on its way (the host's transport)


@dataclass
class Request:
    """A request that passed the envelope checks; `received` is its arrival time (perf_counter); `hold`, the
    collector's pause the host keeps from its decoding to its reply sent."""

    id: int
    type: str
    message: dict
    received: float
    hold: GcHold | None = None


class LazyExtractor:
    """The host's one Extractor, made on first use: `hello` and error replies never wait for the model, and
    a model that fails to load is retried on the next request (the user may have fixed it meanwhile)."""

    def __init__(self, model_dir: str | Path | None = None):
        self.model_dir = model_dir
        self._extractor: Extractor | None = None

    def get(self) -> Extractor:
        if self._extractor is None:
            t0 = time.perf_counter()
            try:
                from ..pipeline.extractor import Extractor

                self._extractor = Extractor(model_dir=self.model_dir, threads=limits.one_page_threads())
            except ModelError as exc:
                raise ModelError(_with_doctor_hint(exc.message)) from exc
            except ImportError as exc:
                raise ModelError(_with_doctor_hint(f"the extraction engine cannot be imported ({exc})")) from exc
            log.info(
                "model %s loaded in %.0f ms (%s)",
                self._extractor.info.get("model_id"),
                (time.perf_counter() - t0) * 1000,
                ", ".join(self._extractor.info.get("providers", [])),
            )
        return self._extractor


def _with_doctor_hint(message: str) -> str:
    return message if "pith doctor" in message else f"{message}; run `pith doctor` to see what to fix"


def request_id(message: Any) -> int | None:
    """The id to answer with, or None when the message carries no usable one: an id the browser's JavaScript
    cannot hold exactly could never be matched to its request there."""
    rid = message.get("id") if isinstance(message, dict) else None
    if isinstance(rid, int) and not isinstance(rid, bool) and -limits.MAX_REQUEST_ID <= rid <= limits.MAX_REQUEST_ID:
        return rid
    return None


def parse_request(message: dict, received: float) -> Request:
    rid = request_id(message)
    if rid is None:
        raise ProtocolError(
            'every request needs an integer "id" (echoed in its reply) of at most '
            f"{limits.MAX_REQUEST_ID} either side of 0"
        )
    version = message.get("v")
    if version != PROTOCOL or isinstance(version, bool):
        raise UnsupportedVersionError(
            f"protocol version {quoted(version)} is not supported: this host speaks "
            f'"v": {PROTOCOL}; update pith and the extension to matching releases'
        )
    kind = message.get("type")
    if not isinstance(kind, str):
        raise ProtocolError('every request needs a string "type": one of ' + ", ".join(HANDLERS))
    if kind not in HANDLERS:
        raise UnknownTypeError(
            f"unknown request type {quoted(kind)}; this host (pith {__version__}) knows "
            + ", ".join(HANDLERS)
            + "; update pith if the extension is newer"
        )
    if kind == "extract" and "snapshot_json" in message:
        message["snapshot"] = snapshot_from_json(message)
    return Request(rid, kind, message, received)


def snapshot_from_json(message: dict) -> Any:
    """The snapshot an `extract` carries as JSON text (`snapshot_json`), decoded under the same rules as a
    whole message. The extension sends the page's JSON as it is, so the browser copies one string instead of
    converting a tree of small objects twice; decoded here, on the host's reader thread, so a pipelined
    request's decode still overlaps the previous page's work. Text that is not JSON is a bad snapshot
    (`path` "$"): the request around it was fine."""
    if "snapshot" in message:
        raise ProtocolError('an "extract" request carries "snapshot" or "snapshot_json", not both')
    text = message.pop("snapshot_json")
    if not isinstance(text, str):
        raise ProtocolError(
            f'"snapshot_json" must be a string holding the snapshot\'s JSON text, got '
            f'{type(text).__name__}; send the snapshot itself as "snapshot"'
        )
    if is_wide(text):  # 4 bytes a character: decoded from its UTF-8, which takes less (framing.utf8_text)
        text = text.encode("utf-8")
    try:
        snapshot = decode_json(text, "the snapshot's JSON text")
    except ProtocolError as exc:
        raise SnapshotError(exc.message) from None
    if isinstance(snapshot, dict) and "rows" in snapshot:
        if "nodes" in snapshot:
            raise SnapshotError('a snapshot carries "nodes" or "rows", not both')
        with gc_paused():  # 10,000 new dicts would set off collections over the page just decoded (1.2 ms)
            snapshot["nodes"] = nodes_from_rows(snapshot.pop("rows"))
    return snapshot


ROW_FIXED = frozenset({"id", "parent", "depth", "tag"})  # what a row holds by its place, never in its fields


def rows_from_nodes(nodes: list[dict]) -> list[list]:
    """`nodes` as rows, as the extension's content script writes them (nodes_from_rows reads them back): for
    the benchmarks and tests that send what the extension sends."""
    rows: list[list] = []
    for node in nodes:
        back = node["id"] - node["parent"] if node["parent"] >= 0 else 0
        fields = {k: v for k, v in node.items() if k not in ROW_FIXED}
        if node["tag"] == "#text" and list(fields) == ["text"]:
            rows.append([back, 0, node["text"]])
        else:
            rows.append([back, node["tag"], fields] if fields else [back, node["tag"]])
    return rows


def nodes_from_rows(rows: Any) -> list[dict]:
    """The snapshot's `nodes` from its `rows`, the extension's compact form of them (docs/snapshot.md, "Rows"):
    row i is `[back, tag]` or `[back, tag, fields]`, `[back, 0, text]` for a text node holding its text alone;
    `back` is i minus the parent's id, 0 for a node without a parent. Ids and depths follow from the order
    (validation checks the nodes made here as it checks any). At 3,900 elements the rows are half the bytes of
    the nodes, the string the browser copies twice before the host reads it. A malformed row is a bad
    snapshot, its path in the rows."""
    if not isinstance(rows, list):
        raise SnapshotError("must be a list of rows", "$.rows")
    if len(rows) > limits.MAX_NODES:
        raise SnapshotError(f"at most {limits.MAX_NODES} rows (nodes)", "$.rows")
    core = rows_core()
    nodes = core.nodes_from_rows(rows) if core is not None else None
    return nodes if nodes is not None else _nodes_from_rows(rows)


def _nodes_from_rows(rows: list) -> list[dict]:
    """`nodes_from_rows`' loop in Python: the reference of validate_core.nodes_from_rows, which makes the same
    nodes in half the time (3.2 against 6.1 ms of CPU at 3,898 elements) and leaves a malformed row to this
    loop, to name it."""
    nodes: list[dict] = []
    depths: list[int] = []
    add, add_depth = nodes.append, depths.append
    for i, row in enumerate(rows):
        if type(row) is not list or not 2 <= len(row) <= 3:
            raise SnapshotError("a row is [back, tag] or [back, tag, fields]", f"$.rows[{i}]")
        back, tag = row[0], row[1]
        if type(back) is not int or not 0 <= back <= i:
            raise SnapshotError(
                f"must be an integer from 0 to {i} (the row's index minus its parent's)", f"$.rows[{i}][0]"
            )
        parent = i - back if back else -1
        depth = depths[parent] + 1 if back else 0
        add_depth(depth)
        if type(tag) is int and tag == 0 and len(row) == 3:
            add({"id": i, "parent": parent, "depth": depth, "tag": "#text", "text": row[2]})
            continue
        if type(tag) is not str:
            raise SnapshotError("must be a tag name, or 0 for a text node with its text", f"$.rows[{i}][1]")
        node = {"id": i, "parent": parent, "depth": depth, "tag": tag}
        if len(row) == 3:
            fields = row[2]
            if type(fields) is not dict or not ROW_FIXED.isdisjoint(fields):
                raise SnapshotError("must be an object of the node's other fields", f"$.rows[{i}][2]")
            node.update(fields)
        add(node)
    return nodes


# Rows the compiled loop must read as the reference does: nodes, or None where the reference raises.
_PROBE_ROWS = (
    [[0, "html"], [1, "body", {"classes": ["a"], "box": [0, 0, 1, 1]}], [1, 0, "x"], [2, "p"], [1, 0, ""]],
    [[0, "a"], [1, 0]],
    [[0, "a"], [1, 1, "x"]],
    [[0, "a"], [1, True, "x"]],
    [[0, "a"], [2, "b"]],
    [[0, "a"], [-1, "b"]],
    [[0, "a"], [1.0, "b"]],
    [[0, "a"], [1, "b", {"id": 3}]],
    [[0, "a"], [1, "b", []]],
    [[0, "a"], (1, "b")],
    [[0, "a"], [1, "b", {}, 4]],
    [[0, "a"], [10**30, "b"]],
)


def _probe_rows(core) -> bool:
    def reference(rows):
        try:
            return [list(n.items()) for n in _nodes_from_rows(rows)]
        except SnapshotError:
            return None

    def compiled(rows):
        nodes = core.nodes_from_rows(rows)
        return None if nodes is None else [list(n.items()) for n in nodes]

    return all(compiled(rows) == reference(rows) for rows in _PROBE_ROWS)


@lru_cache(maxsize=1)
def rows_core():
    """validate_core where built and reading the probe rows as the reference does, else None."""
    return load_compiled("validate_core", _probe_rows)


def error_reply(rid: int | None, exc: PithError) -> dict:
    error = {"code": exc.code, "message": exc.message}
    if isinstance(exc, SnapshotError):
        error["path"] = exc.path
    return {**envelope(rid, "error"), "error": error}


def internal_error_reply(rid: int | None, exc: BaseException, log_path: str | None) -> dict:
    where = f"; details are in {log_path}" if log_path else ""
    return error_reply(rid, PithError(f"internal error ({type(exc).__name__}: {exc}){where}; please report it"))


def handle_hello(request: Request, engine: LazyExtractor, early: Send | None = None) -> dict:
    reply = {
        **envelope(request.id, "hello"),
        "version": __version__,
        "protocol": PROTOCOL,
        "model_id": None,
        "providers": [],
        "wants": list(WANTS),
        "max_request_bytes": limits.MAX_REQUEST_BYTES,
        "max_frame_bytes": limits.MAX_REPLY_FRAME_BYTES,
        "snapshot_json": True,
        "snapshot_rows": True,
        "first": True,
    }
    try:
        info = engine.get().info
    except ModelError as exc:
        reply["model_error"] = {"code": exc.code, "message": exc.message}
    else:
        reply["model_id"] = info.get("model_id")
        reply["providers"] = list(info.get("providers", []))
    return reply


def parse_want(message: dict) -> frozenset[str]:
    want = message.get("want", list(DEFAULT_WANT))
    if not isinstance(want, list) or not all(isinstance(w, str) for w in want):
        raise ProtocolError('"want" must be a list of strings from ' + ", ".join(WANTS))
    unknown = [w for w in want if w not in WANTS]
    if unknown:
        raise ProtocolError(f'"want" has unknown item {quoted(unknown[0])}; choose from ' + ", ".join(WANTS))
    return frozenset(want)


def parse_first(message: dict, want: frozenset[str]) -> frozenset[str]:
    """`first`: the wants sent ahead of the rest, in a `part` reply; empty when the request has none."""
    first = message.get("first", [])
    if not isinstance(first, list) or not all(isinstance(w, str) for w in first):
        raise ProtocolError('"first" must be a list of strings from "want"')
    stray = [w for w in first if w not in want]
    if stray:
        raise ProtocolError(
            f'"first" has {quoted(stray[0])}, which is not in "want"; "first" names some of '
            '"want", to be sent ahead of the rest'
        )
    return frozenset(first)


def parse_selection(message: dict) -> list[int]:
    """`selection`: the snapshot node ids of what the user selected, whose blocks alone make the saved body."""
    selection = message.get("selection", [])
    if (
        not isinstance(selection, list)
        or len(selection) > limits.MAX_NODES
        or not all(type(i) is int and 0 <= i < limits.MAX_NODES for i in selection)
    ):
        raise ProtocolError(f'"selection" must be a list of snapshot node ids (0 to {limits.MAX_NODES - 1})')
    return selection


def handle_extract(request: Request, engine: LazyExtractor, early: Send | None = None) -> dict:
    """The reply; with `first` asked and `early` given, its `part` goes to `early` first and the rest is
    returned (a caller without `early` gets the whole reply in one)."""
    message = request.message
    if "snapshot" not in message:
        raise ProtocolError(
            'an "extract" request needs a "snapshot", or its JSON text as "snapshot_json" (docs/snapshot.md)'
        )
    want = parse_want(message)
    first = parse_first(message, want)
    views = reader_views(want)
    selection = parse_selection(message)
    if selection and ("markdown" not in want or first):
        raise ProtocolError('"selection" goes with "markdown" in "want", and without "first"')
    if not first or early is None:
        result = engine.get().extract_snapshot(message["snapshot"], views)
        return _stamped(with_selection(shape_result(request.id, result, want), message["snapshot"], selection), request)

    cut = []  # whether the part's html was the first screen's alone

    def ready(result) -> None:
        cut.append(result.first_screen)
        early(_stamped(shape_part(request.id, result, first), request))

    shown = {v for v in views if ARTICLE_FIELDS[v] in first}
    result = engine.get().extract_snapshot(
        message["snapshot"], shown, later=views - shown, ready=ready, first_chars=limits.FIRST_SCREEN_CHARS
    )
    return _stamped(shape_rest(request.id, result, want, first, html=any(cut)), request)


def _stamped(reply: dict, request: Request) -> dict:
    """`reply` with the host's time in its timings: from the request read to the reply shaped."""
    reply["timings"]["host"] = round((time.perf_counter() - request.received) * 1000, 3)
    return reply


HANDLERS: dict[str, Callable[[Request, LazyExtractor, Send | None], dict]] = {
    "hello": handle_hello,
    "extract": handle_extract,
}


def answer(request: Request, engine: LazyExtractor, log_path: str | None = None, early: Send | None = None) -> dict:
    """The reply to one request; never raises (a failure becomes an error reply and the host goes on).
    `early` sends a reply's `part` ahead of it, where the request asks for one (`first`)."""
    try:
        return HANDLERS[request.type](request, engine, early)
    except PithError as exc:
        log.info("request %s (%s) -> %s: %s", request.id, request.type, exc.code, exc.message)
        return error_reply(request.id, exc)
    except Exception as exc:  # a bug must cost one reply, not the session
        log.exception("request %s (%s) failed", request.id, request.type)
        return internal_error_reply(request.id, exc, log_path)


def chunk_messages(rid: int | None, text: str, cap: int) -> list[dict]:
    """Split a reply's JSON text into chunk messages whose own encoding stays within `cap` bytes.

    `text` is ASCII JSON, where re-encoding as a JSON string escapes only `"` and `\\` (one extra byte
    each), so each slice's encoded size is known exactly without trial encoding."""
    overhead = len(encode_message({**envelope(rid, "chunk"), "seq": len(text), "count": len(text), "data": ""}))
    budget = cap - overhead
    if budget < 2:
        raise ValueError(f"frame cap {cap} leaves no room for data")
    pieces = []
    start = 0
    while start < len(text):
        piece = text[start : start + budget]
        size = len(piece) + piece.count('"') + piece.count("\\")
        while size > budget:
            cut = (size - budget + 1) // 2
            tail = piece[-cut:]
            piece = piece[:-cut]
            size -= cut + tail.count('"') + tail.count("\\")
        pieces.append(piece)
        start += len(piece)
    return [{**envelope(rid, "chunk"), "seq": i, "count": len(pieces), "data": p} for i, p in enumerate(pieces)]


def reply_payloads(reply: dict, cap: int = limits.MAX_REPLY_FRAME_BYTES) -> list[bytes]:
    """The frame payloads that carry `reply`: itself when it fits under `cap`, else its chunks."""
    payload = encode_message(reply)
    if len(payload) <= cap:
        return [payload]
    return [encode_message(c) for c in chunk_messages(reply.get("id"), payload.decode("ascii"), cap)]
