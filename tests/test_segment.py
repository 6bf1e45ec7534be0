"""The compiled segmenter (native_host/pipeline/segment.pyx) gives the Python segmenter's blocks, to the last
field, on hand-written snapshots for each rule, on pages and on generated snapshots; it hands the pages whose
input it does not model to Python; and it is in use wherever it was built."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from compiled_support import compiled_module, pure_python_prints, skip_unless_compiled
from hypothesis import given, settings
from hypothesis import strategies as st

from native_host import limits
from native_host.pipeline import blocks as blocks_module
from native_host.pipeline.blocks import (
    MEMO_DEPTH,
    PATH_DEPTH,
    Blanks,
    blocks_from_snapshot,
    python_blocks_from_snapshot,
)
from native_host.pipeline.snapshot import snapshot_from_html

PAGES = Path(__file__).parent / "pages"

segment = compiled_module("segment")
needs_compiled = skip_unless_compiled(segment, "the compiled segmenter")


def compiled_blocks(nodes: list[dict], combine: bool = True):
    """The compiled segmenter's answer: blocks, or None for a page it hands to Python."""
    return blocks_module.compiled_blocks(blocks_module._segmenter, nodes, combine)


def assert_same(nodes: list[dict], handed: bool = False):
    """Equal blocks with combine on and off; the compiled segmenter takes the page (or hands it, if `handed`)."""
    assert blocks_module._segmenter is not None
    for combine in (True, False):
        got = compiled_blocks(nodes, combine)
        assert (got is None) == handed
        python = python_blocks_from_snapshot({"nodes": nodes}, combine)
        assert (got if got is not None else blocks_from_snapshot({"nodes": nodes}, combine)) == python
        assert [b.index for b in python] == list(range(len(python)))


def tree(*roots) -> list[dict]:
    """Snapshot nodes from (tag, fields, *children) tuples, a str being a text node; depths follow parents."""
    nodes: list[dict] = []
    stack = [(root, -1, 0) for root in reversed(roots)]  # a stack, not recursion: some trees are 3,000 deep
    while stack:
        item, parent, depth = stack.pop()
        i = len(nodes)
        if isinstance(item, str):
            nodes.append({"id": i, "parent": parent, "depth": depth, "tag": "#text", "text": item})
            continue
        tag, fields, *children = item
        nodes.append({"id": i, "parent": parent, "depth": depth, "tag": tag, **fields})
        stack.extend((child, i, depth + 1) for child in reversed(children))
    return nodes


def page(*body) -> list[dict]:
    return tree(("html", {}, ("body", {}, *body)))


@needs_compiled
def test_the_compiled_segmenter_is_in_use_where_it_is_built():
    """Built, it must have passed its probe: a failed probe means the two segmenters differ."""
    assert blocks_module._segmenter is not None


def test_pith_pure_python_keeps_the_python_segmenter():
    assert pure_python_prints("from native_host.pipeline import blocks; print(blocks._segmenter is None)") == ["True"]


RULES = {
    "inline folds": page(
        ("p", {}, "Some ", ("b", {}, "bold ", ("i", {}, "and italic")), " text, ", ("a", {"href": "/x"}, "a link"), ".")
    ),
    "block splits": page(("div", {}, "intro ", ("p", {}, "para"), " outro")),
    "excluded": page(
        (
            "form",
            {},
            ("label", {}, "Name"),
            ("input", {}),
            ("select", {}, ("option", {}, "One")),
            ("textarea", {}, "typed"),
            ("svg", {}, ("a", {"href": "/s"}, "in svg"), ("br", {})),
            ("p", {}, "after"),
        )
    ),
    "hidden": page(
        ("div", {"hidden": True}, ("p", {}, "collapsed"), "tail"),
        ("p", {"hidden": False}, "shown"),
        ("span", {"hidden": True}, "inline hidden"),
        ("b", {}, "x"),
    ),
    "links": page(
        ("p", {}, ("a", {"href": "/a"}, "  spaced  "), ("a", {}, "no href"), ("a", {"href": ""}, "\xa0e ")),
        ("a", {"href": "/b"}, ("p", {}, "block in link"), " tail\u200b "),
    ),
    "br": page(
        ("p", {}, ("br", {}), "one", ("br", {}), ("br", {}), " two ", ("b", {}, ("br", {}), "three"), ("br", {})),
        ("br", {}),
        ("div", {}, ("br", {})),
        ("p", {}, ("br", {})),
    ),
    "br in another owner": page(("p", {}, "a", ("span", {}, ("br", {})), ("div", {}), ("br", {}), "b")),
    "whitespace": page(
        *[
            ("p", {}, t)
            for t in [
                " ",
                "\xa0",
                "\u3000",
                "\u200b",
                "\x1c\x1d\x1e\x1f",
                "\x0b\x0c\r\n\t",
                "\x85 x \u2028\u2029",
                "a\u200bb",
                "a \u200b b",
                "  lead",
                "trail  ",
                "in  side",
                "\u2009thin\u202f",
                "\u180e mongolian",
                "\ufeffbom",
                "",
            ]
        ]
    ),
    "whitespace across parts": page(("p", {}, "a ", " b", ("b", {}, "  "), "\xa0c\u200b", ("br", {}), "  ", "d")),
    "ids and classes": page(
        (
            "div",
            {"classes": ["a", "b"], "html_id": "x"},
            ("div", {"classes": []}, ("p", {"html_id": ""}, "one")),
            ("section", {"html_id": "s"}, ("p", {"classes": ["c"]}, "two")),
        ),
        ("p", {"classes": ["", "d"]}, "three"),
    ),
    "merge": page(
        (
            "ul",
            {"classes": ["m"]},
            *[("li", {}, ("a", {"href": f"/{i}"}, f"item {i}")) for i in range(4)],
            ("li", {"classes": ["x"]}, ("a", {"href": "/x"}, "other class")),
            ("li", {"classes": ["x"]}, ("a", {"href": "/y"}, "same class")),
            ("li", {"html_id": "i"}, ("a", {"href": "/i"}, "with id")),
            ("li", {"html_id": ""}, ("a", {"href": "/e"}, "empty id")),
            ("li", {}, "prose, not links"),
            ("li", {}, ("a", {"href": "/z"}, "z")),
            ("li", {}, ("a", {"href": "/z2"}, "z2"), ("p", {}, "inner"), ("a", {"href": "/z3"}, "z3")),
        ),
        ("div", {}, ("p", {}, "First para."), ("p", {}, "Second para.")),
    ),
    "same owner adjacent": page(("div", {}, ("a", {"href": "/a"}, "A"), ("p", {}), ("a", {"href": "/b"}, "B"))),
    "flags": page(
        ("table", {}, ("tr", {}, ("td", {}, ("h2", {}, "head"), ("ul", {}, ("li", {}, ("pre", {}, "c")))))),
        ("blockquote", {}, ("p", {}, "q")),
        ("dl", {}, ("dt", {}, "t")),
        ("menu", {}, "m"),
    ),
    "words at an element's edge": page(
        ("li", {}, ("b", {}, "Industry"), "Our", ("sup", {}, "TM"), ("em", {}, "Über"), ("br", {}), "Next"),
        ("p", {}, ("code", {}, "get", ("span", {}, "Value")), "Ab", ("span", {}, " "), "Cd", ("a", {"href": "/"}, "E")),
        ("pre", {}, "tail", ("b", {}, "Head")),
        ("p", {}, "\u01c5", ("i", {}, "\u01c5"), "é", ("i", {}, "\u1e9e")),
    ),
    "text at the root": tree("lone text", ("b", {}, "inline root"), ("p", {}, "second root")),
    "custom tags": page(("x-card", {"classes": ["k"]}, "custom"), ("SPAN", {}, "upper"), ("my-a", {}, "x")),
}


@needs_compiled
@pytest.mark.parametrize("name", sorted(RULES))
def test_each_rule_gives_the_same_blocks(name):
    assert_same(RULES[name])


def nested(depth: int, classes: bool = True, blocks: int = 3) -> list[dict]:
    inner = [("p", {"classes": [f"c{i}"]}, f"block {i}") for i in range(blocks)]
    item = ("li", {}, *inner)
    for level in range(depth):
        item = ("div", {"classes": ["wrap"]} if classes and level % 3 == 0 else {}, item)
    return page(item)


@needs_compiled
@pytest.mark.parametrize(
    "depth",
    [MEMO_DEPTH - 4, MEMO_DEPTH - 3, MEMO_DEPTH - 2, PATH_DEPTH - 3, PATH_DEPTH - 2, PATH_DEPTH, 3 * PATH_DEPTH, 3_000],
)
def test_nesting_about_the_memo_and_path_depths_gives_the_same_blocks(depth):
    assert_same(nested(depth))
    assert_same(nested(depth, classes=False, blocks=1))


@needs_compiled
def test_deep_html_pages_give_the_same_blocks():
    for html in (
        "<ul>" + "<div>" * 10_000 + "deep" + "</div>" * 10_000 + "</ul>",
        "<div class='wrap'>" * 2_000 + "".join(f"<p class='c{i}'>block {i}</p>" for i in range(300)),
        "<span><b><i>" * 1_500 + "text" + "<p>x</p>y" * 50,
    ):
        assert_same(snapshot_from_html(html)["nodes"])


@needs_compiled
@pytest.mark.parametrize(
    "limit, value",
    [("MAX_BLOCKS", 0), ("MAX_BLOCKS", 2), ("MAX_BLOCK_TEXT", 0), ("MAX_BLOCK_TEXT", 3), ("MAX_BLOCK_TEXT", 9)],
)
def test_the_limits_cut_both_segmenters_alike(monkeypatch, limit, value):
    monkeypatch.setattr(limits, limit, value)
    for nodes in RULES.values():
        assert_same(nodes)


@needs_compiled
@pytest.mark.parametrize("path", sorted(p.relative_to(PAGES).as_posix() for p in PAGES.rglob("*.htm*")))
def test_every_page_here_gives_the_same_blocks(path):
    assert_same(snapshot_from_html((PAGES / path).read_bytes())["nodes"])


def _bad(change) -> list[dict]:
    nodes = page(("div", {"classes": ["a"]}, ("p", {}, "text"), ("ul", {}, ("li", {}, ("a", {"href": "/"}, "x")))))
    change(nodes)
    return nodes


UNMODELLED = {
    "depth not its parent's plus one": lambda n: n[2].update(depth=7),
    "depth not an int": lambda n: n[3].update(depth=3.0),
    "classes not a list": lambda n: n[2].update(classes="a b"),
    "a class not a string": lambda n: n[2].update(classes=[1]),
    "classes None on an owner": lambda n: n[3].update(classes=None),
    "html_id not a string": lambda n: n[2].update(html_id=5),
    "parent a bool": lambda n: n[1].update(parent=False),
    "tag not a string": lambda n: n[2].update(tag=None),
    "a node not a dict": lambda n: n.__setitem__(1, [("parent", 0)]),
}


@needs_compiled
@pytest.mark.parametrize("name", sorted(UNMODELLED))
def test_input_not_modelled_goes_to_python(name):
    """What the compiled segmenter does not model, it hands to Python rather than guess at."""
    nodes = _bad(UNMODELLED[name])
    assert compiled_blocks(nodes, combine=True) is None
    for combine in (True, False):  # without combining, classes None is modelled: both read it as none
        got = compiled_blocks(nodes, combine)
        try:
            python = python_blocks_from_snapshot({"nodes": nodes}, combine)
        except Exception as exc:  # noqa: BLE001 - then both must fail alike
            assert got is None
            with pytest.raises(type(exc)):
                blocks_from_snapshot({"nodes": nodes}, combine)
        else:
            assert got is None or got == python
            assert blocks_from_snapshot({"nodes": nodes}, combine) == python


def _depths_not_from_root():
    return [
        _bad(lambda n: [node.update(depth=node["depth"] + 40) for node in n]),
        _bad(lambda n: n.append({"id": 99, "parent": -1, "depth": MEMO_DEPTH, "tag": "#text", "text": "x"})),
    ]


@needs_compiled
def test_depths_not_counted_from_0_at_the_root_go_to_python():
    """Paths are chosen by the depth a node states: the compiled segmenter models only depths counted from
    the root, and hands the others to Python."""
    for nodes in _depths_not_from_root():
        assert compiled_blocks(nodes, combine=True) is None and compiled_blocks(nodes, combine=False) is None
        assert blocks_from_snapshot({"nodes": nodes}) == python_blocks_from_snapshot({"nodes": nodes})


def test_python_segmenter_ends_when_every_depth_is_past_the_memo_depth():
    """Validation refuses a depth that is not its parent's plus one, but the segmenter is called on
    snapshots of any origin (training code, the Python API): one whose every depth up to the root is past
    MEMO_DEPTH once sent it round for ever."""
    for nodes in _depths_not_from_root():
        blocks = python_blocks_from_snapshot({"nodes": nodes})
        assert "text" in [b.text for b in blocks]
        assert all(b.tag_path[0] == nodes[0]["tag"] or b.tag_path == ["#text"] for b in blocks)


@needs_compiled
@pytest.mark.parametrize(
    "nodes",
    [
        [{"id": 0, "parent": 1, "depth": 0, "tag": "p"}, {"id": 1, "parent": -1, "depth": 0, "tag": "div"}],
        [
            {"id": 0, "parent": -1, "depth": 0, "tag": "#text", "text": "x"},
            {"id": 1, "parent": 0, "depth": 1, "tag": "p"},
        ],
        [{"id": 0, "parent": -1, "depth": 0, "tag": "p"}, {"id": 1, "parent": 0, "depth": 1, "tag": "#text"}],
        [
            {"id": 0, "parent": -1, "depth": 0, "tag": "p"},
            {"id": 1, "parent": 0, "depth": 1, "tag": "#text", "text": 3},
        ],
    ],
)
def test_snapshots_the_python_segmenter_fails_on_fail_alike(nodes):
    with pytest.raises(Exception) as python:
        python_blocks_from_snapshot({"nodes": nodes})
    assert compiled_blocks(nodes) is None
    with pytest.raises(python.type):
        blocks_from_snapshot({"nodes": nodes})


_WORDS = [
    "word",
    "Zwei Wörter",
    "  ",
    " ",
    "",
    "\xa0",
    "\u3000",
    "\u200b",
    "\x1c",
    "\n\t",
    "a\u200bb",
    "\u2028",
    "x  y",
    " lead",
    "trail ",
    "\U0001f600",
    "日本",
    "\x85",
    "é",
    "Über",
    "\u01c5",  # a title-case letter: neither lower nor upper case
    "ßª",
    "Σ",
    "LUX",  # capitals, then a capitalised word: two words; a capital after a lower-case letter: not
    "Columbia",
    "X",
    "PvP",
]
_TAGS = [
    "div",
    "p",
    "span",
    "b",
    "a",
    "a",
    "br",
    "br",
    "li",
    "ul",
    "h1",
    "pre",
    "table",
    "td",
    "blockquote",
    "input",
    "select",
    "option",
    "svg",
    "label",
    "em",
    "section",
    "x-el",
    "code",
    "wbr",
    "sup",
    "kbd",
]


def random_nodes(rng: random.Random) -> list[dict]:
    """A random tree: tags mixing inline, block and excluded ones, classes and ids from few values (so
    siblings match and merge), hidden elements, hrefs, and text from whitespace-heavy pieces."""
    nodes = [{"id": 0, "parent": -1, "depth": 0, "tag": "html"}]
    elements = [0]
    for i in range(1, rng.randint(1, 120)):
        parent = rng.choice(elements[-6:] if rng.random() < 0.7 else elements)
        node = {"id": i, "parent": parent, "depth": nodes[parent]["depth"] + 1}
        if rng.random() < 0.45:
            node["tag"] = "#text"
            node["text"] = "".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 4)))
        else:
            node["tag"] = rng.choice(_TAGS)
            elements.append(i)
            if rng.random() < 0.3:
                node["classes"] = rng.choice([[], ["m"], ["m", "n"], ["k"]])
            if rng.random() < 0.1:
                node["html_id"] = rng.choice(["", "i"])
            if rng.random() < 0.1:
                node["hidden"] = rng.random() < 0.8
            if node["tag"] == "a" and rng.random() < 0.8:
                node["href"] = "/x"
        nodes.append(node)
    return nodes


@needs_compiled
def test_random_snapshots_give_the_same_blocks(monkeypatch):
    rng = random.Random(1234)
    for n in range(400):
        if n % 50 == 0:  # some runs under small limits
            monkeypatch.setattr(limits, "MAX_BLOCK_TEXT", rng.choice([5, 40, 20_000]))
            monkeypatch.setattr(limits, "MAX_BLOCKS", rng.choice([3, 20_000]))
        assert_same(random_nodes(rng))


@pytest.mark.parametrize("seed", range(3))
def test_the_views_part_the_words_the_text_parts(seed):
    """`Blanks`, which the reader's tree reads, finds every blank the segmenter put between two words and
    no other: each block's text is its text nodes' with a blank before those it names."""
    rng = random.Random(seed)
    for _ in range(300):
        nodes = random_nodes(rng)
        blanks = Blanks(nodes)
        for b in python_blocks_from_snapshot({"nodes": nodes}, combine=False):
            parts: list[str | None] = []
            for i in b.node_ids:
                if nodes[i]["tag"] == "#text":
                    parts += [" ", nodes[i]["text"]] if blanks.before(i) else [nodes[i]["text"]]
                elif nodes[i]["tag"] == "br":
                    parts.append(None)
            assert blocks_module._clean(parts) == b.text, nodes


_HTML_TAGS = st.sampled_from(
    [
        "div",
        "p",
        "span",
        "a href=/x",
        "a",
        "br",
        "li",
        "ul class=m",
        "h2",
        "pre",
        "td",
        "input",
        "select",
        "svg",
        "b",
        "div hidden",
        "li id=i",
        "x-el class=m",
    ]
)


@needs_compiled
@settings(max_examples=int(os.environ.get("PITH_FUZZ_EXAMPLES", "200")), deadline=None)
@given(
    st.lists(
        st.one_of(
            _HTML_TAGS.map(lambda t: f"<{t}>"),
            _HTML_TAGS.map(lambda t: f"</{t.split()[0]}>"),
            st.sampled_from(_WORDS),
            st.text(max_size=8),
        ),
        max_size=40,
    )
)
def test_generated_html_gives_the_same_blocks(parts):
    assert_same(snapshot_from_html("".join(parts))["nodes"])
