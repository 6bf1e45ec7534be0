"""Hostile pages through the real host: the time and peak memory each one costs, and what it gets.

    python -m bench.hostile                 # the full sizes (1,000,000 elements, a 100 MB text node...)
    python -m bench.hostile --scale 0.02    # the same shapes, small (what tests/test_hostile.py sends)
    python -m bench.hostile --only deep     # cases whose name contains "deep"

Each case starts its own `pith host` (as Chromium would, with the extension's origin), sends the request
through the real framing and waits for the reply; peak memory is the host process's high-water mark
(VmHWM) after its last reply, model included (the `baseline` row: a host that only answered hello).
Most pages are sent as the content script would send them: built by `snapshot_from_html`, which follows
the content script rule for rule, limits included (docs/snapshot.md), so an over-limit page arrives cut
short with `truncated: true`. Pages no HTML parser can build quickly (100,000-deep nesting, which a
script can make with appendChild) are built as node lists directly. The `as is` cases skip the builder's
limits, as a broken or compromised extension could: the host must refuse them, in bounded memory.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from native_host import limits, snapshot_from_html
from native_host.browser.client import HostProcess, host_command
from native_host.browser.framing import HEADER, encode_message
from native_host.browser.identity import chromium_origin

TIMEOUT_S = 600.0
SENTENCE = "The old mill by the river still grinds flour for the valley every autumn. "


@dataclass(frozen=True)
class Case:
    """One hostile input: `build(scale)` gives the request's JSON bytes; `expect(scale)` the reply it must get:
    "result", "truncated" (a result flagged truncated), or an error code. After the reply the host must
    answer a hello, except after `too_large` for a frame: then it must end the session (exit status 1),
    as a length over the limit leaves no way to find the next frame (docs/protocol.md)."""

    name: str
    what: str
    build: Callable[[float], bytes]
    expect: Callable[[float], str]


def _always(outcome: str) -> Callable[[float], str]:
    return lambda scale: outcome


def _n(full: int, scale: float, least: int = 1) -> int:
    return max(least, int(full * scale))


def _over_containers(count: int) -> str:
    """What a frame of `count` nodes or arrays past MAX_NODES gets: refused undecoded past the objects and
    arrays a request may hold, else decoded and refused by the schema."""
    return "bad_request" if count > limits.MAX_REQUEST_CONTAINERS else "bad_snapshot"


def _extract(snapshot: dict) -> bytes:
    return encode_message(
        {"v": 1, "id": 1, "type": "extract", "snapshot": snapshot, "want": ["highlight", "article", "text", "markdown"]}
    )


def _page(body: str, head: str = "<title>Hostile</title>") -> bytes:
    return _extract(
        snapshot_from_html(
            f"<!doctype html><html><head>{head}</head><body>{body}</body></html>", url="https://hostile.example/"
        )
    )


def _nodes_snapshot(nodes: list[dict], **fields) -> dict:
    return {
        "format": "pith-snapshot",
        "version": 1,
        "source": "live",
        "url": "https://hostile.example/",
        "title": "Hostile",
        "lang": None,
        "viewport": {"width": 1280, "height": 800},
        "nodes": nodes,
        **fields,
    }


def million_elements(scale: float) -> bytes:
    return _page("".join(f"<p>item {i}</p>" for i in range(_n(1_000_000, scale))))


def million_elements_as_is(scale: float) -> bytes:
    """Every element, past MAX_NODES: what the content script would send without its limits."""
    count = max(_n(1_000_000, scale), limits.MAX_NODES + 1)
    nodes = [{"id": 0, "parent": -1, "depth": 0, "tag": "html"}, {"id": 1, "parent": 0, "depth": 1, "tag": "body"}]
    nodes += [{"id": i, "parent": 1, "depth": 2, "tag": "p"} for i in range(2, count)]
    return _extract(_nodes_snapshot(nodes))


def deep_nesting(scale: float) -> bytes:
    """div inside div, 100,000 deep, a paragraph at the bottom: a DOM a script builds with appendChild."""
    depth = _n(100_000, scale, least=3)
    nodes = [{"id": 0, "parent": -1, "depth": 0, "tag": "html"}]
    nodes += [{"id": i, "parent": i - 1, "depth": i, "tag": "div" if i > 1 else "body"} for i in range(1, depth)]
    nodes.append({"id": depth, "parent": depth - 1, "depth": depth, "tag": "#text", "text": SENTENCE * 4})
    return _extract(_nodes_snapshot(nodes))


def text_100mb(scale: float) -> bytes:
    return _page("<p>" + "a" * _n(100_000_000, scale) + "</p>")


def text_100mb_as_is(scale: float) -> bytes:
    """One text node of 100 MB, uncut: over the 64 MiB frame cap at full size."""
    size = _n(100_000_000, scale)
    head = encode_message(_extract_envelope()).rstrip(b"}")
    nodes = (
        b'[{"id":0,"parent":-1,"depth":0,"tag":"html"},{"id":1,"parent":0,"depth":1,"tag":"body"},'
        b'{"id":2,"parent":1,"depth":2,"tag":"#text","text":"' + b"a" * size + b'"}]'
    )
    snapshot = json.dumps(_nodes_snapshot([])).encode().replace(b'"nodes": []', b'"nodes": ' + nodes)
    return head + b',"snapshot":' + snapshot + b"}"


def _extract_envelope() -> dict:
    return {"v": 1, "id": 1, "type": "extract", "want": ["highlight", "text"]}


def identical_blocks(scale: float) -> bytes:
    return _page(f"<p class='post'>{SENTENCE}</p>" * _n(50_000, scale))


def link_menu(scale: float) -> bytes:
    """One list of 100,000 links: a menu the segmenter combines."""
    return _page(
        "<ul>"
        + "".join(f"<li><a href='/p/{i}'>page {i}</a></li>" for i in range(_n(100_000, scale)))
        + f"</ul><p>{SENTENCE * 5}</p>"
    )


def empty_body(scale: float) -> bytes:
    return _page("")


def frameset(scale: float) -> bytes:
    frames = "".join(f"<frame src='/f{i}.html'>" for i in range(_n(1_000, scale)))
    return _extract(
        snapshot_from_html(
            f"<html><head><title>F</title></head><frameset cols='50%,50%'>{frames}"
            "</frameset><noframes><p>No frames.</p></noframes></html>"
        )
    )


def svg_mathml(scale: float) -> bytes:
    shapes = "".join(f"<circle cx='{i}' r='1'/><text>label {i}</text>" for i in range(_n(50_000, scale)))
    maths = "".join(f"<math><mi>x</mi><mo>=</mo><mn>{i}</mn></math>" for i in range(_n(20_000, scale)))
    return _page(
        f"<svg>{shapes}</svg><p>{SENTENCE * 3}</p>{maths}<svg><foreignObject><p>in svg</p></foreignObject></svg>"
    )


def unicode_soup(scale: float) -> bytes:
    """RTL overrides, NUL, BOMs, zero-width joiners, a 10,000-mark combining stack, lone surrogates (escaped
    as Firefox's JSON.stringify writes them), a word with no space of a million letters."""
    n = _n(2_000, scale)
    rtl = "".join(f"<p>\u202e{SENTENCE}\u202c \u2066isolate\u2069 \x00nul \ufeff\u200d</p>" for _ in range(n))
    zalgo = "<p>Z" + "\u0336\u0337" * _n(5_000, scale) + "</p>"
    word = "<p>" + "W" * _n(1_000_000, scale) + "</p>"
    message = _page(
        f"<h1>\u202egnp.exe</h1>{rtl}{zalgo}{word}<p>LONE_SURROGATES</p>", head="<title>\u202e\u0000..\\..\\CON</title>"
    )
    return message.replace(b"LONE_SURROGATES", b"\\ud800 high \\udfff low \\ud83d\\ude00 pair" * n)


def _text_nodes(total: int) -> list[dict]:
    """html > body > p > text, repeated: text nodes of MAX_NODE_TEXT characters, `total` characters in all."""
    nodes = [{"id": 0, "parent": -1, "depth": 0, "tag": "html"}, {"id": 1, "parent": 0, "depth": 1, "tag": "body"}]
    while total > 0:
        size = min(total, limits.MAX_NODE_TEXT)
        p = len(nodes)
        nodes.append({"id": p, "parent": 1, "depth": 2, "tag": "p"})
        nodes.append(
            {
                "id": p + 1,
                "parent": p,
                "depth": 3,
                "tag": "#text",
                "text": (SENTENCE * (size // len(SENTENCE) + 1))[:size],
            }
        )
        total -= size
    return nodes


def total_text_at_limit(scale: float) -> bytes:
    """As much text as a builder may send: MAX_TOTAL_TEXT characters, in nodes as long as allowed."""
    return _extract(_nodes_snapshot(_text_nodes(_n(limits.MAX_TOTAL_TEXT, scale))))


def total_text_as_is(scale: float) -> bytes:
    """Text up to just under the 64 MiB frame cap: past MAX_TOTAL_TEXT, as no builder sends."""
    total = max(_n(limits.MAX_REQUEST_BYTES - 2_000_000, scale), limits.MAX_TOTAL_TEXT + 1)
    return _extract(_nodes_snapshot(_text_nodes(total)))


def empty_containers_as_is(scale: float) -> bytes:
    """A frame just under 64 MiB of empty arrays, the JSON that costs the most memory per byte to decode (no
    builder sends it: a node is an object with at least four fields)."""
    count = _n((limits.MAX_REQUEST_BYTES - 1000) // 3, scale)
    return (
        b'{"v":1,"id":1,"type":"extract","snapshot":{"format":"pith-snapshot","version":1,"source":"live",'
        b'"nodes":[' + b"[]," * (count - 1) + b"[]]}}"
    )


CASES = (
    Case(
        "million_elements",
        "1,000,000 <p> elements, built as the content script does (cut at MAX_NODES)",
        million_elements,
        lambda s: "truncated" if _n(1_000_000, s) >= limits.MAX_BLOCKS else "result",
    ),
    Case(
        "million_elements_as_is",
        "1,000,000 element nodes, uncut (over MAX_NODES)",
        million_elements_as_is,
        lambda s: _over_containers(max(_n(1_000_000, s), limits.MAX_NODES + 1)),
    ),
    Case("deep_nesting", "<div> nested 100,000 deep", deep_nesting, _always("result")),
    Case(
        "text_100mb",
        "a 100 MB text node, built as the content script does (cut at MAX_NODE_TEXT)",
        text_100mb,
        lambda s: "truncated" if _n(100_000_000, s) > limits.MAX_NODE_TEXT else "result",
    ),
    Case(
        "text_100mb_as_is",
        "a 100 MB text node, uncut (a 100 MB frame)",
        text_100mb_as_is,
        lambda s: "too_large" if _n(100_000_000, s) > limits.MAX_REQUEST_BYTES else "bad_snapshot",
    ),
    Case(
        "identical_blocks",
        "50,000 identical paragraphs",
        identical_blocks,
        lambda s: "truncated" if _n(50_000, s) >= limits.MAX_BLOCKS else "result",
    ),
    Case(
        "link_menu",
        "one menu of 100,000 links",
        link_menu,
        lambda s: "truncated" if 3 * _n(100_000, s) > limits.MAX_NODES else "result",
    ),
    Case("empty_body", "an empty <body>", empty_body, _always("result")),
    Case("frameset", "a <frameset> of 1,000 frames", frameset, _always("result")),
    Case("svg_mathml", "50,000 SVG shapes, 20,000 MathML formulas", svg_mathml, _always("result")),
    Case(
        "unicode",
        "RTL overrides, NUL, BOM, lone surrogates, a 10,000-mark combining stack, a 1M-letter word",
        unicode_soup,
        lambda s: "truncated" if _n(1_000_000, s) > limits.MAX_NODE_TEXT else "result",
    ),
    Case(
        "total_text_at_limit",
        "20,000,000 characters of text (MAX_TOTAL_TEXT) in 100,000-character nodes",
        total_text_at_limit,
        _always("result"),
    ),
    Case("total_text_as_is", "64 MiB of text (past MAX_TOTAL_TEXT)", total_text_as_is, _always("bad_snapshot")),
    Case(
        "empty_containers_as_is",
        "64 MiB of empty JSON arrays (22 million values)",
        empty_containers_as_is,
        lambda s: _over_containers(_n((limits.MAX_REQUEST_BYTES - 1000) // 3, s)),
    ),
)


def outcome(reply: dict) -> str:
    if reply.get("type") == "error":
        return reply["error"]["code"]
    if reply.get("type") == "result":
        return "truncated" if reply.get("truncated") else "result"
    return str(reply.get("type"))


@dataclass
class Row:
    case: str
    request_mb: float
    max_s: float
    peak_mb: float | None  # None: the host had ended the session (or no /proc)
    got: str
    blocks: int
    ok: bool


def run_case(case: Case, scale: float, repeats: int, env: dict | None = None) -> Row:
    """Send `case` `repeats` times to one fresh host; then a hello, which must still be answered (a case
    answered `too_large` ends the session instead: it is sent once, and the host must exit with status 1)."""
    data = case.build(scale)
    ends_session = case.expect(scale) == "too_large"
    times, got, blocks = [], "", 0
    with HostProcess(host_command((chromium_origin(),), "--preload"), env) as host:
        host.request({"v": 1, "id": 0, "type": "hello"})
        for _ in range(1 if ends_session else repeats):
            t0 = time.perf_counter()
            writer = threading.Thread(target=_send, args=(host, HEADER.pack(len(data)) + data), daemon=True)
            writer.start()  # the host may answer, and end, before the whole frame is written
            reply = host.receive()
            times.append(time.perf_counter() - t0)
            writer.join()
            got, blocks = outcome(reply), len(reply.get("blocks", ()))
        if ends_session:
            alive = host.wait(TIMEOUT_S) == 1
        else:
            alive = host.request({"v": 1, "id": 2, "type": "hello"}).get("type") == "hello"
        peak = host.peak_rss_mb() if host.proc.poll() is None else None
    return Row(case.name, len(data) / 1e6, max(times), peak, got, blocks, alive and got == case.expect(scale))


def _send(host: HostProcess, data: bytes) -> None:
    try:
        host.send_raw(data)
    except BrokenPipeError:
        pass  # the host answered too_large and ended the session before reading it all


def baseline(env: dict | None = None) -> Row:
    with HostProcess(host_command((chromium_origin(),), "--preload"), env) as host:
        t0 = time.perf_counter()
        host.request({"v": 1, "id": 0, "type": "hello"})
        return Row("baseline", 0.0, time.perf_counter() - t0, host.peak_rss_mb(), "hello", 0, True)


def table(rows: list[Row]) -> str:
    lines = [
        "| case | request MB | max time s | host peak RSS MB | reply | blocks | as expected |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        peak = "-" if r.peak_mb is None else f"{r.peak_mb:.0f}"
        lines.append(
            f"| {r.case} | {r.request_mb:.1f} | {r.max_s:.2f} | {peak} | {r.got} | {r.blocks} | "
            f"{'yes' if r.ok else 'NO'} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the full sizes (default 1)")
    parser.add_argument("--repeats", type=int, default=3, help="requests per case; the max time is reported")
    parser.add_argument("--only", default="", help="run only cases whose name contains this")
    args = parser.parse_args(argv)
    rows = [baseline()]
    for case in CASES:
        if args.only in case.name:
            rows.append(run_case(case, args.scale, args.repeats))
            print(table(rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    print(table(rows))
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
