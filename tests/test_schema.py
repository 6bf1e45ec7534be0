"""The shipped JSON Schema, enforced on input: good snapshots pass, bad ones fail with the field named, and
our compiled validator agrees with the reference `jsonschema` implementation."""

import copy

import jsonschema
import pytest

from native_host import SnapshotError, snapshot_from_html, validate_snapshot
from native_host.pipeline.schema import snapshot_schema


def good():
    return {
        "format": "pith-snapshot",
        "version": 2,
        "source": "live",
        "url": "https://e.example/",
        "title": "T",
        "lang": "en",
        "viewport": {"width": 1280, "height": 800},
        "nodes": [
            {"id": 0, "parent": -1, "depth": 0, "tag": "html"},
            {
                "id": 1,
                "parent": 0,
                "depth": 1,
                "tag": "body",
                "visible": True,
                "box": [0, 0, 1280, 3000],
                "font_size": 16,
                "font_weight": 400,
                "display": "block",
            },
            {"id": 2, "parent": 1, "depth": 2, "tag": "a", "href": "https://e.example/x", "classes": ["nav"]},
            {"id": 3, "parent": 2, "depth": 3, "tag": "#text", "text": "link"},
        ],
    }


def mutate(path_fn):
    s = good()
    path_fn(s)
    return s


BAD = {
    "not an object": lambda s: s.clear() or s.update({"nodes": 1}),
    "wrong format": lambda s: s.update(format="other"),
    "wrong version": lambda s: s.update(version=3),
    "bad dir": lambda s: s.update(dir="sideways"),
    "meta without content": lambda s: s.update(meta=[{"name": "author"}]),
    "meta unknown key": lambda s: s.update(meta=[{"charset": "x", "content": "y"}]),
    "json_ld not text": lambda s: s.update(json_ld=[{"@type": "Article"}]),
    "link without href": lambda s: s.update(links=[{"rel": "canonical"}]),
    "missing nodes": lambda s: s.pop("nodes"),
    "unknown page field": lambda s: s.update(extra=1),
    "bad source": lambda s: s.update(source="web"),
    "title not string": lambda s: s.update(title=5),
    "node missing tag": lambda s: s["nodes"][1].pop("tag"),
    "node unknown field": lambda s: s["nodes"][1].update(onclick="x"),
    "id not integer": lambda s: s["nodes"][1].update(id="1"),
    "bool as integer": lambda s: s["nodes"][1].update(depth=True),
    "negative font": lambda s: s["nodes"][1].update(font_size=-1),
    "box of 3": lambda s: s["nodes"][1].update(box=[1, 2, 3]),
    "classes not list": lambda s: s["nodes"][2].update(classes="nav"),
    "text too long": lambda s: s["nodes"][3].update(text="x" * 100_001),
    "viewport missing height": lambda s: s.update(viewport={"width": 3}),
    "empty tag": lambda s: s["nodes"][1].update(tag=""),
}

STRUCTURE = {
    "id not index": lambda s: s["nodes"][1].update(id=7),
    "parent after node": lambda s: s["nodes"][1].update(parent=2),
    "wrong depth": lambda s: s["nodes"][2].update(depth=5),
    "text node as parent": lambda s: s["nodes"].append({"id": 4, "parent": 3, "depth": 4, "tag": "b"}),
}


def test_good_snapshot_passes_both_validators():
    validate_snapshot(good())
    jsonschema.validate(good(), snapshot_schema())


def test_html_snapshots_pass_reference_validator(page):
    jsonschema.validate(snapshot_from_html(page("article"), url="https://e.example/"), snapshot_schema())


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_snapshot_rejected_like_jsonschema(name):
    s = mutate(BAD[name])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(s, snapshot_schema())
    with pytest.raises(SnapshotError) as err:
        validate_snapshot(s)
    assert err.value.code == "bad_snapshot" and err.value.message.startswith("$")


@pytest.mark.parametrize("name", sorted(STRUCTURE))
def test_tree_consistency_enforced(name):
    with pytest.raises(SnapshotError):
        validate_snapshot(mutate(STRUCTURE[name]))


def test_version_1_snapshots_are_still_accepted_but_not_with_version_2_fields():
    old = good()
    old["version"] = 1
    validate_snapshot(old)
    for change, where in (
        (lambda s: s.update(json_ld=[]), "$.json_ld"),
        (lambda s: s["nodes"][2].update(rel="author"), "$.nodes[2].rel"),
    ):
        s = good()
        s["version"] = 1
        change(s)
        with pytest.raises(SnapshotError, match=r"version 2 field") as err:
            validate_snapshot(s)
        assert err.value.path == where
    new = good()
    new.update(
        version=2,
        dir="rtl",
        meta=[{"property": "og:title", "content": "T"}],
        links=[{"rel": "canonical", "href": "https://e.example/"}],
        json_ld=["{}"],
    )
    new["nodes"][2].update(rel="author", itemprop="author")
    validate_snapshot(new)
    jsonschema.validate(new, snapshot_schema())


def test_error_names_the_field():
    s = good()
    s["nodes"][2]["href"] = 3
    with pytest.raises(SnapshotError, match=r"\$\.nodes\[2\]\.href: expected string"):
        validate_snapshot(s)


def test_validator_does_not_mutate():
    s = good()
    before = copy.deepcopy(s)
    validate_snapshot(s)
    assert s == before


def test_a_lone_surrogate_from_a_python_caller_is_a_clear_snapshot_error():
    """The host's decoder turns lone surrogates into U+FFFD; a Python str can still hold one, and it used to
    fail inside the tokenizer as an internal error."""
    snapshot = snapshot_from_html("<p>first paragraph</p><p>second paragraph</p>")
    last = max(i for i, node in enumerate(snapshot["nodes"]) if node["tag"] == "#text")
    snapshot["nodes"][last]["text"] = "broken \ud800 text"
    with pytest.raises(SnapshotError) as err:
        validate_snapshot(snapshot)
    assert f"$.nodes[{last}].text" in str(err.value) and "U+FFFD" in str(err.value)
    snapshot["nodes"][last]["text"] = "broken \ud800 text".encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    validate_snapshot(snapshot)  # the fix the message gives works


class Tag(str):
    """A str subclass: the full check takes it, a fast path must not assume it is a plain str."""


class Number(int):
    pass


# Values for a node's fields, passing and failing each test of the node schema.
VALUES = [
    0,
    -1,
    -2,
    3,
    1.5,
    -1e9,
    1e9,
    1e9 + 1,
    2e9,
    10**30,
    -(10**30),
    2**53 + 1,
    float("nan"),
    float("inf"),
    True,
    False,
    None,
    "",
    "a",
    Tag("a"),
    Number(3),
    "x" * 64,
    "x" * 65,
    "y" * 2048,
    "y" * 2049,
    [],
    [1, 2, 3, 4],
    [1, 2, 3],
    [1, 2, 3, "4"],
    [True, 1, 2, 3],
    [0.5, 1e9, -1e9, 10**30],
    (1, 2, 3, 4),
    ["nav"],
    ["c"] * 32,
    ["c"] * 33,
    [Tag("c")],
    {},
]


def mutated_nodes(seed: int, count: int):
    """`count` of good()'s nodes, each with one to three fields set to one of VALUES, or removed."""
    import random

    rng = random.Random(seed)
    fields = list(snapshot_schema()["properties"]["nodes"]["items"]["properties"]) + ["onclick", Tag("tag")]
    for _ in range(count):
        node = dict(rng.choice(good()["nodes"]))
        for _ in range(rng.randint(1, 3)):
            field = rng.choice(fields)
            if rng.random() < 0.15:
                node.pop(field, None)
            else:
                node[field] = rng.choice(VALUES)
        yield node


def test_fast_node_check_never_accepts_what_the_schema_rejects():
    """The generated fast path accepts a node only when the schema does (anything else goes to the full check
    for its error); and it does accept good nodes, or it would be a slow path in disguise."""
    from native_host.pipeline.schema import _fast_accept

    node_schema = snapshot_schema()["properties"]["nodes"]["items"]
    accept = _fast_accept(node_schema)
    assert accept is not None and all(accept(n) for n in good()["nodes"])
    accepted = 0
    for node in mutated_nodes(7, 5000):
        if accept(node):
            accepted += 1
            jsonschema.validate(node, node_schema)
    assert accepted > 200  # the sample reaches the accepting side too


# Every bound snapshot.schema.json states, by where it stands: the limits.py name it must equal, or, for the
# few that are the format's shape rather than a size limit, the value itself.
SCHEMA_LIMITS = {
    "url.maxLength": "MAX_URL_CHARS",
    "title.maxLength": "MAX_TITLE_CHARS",
    "lang.maxLength": "MAX_LANG_CHARS",
    "meta.maxItems": "MAX_META",
    "meta.items.*.maxLength": "MAX_ATTR_CHARS",
    "links.maxItems": "MAX_LINKS",
    "links.items.*.maxLength": "MAX_ATTR_CHARS",
    "json_ld.maxItems": "MAX_JSON_LD",
    "json_ld.items.maxLength": "MAX_JSON_LD_CHARS",
    "viewport.*.maximum": "MAX_COORD_PX",
    "nodes.maxItems": "MAX_NODES",
    "nodes.items.tag.maxLength": "MAX_TAG_CHARS",
    "nodes.items.text.maxLength": "MAX_NODE_TEXT",
    "nodes.items.classes.maxItems": "MAX_CLASSES",
    "nodes.items.classes.items.maxLength": "MAX_ATTR_CHARS",
    "nodes.items.*.maxLength": "MAX_ATTR_CHARS",
    "nodes.items.box.items.maximum": "MAX_COORD_PX",
    "nodes.items.font_size.maximum": "MAX_FONT_SIZE_PX",
    "nodes.items.font_weight.maximum": "MAX_FONT_WEIGHT",
    "nodes.items.width.maximum": "MAX_IMAGE_PX",
    "nodes.items.height.maximum": "MAX_IMAGE_PX",
    "nodes.items.display.maxLength": "MAX_TAG_CHARS",
}
SCHEMA_SHAPE = {
    "viewport.*.minimum": 0,
    "nodes.items.id.minimum": 0,
    "nodes.items.parent.minimum": -1,
    "nodes.items.depth.minimum": 0,
    "nodes.items.tag.minLength": 1,
    "nodes.items.box.minItems": 4,
    "nodes.items.box.maxItems": 4,
    "nodes.items.box.items.minimum": "-MAX_COORD_PX",
    "nodes.items.font_size.minimum": 0,
    "nodes.items.font_weight.minimum": 0,
    "nodes.items.width.minimum": 1,
    "nodes.items.height.minimum": 1,
}
BOUND_KEYWORDS = ("minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems")


def schema_bounds(schema: dict, where: str = "") -> dict[str, float]:
    """Each bound in `schema` by its place: "nodes.items.tag.maxLength"."""
    found = {f"{where}{key}": schema[key] for key in BOUND_KEYWORDS if key in schema}
    for name, sub in schema.get("properties", {}).items():
        found.update(schema_bounds(sub, f"{where}{name}."))
    if "items" in schema:
        found.update(schema_bounds(schema["items"], f"{where}items."))
    return found


def test_every_bound_of_the_schema_is_a_limit_of_limits_py():
    """limits.py is where a bound is changed; the schema must follow it. A bound added to the schema must be
    named here, from limits.py or as the format's shape."""
    from native_host import limits

    def expected(place: str):
        head, _, key = place.rpartition(".")
        parent = head.rpartition(".")[0]
        for table in (SCHEMA_LIMITS, SCHEMA_SHAPE):
            for name in (place, f"{parent}.*.{key}" if parent else None):
                if name in table:
                    value = table[name]
                    if isinstance(value, str):
                        sign, value = (-1, value[1:]) if value.startswith("-") else (1, value)
                        return sign * getattr(limits, value)
                    return value
        raise AssertionError(f"{place}: a bound of snapshot.schema.json that neither limits.py nor this test names")

    bounds = schema_bounds(snapshot_schema())
    assert len(bounds) > 30
    for place, value in bounds.items():
        assert value == expected(place), place
    named = {n for table in (SCHEMA_LIMITS, SCHEMA_SHAPE) for n in table.values() if isinstance(n, str)}
    assert all(hasattr(limits, n.lstrip("-")) for n in named)
