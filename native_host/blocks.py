"""Snapshot -> text blocks: the sequence the model labels.

SemText's search-and-combine segmentation, over the flat snapshot:

* search: walking nodes in document order, text goes to its *owner*, the nearest ancestor that is not an
  inline formatting tag (a, b, em, span...). Formatting tags fold into their block; any other element starts
  a new block, so `<div>intro <p>para</p> outro</div>` gives three blocks. Text under excluded elements
  (form controls, embedded media) makes no block. Text hidden by markup still does, flagged `hidden`: collapsed
  accordions and inactive tabs are content a reader opens, so the model, not the segmenter, decides.
* combine: adjacent blocks whose owners are siblings with the same tag and the same classes merge (a run of
  `<li>` in a menu, the `<p>`s of an article), which gives the model context and keeps pages short.

Segmentation reads tags only, never the live `display`, so a live snapshot and the HTML of the same page give
the same blocks. Each block keeps the snapshot node ids it covers, so a label maps back to DOM nodes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import limits

# Formatting tags: their text belongs to the enclosing block (SemText's group 2).
INLINE = frozenset("""a abbr acronym b bdi bdo big br cite code data del dfn em font i ins kbd label mark nobr q
rp rt ruby s samp small span strike strong sub sup time tt u var wbr""".split())
# Elements whose text never reaches a reader as content (SemText's group 1, less what the snapshot drops).
EXCLUDED = frozenset("""select option optgroup textarea input datalist svg math iframe object embed canvas
video audio map area dialog""".split())
HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
LIST_TAGS = frozenset("ul ol dl li dt dd menu".split())
TABLE_TAGS = frozenset("table thead tbody tfoot tr td th caption".split())

_SPACE = re.compile(r"[\s\u200b]+")
_NEWLINES = re.compile(r" *\n[ \n]*")


@dataclass
class Block:
    """A run of text the model labels as a whole."""

    index: int
    owner: int                 # snapshot id of the element that holds the text
    node_ids: list[int]        # owner, inline elements and text nodes covered, in document order
    text: str
    tag_path: list[str]        # tags from the root to the owner
    class_path: list[str]      # "tag.class1.class2#id" per ancestor with classes or id, root first
    depth: int                 # the owner's depth
    link_chars: int = 0        # characters of text inside <a href>
    merged: int = 1            # how many search-phase blocks were combined
    flags: dict[str, bool] = field(default_factory=dict)  # structural context: heading, list, table, ...


def _clean(parts: list[str | None]) -> str:
    """Whitespace runs in the source fold to one space; a <br> (None in parts) is a line break."""
    text = "".join("\n" if p is None else _SPACE.sub(" ", p) for p in parts)
    return _NEWLINES.sub("\n", text).strip()


def _merge_key(nodes: list[dict], owner: int) -> tuple:
    node = nodes[owner]
    return node["parent"], node["tag"], tuple(node.get("classes", ())), node.get("html_id") is None


def blocks_from_snapshot(snapshot: dict, combine: bool = True) -> list[Block]:
    """Segment a (validated) snapshot into blocks, in document order."""
    nodes = snapshot["nodes"]
    n = len(nodes)
    owner = [0] * n          # nearest non-inline ancestor-or-self
    dead = [False] * n       # excluded (form controls, media), self or ancestor
    in_link = [False] * n
    hidden = [False] * n     # hidden by markup, self or ancestor

    raw: list[dict] = []     # search-phase blocks: owner, node ids, text parts, link chars
    current: dict | None = None
    for i, node in enumerate(nodes):
        parent = node["parent"]
        tag = node["tag"]
        if parent >= 0:
            dead[i] = dead[parent]
            in_link[i] = in_link[parent]
            hidden[i] = hidden[parent]
        if tag == "#text":
            if dead[i]:
                continue
            own = owner[parent] if parent >= 0 else i
            if current is None or current["owner"] != own:
                current = {"owner": own, "ids": [own], "seen": {own}, "parts": [], "link": 0,
                           "hidden": hidden[own]}
                raw.append(current)
            seen = current["seen"]
            p = parent
            while p >= 0 and p not in seen:  # the inline elements between the text and its owner
                seen.add(p)
                current["ids"].append(p)
                p = nodes[p]["parent"]
            current["ids"].append(i)
            text = node["text"]
            current["parts"].append(text)
            if in_link[i]:
                current["link"] += len(text.strip())
            continue
        if tag in EXCLUDED:
            dead[i] = True
        if node.get("hidden"):
            hidden[i] = True
        if tag == "a" and "href" in node:
            in_link[i] = True
        if tag in INLINE:
            owner[i] = owner[parent] if parent >= 0 else i
            if tag == "br" and current is not None and current["owner"] == owner[i] and not dead[i]:
                current["ids"].append(i)
                current["parts"].append(None)
        else:
            owner[i] = i
            current = None  # a block-level element ends the run of text before it

    blocks: list[Block] = []
    for r in raw:
        text = _clean(r["parts"])
        if not text:
            continue
        block = _make_block(nodes, len(blocks), r["owner"], sorted(r["ids"]), text, r["link"])
        block.flags["hidden"] = r["hidden"]
        blocks.append(block)
    if combine:
        blocks = _combine(nodes, blocks)
    return blocks[: limits.MAX_BLOCKS]


def _paths(nodes: list[dict], owner: int) -> tuple[list[str], list[str], dict[str, bool]]:
    tags: list[str] = []
    classes: list[str] = []
    i = owner
    while i >= 0:
        node = nodes[i]
        tags.append(node["tag"])
        cls = node.get("classes")
        hid = node.get("html_id")
        if cls or hid:
            classes.append(node["tag"] + "".join("." + c for c in cls or ()) + (f"#{hid}" if hid else ""))
        i = node["parent"]
    tags.reverse()
    classes.reverse()
    tagset = set(tags)
    flags = {
        "heading": bool(tagset & HEADINGS),
        "list": bool(tagset & LIST_TAGS),
        "table": bool(tagset & TABLE_TAGS),
        "paragraph": "p" in tagset,
        "pre": "pre" in tagset,
        "blockquote": "blockquote" in tagset,
    }
    return tags, classes, flags


def _make_block(nodes, index, owner, ids, text, link):
    text = text[: limits.MAX_BLOCK_TEXT]
    tags, classes, flags = _paths(nodes, owner)
    return Block(index=index, owner=owner, node_ids=ids, text=text, tag_path=tags, class_path=classes,
                 depth=nodes[owner]["depth"], link_chars=link, flags=flags)


def _linky(b: Block) -> bool:
    return b.link_chars * 2 >= len(b.text)


def _combine(nodes: list[dict], blocks: list[Block]) -> list[Block]:
    """Merge adjacent blocks whose owners are same-tag, same-class siblings (SemText's combine phase)."""
    out: list[Block] = []
    last_key = None
    for b in blocks:
        key = _merge_key(nodes, b.owner)
        if (out and key == last_key and b.owner != out[-1].owner and key[3]
                and _linky(b) and _linky(out[-1])):
            prev = out[-1]
            prev.node_ids.extend(b.node_ids)
            prev.text = (prev.text + "\n" + b.text)[: limits.MAX_BLOCK_TEXT]
            prev.link_chars += b.link_chars
            prev.merged += 1
        else:
            b.index = len(out)
            out.append(b)
        last_key = key
    return out
