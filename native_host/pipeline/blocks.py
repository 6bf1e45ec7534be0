"""Snapshot -> text blocks: the sequence the model labels.

SemText's search-and-combine segmentation, over the flat snapshot:

* search: walking nodes in document order, text goes to its *owner*, the nearest ancestor that is not an
  inline formatting tag (a, b, em, span...). Formatting tags fold into their block; any other element starts
  a new block, so `<div>intro <p>para</p> outro</div>` gives three blocks. Text under excluded elements
  (form controls, embedded media) makes no block. Text hidden by markup still does, flagged `hidden`: collapsed
  accordions and inactive tabs are content a reader opens, so the model, not the segmenter, decides.
* combine: adjacent link-heavy blocks (at least half their text in links) whose owners are siblings with the
  same tag and the same classes, and no id, merge: the run of `<li>` in a menu becomes one block, which gives
  the model context and keeps pages short. Prose is never merged: each of an article's `<p>`s stays a block
  of its own, as the model was trained to label them.

Segmentation reads tags only, never the live `display`, so a live snapshot and the HTML of the same page give
the same blocks. Each block keeps the snapshot node ids it covers, so a label maps back to DOM nodes.

This module is the reference; where the compiled segmenter (segment.pyx) is built it runs instead, with the
same blocks, unless the environment sets PITH_PURE_PYTHON=1 (docs/performance.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .. import limits
from .compiled import load_compiled

# Formatting tags: their text belongs to the enclosing block (SemText's group 2).
INLINE = frozenset(
    """a abbr acronym b bdi bdo big br cite code data del dfn em font i ins kbd label mark nobr q
rp rt ruby s samp small span strike strong sub sup time tt u var wbr""".split()
)
# Elements whose text never reaches a reader as content (SemText's group 1, less what the snapshot drops).
EXCLUDED = frozenset(
    """select option optgroup textarea input datalist svg math iframe object embed canvas
video audio map area dialog""".split()
)
# Tags whose text is never parted from the text beside it (`parts_words`): code, where case runs through an
# identifier drawn in several spans (`get<span>Value</span>`), and raised or lowered text (a brand's ™, an index).
JOINED = frozenset("code kbd pre samp tt var sub sup".split())
HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
LIST_TAGS = frozenset("ul ol dl li dt dd menu".split())
TABLE_TAGS = frozenset("table thead tbody tfoot tr td th caption".split())

_SPACE = re.compile(r"[\s\u200b]+")


def parts_words(before: str, after: str) -> bool:
    """Whether two texts of one line that meet at an element's edge are two words: a lower-case letter, then a
    capital ("Industry Competency</b>Our experts", "Gaz Williams</a><em>Shipwreck"); or a capital that ends a
    word in capitals, then a capitalised word ("LUX</span>Columbia", "RPG</a>Fantasy"). No writer joins those,
    but a page's style sets them apart (a run-in title shown as a block), and a reader without the style would
    show one word; the golds mostly have them apart (`python -m bench.word_parts`; `JOINED` keeps a ™ in
    `<sup>`). Not a capital after a lower-case letter of its text ("PvP</a>Co-op"), nor a word's first letter
    alone in a text ("LUX</b>C</b>olumbia"). Each text is read alone, as the segmenter meets it. Single
    characters: `str.islower` is `Py_UNICODE_ISLOWER`, as segment.pyx reads it."""
    if not after[:1].isupper():
        return False
    end = before[-1:]
    return end.islower() or (end.isupper() and not before[-2:-1].islower() and after[1:2].islower())


@dataclass
class Block:
    """A run of text the model labels as a whole."""

    index: int
    owner: int  # snapshot id of the element that holds the text
    node_ids: list[int]  # owner, inline elements and text nodes covered, in document order
    text: str
    tag_path: list[str]  # tags from the root to the owner
    class_path: list[str]  # "tag.class1.class2#id" per ancestor with classes or id, root first
    depth: int  # the owner's depth
    link_chars: int = 0  # characters of text inside <a href>
    merged: int = 1  # how many search-phase blocks were combined
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


class Blanks:
    """Where the segmenter put a blank before a text node (`parts_words`), read from one page's nodes alone, so
    that views built from the nodes (the reader's HTML, the Markdown, the metadata's text) part the words the
    blocks' text parts. Each ancestor is read once a page: a page of 100,000 nested inline elements costs
    linear time, as in the segmenter."""

    def __init__(self, nodes: list[dict]):
        self.nodes = nodes
        self.owners: dict[int, int] = {}  # element -> its nearest ancestor-or-self that is no inline tag
        self.marks: dict[int, int] = {}  # element -> _EXCLUDED | _JOINED of it and its ancestors

    def before(self, i: int) -> bool:
        """Whether text node i starts a word the text before it in its line ends."""
        text = self.nodes[i]["text"]
        if not text[:1].isupper():
            return False
        j = self.previous(i)
        return j is not None and parts_words(self.nodes[j]["text"], text) and not self.joined(i, j)

    def previous(self, i: int) -> int | None:
        """The text node before text node i in its line: the search phase's run (the last text node before it of
        the same owner, with only inline elements between), no <br> between; None where i starts it."""
        nodes = self.nodes
        owner = self._owner(i)
        j = i - 1
        while j >= 0:
            tag = nodes[j]["tag"]
            if tag == "#text":
                if not self._marks(j) & _EXCLUDED:
                    break
            elif tag not in INLINE or (tag == "br" and self._owner(j) == owner and not self._marks(j) & _EXCLUDED):
                return None  # the run ends, or a line does
            j -= 1
        return j if j >= 0 and self._owner(j) == owner else None

    def joined(self, i: int, j: int) -> bool:
        """Whether either of two text nodes is inside a JOINED tag, whose text no blank parts."""
        return bool((self._marks(i) | self._marks(j)) & _JOINED)

    def _owner(self, i: int) -> int:
        """Node i's nearest ancestor that is not an inline tag, or the root's (itself at the root), as `_search`
        reads it."""
        nodes, owners = self.nodes, self.owners
        p = nodes[i]["parent"]
        if p < 0:
            return i
        pending = []
        while p not in owners and nodes[p]["tag"] in INLINE and nodes[p]["parent"] >= 0:
            pending.append(p)
            p = nodes[p]["parent"]
        found = owners.get(p, p)
        owners[p] = found
        for q in pending:
            owners[q] = found
        return found

    def _marks(self, i: int) -> int:
        """_EXCLUDED and _JOINED for the ancestors of node i."""
        nodes, marks = self.nodes, self.marks
        pending = []
        p = nodes[i]["parent"]
        while p >= 0 and p not in marks:
            pending.append(p)
            p = nodes[p]["parent"]
        bits = marks[p] if p >= 0 else 0
        for q in reversed(pending):
            tag = nodes[q]["tag"]
            bits |= (_EXCLUDED if tag in EXCLUDED else 0) | (_JOINED if tag in JOINED else 0)
            marks[q] = bits
        return bits


_EXCLUDED, _JOINED = 1, 2


class _Inherited:
    """What an element passes down to the nodes inside it. A slotted class, not a NamedTuple: one is made per
    element, and this builds in half the time."""

    __slots__ = ("excluded", "hidden", "in_link", "joined", "owner")

    def __init__(self, owner: int, excluded: bool, in_link: bool, hidden: bool, joined: bool):
        self.owner = owner  # the nearest ancestor-or-self that is not an inline tag: its block holds their text
        self.excluded = excluded  # inside (or is) a form control or embedded media: its text makes no block
        self.in_link = in_link  # inside (or is) an <a href>
        self.hidden = hidden  # hidden by markup, itself or an ancestor
        self.joined = joined  # inside (or is) a JOINED tag: its text is never parted from its neighbours'


_TOP = _Inherited(-1, False, False, False, False)  # above the root; owner unused


class _Run:
    """A search-phase block: the text of consecutive text nodes with one owner, before cleaning."""

    __slots__ = ("hidden", "joined", "link_chars", "node_ids", "owner", "parts", "seen")

    def __init__(self, owner: int, hidden: bool):
        self.owner = owner
        self.node_ids = [owner]  # owner, inline elements and text nodes, in the order met
        self.seen = {owner}  # of node_ids: an inline element is added once, however much text it holds
        self.parts: list[str | None] = []  # text nodes' text; None for a <br>
        self.link_chars = 0  # characters of text inside <a href>, spaces at the ends left out
        self.hidden = hidden  # the owner is hidden by markup
        self.joined = False  # the last part is inside a JOINED tag

    def add_text(self, nodes: list[dict], i: int, text: str, in_link: bool, joined: bool) -> None:
        """Text node i, and the inline elements between it and the owner not added yet; a blank before it where
        it and the text before it are two words (`parts_words`)."""
        seen, ids, parts = self.seen, self.node_ids, self.parts
        p = nodes[i]["parent"]
        while p >= 0 and p not in seen:
            seen.add(p)
            ids.append(p)
            p = nodes[p]["parent"]
        ids.append(i)
        if parts and not (joined or self.joined) and parts[-1] is not None and parts_words(parts[-1], text):
            parts.append(" ")
        parts.append(text)
        self.joined = joined
        if in_link:
            self.link_chars += len(text.strip())

    def add_break(self, i: int) -> None:
        self.node_ids.append(i)
        self.parts.append(None)


def blocks_from_snapshot(snapshot: dict, combine: bool = True) -> list[Block]:
    """Segment a (validated) snapshot into blocks, in document order: the compiled segmenter's blocks where it
    is in use and takes the page, else the reference's."""
    if _segmenter is not None:
        blocks = compiled_blocks(_segmenter, snapshot["nodes"], combine)
        if blocks is not None:
            return blocks
    return python_blocks_from_snapshot(snapshot, combine)


def compiled_blocks(segmenter, nodes: list[dict], combine: bool = True) -> list[Block] | None:
    """A compiled segmenter's blocks under this module's limits and path depths, or None for a page it hands
    to the reference (input it does not model)."""
    return segmenter.segment(nodes, combine, limits.MAX_BLOCKS, limits.MAX_BLOCK_TEXT, PATH_DEPTH, MEMO_DEPTH)


def python_blocks_from_snapshot(snapshot: dict, combine: bool = True) -> list[Block]:
    """The reference segmenter, in Python; segment.pyx gives the same blocks faster."""
    nodes = snapshot["nodes"]
    paths = _Paths(nodes)
    blocks: list[Block] = []
    for run in _search(nodes):
        text = _clean(run.parts)
        if text:
            block = _make_block(nodes, paths, len(blocks), run.owner, sorted(run.node_ids), text, run.link_chars)
            block.flags["hidden"] = run.hidden
            blocks.append(block)
    if combine:
        blocks = _combine(nodes, blocks)
    return blocks[: limits.MAX_BLOCKS]


def _search(nodes: list[dict]) -> list[_Run]:
    """The search phase: each text node joins the run of its owner, a new run starting whenever the owner
    changes or a block-level element comes between; excluded text is left out."""
    inherited: list[_Inherited | None] = [None] * len(nodes)  # per element; a text node is never a parent
    runs: list[_Run] = []
    current: _Run | None = None
    for i, node in enumerate(nodes):
        parent = node["parent"]
        up = inherited[parent] if parent >= 0 else _TOP
        tag = node["tag"]
        if tag == "#text":
            if up.excluded:
                continue
            owner = up.owner if parent >= 0 else i
            if current is None or current.owner != owner:
                above = inherited[owner] if owner != i else None  # an element already walked, when not i
                current = _Run(owner, above is not None and above.hidden)
                runs.append(current)
            current.add_text(nodes, i, node["text"], up.in_link, up.joined)
            continue
        inline = tag in INLINE
        excludes, links, hides = tag in EXCLUDED, tag == "a" and "href" in node, bool(node.get("hidden"))
        joins = tag in JOINED
        if inline and parent >= 0 and not (excludes or links or hides or joins):
            mine = up  # most inline elements change nothing for the text inside them
        else:
            mine = _Inherited(
                up.owner if inline and parent >= 0 else i,
                up.excluded or excludes,
                up.in_link or links,
                up.hidden or hides,
                up.joined or joins,
            )
        inherited[i] = mine
        if not inline:
            current = None  # a block-level element ends the run of text before it
        elif tag == "br" and current is not None and current.owner == mine.owner and not mine.excluded:
            current.add_break(i)
    return runs


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
        self.labels: dict[int, str | None] = {}  # class labels of deep nodes, as read

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
        # `i >= 0`: validation checks depths, but a snapshot that skipped it whose every depth up to the root is
        # past MEMO_DEPTH (a root stated at depth 40) must end at the root, not read nodes[-1] for ever.
        while i >= 0 and i not in known and nodes[i]["depth"] >= MEMO_DEPTH:
            pending.append(i)
            i = nodes[i]["parent"]
        tagset = known[i] if i in known else (self.of(i)[2] if i >= 0 else frozenset())
        for j in reversed(pending):
            tag = nodes[j]["tag"]
            if tag not in tagset:
                tagset = tagset | {tag}
            known[j] = tagset
        return tagset


def _class_label(node: dict) -> str | None:
    """ "tag.class1.class2#id" for an element with classes or an id, else None."""
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
    return Block(
        index=index,
        owner=owner,
        node_ids=ids,
        text=text,
        tag_path=list(tags),
        class_path=list(classes),
        depth=nodes[owner]["depth"],
        link_chars=link,
        flags=_flags(tagset),
    )


def _siblings(nodes: list[dict], owner: int) -> tuple[int, str, tuple[str, ...]] | None:
    """What two blocks' owners must share for the blocks to merge: the parent, the tag and the classes; None
    for an owner with an id, a thing of its own that never merges."""
    node = nodes[owner]
    if node.get("html_id") is not None:
        return None
    return node["parent"], node["tag"], tuple(node.get("classes", ()))


def _linky(b: Block) -> bool:
    return b.link_chars * 2 >= len(b.text)


def _combine(nodes: list[dict], blocks: list[Block]) -> list[Block]:
    """SemText's combine phase, kept to link lists: a link-heavy block joins the one before it when that one
    is link-heavy too and their owners are different siblings of the same tag and classes, without an id."""
    out: list[Block] = []
    last: tuple | None = None  # the previous block's
    for b in blocks:
        key = _siblings(nodes, b.owner)
        if out and key is not None and key == last and b.owner != out[-1].owner and _linky(b) and _linky(out[-1]):
            prev = out[-1]
            prev.node_ids.extend(b.node_ids)
            prev.text = (prev.text + "\n" + b.text)[: limits.MAX_BLOCK_TEXT]
            prev.link_chars += b.link_chars
            prev.merged += 1
        else:
            b.index = len(out)
            out.append(b)
        last = key
    return out


def _probe_nodes() -> list[dict]:
    """A snapshot touching each rule above, for the compiled segmenter to pass at import."""
    spec: list[tuple[int, str, dict]] = [  # (parent, tag, fields)
        (-1, "html", {}),
        (0, "body", {"classes": ["page", "x"]}),
        (1, "div", {"html_id": "main"}),
        (2, "#text", {"text": " intro\u200b\u3000 x\x1c "}),
        (2, "p", {}),
        (4, "#text", {"text": "one  "}),
        (4, "b", {}),
        (6, "i", {}),
        (7, "#text", {"text": "two"}),
        (4, "br", {}),
        (4, "#text", {"text": " \xa0"}),
        (4, "br", {}),
        (4, "#text", {"text": "three"}),
        (2, "#text", {"text": "outro"}),
        (1, "ul", {"classes": ["menu"]}),
        (14, "li", {}),
        (15, "a", {"href": "/a"}),
        (16, "#text", {"text": "Home"}),
        (14, "li", {}),
        (18, "a", {"href": "/b"}),
        (19, "#text", {"text": " News "}),
        (14, "li", {"html_id": ""}),
        (21, "a", {"href": "/c"}),
        (22, "#text", {"text": "More"}),
        (1, "form", {}),
        (24, "label", {}),
        (25, "#text", {"text": "Name"}),
        (24, "select", {}),
        (27, "option", {}),
        (28, "#text", {"text": "One"}),
        (1, "div", {"hidden": True}),
        (30, "h2", {"classes": ["t"]}),
        (31, "#text", {"text": "Answer"}),
        (1, "table", {}),
        (33, "td", {}),
        (34, "pre", {}),
        (35, "#text", {"text": "\tcode\n x"}),
        (1, "blockquote", {}),
        (37, "span", {}),
        (38, "#text", {"text": "\u2028"}),
        (37, "#text", {"text": "said"}),
        (1, "li", {}),
        (41, "b", {}),
        (42, "#text", {"text": "Industry"}),
        (41, "#text", {"text": "Our"}),
        (41, "sup", {}),
        (45, "#text", {"text": "TM"}),
        (41, "code", {}),
        (47, "#text", {"text": "get"}),
        (47, "#text", {"text": "Value"}),
    ]
    nodes: list[dict] = []
    for i, (parent, tag, fields) in enumerate(spec):
        nodes.append(
            {"id": i, "parent": parent, "depth": nodes[parent]["depth"] + 1 if parent >= 0 else 0, "tag": tag, **fields}
        )
    return nodes


def _probe_segmenter(segment) -> bool:
    """The compiled segmenter gives the reference's blocks on the probe, combined or not."""
    segmenter = segment.Segmenter(INLINE, EXCLUDED, JOINED, _flags, Block)
    nodes = _probe_nodes()
    return all(
        compiled_blocks(segmenter, nodes, combine) == python_blocks_from_snapshot({"nodes": nodes}, combine)
        for combine in (True, False)
    )


_compiled = load_compiled("segment", _probe_segmenter)
_segmenter = _compiled.Segmenter(INLINE, EXCLUDED, JOINED, _flags, Block) if _compiled is not None else None
