"""The compiled validation loops (native_host/pipeline/validate_core.pyx) answer as schema.py's fast path and
tree rules do, so a snapshot gets the same error, or the same pass, whichever runs; and they are in use
wherever they were built."""

from __future__ import annotations

import copy
import random
from contextlib import contextmanager

from compiled_support import compiled_module, pure_python_prints, skip_unless_compiled
from test_schema import Number, Tag, good, mutated_nodes

from native_host import SnapshotError
from native_host.pipeline import schema
from native_host.pipeline.schema import _build_accept, _fast_accept, snapshot_schema, validate_snapshot

validate_core = compiled_module("validate_core")
needs_compiled = skip_unless_compiled(validate_core, "the compiled validation")
NODE_SCHEMA = snapshot_schema()["properties"]["nodes"]["items"]


@contextmanager
def reference_validation():
    """validate_snapshot with schema.py's own loops, as where the compiled module is not built."""
    core = schema.compiled_core
    schema.compiled_core = lambda: None
    schema._snapshot_check.cache_clear()
    try:
        yield
    finally:
        schema.compiled_core = core
        schema._snapshot_check.cache_clear()


def outcome(snapshot) -> tuple[str, str] | None:
    try:
        validate_snapshot(snapshot)
    except SnapshotError as exc:
        return exc.message, exc.path
    return None


@needs_compiled
def test_the_compiled_validation_is_in_use_where_it_is_built():
    """Built, it must have passed its probe: a failed probe means it answers otherwise than schema.py."""
    assert schema.compiled_core() is validate_core and schema._compiled_accept(NODE_SCHEMA) is not None


def test_pith_pure_python_keeps_the_python_validation():
    assert pure_python_prints("from native_host.pipeline import schema; print(schema.compiled_core() is None)") == [
        "True"
    ]


@needs_compiled
def test_the_compiled_accept_answers_as_the_generated_one():
    compiled, reference = _build_accept(validate_core, NODE_SCHEMA), _fast_accept(NODE_SCHEMA)
    answers = [(compiled.accept(node), reference(node)) for node in mutated_nodes(11, 20_000)]
    assert all(got == want for got, want in answers)
    assert 500 < sum(want for _, want in answers) < len(answers) - 500  # both sides are reached
    for odd in ([], None, "node", 3, {1: 2}, {**good()["nodes"][0], 1: 2}):
        assert compiled.accept(odd) == reference(odd)
    nodes = [dict(n) for n in mutated_nodes(12, 300)]
    i, refused = 0, []
    while (i := compiled.first_refused(nodes, i)) < len(nodes):
        refused.append(i)
        i += 1
    assert refused == [k for k, n in enumerate(nodes) if not reference(n)]


@needs_compiled
def test_the_compiled_tree_rules_answer_as_the_loop():
    rng = random.Random(5)
    trees = []
    for _ in range(3000):
        nodes = [{"id": 0, "parent": -1, "depth": 0, "tag": "html"}]
        for i in range(1, rng.randint(1, 12)):
            parent = rng.randrange(i)
            nodes.append(
                {
                    "id": i,
                    "parent": parent,
                    "depth": nodes[parent]["depth"] + 1,
                    "tag": rng.choice(["div", "p", "#text"]),
                }
            )
        if rng.random() < 0.7:
            node = rng.choice(nodes)
            field = rng.choice(["id", "parent", "depth", "tag"])
            node[field] = rng.choice([-5, -1, 0, 1, 2, 3, 10**30, Number(1), "#text", Tag("#text"), "b"])
        trees.append({**good(), "nodes": nodes})
    with reference_validation():
        want = [outcome(s) for s in trees]
        schema_passes = [outcome_of(schema._snapshot_check(), s) for s in trees]
    for snapshot, want_one, passes in zip(trees, want, schema_passes):
        assert outcome(snapshot) == want_one
        if passes:  # the tree rules are what decides
            nodes = snapshot["nodes"]
            consistent = validate_core.tree_consistent(nodes)
            assert not consistent or want_one is None  # never passes a tree the loop refuses
            plain = all(type(n[f]) is int and abs(n[f]) < 2**63 for n in nodes for f in ("id", "parent", "depth"))
            assert consistent == (want_one is None) or not plain  # and passes every plain one the loop passes
    assert 500 < sum(w is None for w in want) < len(want) - 500


def outcome_of(check, snapshot) -> bool:
    """Whether the schema alone passes the snapshot."""
    try:
        check(snapshot, "$")
    except SnapshotError:
        return False
    return True


@needs_compiled
def test_a_snapshot_gets_the_same_error_or_pass_whichever_validation_runs():
    rng = random.Random(3)
    base = good()
    base["nodes"] += [
        {"id": k, "parent": 1, "depth": 2, "tag": "p", "box": [0, k, 100, 20], "font_size": 16} for k in range(4, 40)
    ]
    snapshots = []
    for node in mutated_nodes(21, 1500):
        snapshot = copy.deepcopy(base)
        k = rng.randrange(len(snapshot["nodes"]))
        snapshot["nodes"][k] = {
            **node,
            **{f: snapshot["nodes"][k][f] for f in ("id", "parent", "depth") if rng.random() < 0.8},
        }
        snapshots.append(snapshot)
    got = [outcome(s) for s in snapshots]
    with reference_validation():
        want = [outcome(s) for s in snapshots]
    assert got == want
    assert 100 < sum(w is None for w in want) < len(want) - 100


@needs_compiled
def test_the_compiled_rows_make_the_nodes_the_loop_makes_and_refuse_what_it_refuses():
    """The rows the extension sends (docs/snapshot.md) read by validate_core.nodes_from_rows as by the
    reference loop in browser/protocol.py: the same nodes, key for key in order; None wherever the loop
    raises, so that it names the row."""
    from pathlib import Path

    from native_host import snapshot_from_html
    from native_host.browser import protocol

    assert protocol.rows_core() is validate_core
    pages = sorted((Path(__file__).parent / "pages").rglob("*.html"))[:12]
    rng = random.Random(7)
    for page in pages:
        rows = protocol.rows_from_nodes(snapshot_from_html(page.read_bytes())["nodes"])
        cases = [rows]
        for _ in range(40):
            bad = copy.deepcopy(rows)
            i = rng.randrange(len(bad))
            spot = rng.choice(["back", "tag", "fields", "row"])
            value = rng.choice([-1, i + 1, 10**30, 1.0, True, 0, 1, "p", [], {}, {"id": 1}, {"k": 2}, None])
            if spot == "row":
                bad[i] = rng.choice([[], [0], [0, "a", {}, 1], (0, "a"), None])
            elif spot == "fields":
                bad[i] = [*bad[i][:2], value]
            else:
                bad[i][0 if spot == "back" else 1] = value
            cases.append(bad)
        for case in cases:
            try:
                want = [list(n.items()) for n in protocol._nodes_from_rows(case)]
            except SnapshotError:
                want = None
            got = validate_core.nodes_from_rows(case)
            assert (None if got is None else [list(n.items()) for n in got]) == want
