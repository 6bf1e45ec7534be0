"""Snapshot validation: today's `json.loads` + `validate_snapshot` against msgspec typed structures, in one run.

    python -m bench.schema_speed [--nodes 1500 5000] [--repeats 15]

msgspec (not a dependency; `pip install msgspec` to run this) decodes JSON straight into typed `Struct`s whose
`Meta` bounds are the schema's, so one pass both parses and checks types and bounds. The question is whether
that earns a sixth runtime dependency. Both sides do the whole job the host needs from a request's bytes:
* today: `framing.decode_message` (lone-surrogate pass, `json.loads`) then `validate_snapshot` (the compiled
  schema, the tree, the total text, encodability);
* msgspec: the same lone-surrogate pass, `msgspec.json.decode` into the structs, the same tree and total-text
  checks on the structs, then `msgspec.to_builtins` back to dicts, since every later stage reads dicts;
  and, without the dicts, the lower bound a switch could reach if every stage were rewritten for structs.
A Python caller hands `validate_snapshot` a dict: its msgspec twin is `msgspec.convert`, measured too.

Times are CPU seconds of this process (`time.process_time`), so other work on a loaded machine costs little;
the two sides alternate, and the table gives medians and their ratio. Snapshots are bench.synthetic's live
blog pages.
"""

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Annotated, Literal

from native_host import limits
from native_host.browser.framing import _without_lone_surrogates, decode_message, encode_message
from native_host.errors import SnapshotError
from native_host.pipeline.schema import validate_snapshot

from .synthetic import live_snapshot


def structs():
    """The schema (snapshot.schema.json) as msgspec structures: the Request and its Snapshot."""
    import msgspec
    from msgspec import UNSET, Meta, Struct, UnsetType

    attr = Annotated[str, Meta(max_length=limits.MAX_ATTR_CHARS)]
    coord = Annotated[float, Meta(ge=-1e9, le=1e9)]
    size = Annotated[float, Meta(ge=0, le=1e9)]

    class Node(Struct, forbid_unknown_fields=True, omit_defaults=True):
        id: Annotated[int, Meta(ge=0)]
        parent: Annotated[int, Meta(ge=-1)]
        depth: Annotated[int, Meta(ge=0)]
        tag: Annotated[str, Meta(min_length=1, max_length=64)]
        text: Annotated[str, Meta(max_length=limits.MAX_NODE_TEXT)] | UnsetType = UNSET
        classes: Annotated[list[attr], Meta(max_length=limits.MAX_CLASSES)] | UnsetType = UNSET
        html_id: attr | UnsetType = UNSET
        role: attr | UnsetType = UNSET
        aria_label: attr | UnsetType = UNSET
        href: attr | UnsetType = UNSET
        src: attr | UnsetType = UNSET
        alt: attr | UnsetType = UNSET
        itemprop: attr | UnsetType = UNSET
        itemtype: attr | UnsetType = UNSET
        rel: attr | UnsetType = UNSET
        datetime: attr | UnsetType = UNSET
        hidden: bool | UnsetType = UNSET
        visible: bool | UnsetType = UNSET
        box: Annotated[list[coord], Meta(min_length=4, max_length=4)] | UnsetType = UNSET
        font_size: Annotated[float, Meta(ge=0, le=1e6)] | UnsetType = UNSET
        font_weight: Annotated[float, Meta(ge=0, le=1000)] | UnsetType = UNSET
        display: Annotated[str, Meta(max_length=64)] | UnsetType = UNSET

    class MetaTag(Struct, forbid_unknown_fields=True, omit_defaults=True):
        content: attr
        name: attr | UnsetType = UNSET
        property: attr | UnsetType = UNSET
        itemprop: attr | UnsetType = UNSET

    class Link(Struct, forbid_unknown_fields=True):
        rel: attr
        href: attr

    class Viewport(Struct, forbid_unknown_fields=True, omit_defaults=True):
        width: size
        height: size
        scroll_height: size | UnsetType = UNSET

    class Snapshot(Struct, forbid_unknown_fields=True, omit_defaults=True):
        format: Literal["pith-snapshot"]
        version: Literal[1, 2]
        source: Literal["html", "live"]
        nodes: Annotated[list[Node], Meta(max_length=limits.MAX_NODES)]
        url: Annotated[str, Meta(max_length=8192)] | None | UnsetType = UNSET
        title: Annotated[str, Meta(max_length=4096)] | None | UnsetType = UNSET
        lang: Annotated[str, Meta(max_length=64)] | None | UnsetType = UNSET
        dir: Literal["ltr", "rtl", "auto"] | None | UnsetType = UNSET
        meta: Annotated[list[MetaTag], Meta(max_length=limits.MAX_META)] | UnsetType = UNSET
        links: Annotated[list[Link], Meta(max_length=limits.MAX_LINKS)] | UnsetType = UNSET
        json_ld: (
            Annotated[
                list[Annotated[str, Meta(max_length=limits.MAX_JSON_LD_CHARS)]], Meta(max_length=limits.MAX_JSON_LD)
            ]
            | UnsetType
        ) = UNSET
        viewport: Viewport | None | UnsetType = UNSET
        truncated: bool | UnsetType = UNSET

    class Request(Struct):
        v: int
        id: int
        type: str
        snapshot: Snapshot
        want: list[str] | UnsetType = UNSET

    return msgspec, Request, Snapshot


def tree_checks(snapshot) -> None:
    """validate_snapshot's checks beyond the schema, on structs: the same work, attribute access."""
    nodes = snapshot.nodes
    total = sum(len(n.text) for n in nodes if isinstance(n.text, str))
    if total > limits.MAX_TOTAL_TEXT:
        raise SnapshotError("too much text", "$.nodes")
    depth_of: list[int] = []
    for i, node in enumerate(nodes):
        if node.id != i:
            raise SnapshotError("id", f"$.nodes[{i}].id")
        parent = node.parent
        if parent >= i:
            raise SnapshotError("parent", f"$.nodes[{i}].parent")
        want = 0 if parent < 0 else depth_of[parent] + 1
        if node.depth != want:
            raise SnapshotError("depth", f"$.nodes[{i}].depth")
        if parent >= 0 and nodes[parent].tag == "#text":
            raise SnapshotError("text parent", f"$.nodes[{i}].parent")
        depth_of.append(want)


def cpu_ms(fn: Callable[[], object]) -> float:
    t0 = time.process_time()
    fn()
    return (time.process_time() - t0) * 1000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.schema_speed", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--nodes", type=int, nargs="+", default=[1_500, 5_000])
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args(argv)
    try:
        msgspec, Request, Snapshot = structs()
    except ImportError:
        print("bench.schema_speed needs msgspec: pip install msgspec", file=sys.stderr)
        return 2
    decoder = msgspec.json.Decoder(Request)
    snapshot_type = Snapshot

    def today(payload: bytes) -> dict:
        message = decode_message(payload)
        validate_snapshot(message["snapshot"])
        return message["snapshot"]

    def structs_only(payload: bytes):
        request = decoder.decode(_without_lone_surrogates(payload.decode("utf-8")))
        tree_checks(request.snapshot)
        return request.snapshot

    def structs_to_dicts(payload: bytes) -> dict:
        return msgspec.to_builtins(structs_only(payload))

    def convert(snapshot: dict):
        tree_checks(msgspec.convert(snapshot, snapshot_type))

    median = statistics.median
    print(f"### Snapshot decode + validation, CPU ms (medians of {args.repeats}, alternating)\n")
    print(
        "| nodes | JSON | today: json.loads + validate | msgspec → structs | ratio | msgspec → structs → dicts "
        "| ratio | dict: validate_snapshot | dict: msgspec.convert | ratio |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in args.nodes:
        snapshot, _ = live_snapshot(n)
        payload = encode_message({"v": 1, "id": 1, "type": "extract", "snapshot": snapshot, "want": ["highlight"]})
        assert structs_to_dicts(payload).keys() == today(payload).keys()
        times: dict[str, list[float]] = {k: [] for k in ("today", "structs", "dicts", "validate", "convert")}
        for _ in range(args.repeats):
            times["today"].append(cpu_ms(lambda: today(payload)))
            times["structs"].append(cpu_ms(lambda: structs_only(payload)))
            times["dicts"].append(cpu_ms(lambda: structs_to_dicts(payload)))
            times["validate"].append(cpu_ms(lambda: validate_snapshot(snapshot)))
            times["convert"].append(cpu_ms(lambda: convert(snapshot)))
        m = {k: median(v) for k, v in times.items()}
        print(
            f"| {len(snapshot['nodes']):,} | {len(payload) / 1e6:.2f} MB | {m['today']:.1f} | {m['structs']:.1f} | "
            f"{m['today'] / m['structs']:.2f}× | {m['dicts']:.1f} | {m['today'] / m['dicts']:.2f}× | "
            f"{m['validate']:.1f} | {m['convert']:.1f} | {m['validate'] / m['convert']:.2f}× |"
        )
    print(f"\nmsgspec {msgspec.__version__}; ratio = today's time / msgspec's (above 1: msgspec is faster)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
