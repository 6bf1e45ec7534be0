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

from .. import limits

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
    if len(parts) == 1:  # most runs: one text node, often the " " between two block elements
        part = parts[0]
        if part is None or part == " ":
            return ""
        text = _SPACE.sub(" ", part)
    else:
        text = "".join("\n" if p is None else _SPACE.sub(" ", p) for p in parts)
    if "\n" in text:  # only a <br> leaves a newline once whitespace runs are folded
        # Each line without the spaces at its ends, empty lines dropped. Not a regex: the spaces of many
        # text nodes join into one long run, and ` *\n` tried at each of its spaces took quadratic time.
        text = "\n".join(line for line in (part.strip(" ") for part in text.split("\n")) if line)
    return text.strip()


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
        if tag == "#text":  # never a parent, so its own flags are never read: its parent's are used
            if parent >= 0 and dead[parent]:
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
            if parent >= 0 and in_link[parent]:
                current["link"] += len(text.strip())
            continue
        if parent >= 0:
            dead[i] = dead[parent]
            in_link[i] = in_link[parent]
            hidden[i] = hidden[parent]
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
    paths = _Paths(nodes)
    for r in raw:
        text = _clean(r["parts"])
        if not text:
            continue
        block = _make_block(nodes, paths, len(blocks), r["owner"], sorted(r["ids"]), text, r["link"])
        block.flags["hidden"] = r["hidden"]
        blocks.append(block)
    if combine:
        blocks = _combine(nodes, blocks)
    return blocks[: limits.MAX_BLOCKS]


MEMO_DEPTH = 32  # ancestors shallower than this are memoised (owners sit at depth 11 at the median, 27 at p99)
PATH_DEPTH = 64  # ancestors a block's tag and class paths go back (features read 8 tags and 4 levels of classes)


class _Paths:
    """Tag path and class path (over the nearest PATH_DEPTH ancestors), and the set of all tags on the way, for
    block owners. The blocks of a page share most of their ancestors, so shallow ancestors are memoised with
    their whole path and each is read once per page, not once per block beneath it. A deeper node's paths
    are read from its nearest PATH_DEPTH ancestors, and its set of tags is memoised as it is found, so a page
    nested 100,000 deep costs linear time and memory even with 20,000 blocks at the bottom (whole paths cost
    depth x blocks: 10 s for 1,600 blocks under 2,000 levels)."""

    def __init__(self, nodes: list[dict]):
        self.nodes = nodes
        self.memo: dict[int, tuple[tuple[str, ...], tuple[str, ...], frozenset[str]]] = {}
        self.deep_tags: dict[int, frozenset[str]] = {}  # the set of tags of deep nodes, as found
        self.labels: dict[int, str | None] = {}         # class labels of deep nodes, as read

    def of(self, i: int) -> tuple[tuple[str, ...], tuple[str, ...], frozenset[str]]:
        """(tags root first, class paths root first, the set of all tags on the way) for node i."""
        found = self.memo.get(i)
        if found is not None:
            return found
        if self.nodes[i]["depth"] < MEMO_DEPTH:
            return self._shallow(i)
        return self._deep_paths(i) + (self._deep_tagset(i),)

    def _shallow(self, i: int) -> tuple[tuple[str, ...], tuple[str, ...], frozenset[str]]:
        memo, nodes = self.memo, self.nodes
        pending = []
        while i >= 0 and i not in memo:
            pending.append(i)
            i = nodes[i]["parent"]
        tags, classes, tagset = memo[i] if i >= 0 else ((), (), frozenset())
        for j in reversed(pending):  # root first
            node = nodes[j]
            tag = node["tag"]
            tags = tags + (tag,)
            label = _class_label(node)
            if label:
                classes = classes + (label,)
            if tag not in tagset:
                tagset = tagset | {tag}
            memo[j] = tags, classes, tagset
        return tags, classes, tagset

    def _deep_paths(self, i: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        nodes, labels = self.nodes, self.labels
        tags: list[str] = []
        classes: list[str] = []
        while i >= 0 and len(tags) < PATH_DEPTH:
            node = nodes[i]
            tags.append(node["tag"])
            label = labels[i] if i in labels else labels.setdefault(i, _class_label(node))
            if label:
                classes.append(label)
            i = node["parent"]
        return tuple(reversed(tags)), tuple(reversed(classes))

    def _deep_tagset(self, i: int) -> frozenset[str]:
        nodes, known = self.nodes, self.deep_tags
        pending = []
        while i not in known and nodes[i]["depth"] >= MEMO_DEPTH:
            pending.append(i)
            i = nodes[i]["parent"]
        tagset = known[i] if i in known else self.of(i)[2]
        for j in reversed(pending):
            tag = nodes[j]["tag"]
            if tag not in tagset:
                tagset = tagset | {tag}
            known[j] = tagset
        return tagset


def _class_label(node: dict) -> str | None:
    """"tag.class1.class2#id" for an element with classes or an id, else None."""
    cls = node.get("classes")
    hid = node.get("html_id")
    if cls or hid:
        return node["tag"] + "".join("." + c for c in cls or ()) + (f"#{hid}" if hid else "")
    return None


def _flags(tagset: frozenset[str]) -> dict[str, bool]:
    return {
        "heading": not tagset.isdisjoint(HEADINGS),
        "list": not tagset.isdisjoint(LIST_TAGS),
        "table": not tagset.isdisjoint(TABLE_TAGS),
        "paragraph": "p" in tagset,
        "pre": "pre" in tagset,
        "blockquote": "blockquote" in tagset,
    }


def _make_block(nodes, paths: _Paths, index, owner, ids, text, link):
    text = text[: limits.MAX_BLOCK_TEXT]
    tags, classes, tagset = paths.of(owner)
    return Block(index=index, owner=owner, node_ids=ids, text=text, tag_path=list(tags), class_path=list(classes),
                 depth=nodes[owner]["depth"], link_chars=link, flags=_flags(tagset))


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
