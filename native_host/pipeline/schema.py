"""Enforce the shipped JSON Schema (snapshot.schema.json) on snapshots that arrive from outside.

The schema file is the one source of truth; this module compiles the subset of JSON Schema it uses
(type, enum, required, properties, additionalProperties, items, min/max, min/maxLength, min/maxItems)
into plain Python checks, because the runtime may not depend on the `jsonschema` package and must
validate a 10,000-node snapshot in milliseconds. Tests check this against `jsonschema` itself.
Decoding into msgspec's typed structures instead was measured and not taken (docs/snapshot.md, Validation).
Where validate_core.pyx is built, its loops run the per-node fast path and tree rules instead, with the same
outcome: whatever it does not accept goes to the checks here (docs/performance.md).
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable
from functools import lru_cache
from importlib import resources
from typing import Any

from .. import limits
from ..errors import SnapshotError, quoted
from .compiled import load_compiled

# A check takes the value and where it sits: "$", or (parent's path, key or index). The path is rendered as
# text ("$.nodes[3].tag") only for an error: formatting it for each of a snapshot's fields was most of the
# validation time.
Path = str | tuple
Check = Callable[[Any, Path], None]


def _where(path: Path) -> str:
    steps = []
    while isinstance(path, tuple):
        path, step = path
        steps.append(f"[{step}]" if isinstance(step, int) else f".{step}")
    return path + "".join(reversed(steps))


_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}

# A value of exactly this class passes the type at once (an int is an "integer", never a bool).
_EXACT = {"object": dict, "array": list, "string": str, "integer": int, "number": float, "boolean": bool}


def _compile(schema: dict) -> Check:
    """One schema (or sub-schema) as one check: each keyword it uses becomes a step, run in this order.

    Every step raises the precise error. The only shortcut is for arrays of objects (a snapshot's nodes):
    `_fast_accept` lets an item it surely accepts skip its per-field steps (see `_items_check`)."""
    steps = [
        step
        for step in (
            _type_check(schema),
            _enum_check(schema),
            *_bound_checks(schema),
            *_length_checks(schema),
            _object_check(schema),
            _items_check(schema),
        )
        if step is not None
    ]
    if len(steps) == 1:
        return steps[0]

    def check(v, path):
        for step in steps:
            step(v, path)

    return check


def _type_check(schema: dict) -> Check | None:
    """`type`: one name or a list of names."""
    if "type" not in schema:
        return None
    names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    tests = [_TYPES[n] for n in names]
    wanted = " or ".join(names)
    exact = _EXACT.get(wanted)

    def check_type(v, path):
        if exact is not None and type(v) is exact:  # the common case, without a call per type test
            return
        for test in tests:
            if test(v):
                return
        raise SnapshotError(f"expected {wanted}, got {type(v).__name__}", _where(path))

    return check_type


def _enum_check(schema: dict) -> Check | None:
    """`enum`, comparing types too: 1 is not True and 1.0 is not 1."""
    if "enum" not in schema:
        return None
    allowed = schema["enum"]

    def check_enum(v, path):
        if not any(v == a and type(v) is type(a) for a in allowed):
            raise SnapshotError(f"must be one of {allowed!r}", _where(path))

    return check_enum


def _bound_checks(schema: dict) -> list[Check]:
    """`minimum` and `maximum`, on numbers only (another type is the type step's error)."""
    checks: list[Check] = []
    for key, op, what in (("minimum", operator.lt, "at least"), ("maximum", operator.gt, "at most")):
        if key in schema:
            bound = schema[key]

            def check_bound(v, path, bound=bound, op=op, what=what):
                # compared as they are: float() of a 400-digit integer would overflow
                if isinstance(v, (int, float)) and not isinstance(v, bool) and op(v, bound):
                    raise SnapshotError(f"must be {what} {bound:g}", _where(path))

            checks.append(check_bound)
    return checks


def _length_checks(schema: dict) -> list[Check]:
    """`minLength`/`maxLength` on strings and `minItems`/`maxItems` on arrays."""
    checks: list[Check] = []
    for key, op, what in (
        ("minLength", int.__lt__, "at least"),
        ("maxLength", int.__gt__, "at most"),
        ("minItems", int.__lt__, "at least"),
        ("maxItems", int.__gt__, "at most"),
    ):
        if key in schema:
            bound = int(schema[key])
            kind, unit = (str, "characters") if key.endswith("Length") else (list, "items")

            def check_len(v, path, bound=bound, op=op, what=what, kind=kind, unit=unit):
                if isinstance(v, kind) and op(len(v), bound):
                    raise SnapshotError(f"must have {what} {bound} {unit}", _where(path))

            checks.append(check_len)
    return checks


def _object_check(schema: dict) -> Check | None:
    """`required`, `additionalProperties: false` and each of `properties`, on objects."""
    if "properties" not in schema and "required" not in schema:
        return None
    fields = {k: _compile(s) for k, s in schema.get("properties", {}).items()}
    required = frozenset(schema.get("required", ()))
    closed = schema.get("additionalProperties", True) is False
    known = frozenset(fields)

    def check_object(v, path):
        if not isinstance(v, dict):
            return
        keys = v.keys()
        if not required <= keys:
            missing = sorted(required - keys)
            raise SnapshotError(f"missing required field {quoted(missing[0])}", _where(path))
        if closed and not keys <= known:
            extra = sorted(str(k) for k in keys - known)
            raise SnapshotError(f"unknown field {quoted(extra[0])}", _where(path))
        for k, item in v.items():
            check = fields.get(k)
            if check is not None:
                check(item, (path, k))

    return check_object


def _items_check(schema: dict) -> Check | None:
    """`items`, on arrays. An item `_fast_accept` accepts skips the item's steps: at 5,000 nodes, calling a
    step per field of each node was most of the validation time."""
    if "items" not in schema:
        return None
    check_item = _compile(schema["items"])
    accept = _fast_accept(schema["items"])
    compiled = _compiled_accept(schema["items"]) if accept is not None else None
    if compiled is not None:
        first_refused = compiled.first_refused

        def check_items_compiled(v, path):
            if type(v) is not list:  # a list subclass: the loop below
                return check_items(v, path)
            i = first_refused(v, 0)
            while i < len(v):
                check_item(v[i], (path, i))
                i = first_refused(v, i + 1)

    accept = accept or (lambda item: False)

    def check_items(v, path):
        if isinstance(v, list):
            for i, item in enumerate(v):
                if not accept(item):
                    check_item(item, (path, i))

    return check_items if compiled is None else check_items_compiled


def _fast_accept(schema: dict) -> Callable[[Any], bool] | None:
    """One function that says whether a value surely passes an object schema whose properties are scalars or
    arrays of scalars (a snapshot's node, a meta tag): no call per field and no path built. It only has to be
    sufficient: whatever it does not accept goes to the full check, which raises the precise error. None for
    any other schema. Generated as source from the schema's names and numbers, as one branch per property
    was half of validating a 5,000-node snapshot."""
    if schema.get("type") != "object" or not schema.keys() <= {
        "type",
        "required",
        "properties",
        "additionalProperties",
    }:
        return None
    props = schema.get("properties", {})
    required = set(schema.get("required", ()))
    lines = [
        "def accept(v):",
        "    if type(v) is not dict:",
        "        return False",
        "    keys = v.keys()",
        "    if not REQUIRED <= keys:",
        "        return False",
    ]
    if schema.get("additionalProperties", True) is False:
        lines += ["    if not keys <= ALLOWED:", "        return False"]
    for name, sub in props.items():
        test = _scalar_test(sub, "x") or _scalar_array_test(sub, "x")
        if test is None:
            return None
        pad = "    " if name in required else "        "
        if name not in required:
            lines.append(f"    if {name!r} in v:")
        lines += [f"{pad}x = v[{name!r}]", f"{pad}if not ({test}):", f"{pad}    return False"]
    lines.append("    return True")
    scope: dict[str, Any] = {"REQUIRED": frozenset(required), "ALLOWED": frozenset(props), "NUMBER": (float, int)}
    exec("\n".join(lines), scope)  # noqa: S102 - the shipped schema's names and numbers; no snapshot text
    return scope["accept"]


def _accept_spec(schema: dict) -> tuple[dict[str, dict], bool]:
    """What `_fast_accept` tests, as data for the compiled accept: each property's keyword arguments of
    `validate_core.Field`, and whether other properties are refused. Only for a schema `_fast_accept` takes."""
    required = set(schema.get("required", ()))

    def field(sub: dict, is_required: bool = False) -> dict:
        kind = sub["type"]
        spec: dict = {"kind": kind, "required": is_required}
        if kind == "string":
            spec.update(min_len=int(sub.get("minLength", 0)), max_len=_int_or_none(sub.get("maxLength")))
        elif kind in ("integer", "number"):
            spec.update(
                {side: _bound(sub[key], kind) for side, key in (("lo", "minimum"), ("hi", "maximum")) if key in sub}
            )
        elif kind == "array":
            spec.update(
                min_len=int(sub.get("minItems", 0)), max_len=_int_or_none(sub.get("maxItems")), item=field(sub["items"])
            )
        return spec

    fields = {name: field(sub, name in required) for name, sub in schema.get("properties", {}).items()}
    return fields, schema.get("additionalProperties", True) is False


def _int_or_none(value) -> int | None:
    return None if value is None else int(value)


def _bound(bound: float, kind: str) -> int | float:
    """A bound as the tests compare with it: an integer schema's whole-number bound as an int (an int
    compared with a float is slower), any other as a float."""
    return int(bound) if kind == "integer" and float(bound).is_integer() else float(bound)


def _build_accept(core, schema: dict):
    """`core.ItemAccept` for an object schema `_fast_accept` takes, made from `_accept_spec`."""

    def field(kwargs: dict):
        kwargs = dict(kwargs)
        if "item" in kwargs:
            kwargs["item"] = field(kwargs["item"])
        return core.Field(**kwargs)

    fields, closed = _accept_spec(schema)
    return core.ItemAccept({name: field(kwargs) for name, kwargs in fields.items()}, closed)


def _compiled_accept(schema: dict):
    """The compiled accept for an array's item schema that `_fast_accept` takes, or None where it is not built."""
    core = compiled_core()
    return _build_accept(core, schema) if core is not None else None


_SCALAR_KEYS = frozenset({"type", "minimum", "maximum", "minLength", "maxLength"})


def _scalar_test(schema: dict, x: str) -> str | None:
    """A Python expression true when the variable `x` surely satisfies the scalar `schema` (one type, its
    bounds); None if the schema is not such a scalar."""
    kind = schema.get("type")
    if not isinstance(kind, str) or not schema.keys() <= _SCALAR_KEYS:
        return None
    if kind == "string":
        shortest, longest = int(schema.get("minLength", 0)), schema.get("maxLength")
        return f"type({x}) is str and {shortest} <= len({x})" + (f" <= {int(longest)}" if longest is not None else "")
    if kind == "boolean":
        return f"type({x}) is bool"
    if kind not in ("integer", "number"):
        return None
    test = f"type({x}) is int" if kind == "integer" else f"type({x}) in NUMBER"
    # Bounds as one chained comparison, an integer's against integers (an int compared with a float is
    # slower); a bound the integer conversion would change stays a float.
    lo, hi = (_literal(schema[key], kind) if key in schema else None for key in ("minimum", "maximum"))
    if lo is not None and hi is not None:
        test += f" and {lo} <= {x} <= {hi}"
    elif lo is not None:
        test += f" and {x} >= {lo}"
    elif hi is not None:
        test += f" and {x} <= {hi}"
    return test


def _literal(bound: float, kind: str) -> str:
    """A bound as source (`_bound`)."""
    return repr(_bound(bound, kind))


def _scalar_array_test(schema: dict, x: str) -> str | None:
    """The same for an array of such scalars within its item bounds (a node's box, its classes)."""
    item = _scalar_test(schema.get("items", {}), "y")
    if item is None or schema.get("type") != "array" or not schema.keys() <= {"type", "items", "minItems", "maxItems"}:
        return None
    lo, hi = int(schema.get("minItems", 0)), schema.get("maxItems")
    if hi is not None and int(hi) == lo and 0 < lo <= 8:
        # A fixed number of items (a box's four): each tested in line, without a generator per value.
        unrolled = " and ".join(f"({_scalar_test(schema['items'], f'{x}[{k}]')})" for k in range(lo))
        return f"type({x}) is list and len({x}) == {lo} and {unrolled}"
    size = f"{lo} <= len({x})" + (f" <= {int(hi)}" if hi is not None else "")
    return f"type({x}) is list and {size} and all({item} for y in {x})"


@lru_cache(maxsize=1)
def snapshot_schema() -> dict:
    """The shipped JSON Schema of the snapshot format (version 2, and version 1 before it)."""
    return json.loads(resources.files(__package__).joinpath("snapshot.schema.json").read_text("utf-8"))


@lru_cache(maxsize=1)
def _snapshot_check() -> Check:
    """The shipped schema, compiled once."""
    return _compile(snapshot_schema())


def validate_snapshot(snapshot: Any) -> None:
    """Raise SnapshotError unless `snapshot` follows the schema and its tree is consistent.

    Beyond the schema: ids are the node's index, a parent comes before its child, and depth is the
    parent's depth plus one. These are what later stages rely on to walk the tree without recursion.
    """
    _snapshot_check()(snapshot, "$")
    if snapshot["version"] == 1:
        _check_v1(snapshot)
    texts = [node["text"] for node in snapshot["nodes"] if "text" in node]
    total_text = sum(map(len, texts))
    if total_text > limits.MAX_TOTAL_TEXT:  # the schema bounds each text; this bounds the page's work
        raise SnapshotError(
            f"{total_text} characters of text in all, over the limit of {limits.MAX_TOTAL_TEXT}; "
            "builders stop there and set truncated (docs/snapshot.md)",
            "$.nodes",
        )
    _check_encodable(snapshot["nodes"], texts)
    viewport = snapshot.get("viewport") or {}
    for side in ("width", "height"):
        if 0 < viewport.get(side, 0) < 1:  # boxes are divided by it: a sliver would overflow the features
            raise SnapshotError("must be 0 (unknown) or at least 1 CSS pixel", f"$.viewport.{side}")
    core = compiled_core()
    if core is not None and core.tree_consistent(snapshot["nodes"]):
        return
    depth_of: list[int] = []
    for i, node in enumerate(snapshot["nodes"]):
        if node["id"] != i:
            raise SnapshotError(f"id must equal the node's index {i}", f"$.nodes[{i}].id")
        parent = node["parent"]
        if parent >= i:
            raise SnapshotError("parent must come before the node", f"$.nodes[{i}].parent")
        want = 0 if parent < 0 else depth_of[parent] + 1
        if node["depth"] != want:
            raise SnapshotError(f"depth must be {want} (parent's depth + 1)", f"$.nodes[{i}].depth")
        if parent >= 0 and snapshot["nodes"][parent]["tag"] == "#text":
            raise SnapshotError("a text node cannot be a parent", f"$.nodes[{i}].parent")
        depth_of.append(want)


# What version 2 added (docs/snapshot.md); a snapshot that says version 1 must not carry it.
V2_PAGE_FIELDS = frozenset({"dir", "meta", "links", "json_ld"})
V2_NODE_FIELDS = frozenset({"itemprop", "itemtype", "rel", "datetime"})


def _check_v1(snapshot: dict) -> None:
    """Old snapshots (recorded corpora, an older extension) stay valid; new fields need the new version."""
    where = [f"$.{f}" for f in sorted(V2_PAGE_FIELDS & snapshot.keys())]
    where += [
        f"$.nodes[{i}].{f}"
        for i, node in enumerate(snapshot["nodes"])
        if not V2_NODE_FIELDS.isdisjoint(node.keys())
        for f in sorted(V2_NODE_FIELDS & node.keys())
    ][:1]
    if where:
        raise SnapshotError('a version 2 field in a version 1 snapshot; send "version": 2', where[0])


def _check_encodable(nodes: list[dict], texts: list[str]) -> None:
    """Text must be valid Unicode: a lone surrogate (a Python caller's str can hold one; the host's decoder
    already turns them into U+FFFD) would fail deep in the tokenizer as an internal error."""
    try:
        "".join(texts).encode("utf-8")
    except UnicodeEncodeError:
        for i, node in enumerate(nodes):
            text = node.get("text")
            if text is not None and not _encodable(text):
                raise SnapshotError(
                    "holds a lone surrogate, which is not text; replace it with U+FFFD, e.g. "
                    "text.encode('utf-16', 'surrogatepass').decode('utf-16', 'replace')",
                    f"$.nodes[{i}].text",
                ) from None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _probe_nodes() -> list[Any]:
    """Nodes meeting each test of the node schema, passing and failing, for the compiled accept at import."""
    base = {"id": 0, "parent": -1, "depth": 0, "tag": "div"}
    return [
        base,
        {
            **base,
            "text": "x" * 3,
            "classes": ["a", ""],
            "box": [0, 1.5, -2, 1e9],
            "font_size": 16,
            "font_weight": 700.0,
            "visible": True,
            "hidden": False,
            "href": "",
            "display": "block",
        },
        {"id": 0},
        {**base, "extra": 1},
        {**base, "id": True},
        {**base, "id": -1},
        {**base, "id": 1.0},
        {**base, "id": 10**30},
        {**base, "parent": -(10**30)},
        {**base, "tag": ""},
        {**base, "tag": "x" * 65},
        {**base, "text": 3},
        {**base, "box": [0, 0, 0]},
        {**base, "box": [0, 0, 0, float("nan")]},
        {**base, "box": (0, 0, 0, 0)},
        {**base, "box": [0, 0, 0, 1e10]},
        {**base, "box": [0, 0, 0, True]},
        {**base, "font_weight": 1001},
        {**base, "font_weight": 1000.5},
        {**base, "font_size": -0.5},
        {**base, "classes": ["a", 1]},
        {**base, "classes": ["a"] * 33},
        {**base, "visible": 1},
        [],
        None,
    ]


def _probe_validation(core) -> bool:
    """The compiled accept answers as `_fast_accept` on the probe nodes, and the tree rules as the loop."""
    item = snapshot_schema()["properties"]["nodes"]["items"]
    compiled, reference = _build_accept(core, item), _fast_accept(item)
    if reference is None:  # the shipped node schema always has a fast accept; without one there is nothing to match
        return False
    if [compiled.accept(n) for n in _probe_nodes()] != [reference(n) for n in _probe_nodes()]:
        return False
    trees = {
        (): True,
        ((-1, 0, "a"), (0, 1, "#text")): True,
        ((-1, 0, "a"), (0, 2, "b")): False,
        ((-1, 0, "#text"), (0, 1, "b")): False,
        ((-1, 0, "a"), (1, 1, "b")): False,
    }
    return all(
        core.tree_consistent([{"id": i, "parent": p, "depth": d, "tag": t} for i, (p, d, t) in enumerate(tree)]) is want
        for tree, want in trees.items()
    )


@lru_cache(maxsize=1)
def compiled_core():
    """validate_core where built and passing its probe, else None; loaded at the first validation, not at
    import: the probe reads the schema (3 ms), which HTML files and corpora never need."""
    return load_compiled("validate_core", _probe_validation)
