"""Enforce the shipped JSON Schema (snapshot.schema.json) on snapshots that arrive from outside.

The schema file is the one source of truth; this module compiles the subset of JSON Schema it uses
(type, enum, required, properties, additionalProperties, items, min/max, min/maxLength, min/maxItems)
into plain Python checks, because the runtime may not depend on the `jsonschema` package and must
validate a 10,000-node snapshot in milliseconds. Tests check this against `jsonschema` itself.
"""

from __future__ import annotations

import json
import operator
from functools import lru_cache
from importlib import resources
from typing import Any, Callable

from .. import limits
from ..errors import SnapshotError, quoted

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
    checks: list[Check] = []
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        tests = [_TYPES[n] for n in names]
        wanted = " or ".join(names)

        exact = _EXACT.get(wanted)

        def check_type(v, path):
            if exact is not None and type(v) is exact:  # the common case, without a call per type test
                return
            for t in tests:
                if t(v):
                    return
            raise SnapshotError(f"expected {wanted}, got {type(v).__name__}", _where(path))

        checks.append(check_type)
    if "enum" in schema:
        allowed = schema["enum"]

        def check_enum(v, path):
            if not any(v == a and type(v) is type(a) for a in allowed):
                raise SnapshotError(f"must be one of {allowed!r}", _where(path))

        checks.append(check_enum)
    for key, op, what in (("minimum", operator.lt, "at least"), ("maximum", operator.gt, "at most")):
        if key in schema:
            bound = schema[key]

            def check_bound(v, path, bound=bound, op=op, what=what):
                # compared as they are: float() of a 400-digit integer would overflow
                if isinstance(v, (int, float)) and not isinstance(v, bool) and op(v, bound):
                    raise SnapshotError(f"must be {what} {bound:g}", _where(path))

            checks.append(check_bound)
    for key, op, what in (("minLength", int.__lt__, "at least"), ("maxLength", int.__gt__, "at most"),
                          ("minItems", int.__lt__, "at least"), ("maxItems", int.__gt__, "at most")):
        if key in schema:
            bound = int(schema[key])
            kind = str if key.endswith("Length") else list
            unit = "characters" if kind is str else "items"

            def check_len(v, path, bound=bound, op=op, what=what, kind=kind, unit=unit):
                if isinstance(v, kind) and op(len(v), bound):
                    raise SnapshotError(f"must have {what} {bound} {unit}", _where(path))

            checks.append(check_len)
    if "properties" in schema or "required" in schema:
        props = {k: _compile(s) for k, s in schema.get("properties", {}).items()}
        required = frozenset(schema.get("required", ()))
        closed = schema.get("additionalProperties", True) is False
        allowed_keys = frozenset(props)

        def check_object(v, path):
            if not isinstance(v, dict):
                return
            keys = v.keys()
            if not required <= keys:
                missing = sorted(required - keys)
                raise SnapshotError(f"missing required field {quoted(missing[0])}", _where(path))
            if closed and not keys <= allowed_keys:
                extra = sorted(str(k) for k in keys - allowed_keys)
                raise SnapshotError(f"unknown field {quoted(extra[0])}", _where(path))
            for k, item in v.items():
                c = props.get(k)
                if c is not None:
                    c(item, (path, k))

        checks.append(check_object)
    if "items" in schema:
        item_check = _compile(schema["items"])
        accept = _fast_accept(schema["items"])

        if accept is None:
            def check_items(v, path):
                if isinstance(v, list):
                    for i, item in enumerate(v):
                        item_check(item, (path, i))
        else:
            def check_items(v, path):
                if isinstance(v, list):
                    for i, item in enumerate(v):
                        if not accept(item):
                            item_check(item, (path, i))

        checks.append(check_items)

    if len(checks) == 1:
        check = checks[0]
    else:
        def check(v, path):
            for c in checks:
                c(v, path)

    return _fast_leaf(schema, check) or check


_LEAF_KEYS = frozenset({"type", "minimum", "maximum", "minLength", "maxLength"})


def _fast_leaf(schema: dict, full: Check) -> Check | None:
    """For a scalar field (one type, its bounds): one call that accepts a good value at once and hands any
    other to `full`, which raises the precise error. Most of a snapshot's fields are such scalars."""
    test = _leaf_test(schema, "v")
    if test is None:
        return None
    return _generated("check", ["def check(v, path):", f"    if not ({test}):", "        full(v, path)"],
                      {"full": full})


def _leaf_test(schema: dict, x: str) -> str | None:
    """A Python expression true when the variable `x` surely satisfies the scalar `schema` (one type, its
    bounds); None if the schema is not such a scalar. A value it rejects goes to the full check."""
    kind = schema.get("type")
    if not isinstance(kind, str) or not schema.keys() <= _LEAF_KEYS:
        return None
    if kind == "string":
        lo, hi = int(schema.get("minLength", 0)), schema.get("maxLength")
        return f"type({x}) is str and {lo} <= len({x})" + (f" <= {int(hi)}" if hi is not None else "")
    if kind == "boolean":
        return f"type({x}) is bool"
    if kind not in ("integer", "number"):
        return None
    test = f"type({x}) is int" if kind == "integer" else f"(type({x}) is float or type({x}) is int)"
    for key, op in (("minimum", ">="), ("maximum", "<=")):
        if key in schema:
            test += f" and {x} {op} {float(schema[key])!r}"
    return test


def _fast_accept(schema: dict) -> Callable[[Any], bool] | None:
    """A single function that says whether a value surely passes an object schema whose properties are
    scalars or arrays of scalars (a snapshot's node): no call per field and no path built. Whatever it does
    not accept goes to the full check, which raises the precise error; so it only has to be sufficient.
    Generated as source once, as one branch per property was half of validating a 5,000-node snapshot."""
    if schema.get("type") != "object" or not schema.keys() <= {"type", "required", "properties",
                                                                 "additionalProperties"}:
        return None
    props = schema.get("properties", {})
    required = set(schema.get("required", ()))
    lines = ["def accept(v):", "    if type(v) is not dict:", "        return False", "    keys = v.keys()",
             "    if not REQUIRED <= keys:", "        return False"]
    if schema.get("additionalProperties", True) is False:
        lines += ["    if not keys <= ALLOWED:", "        return False"]
    for name, sub in props.items():
        test = _leaf_test(sub, "x")
        if test is None:  # an array of scalars, within item bounds
            test = _leaf_test(sub.get("items", {}), "y")
            if (test is None or sub.get("type") != "array"
                    or not sub.keys() <= {"type", "items", "minItems", "maxItems"}):
                return None
            size = f"{int(sub.get('minItems', 0))} <= len(x)" + (
                f" <= {int(sub['maxItems'])}" if "maxItems" in sub else "")
            test = f"type(x) is list and {size} and all({test} for y in x)"
        pad = "    " if name in required else "        "
        if name not in required:
            lines.append(f"    if {name!r} in v:")
        lines += [f"{pad}x = v[{name!r}]", f"{pad}if not ({test}):", f"{pad}    return False"]
    lines.append("    return True")
    return _generated("accept", lines, {"REQUIRED": frozenset(required), "ALLOWED": frozenset(props)})


def _generated(name: str, lines: list[str], scope: dict) -> Callable:
    """The function `name` defined by `lines`, source built here from the shipped schema's names and numbers
    (each scalar rule is written once, by _leaf_test, for both the per-field and the per-node checks)."""
    exec("\n".join(lines), scope)  # noqa: S102 - no text from a snapshot ever reaches it
    return scope[name]


@lru_cache(maxsize=1)
def snapshot_schema() -> dict:
    """The shipped JSON Schema of the snapshot format (version 2, and version 1 before it)."""
    return json.loads(resources.files(__package__).joinpath("snapshot.schema.json").read_text("utf-8"))


@lru_cache(maxsize=1)
def _snapshot_check() -> Check:
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
        raise SnapshotError(f"{total_text} characters of text in all, over the limit of {limits.MAX_TOTAL_TEXT}; "
                            "builders stop there and set truncated (docs/snapshot.md)", "$.nodes")
    _check_encodable(snapshot["nodes"], texts)
    viewport = snapshot.get("viewport") or {}
    for side in ("width", "height"):
        if 0 < viewport.get(side, 0) < 1:  # boxes are divided by it: a sliver would overflow the features
            raise SnapshotError("must be 0 (unknown) or at least 1 CSS pixel", f"$.viewport.{side}")
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
    where += [f"$.nodes[{i}].{f}" for i, node in enumerate(snapshot["nodes"])
              if not V2_NODE_FIELDS.isdisjoint(node.keys()) for f in sorted(V2_NODE_FIELDS & node.keys())][:1]
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
                raise SnapshotError("holds a lone surrogate, which is not text; replace it with U+FFFD, e.g. "
                                    "text.encode('utf-16', 'surrogatepass').decode('utf-16', 'replace')",
                                    f"$.nodes[{i}].text") from None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
