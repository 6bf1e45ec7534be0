"""Main blocks -> a clean article: HTML, Markdown and plain text from one pruned copy of the page.

The kept tree is the snapshot restricted to the nodes of main blocks and their ancestors, so tables, lists
and headings keep their structure. Generic containers (div, section, span...) are unwrapped; text that sits
directly in one becomes a paragraph. Only an allowlist of tags survives (HTML_TAGS, MATHML_TAGS), links keep
absolute http(s)/mailto targets only, and images and formulas that sit inside or between main content are
kept. Of the page's attributes only these are carried over: href, src and alt; a code block's language, as
`class="language-X"`; a formula's `alttext`, for Markdown; and the `id` of an element that a kept link of the
article points to (footnotes and their back links), with that link made a fragment. The reader view shows structure, never page styling or code.

Formulas are kept as MathML, which both browsers render: the page's own `<math>` (MathJax and KaTeX put one
beside their visual rendering, for screen readers), with its TeX `<annotation>` where the page has one. The
visual copy beside it, hidden from assistive technology by markup, is left out; Markdown gets the TeX.

Nesting of kept structure is capped (MAX_NESTING), so a page nested 100,000 deep renders without recursion
trouble and in linear time; deeper structure is flattened: blocks become paragraphs' content, formatting, links
and formulas are unwrapped to their text (rendering looks for text under each element it opens, which cost
depth squared: 39 s for 8,000 nested <b><i>). No step walks to the root per node.
"""

from __future__ import annotations

import html as htmlmod
import re
import unicodedata
from bisect import bisect_left
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import itemgetter
from urllib.parse import quote, unquote

from .blocks import EXCLUDED, INLINE, Blanks, Block, blocks_from_snapshot
from .inert import (
    CLOSE,
    OPEN,
    clean,
    code_span,
    destination,
    escape_line_starts,
    escape_text,
    fence,
    heading_text,
    resolve_emphasis,
    strip_controls,
    tex,
)

MAX_NESTING = 48
BLOCK_TAGS = frozenset(
    """p h1 h2 h3 h4 h5 h6 ul ol li dl dt dd table thead tbody tfoot tr td th caption pre
blockquote figure figcaption hr""".split()
)
INLINE_MAP = {
    "b": "strong",
    "strong": "strong",
    "i": "em",
    "em": "em",
    "code": "code",
    "kbd": "code",
    "samp": "code",
    "tt": "code",
    "sup": "sup",
    "sub": "sub",
    "mark": "mark",
    "s": "s",
    "del": "s",
    "strike": "s",
    "q": "q",
    "abbr": "abbr",
    "cite": "cite",
}
_INLINE_OUT = frozenset(INLINE_MAP.values())  # the tags INLINE_MAP writes: a set, for membership per element
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# Containers whose inline content needs no <p> around it.
HOLDS_INLINE = frozenset("p h1 h2 h3 h4 h5 h6 li dt dd td th caption pre figcaption".split())
# MathML Core's presentation elements, and the TeX source beside them (<semantics>, <annotation>).
MATH_TAGS = frozenset(
    """math semantics annotation mrow mi mn mo ms mtext mspace msup msub msubsup mfrac msqrt mroot
mover munder munderover mtable mtr mtd mstyle mpadded mphantom menclose merror mmultiscripts mprescripts none""".split()
)
MATH_COPY_LEVELS = 3  # a formula's visual copy is a hidden sibling of the <math> or of its nearest 3 ancestors
# MathJax 2's drawing of a formula kept in a script (snapshot.formula_nodes): the elements just before the
# script whose class starts so (MathJax, MathJax_Display, MathJax_Preview, MathJax_SVG, MJX_Assistive_MathML...).
MATHJAX2_DRAWING = ("MathJax", "MJX")
_TARGET = ("id",)  # only where a kept link of the article points
# Everything the article's HTML may hold: each tag with the attributes it may carry. The reader's sanitiser
# (extension/reader/sanitize.js) allows exactly these, from limits.js (written by native_host/contracts.py).
HTML_TAGS: dict[str, tuple[str, ...]] = {
    **{tag: _TARGET for tag in sorted(BLOCK_TAGS - {"hr"})},
    **{tag: _TARGET for tag in sorted(set(INLINE_MAP.values()) | {"span"})},
    "a": ("href", "id"),
    "img": ("src", "alt", "width", "height", "class"),  # class: INLINE_PICTURE only; sizes: the page's, in px
    "br": (),
    "hr": (),
    "pre": ("class", "id"),
    "code": ("class", "id"),  # class: language-X only
    "section": ("class",),  # the reader's forms (pipeline/shape.py): class pith-X only
    "time": ("datetime",),  # a forum post's date
}
MATHML_TAGS: dict[str, tuple[str, ...]] = {**{tag: () for tag in sorted(MATH_TAGS)}, "math": ("display",)}
# Classes that name a code block's language: Prism and highlight.js (language-X, lang-X), GitHub
# (highlight-source-X), Sphinx and Pygments (highlight-X), SyntaxHighlighter (brush:X); and classes after
# which the next one names it: highlight.js (hljs X), SyntaxHighlighter (brush: X;), Pandoc (sourceCode X,
# its numbering flags aside). A language is letters, digits and `+-#._` only, so it cannot break a fence.
_LANGUAGE_CLASS = re.compile(r"^(?:language-|lang-|highlight-source-|highlight-|brush:)([A-Za-z0-9_+#.-]{1,32});?$")
_LANGUAGE_NEXT = frozenset({"hljs", "brush:", "sourcecode"})
_LANGUAGE_FLAGS = frozenset({"numbersource", "numberlines", "hljs", "sourcecode"})
_LANGUAGE_TOKEN = re.compile(r"([A-Za-z0-9_+#.-]{1,32});?")
LANGUAGE_LEVELS = 2  # a <pre>'s language may sit on it or on its two nearest ancestors
SAFE_SCHEMES = ("http", "https", "mailto")
_URL_IGNORED = re.compile(r"[\x00-\x20\x7f]")  # browsers drop these inside URLs: "java\tscript:" is javascript:
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")


def safe_url(url: str | None) -> str | None:
    """The URL if it is http(s), mailto or relative (no scheme: it cannot run code), else None."""
    url = url.strip() if url else url  # first: a blank Python strips (a no-break space) could hide a scheme
    if not url:
        return None
    # Printable text holds none of _URL_IGNORED's characters but the space: most URLs need no regex pass.
    cleaned = url if url.isprintable() and " " not in url else _URL_IGNORED.sub("", url)
    match = _SCHEME.match(cleaned)
    if match and match.group(1).lower() not in SAFE_SCHEMES:
        return None
    return url


_SPACE = re.compile(r"\s+")
_SPACES_TABS = re.compile(r"[ \t]+")


def _plain(text: str) -> bool:
    """Whether `text` is printable without two spaces in a row: then it is already folded (printable text holds
    no whitespace but the ASCII space) and clean of controls, as most texts are, and needs no regex pass."""
    return text.isprintable() and "  " not in text


def _folded(text: str) -> str:
    """Each whitespace run as one space (`_plain` text as it is)."""
    return text if _plain(text) else _SPACE.sub(" ", text)


@dataclass(slots=True)
class Element:
    """A node of the article tree: a tag (from the allowlist) or a text run (tag None)."""

    tag: str | None
    text: str = ""
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Element] = field(default_factory=list)
    page_href: str | None = None  # a fragment link's address on the page itself (Markdown has no ids)
    tex: str = ""  # a formula's TeX from the page's alttext, for Markdown
    note: str = ""  # Markdown's footnotes: a reference's or a note's label, "-" for a back link
    block: bool = False  # an inline element holding a block (a link around a figure): it stands as a block

    def walk(self) -> Iterator[Element]:
        """This element and everything under it, in document order (no recursion: a tree may be deep)."""
        stack = [self]
        while stack:
            e = stack.pop()
            yield e
            stack.extend(reversed(e.children))


@dataclass
class Article:
    """The body of the page in three renderings; `tree` is the pruned tree the html and Markdown were
    rendered from (None when neither was), so a view asked for later is rendered without building it again."""

    html: str
    markdown: str
    text: str
    tree: Element | None = field(default=None, repr=False, compare=False)
    # Where each top-level element of `html` is in `markdown` (`markdown_blocks`), once the Markdown is built.
    markdown_blocks: list[list[int]] = field(default_factory=list, repr=False, compare=False)
    # Set while `html` is the first screen's alone (`first_screen`): the kept nodes the whole is built from.
    kept: _Kept | None = field(default=None, repr=False, compare=False)


def _keep_with_ancestors(nodes: list[dict], ids: Iterable[int], keep: set[int]) -> None:
    """Add each node of `ids` and its ancestors up to the first one already kept (whose own ancestors are then
    kept too). One call for many nodes: a call per text node was a tenth of the keep step."""
    for i in ids:
        while i >= 0 and i not in keep:
            keep.add(i)
            i = nodes[i]["parent"]


def subtree_ends(nodes: list[dict]) -> list[int]:
    """For each node, one past the last id of its subtree (ids are document pre-order, parents before
    children): one pass from the end, so that a step asking for many subtrees never walks the page per node."""
    ends = [i + 1 for i in range(len(nodes))]
    for node in reversed(nodes):
        parent = node["parent"]
        if parent >= 0 and ends[node["id"]] > ends[parent]:
            ends[parent] = ends[node["id"]]
    return ends


class _Tree:
    """Subtree ends and child lists of the snapshot, each computed once, in one pass, when a step needs them:
    a page of 20,000 formulas or pictures must not cost a walk of the page per formula."""

    def __init__(self, nodes: list[dict]):
        self.nodes = nodes
        self.tags: list[str] = list(map(itemgetter("tag"), nodes))  # one C-level pass: which tags a page has
        self._end: list[int] | None = None
        self._children: list[list[int]] | None = None
        self._figure: list[int] | None = None

    def end(self, i: int) -> int:
        """One past the last id of node i's subtree (`subtree_ends`)."""
        if self._end is None:
            self._end = subtree_ends(self.nodes)
        return self._end[i]

    def children(self, i: int) -> list[int]:
        if self._children is None:
            children: list[list[int]] = [[] for _ in self.nodes]
            for k, parent in zip(map(itemgetter("id"), self.nodes), map(itemgetter("parent"), self.nodes)):
                if parent >= 0:
                    children[parent].append(k)
            self._children = children
        return self._children[i]

    def figure(self, i: int) -> int | None:
        """The nearest <figure> around node i, if any (a walk to the root per picture cost pictures x depth)."""
        if self._figure is None:
            nodes = self.nodes
            self._figure = [-1] * len(nodes)
            for node in nodes if "figure" in self.tags else ():
                parent = node["parent"]
                if parent >= 0:
                    self._figure[node["id"]] = parent if nodes[parent]["tag"] == "figure" else self._figure[parent]
        found = self._figure[i]
        return None if found < 0 else found


@dataclass
class _Kept:
    keep: set[int]  # nodes of the article tree: content and its ancestors
    content: set[int]  # text (and formula) nodes whose text the article shows
    display_math: set[int]  # formulas that stand alone on their line
    captioned: set[int] = field(default_factory=set)  # figures whose captions are kept (each read once)


def _keep_set(nodes: list[dict], blocks: list[Block], main: list[bool]) -> _Kept:
    tree = _Tree(nodes)
    content: set[int] = set()
    for b, m in zip(blocks, main):
        if m:
            content.update(b.node_ids)
    keep: set[int] = set()
    _keep_with_ancestors(nodes, content, keep)
    if "tr" in tree.tags:
        _whole_rows(tree, keep)
    kept = _Kept(keep, content, set())
    # Images and formulas inside or between main content: the nearest text before and after is main. Text
    # hidden by markup (a formula's visual copy, say) is not what a reader sees around them.
    embedded = _embedded(nodes, tree.tags)
    if not embedded:
        return kept
    hidden = _hidden_by_markup(nodes)
    text_main: dict[int, bool] = {}
    for b, m in zip(blocks, main):
        for i in b.node_ids:
            if tree.tags[i] == "#text" and not hidden[i]:
                text_main[i] = m
    last = False
    pending: list[int] = []
    chosen: list[int] = []
    # Only embedded items and the blocks' text nodes matter here, in document order (ids are document order).
    for i in sorted(text_main.keys() | embedded):
        if i in embedded:
            if last:
                pending.append(i)
        elif i in text_main:
            if text_main[i]:
                chosen += pending
            pending = []
            last = text_main[i]
    main_figures: dict[int, bool] = {}  # figure -> whether it holds main text, each read once
    for i in sorted(embedded.difference(chosen)):  # a lead picture: no main text before it; its caption is main
        figure = tree.figure(i) if nodes[i]["tag"] == "img" else None
        if figure is not None and figure not in main_figures:
            main_figures[figure] = any(text_main.get(j) for j in range(figure, tree.end(figure)))
        if figure is not None and main_figures[figure]:
            chosen.append(i)
    maths = [i for i in chosen if nodes[i]["tag"] == "math"]
    copies = _keep_maths(tree, maths, kept) if maths else set()
    for i in chosen:  # formulas first: their visual copies (an <img>, say) are then not kept as images
        if nodes[i]["tag"] == "img" and i not in copies:
            _keep_image(tree, i, kept)
    return kept


def _whole_rows(tree: _Tree, keep: set[int]) -> None:
    """Every cell of a kept table row, empty where none of its text is main: a row that loses a cell shifts
    the values after it under the wrong column. The rows' children are found in one C-level pass over the
    parents, not from every node's child list (a fifth of the keep step where a page has tables)."""
    rows = {i for i in keep if tree.tags[i] == "tr"}
    if rows:
        parents = map(itemgetter("parent"), tree.nodes)
        keep.update(
            c for c in compress(range(len(tree.nodes)), map(rows.__contains__, parents)) if tree.tags[c] in ("td", "th")
        )


def _hidden_by_markup(nodes: list[dict]) -> list[bool]:
    """Whether each node is hidden by markup, itself or an ancestor: each hidden element's subtree marked, read
    by depth from it (ids are document order), once."""
    hidden = [False] * len(nodes)
    for i in compress(range(len(nodes)), map(dict.get, nodes, repeat("hidden"))):  # most pages: none
        if hidden[i]:
            continue
        depth = nodes[i]["depth"]
        end = i + 1
        while end < len(nodes) and nodes[end]["depth"] > depth:
            end += 1
        hidden[i:end] = repeat(True, end - i)
    return hidden


def _embedded(nodes: list[dict], tags: list[str]) -> set[int]:
    """Images with a safe source, and outermost formulas: kept where they sit inside or between main text.
    `tags`: each node's tag; a page without formulas is searched for its images alone."""
    if "math" not in tags:
        return {nodes[i]["id"] for i in compress(range(len(nodes)), map("img".__eq__, tags)) if shown_src(nodes[i])}
    found = set()
    in_math: set[int] = set()
    for node in nodes:
        tag, parent = node["tag"], node["parent"]
        if parent in in_math or tag == "math":
            if parent not in in_math:
                found.add(node["id"])
            in_math.add(node["id"])
        elif tag == "img" and shown_src(node):
            found.add(node["id"])
    return found


def shown_src(img: dict) -> str | None:
    """An <img>'s address where the article shows it: a safe one, on a picture the page does not state to be a
    spacer or a tracking pixel (SPACER_PX; `<img src=spacer.gif width=1 height=20>`, dozens on old pages), nor
    hides by its own markup (a spinner shown while a vote is sent, `style="display:none"`; its hidden
    ancestors are not read: a carousel marks its other slides aria-hidden, and they are the product's)."""
    if img.get("hidden") or min(img.get("width", SPACER_PX + 1), img.get("height", SPACER_PX + 1)) <= SPACER_PX:
        return None
    return safe_url(img.get("src"))


def _keep_maths(tree: _Tree, maths: list[int], kept: _Kept) -> set[int]:
    """Formulas whole (their text is no block's: blocks leave formulas out), without their visual copies;
    returns the nodes of those copies. KaTeX, MathJax and Wikipedia draw a formula beside its <math> and hide
    the drawing from assistive technology (aria-hidden): a hidden sibling of the <math> or of one of its
    nearest ancestors (MATH_COPY_LEVELS) that holds no formula itself is that copy."""
    nodes = tree.nodes
    drawn = _mathjax2_drawings(tree, maths)
    maths = [i for i in maths if i not in drawn]
    holds_math: set[int] = set()  # the formulas' ancestors
    formula: set[int] = set()  # the formulas' own nodes
    for i in maths:
        formula.update(range(i, tree.end(i)))
        kept.keep.update(range(i, tree.end(i)))
        kept.content.update(range(i, tree.end(i)))
        a = i
        while a >= 0 and a not in holds_math:
            holds_math.add(a)
            kept.keep.add(a)
            a = nodes[a]["parent"]
    copies: set[int] = set()
    seen: set[int] = set()
    for i in maths:
        parent = nodes[i]["parent"]
        for _ in range(MATH_COPY_LEVELS):
            if parent < 0 or parent in seen:
                break
            seen.add(parent)
            for c in tree.children(parent):
                if nodes[c].get("hidden") and c not in holds_math:
                    copies.update(range(c, tree.end(c)))
            parent = nodes[parent]["parent"]
    copies |= drawn
    kept.keep.difference_update(copies)
    kept.content.difference_update(copies)
    # Display math: no other text of the article shares the formula's nearest block element.
    plain = sorted(
        t for t in kept.content if t not in formula and nodes[t]["tag"] == "#text" and nodes[t]["text"].strip()
    )
    for i in maths:
        owner = nodes[i]["parent"]
        while owner >= 0 and (nodes[owner]["tag"] in INLINE or "-" in nodes[owner]["tag"]):
            owner = nodes[owner]["parent"]  # inline wrappers: span.katex, mjx-container
        if owner >= 0 and bisect_left(plain, tree.end(owner)) == bisect_left(plain, owner):
            kept.display_math.add(i)
    return copies


def _mathjax2_drawings(tree: _Tree, maths: list[int]) -> set[int]:
    """The nodes of MathJax 2's drawings of the formulas kept in scripts (a <math> with TeX and no children, or
    that in a <div> of its own, as snapshot.formula_nodes makes them): MathJax 2 draws each formula in the
    elements just before its script (MATHJAX2_DRAWING), which may hold MathML for assistive technology (a
    formula without TeX) or the drawing's letters as text."""
    nodes = tree.nodes
    drawn: set[int] = set()
    for i in maths:
        if not nodes[i].get("alt") or tree.end(i) != i + 1:
            continue
        at = nodes[i]["parent"]
        if at < 0 or tree.tags[at] != "div" or tree.children(at) != [i]:
            at = i  # an inline formula: its script's place; a display one: its <div>'s
        parent = nodes[at]["parent"]
        siblings = tree.children(parent) if parent >= 0 else []
        for c in reversed(siblings[: siblings.index(at)] if at in siblings else []):
            if tree.tags[c] == "#text" and not nodes[c]["text"].strip():
                continue
            if not any(name.startswith(MATHJAX2_DRAWING) for name in nodes[c].get("classes", ())):
                break
            drawn.update(range(c, tree.end(c)))
    return drawn


def _keep_image(tree: _Tree, i: int, kept: _Kept) -> None:
    nodes = tree.nodes
    _keep_with_ancestors(nodes, (i,), kept.keep)
    figure = tree.figure(i)
    if figure is not None and figure not in kept.captioned:  # a kept figure keeps its caption
        kept.captioned.add(figure)
        for j in range(figure, tree.end(figure)):
            if nodes[j]["tag"] == "figcaption":
                caption = range(j, tree.end(j))
                kept.content.update(caption)
                _keep_with_ancestors(nodes, caption, kept.keep)


def _same_page(href: str, page: str | None) -> str | None:
    """The fragment of a link to a place on the page itself, else None."""
    if not page or "#" not in href:
        return None
    address, fragment = href.split("#", 1)
    return unquote(fragment) if fragment and address == page.split("#", 1)[0] else None


def _link_targets(nodes: list[dict], keep: set[int], page: str | None) -> set[str]:
    """Ids of kept elements that kept links of the article point to (footnotes and their back links)."""
    fragments = set()
    for i in keep:
        href = nodes[i].get("href") if nodes[i]["tag"] == "a" else None
        fragment = _same_page(href, page) if href else None
        if fragment is not None:
            fragments.add(fragment)
    if not fragments:  # most articles: no link to a place on the page, no ids to read
        return fragments
    return fragments & {nodes[i]["html_id"] for i in keep if nodes[i].get("html_id")}


def _language(nodes: list[dict], i: int, levels: int) -> str | None:
    """A code block's language, from a class on the node or its nearest `levels` ancestors."""
    for _ in range(levels + 1):
        names = nodes[i].get("classes", ())
        for name in names:
            match = _LANGUAGE_CLASS.match(name)
            if match:
                return match.group(1).lower()
        for k, name in enumerate(names):
            if name.lower() in _LANGUAGE_NEXT:
                after = (n for n in names[k + 1 :] if n.lower() not in _LANGUAGE_FLAGS)
                match = _LANGUAGE_TOKEN.fullmatch(next(after, ""))
                if match:
                    return match.group(1).lower()
        i = nodes[i]["parent"]
        if i < 0:
            break
    return None


def build_tree(snapshot: dict, blocks: list[Block], main: list[bool], kept: _Kept | None = None) -> Element:
    """The pruned, allowlisted article tree: the kept nodes (`_keep_set`, unless given) as Elements, then loose
    inline content wrapped in paragraphs, generic containers flattened, and code languages carried to <code>."""
    nodes = snapshot["nodes"]
    kept = kept or _keep_set(nodes, blocks, main)
    return _finished(_Builder(nodes, kept, snapshot.get("url")).build())


def _finished(root: Element) -> Element:
    """The built tree (`_Builder`) through the passes after it, in place."""
    _no_blocks_in_lines(root)
    _paragraphs(root)
    _flatten_divs(root)
    _items_only_in_lists(root)
    _code_languages(root)
    _pictures_in_sentences(root)
    return root


def first_screen(snapshot: dict, blocks: list[Block], main: list[bool], chars: int) -> tuple[str, _Kept] | None:
    """The HTML of the article's first top-level elements, holding at least `chars` characters of text, as
    `to_html` of the whole tree starts, and the kept nodes of the whole (for `build_tree` later); None when those
    elements are most of the article (then the whole is as quick to build). What the reader's first screen shows,
    made from the start of the page alone: at 3,900 elements the whole tree and its HTML are a quarter of the
    host's time to the first screen.

    The builder reads the kept nodes in document order, each added under an element on the tree's right edge
    (the host of a node is one of its ancestors' elements), so the tree built from the first nodes is the
    whole's with that edge unfinished. The passes after it (`_finished`) change an element's children from
    what they are and what is under them: an element off the right edge comes out as in the whole; on it, only
    its last child can differ (an inline run that goes on, a div or list that gets more). So every top-level
    element but the last is the whole's, in order."""
    nodes = snapshot["nodes"]
    kept = _keep_set(nodes, blocks, main)
    order = sorted(kept.keep)
    total = sum(len(b.text) for b, m in zip(blocks, main) if m)
    budget = chars + chars // 2
    while 2 * budget < total:  # else build the whole
        builder = _Builder(nodes, kept, snapshot.get("url"))
        text = 0
        upto = len(order)
        for k, i in enumerate(order):
            if i in kept.content and nodes[i]["tag"] == "#text":
                text += len(nodes[i]["text"])
                if text >= budget:
                    upto = k + 1
                    break
        root = _finished(builder.build(order[:upto]))
        done = root.children[:-1]  # the last may go on
        if sum(len(e.text) for top in done for e in top.walk() if e.tag is None) >= chars:
            return _html(done).lstrip(), kept
        budget *= 2
    return None


_ITEM_LIST = {"li": "ul", "dt": "dl", "dd": "dl"}  # an item, and the list it needs


def _listed(children: list[Element]) -> list[Element]:
    """`children` with each run of items (blanks between them aside) in a list of their kind."""
    out: list[Element] = []
    made: Element | None = None  # the list the last item went into, while the run goes on
    blank: list[Element] = []  # blanks after it, dropped if another item of its kind follows
    for c in children:
        kind = _ITEM_LIST.get(c.tag or "")
        if made is not None and c.tag is None and not c.text.strip():
            blank.append(c)
            continue
        if kind is not None and made is not None and made.tag == kind:
            made.children.append(c)
        elif kind is not None:
            made = Element(kind, children=[c])
            out += [*blank, made]
        else:
            made = None
            out += [*blank, c]
        blank = []
    return out + blank


def _no_blocks_in_lines(root: Element) -> None:
    """A paragraph or heading that holds a block (a page's <p> around a table or a list, a heading around a
    heading) becomes a container, its loose text then paragraphs of their own; an inline element that does
    stands as a block. A browser parses a block inside a paragraph as the paragraph's end (and a heading
    inside a heading as the first's), so the reader would show the words after it outside any paragraph and
    an empty one after them. A table's row or cell outside its table (a forum post that was a row, its own
    element now the post's section) becomes a container: a browser drops it and its cells run together.
    Each element after its children (no recursion)."""
    holds: set[int] = set()  # id() of each element with a block in it, or in the inline elements in it
    order: list[Element] = []
    stack = [root]
    while stack:  # parents first: a row is outside its table once its tbody is
        el = stack.pop()
        order.append(el)
        for c in el.children:
            if c.tag in _TABLE_PARTS and el.tag not in _TABLE_PARTS[c.tag]:
                c.tag = "div"
        stack.extend(c for c in el.children if c.tag is not None and c.children)
    for el in reversed(order):  # children first
        block = any(
            c.tag in BLOCK_TAGS or id(c) in holds for c in el.children if c.tag is not None and c.tag not in _VOID
        )
        if block and el.tag in _LINES:
            el.tag = "div"  # flattened later, its inline runs wrapped first
        elif block and _is_inline(el):
            el.block = True
        if block:
            holds.add(id(el))
        elif el.tag in _LINES or _is_inline(el):  # a div of inline content in a line: part of the line
            for c in el.children:
                if c.tag == "div":
                    c.tag = "span"


_LINES = frozenset({"p"}) | _HEADINGS  # what holds a line of text, never a block
# A table's parts, and what each may sit in.
_TABLE_PARTS = {
    **dict.fromkeys(("thead", "tbody", "tfoot", "caption"), frozenset({"table"})),
    "tr": frozenset({"table", "thead", "tbody", "tfoot"}),
    **dict.fromkeys(("td", "th"), frozenset({"tr"})),
}


def _pictures_in_sentences(root: Element) -> None:
    """A picture with words before and after it in its line (an icon, a rating's star, a smiley the page
    drew) is marked `INLINE_PICTURE`, which the reader shows in the line; the others stand as blocks there.
    A line: the inline content of a paragraph, an item or a cell, up to a nested block or a <br>."""
    for el in root.walk():
        if el.tag not in HOLDS_INLINE or el.tag == "pre":
            continue
        line: list[Element | bool] = []  # the line's pictures, and for each text run whether it has words
        stack = list(reversed(el.children))
        while stack:
            e = stack.pop()
            if e.tag is None:
                line.append(bool(e.text.strip()))
            elif e.tag == "img":
                line.append(e)
            elif e.tag == "br" or e.tag in BLOCK_TAGS:
                _mark_inline_pictures(line)
                line = []
            else:
                stack.extend(reversed(e.children))
        _mark_inline_pictures(line)


def _mark_inline_pictures(line: list[Element | bool]) -> None:
    words = [k for k, part in enumerate(line) if part is True]
    if len(words) < 2:
        return
    for part in line[words[0] + 1 : words[-1]]:
        if isinstance(part, Element):
            part.attrs["class"] = INLINE_PICTURE


SPACER_PX = 2  # a picture the page states this thin or less is a spacer or a tracking pixel: never shown
INLINE_PICTURE = "pith-inline"  # the class of a picture inside a line of text (reader.css shows it so)


def _items_only_in_lists(root: Element) -> None:
    """A list holds items only: what else sits in a <ul>/<ol> (paragraphs a CMS typed after an advert that
    broke the list, once the advert's wrappers are flattened) goes into the item before it, or into an item of
    its own at the list's start. Renderings read a list's items, so content beside them would be lost there.
    And items sit in a list: a run of them anywhere else (an item in an item, once the heading between them
    is flattened, which a browser reads as the first item's end) goes into a list of its own."""
    stack = [root]
    while stack:
        el = stack.pop()
        if el.tag not in ("ul", "ol", "dl") and any(c.tag in _ITEM_LIST for c in el.children):
            el.children = _listed(el.children)
        if el.tag in ("ul", "ol") and any(c.tag != "li" for c in el.children):
            items: list[Element] = []
            for c in el.children:
                if c.tag == "li":
                    items.append(c)
                elif c.tag is None and not c.text.strip():
                    continue
                elif items:
                    items[-1].children.append(c)
                else:
                    items.append(Element("li", children=[c]))
            el.children = items
        stack.extend(c for c in el.children if c.tag is not None)


class _Builder:
    """Kept snapshot nodes -> Elements, in document order. Each kept element records the Element its children
    go into (its own, or its parent's when it is unwrapped) and their nesting level, which MAX_NESTING caps."""

    def __init__(self, nodes: list[dict], kept: _Kept, url: str | None):
        self.nodes = nodes
        self.kept = kept
        self.url = url
        self.targets = _link_targets(nodes, kept.keep, url)
        self.root = Element("article")
        self.into: dict[int, Element] = {}  # kept element -> where its children go
        self.level: dict[int, int] = {}  # kept element -> its children's nesting level
        self.in_math: set[int] = set()
        self.links: set[int] = set()  # the nodes written as links
        self.blanks = Blanks(nodes)  # where the blocks' text parts two words
        self.outer: dict[int, Element] = {}  # id() of an inline element written -> the element it is in

    def build(self, order: list[int] | None = None) -> Element:
        """The tree of the kept nodes, or of `order`, the first of them in document order (`first_screen`)."""
        nodes, content = self.nodes, self.kept.content
        into, levels, in_math, root = self.into, self.level, self.in_math, self.root
        for i in sorted(self.kept.keep) if order is None else order:  # ids are document order
            node = nodes[i]
            parent = node["parent"]
            host = into.get(parent, root)
            level = levels.get(parent, 0)
            tag = node["tag"]
            if tag == "#text":
                if i in content:
                    text = node["text"]
                    if self.blanks.before(i) and not self._blank_before(host):
                        text = " " + text
                    host.children.append(Element(None, text))
                continue
            if tag == "br":
                host.children.append(Element("br"))
                continue
            if tag == "math" or parent in in_math:
                self._formula(i, tag, host, level)
            elif tag == "img":
                self._image(i, node, host, level)
            else:
                self._element(i, node, host, level)
        return self.root

    def _blank_before(self, host: Element) -> bool:
        """The blank that parts a text's first word from the word before, before the inline elements the text
        opens, so a link or emphasis starts at its word (`Rack <em>Shipwreck</em>`, not `Rack<em> Shipwreck`, an
        underlined blank); False where the text opens none."""
        outer = self.outer
        if host.children or id(host) not in outer:
            return False
        up = outer[id(host)]
        while len(up.children) == 1 and id(up) in outer:  # a link around an emphasis: before both
            up = outer[id(up)]
        up.children.insert(len(up.children) - 1, Element(None, " "))  # before its last child, the one opened
        return True

    def _enter(self, i: int, into: Element, level: int) -> None:
        self.into[i], self.level[i] = into, level

    def _formula(self, i: int, tag: str, host: Element, level: int) -> None:
        """A formula's MathML element as it is; HTML inside a formula (an <mtext>'s span), or nesting past the
        cap, gives its text only."""
        self.in_math.add(i)
        if tag in MATH_TAGS and level < MAX_NESTING:
            el = Element(tag)
            if tag == "math" and self.nodes[i].get("alt"):  # MathML's alttext: the page's TeX
                el.tex = self.nodes[i]["alt"]
                if i + 1 == len(self.nodes) or self.nodes[i + 1]["parent"] != i:  # a script's TeX: shown as it is
                    el.children.append(Element("mtext", children=[Element(None, el.tex)]))
            if i in self.kept.display_math:
                el.attrs["display"] = "block"
            host.children.append(el)
            self._enter(i, el, level + 1)
        else:
            self._enter(i, host, level)

    def _image(self, i: int, node: dict, host: Element, level: int) -> None:
        """An image with a safe source as itself, its alt on it and nowhere else (a reader or a clipper shows
        the picture; its alt is for those who cannot, who would hear it twice as a caption too); a picture of
        an emoji as its character, the page's text at the text's size."""
        src = shown_src(node)
        if not src:  # kept only as the ancestor of main text: a script can put nodes inside an <img>
            self._enter(i, host, level)
            return
        alt = node.get("alt", "")
        if _emoji(alt):
            host.children.append(Element(None, alt))
            return
        attrs = {"src": src, "alt": alt}
        for side in ("width", "height"):  # the page's size: an icon stays small, a photo's box waits for it
            if side in node:
                attrs[side] = str(node[side])
        host.children.append(Element("img", attrs=attrs))

    def _element(self, i: int, node: dict, host: Element, level: int) -> None:
        """An allowlisted element as itself; any other unwrapped into its parent when inline (custom elements
        wrap like spans), or kept as a generic container (flattened once its loose text is in paragraphs) when
        it is a block, or when a link points to it and its id must stay (on its first child, for a div)."""
        tag = node["tag"]
        out_tag, attrs, page_href = self._allowed(i, node, tag, level)
        if out_tag is None:
            if (tag in INLINE or "-" in tag) and "id" not in attrs:
                self._enter(i, host, level)  # unwrap: children go where this node would have gone
                return
            out_tag = "span" if tag in INLINE else "div"
        el = Element(out_tag, attrs=attrs, page_href=page_href)
        host.children.append(el)
        if _is_inline(el):  # a blank its first text opens goes before it
            self.outer[id(el)] = host
        self._enter(i, el, level + (out_tag != "div"))  # generic containers are flattened away

    def _allowed(self, i: int, node: dict, tag: str, level: int) -> tuple[str | None, dict[str, str], str | None]:
        """The allowlisted tag an element becomes (None: none, or nesting past the cap), the attributes it
        keeps, and a same-page link's address on the page."""
        out_tag = None
        attrs: dict[str, str] = {}
        page_href = None
        if tag in BLOCK_TAGS and level < MAX_NESTING:
            out_tag = tag
        elif tag in INLINE_MAP and level < MAX_NESTING:
            out_tag = INLINE_MAP[tag]
        elif tag == "a" and level < MAX_NESTING and (href := safe_url(node.get("href"))) and not self._in_link(i):
            out_tag, attrs = "a", {"href": href}
            self.links.add(i)
            fragment = _same_page(attrs["href"], self.url)
            if fragment in self.targets:
                page_href, attrs["href"] = attrs["href"], "#" + quote(fragment, safe="")
        if out_tag in ("pre", "code"):
            language = _language(self.nodes, i, LANGUAGE_LEVELS if out_tag == "pre" else 0)
            if language:
                attrs["class"] = f"language-{language}"
        if node.get("html_id") in self.targets:
            attrs["id"] = node["html_id"]
        return out_tag, attrs, page_href

    def _in_link(self, i: int) -> bool:
        """Whether a kept link holds node `i`: a link in a link (a page's markup can nest them where a table
        stood between) is read by a browser as the first's end, so the inner one gives its text alone."""
        nodes, links = self.nodes, self.links
        parent = nodes[i]["parent"]
        while parent >= 0:
            if parent in links:
                return True
            parent = nodes[parent]["parent"]
        return False


def _code_languages(root: Element) -> None:
    """A code block's language on its <code> too (where highlighters and Markdown look), when only the
    <pre> or its wrapper named it."""
    stack = [root]
    while stack:
        el = stack.pop()
        if el.tag == "pre" and "class" in el.attrs:
            for c in el.children:
                if c.tag == "code" and "class" not in c.attrs:
                    c.attrs["class"] = el.attrs["class"]
            continue
        stack.extend(c for c in el.children if c.tag is not None)


def _flatten_divs(root: Element) -> None:
    stack = [root]
    while stack:
        el = stack.pop()
        if any(c.tag == "div" for c in el.children):
            flat: list[Element] = []
            todo = list(reversed(el.children))
            while todo:
                c = todo.pop()
                if c.tag == "div":
                    if "id" in c.attrs:  # a link's target: its first element child carries the id on
                        first = next((k for k in c.children if k.tag not in (None, "br", "img", "hr")), None)
                        if first is not None and "id" not in first.attrs:
                            first.attrs["id"] = c.attrs["id"]
                    todo.extend(reversed(c.children))
                else:
                    flat.append(c)
            el.children = flat
        stack.extend(c for c in el.children if c.tag is not None)


def _emoji(text: str) -> bool:
    """Whether an image's alt is an emoji alone ("😀", "❤️", a flag): symbols, with the joiners, selectors and
    modifiers that build one, and no letter, digit nor punctuation."""
    return (
        0 < len(text) <= EMOJI_CHARS
        and all(unicodedata.category(c) in _EMOJI_PARTS for c in text)
        and any(unicodedata.category(c) == "So" for c in text)
    )


EMOJI_CHARS = 16  # the longest emoji sequence read as one: a family of four joined, with its selectors
_EMOJI_PARTS = frozenset({"So", "Sk", "Mn", "Me", "Cf"})


def _is_inline(el: Element) -> bool:
    return (el.tag is None or el.tag in _INLINE_OUT or el.tag in ("a", "br", "span", "math")) and not el.block


def _paragraphs(root: Element) -> None:
    """Wrap runs of inline content that sit directly in a block container into <p>; drop empty elements."""
    stack = [root]
    while stack:
        el = stack.pop()
        if el.tag is None or _is_inline(el):
            continue
        if el.tag not in HOLDS_INLINE and any(_is_inline(c) for c in el.children):
            el.children = _inline_runs(el.children)
        stack.extend(c for c in el.children if c.tag is not None)


def _has_text(el: Element) -> bool:
    stack = [el]
    while stack:
        e = stack.pop()
        if e.tag is None and e.text.strip():
            return True
        if e.tag == "img":
            return True
        stack.extend(e.children)
    return False


def _shown(el: Element) -> bool:
    """Whether to_html writes the element (with its content): one that shows nothing is left out."""
    return el.tag in ("br", "img", "hr", "td", "th") or el.tag in MATH_TAGS or _has_text(el)


_VOID = frozenset({"br", "img", "hr"})  # written without content or closing tag
_ALWAYS_SHOWN = frozenset({"td", "th"}) | MATH_TAGS  # written even when empty (_shown)


def _closing(tag: str) -> str:
    return f"</{tag}>\n" if tag in BLOCK_TAGS else f"</{tag}>"


_PRE_CLOSE = _closing("pre")


def to_html(root: Element) -> str:
    """The tree as HTML."""
    return _html(root.children).strip()


def _html(elements: list[Element]) -> str:
    """`elements` as HTML, unstripped. One loop over a stack that holds elements to write and, once an element
    is open, its closing tag (a str) to write after its children: a tag a rendering, no tuple per element (a
    fifth of the reader's HTML at 5,800 elements)."""
    out: list[str] = []
    append = out.append
    escape = htmlmod.escape
    closing: dict[str, str] = {}
    in_pre = 0
    stack: list[Element | str] = list(reversed(elements))
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        el = pop()
        if isinstance(el, str):  # a closing tag
            in_pre -= el is _PRE_CLOSE
            append(el)
            continue
        tag = el.tag
        if tag is None:
            text = el.text
            if in_pre or not (text.isprintable() and "  " not in text):  # _plain, inline
                text = strip_controls(text if in_pre else _folded(text))
            append(escape(text, quote=False))
            continue
        if tag not in _VOID and tag not in _ALWAYS_SHOWN and not _has_text(el):  # not _shown(el)
            if _is_inline(el) and "".join(_texts(el)):  # its blank parts the words around it: "modality<sup> </sup>for"
                append(" ")
            continue
        attrs = "".join(f' {k}="{htmlmod.escape(strip_controls(v))}"' for k, v in el.attrs.items()) if el.attrs else ""
        append(f"<{tag}{attrs}>")
        if tag in _VOID:
            continue
        if tag == "pre":
            in_pre += 1
            push(_PRE_CLOSE)
        else:
            end = closing.get(tag)
            if end is None:
                end = closing[tag] = _closing(tag)
            push(end)
        extend(reversed(el.children))
    return "".join(out)


_BLANK = Element(None, " ")  # what parts a block inside inline content from what follows it


def _inline_md(el: Element, in_table: bool = False, breaks: bool = True) -> str:
    """An element's inline content as one Markdown line, or lines joined by hard breaks where `breaks` (a
    heading and a table cell hold one line, inline content only: nothing at its start can begin a block),
    inert by construction (`inert`): text escaped, targets checked and encoded, emphasis written only where
    it reads as emphasis, each line's start escaped where it would begin a block. In a table cell `|` is
    escaped in code and TeX too."""
    parts: list[str] = []
    inside = {"strong": 0, "em": 0, "s": 0, "a": 0}
    link_starts: list[int] = []  # where each open link's "[" is in parts
    # (element, closing text or None, what it closes)
    stack: list[tuple[Element, str | None, str]] = [(el, None, "")]
    while stack:
        e, suffix, closes = stack.pop()
        if suffix is not None:
            if closes == "a":  # blanks at the text's ends go outside the brackets: "[report](...) on"
                start = link_starts.pop()
                lead, text, trail = _outer_blanks("".join(parts[start + 1 :]))
                parts[start:] = [lead, "[", text, suffix, trail]
            else:
                parts.append(suffix)
            inside[closes] -= 1
            continue
        if e.tag is None:
            text = e.text
            parts.append(escape_text(text if _plain(text) else _folded(clean(text))))
            continue
        if e.tag == "br":
            parts.append("\\\n" if breaks else " ")
            continue
        if e.tag == "img":
            parts.append(_image_md(e))
            continue
        if e.tag == "math":
            parts.append(_math_md(e, in_table))
            continue
        if e.tag == "code" and e is not el:  # a code span: its text as written, nothing escaped
            code = _folded(clean("".join(_texts(e))))
            if inside["a"] and "]" in code:  # `[a`]:` at a line's start reads as a link reference definition
                parts.append(escape_text(code))
                continue
            span = code_span(code, in_table)
            k = _last_part(parts)
            if span and k is not None and parts[k].endswith("`"):  # two backtick runs side by side read as one
                parts.append(" ")
            parts.append(span)
            continue
        if e.tag == "a" and e.note:  # a footnote's reference, or its note's link back: a label or nothing
            parts.append(f"[^{e.note}]" if e.note != "-" else "")
            continue
        kind = e.tag if e.tag in OPEN else None
        if e is not el and not _is_inline(e):  # a block inside (a cell's paragraphs): a blank at each side
            parts.append(" ")
            stack.append((_BLANK, None, ""))
        elif e.tag == "a" and not inside["a"]:  # a link inside a link: its text only
            target = destination(safe_url(e.page_href or e.attrs.get("href")))
            if target:
                k = _last_part(parts)
                if k is not None and parts[k].endswith("!"):  # "![" would read as an image
                    parts[k] = parts[k][:-1] + "\\!"
                link_starts.append(len(parts))
                parts.append("[")
                inside["a"] += 1
                stack.append((e, f"]({target})", "a"))
        elif kind and not inside[kind]:  # the same emphasis inside itself: nothing more to mark
            parts.append(OPEN[kind])
            inside[kind] += 1
            stack.append((e, CLOSE[kind], kind))
        stack.extend(zip(reversed(e.children), repeat(None), repeat("")))
    line = "".join(parts)
    if "  " in line or "\t" in line:
        line = _SPACES_TABS.sub(" ", line)
    line = resolve_emphasis(line)
    if "\n" in line:
        line = _EDGE_BREAKS.sub("", _BREAK_BLANKS.sub(r"\\\n", line))  # a break at either end is no break
    else:
        line = line.strip()
    return escape_line_starts(line) if breaks else line


_BREAK_BLANKS = re.compile(r" *\\\n *")  # a hard break (a backslash ending the line) without the blanks around it
_EDGE_BREAKS = re.compile(r"^(?:\s|\\\n)+|(?:\s|\\\n)+$")


_LEADING = re.compile("[\ufdd0-\ufdd2 \t]*")
_TRAILING = re.compile("[\ufdd3-\ufdd5 \t]*$")
_LEAD_CHARS = frozenset("\ufdd0\ufdd1\ufdd2 \t")  # what _LEADING and _TRAILING match, one character each
_TRAIL_CHARS = frozenset("\ufdd3\ufdd4\ufdd5 \t")


def _match_or_blank(found: re.Match[str] | None) -> str:
    """What a pattern that matches everywhere (a run of `*`) matched; typed for the checker."""
    return found.group() if found is not None else ""


def _outer_blanks(text: str) -> tuple[str, str, str]:
    """A link's text without the blanks at its ends (looking past the emphasis marks there), and a blank for
    each end that had some."""
    if not text or (text[0] not in _LEAD_CHARS and text[-1] not in _TRAIL_CHARS):  # most links: no pass
        return "", text, ""
    head = _match_or_blank(_LEADING.match(text))
    tail = _match_or_blank(_TRAILING.search(text, len(head)))
    lead = " " if " " in head or "\t" in head else ""
    trail = " " if " " in tail or "\t" in tail else ""
    if not lead and not trail:
        return "", text, ""
    core = text[len(head) : len(text) - len(tail)]
    return lead, _NO_BLANKS.sub("", head) + core + _NO_BLANKS.sub("", tail), trail


_NO_BLANKS = re.compile("[ \t]+")


def _last_part(parts: list[str]) -> int | None:
    """The index of the line's last written part, emphasis marks aside (a mark may be dropped)."""
    for k in range(len(parts) - 1, -1, -1):
        if parts[k] and parts[k] not in _MARK_PARTS:
            return k
    return None


_MARK_PARTS = frozenset(OPEN.values()) | frozenset(CLOSE.values())


def _image_md(img: Element) -> str:
    """An image with a safe target, else its alt text."""
    alt = escape_text(_folded(clean(img.attrs.get("alt", ""))))
    target = destination(safe_url(img.attrs.get("src")))
    return f"![{alt}]({target})" if target else alt


def _quoted(prefix: str, text: str) -> str:
    """A block's lines, each after the prefix of the containers that hold it (block quotes, list items)."""
    return prefix + text.replace("\n", "\n" + prefix) if prefix and "\n" in text else prefix + text


def to_markdown(root: Element) -> str:
    """The article tree as Markdown: one block per line group, a blank line between blocks and none between
    the items of a list."""
    return markdown_blocks(root)[0]


def markdown_blocks(root: Element) -> tuple[str, list[list[int]]]:
    """The Markdown (`to_markdown`), and where each top-level element of the HTML (`to_html`: the children
    of `root` it writes as elements) is in it: [start, end) in characters (code points), [n, n] for one that
    gives no Markdown. The reader copies and saves the blocks a selection touches by these."""
    _footnotes(root)
    lines: list[str | tuple[str, bool]] = []
    owners: list[int] = []  # each line's top-level element, by its place among those to_html writes; -1: none
    shown = 0
    for child in root.children:
        # A top-level child's lines are those it gives alone: _markdown_blocks carries nothing between them.
        own = _markdown_blocks(Element("article", children=[child]))
        is_element = child.tag is not None and _shown(child)
        lines += own
        owners += [shown if is_element else -1] * len(own)
        shown += is_element
    text, starts = _join_blocks_at(lines)
    spans = [[len(text), len(text)] for _ in range(shown)]
    for owner, line, begin in zip(owners, lines, starts):
        if owner < 0:
            continue
        stop = min(begin + len(line[0] if isinstance(line, tuple) else line), len(text))
        span = spans[owner]
        spans[owner] = [begin, stop] if span[0] == span[1] == len(text) else [span[0], stop]
    return text, spans


# A footnote reference's text, its brackets aside: "1", "[12]", "*", "†", "iv", "a". Not a word: a table of
# contents whose entries ("Ring", "Arlo") link to the reviews, each a list item, is no list of notes.
NOTE_MARK = re.compile(r"\d{1,4}|[ivx]{1,5}|[a-z]|[*†‡§¶]{1,3}", re.IGNORECASE)


def _footnotes(root: Element) -> None:
    """Mark the page's footnotes for Markdown (`Element.note`): a link whose short text points to a list item
    of the article is a reference, that item its note, and a link inside a note back to an element that holds
    a reference is its back link (GFM footnotes link back themselves). Labels count from 1 in the order the
    notes are first referenced. A reference without its note in the article stays a plain link."""
    ids: dict[str, Element] = {}
    for e in root.walk():
        e.note = ""
        if "id" in e.attrs:
            ids.setdefault(e.attrs["id"], e)
    if not ids:
        return
    holds_reference: set[str] = set()  # ids of references and of their inline ancestors
    labels: dict[int, str] = {}  # id() of a note -> its label
    unsafe: dict[int, bool] = {}  # id() of a note -> whether a definition would be an unsafe link
    stack: list[tuple[Element, tuple[str, ...]]] = [(root, ())]
    while stack:
        e, above = stack.pop()
        if e.tag == "a":
            fragment = _fragment(e)
            note = ids.get(fragment) if fragment is not None else None
            mark = "".join(_texts(e)).strip().strip("[]()").strip() if note is not None else ""  # read with a note
            if note is not None and note.tag == "li" and id(note) not in unsafe:
                unsafe[id(note)] = _unsafe_definition(note)
            if note is not None and note.tag == "li" and NOTE_MARK.fullmatch(mark) and not unsafe[id(note)]:
                labels.setdefault(id(note), str(len(labels) + 1))
                e.note = labels[id(note)]
                holds_reference.update(above)
                if "id" in e.attrs:
                    holds_reference.add(e.attrs["id"])
            continue
        inline = e.tag in _INLINE_OUT or e.tag == "span"
        mine = (e.attrs["id"],) if "id" in e.attrs and inline else ()
        stack.extend((c, (above if inline else ()) + mine) for c in reversed(e.children) if c.tag is not None)
    if not labels:
        return
    for e in root.walk():
        if e.tag == "li" and id(e) in labels:
            e.note = labels[id(e)]
            for a in e.walk():
                if a.tag == "a" and not a.note and _fragment(a) in holds_reference:
                    a.note = "-"


def _unsafe_definition(note: Element) -> bool:
    """Whether the note, written `[^1]: text`, would be a link reference definition to an unsafe target where
    Markdown is read without footnotes: its first word names a scheme other than http(s) and mailto (a
    definition's target is its first word, backslash escapes read)."""
    text, _ = _list_item_md(note)
    words = text.split(None, 1)
    match = _SCHEME.match(words[0].replace("\\", "")) if words else None
    return match is not None and match.group(1).lower() not in SAFE_SCHEMES


def _fragment(a: Element) -> str | None:
    """The id a link of the article to a place in it points to, else None."""
    href = a.attrs.get("href", "")
    return unquote(href[1:]) if href.startswith("#") else None


_TEXT_BLOCKS = frozenset({"p", "dt", "dd", "caption", "figcaption"})
# What a figure holds that is written as itself, not as its caption: a pull quote's quote, a listing's code.
_FIGURE_BLOCKS = frozenset({"blockquote", "pre", "table", "ul", "ol", "dl", "figure"}) | _HEADINGS
# What a paragraph or a definition may hold that is written as a block of its own, the rest as its line: code
# in a definition stays code, while a picture in a sentence (an emoji, an icon) stays in the sentence.
_WRITTEN_APART = frozenset({"p", "blockquote", "pre", "table", "ul", "ol", "dl"}) | _HEADINGS


def _markdown_blocks(root: Element) -> list[str | tuple[str, bool]]:
    """Each block's Markdown in document order; a list item as (line, True). Containers (blockquote, dl,
    article, lists) give no line of their own: their children are visited with the prefix they set, which
    every line of a block inside them starts with: "> " for a block quote, and under a list item spaces to its
    text (3 columns under "1. "), so a paragraph, table or code block in an item stays in it and a list after
    them stays nested. An item without text gives no line (an empty item cannot start a list after a
    paragraph: "1." would read as text), its children taking its place, and the numbers count the items
    written."""
    lines: list[str | tuple[str, bool]] = []
    # (element, the prefix of its lines, a list item's (text, bullet, block children))
    stack: list[tuple[Element, str, tuple | None]] = [(c, "", None) for c in reversed(root.children)]
    while stack:
        el, at, item = stack.pop()
        tag = el.tag
        if tag is None or tag in _INLINE_OUT or tag in ("a", "br", "img", "math"):
            text = _inline_md(Element("p", children=[el]))
            if text:
                lines.append(_quoted(at, text))
        elif tag in _HEADINGS:
            text = _inline_md(el, breaks=False)
            if text:
                lines.append(f"{at}{'#' * int(tag[1])} {heading_text(text)}")
        elif tag in _TEXT_BLOCKS and any(c.tag in _WRITTEN_APART for c in el.children):  # a definition's code
            stack.extend((c, at, None) for c in reversed(_inline_runs(el.children)))
        elif tag in _TEXT_BLOCKS:
            text = _inline_md(el)
            if text:
                lines.append(_quoted(at, text))
        elif tag == "pre":
            lines.append(_fenced_md(el, at))
        elif tag == "li":
            if item is None:  # an item outside a list: a bullet of its own
                text, blocks = _list_item_md(el)
                item = (text, "-", blocks)
            text, bullet, blocks = item
            if el.note and text:  # a footnote: its definition, its blocks indented under it
                lines.append(_quoted(at, f"[^{el.note}]: {text}"))
                stack.extend((c, at + "    ", None) for c in reversed(blocks))
                continue
            if text:
                under = at + " " * (len(bullet) + 1)
                lines.append((f"{at}{bullet} " + text.replace("\n", "\n" + under), True))
                at = under
            stack.extend((c, at, None) for c in reversed(blocks))
        elif tag in ("ul", "ol"):
            items, written = [], 0
            for li in (c for c in el.children if c.tag == "li"):
                text, blocks = _list_item_md(li)
                written += bool(text) and not li.note
                items.append((li, at, (text, f"{written}." if tag == "ol" else "-", blocks)))
            stack.extend(reversed(items))
        elif tag == "table":
            caption = next((c for c in el.children if c.tag == "caption" and _has_text(c)), None)
            if caption is not None:
                lines.append(_quoted(at, _inline_md(Element("em", children=[caption]))))
            rows = _table_rows(el)
            if _layout_table(rows):  # its cells' blocks, in reading order
                cells = [block for row in rows for cell in row for block in _inline_runs(cell.children)]
                stack.extend((c, at, None) for c in reversed(cells))
            else:
                lines.append(_table_md(rows, at))
        elif tag == "figure":  # its images; its quotes, lists, tables and code as blocks; other text a caption
            parts = [
                c if c.tag == "img" or c.tag in _FIGURE_BLOCKS else Element("p", children=[Element("em", children=[c])])
                for c in el.children
                if c.tag == "img" or _has_text(c)
            ]
            stack.extend((c, at, None) for c in reversed(parts))
        elif tag == "hr":
            lines.append(at + "---")
        else:  # blockquote, dl, article, and other containers
            inner = at + "> " if tag == "blockquote" else at
            stack.extend((c, inner, None) for c in reversed(el.children))
    return lines


_INFO = re.compile(r"[A-Za-z0-9_+#.-]{1,32}")


def _fenced_md(pre: Element, prefix: str) -> str:
    """A code block, fenced with more backticks than it holds in a row, with its language; each line after
    the prefix of the containers that hold it."""
    body = clean("".join(_texts(pre))).strip("\n")
    classes = [pre.attrs.get("class", "")] + [c.attrs.get("class", "") for c in pre.children if c.tag == "code"]
    language = next((c.removeprefix("language-") for c in classes if c), "")
    language = language if _INFO.fullmatch(language) else ""
    mark = fence(body)
    return _quoted(prefix, f"{mark}{language}\n{body}\n{mark}")


def _list_item_md(li: Element) -> tuple[str, list[Element]]:
    """A list item's text, for the bullet's line: its first paragraph (a run of inline content or a `<p>`) if
    only pictures come before it, a picture that is no figure on the line before the text, as the reader shows
    it (a listing's thumbnail); and its other blocks, in order, which follow one level deeper (a later run
    of inline content a paragraph of its own). An item that opens with a heading (a card's title) has it on the
    bullet's line, as CommonMark reads "- ### Title"; one that opens with a list has no text."""
    blocks = _inline_runs(li.children)
    for k, block in enumerate(blocks):
        heading = block.tag if block.tag in _HEADINGS else None
        text = _inline_md(block, breaks=not heading) if heading or block.tag == "p" else ""
        if text:
            pictures = [_image_md(b) for b in blocks[:k] if b.tag == "img"]
            if heading and pictures:  # a card's icon on the bullet's line, its title under it
                return " ".join(pictures), [b for j, b in enumerate(blocks) if j >= k or b.tag != "img"]
            if heading:  # a card's title
                text = f"{'#' * int(heading[1])} {heading_text(text)}"
            return " ".join([*pictures, text]), [b for b in blocks[:k] if b.tag != "img"] + blocks[k + 1 :]
        if block.tag not in ("figure", "img", "p"):
            break
    return "", blocks


def _inline_runs(children: list[Element]) -> list[Element]:
    """`children` with each run of inline content (text, links, emphasis) that holds text in a paragraph of its
    own, a run of blanks left out: a container's loose text in the reader, and in the Markdown a list item's or
    a table cell's (whose HTML keeps them as they are), so text after a nested list or a paragraph is not glued
    to the text before it."""
    out: list[Element] = []
    run: list[Element] = []
    for c in [*children, None]:
        if c is not None and _is_inline(c):
            run.append(c)
            continue
        if any(map(_has_text, run)):
            out.append(Element("p", children=run))
        run = []
        if c is not None:
            out.append(c)
    return out


LAYOUT_CELL_WORDS = 100  # a cell holding more is a column of the page's text, not a value in a table


def _layout_table(rows: list[list[Element]]) -> bool:
    """Whether a table (its `_table_rows`) lays out the page instead of holding data, so that its cells are
    written as the blocks they hold (a GFM cell holds one line: an article laid out in a table came out as one
    cell, its paragraphs and headings run together). A layout table holds another table or a heading, or a
    cell of more than LAYOUT_CELL_WORDS words, or no row with two cells of text (one column)."""
    for cell in (cell for row in rows for cell in row):
        words = 0
        for e in cell.walk():
            if e.tag == "table" or e.tag in _HEADINGS:
                return True
            if e.tag is None:
                words += len(e.text.split())
        if words > LAYOUT_CELL_WORDS:
            return True
    return max((sum(map(_has_text, row)) for row in rows), default=0) < 2


def _table_rows(table: Element) -> list[list[Element]]:
    """The table's rows in order, each its td and th cells (a cell's own tables are not read)."""
    rows: list[list[Element]] = []
    stack = [table]
    while stack:
        e = stack.pop()
        if e.tag == "tr":
            rows.append([c for c in e.children if c.tag in ("td", "th")])
            continue
        stack.extend(reversed([c for c in e.children if c.tag is not None]))
    return rows


_QUOTES = re.compile(r"[ >]*")  # the prefix of a line inside block quotes and list items


def _shared_quotes(before: str, after: str) -> str:
    """The block quote marks two lines start with alike ("  >"), or "" where they share none."""
    a, b = _QUOTES.match(before).group(), _QUOTES.match(after).group()  # type: ignore[union-attr]
    n = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    shared = a[:n].rstrip()
    return shared if ">" in shared else ""


def _join_blocks_at(lines: list[str | tuple[str, bool]]) -> tuple[str, list[int]]:
    """The lines joined, a blank line between blocks and none between the items of a list; and where each
    line starts in the result. The blank line between two blocks of one block quote keeps its ">", so the
    quote goes on."""
    out: list[str] = []
    starts: list[int] = []
    at = 0
    previous_item = False
    for line in lines:
        text, item = line if isinstance(line, tuple) else (line, False)
        if out and not (item and previous_item):
            out.append(_shared_quotes(out[-1].rsplit("\n", 1)[-1], text))  # a blank line between blocks
            at += len(out[-1]) + 1
        starts.append(at)
        out.append(text)
        at += len(text) + 1
        previous_item = item
    joined = "\n".join(out)
    body = joined.strip()
    lead = len(joined) - len(joined.lstrip())
    return (body + "\n" if out else ""), [min(max(s - lead, 0), len(body)) for s in starts]


def _math_md(math: Element, in_table: bool = False) -> str:
    """A formula in Markdown: its TeX (the page's annotation) between $ signs ($$ for display math), else the
    MathML itself (Markdown carries HTML, and Markdown viewers built on a browser render it): the allowlisted
    math tags, their text escaped as any text run."""
    annotation = next((e for e in math.walk() if e.tag == "annotation"), None)
    if annotation is not None or math.tex:
        source = " ".join(clean("".join(_texts(annotation)) if annotation is not None else math.tex).split())
        if source:
            source = tex(source, in_table)
            return f"$${source}$$" if math.attrs.get("display") == "block" else f"${source}$"
    out: list[str] = []
    stack: list[tuple[Element, bool]] = [(math, False)]
    while stack:
        e, closing = stack.pop()
        if e.tag is None:
            out.append(escape_text(_folded(clean(e.text))))
        elif closing:
            out.append(f"</{e.tag}>")
        elif e.tag in MATH_TAGS:
            display = ' display="block"' if e.attrs.get("display") == "block" else ""
            out.append(f"<{e.tag}{display}>")
            stack.append((e, True))
            stack.extend((c, False) for c in reversed(e.children))
        else:  # anything else inside a formula: its text
            stack.extend((c, False) for c in reversed(e.children))
    return "".join(out)


def _texts(el: Element) -> list[str]:
    parts = []
    stack = [el]
    while stack:
        e = stack.pop()
        if e.tag is None:
            parts.append(e.text)
        elif e.tag == "br":
            parts.append("\n")
        stack.extend(reversed(e.children))
    return parts


def _table_md(cells: list[list[Element]], prefix: str) -> str:
    """A table of data (its `_table_rows`) as a GFM table, each cell one line."""
    rows = [[_inline_md(c, in_table=True, breaks=False) for c in row] for row in cells]
    rows = [r for r in rows if any(r)]
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(prefix + line for line in lines)


READER_VIEWS = frozenset({"html", "markdown"})  # the renderings of the reader, each built only when asked for


TreeBuilder = Callable[[dict, list[Block], list[bool]], Element]  # (snapshot, blocks, main) -> article tree


def build_article(
    snapshot: dict,
    blocks: list[Block],
    main: list[bool],
    views: Collection[str] = READER_VIEWS,
    build: TreeBuilder | None = None,
    first_chars: int = 0,
) -> Article:
    """The body: `text` is the main blocks' text; of the reader's html and markdown, only those in `views`
    are built (the pruned tree too, when neither is); the others are "". The headline, byline and dateline
    are metadata (the reader's header, the front matter): the caller leaves their blocks out of `main`.
    Tables, lists and figures come whole or not at all from `decisions.whole_units`. `build` makes the tree
    (`build_tree`, unless the reader's form by page type asks for another: pipeline/shape.py). With
    `first_chars`, where html alone is asked and the tree is `build_tree`'s, `html` may be the first screen's
    alone (`first_screen`, `kept` set): `add_views` with "html" makes the whole."""
    text = strip_controls(body_text(snapshot["nodes"], blocks, main))
    html = markdown = ""
    spans: list[list[int]] = []
    root = None
    if first_chars and build is None and set(views) & READER_VIEWS == {"html"}:
        head = first_screen(snapshot, blocks, main, first_chars)
        if head is not None:
            return Article(html=head[0], markdown="", text=text, kept=head[1])
    if "html" in views or "markdown" in views:
        root = (build or build_tree)(snapshot, blocks, main)
        html = to_html(root) if "html" in views else ""
        markdown, spans = markdown_blocks(root) if "markdown" in views else ("", [])
    return Article(html=html, markdown=markdown, text=text, tree=root, markdown_blocks=spans)


def body_text(nodes: list[dict], blocks: list[Block], main: list[bool]) -> str:
    """The main blocks' text, a blank line between blocks, but a blank between two of one paragraph that
    only pictures, icons or elements without text part (segmentation ends a block at an <img>, an <svg>, a
    form control or an embedded frame: "Download the", "report here"), as the Markdown joins them."""
    parts: list[str] = []
    last: Block | None = None
    for b, m in zip(blocks, main):
        if not m:
            last = None
            continue
        if parts:
            parts.append(" " if last and last.owner == b.owner and _pictures_between(nodes, last, b) else "\n\n")
        parts.append(b.text)
        last = b
    return "".join(parts)


def _pictures_between(nodes: list[dict], before: Block, after: Block) -> bool:
    """Whether only pictures, icons, elements without text (`EXCLUDED`: a checkbox, an iframe), inline elements
    and blanks come between two blocks of one owner (a block's nodes are its owner, the inline elements around
    its text, which the next block may share, and its own)."""
    end = max(before.node_ids)
    start = min((i for i in after.node_ids if i > end), default=None)
    return start is not None and all(
        nodes[i]["tag"] in _IN_LINE or (nodes[i]["tag"] == "#text" and not nodes[i]["text"].strip())
        for i in range(end + 1, start)
    )


# What a line of text holds between two blocks of it: pictures, icons, and the elements whose text no reader
# gets (a form control, a frame), which the reader's tree leaves out of the line.
_IN_LINE = INLINE | EXCLUDED | {"img"}


def add_views(
    article: Article,
    snapshot: dict,
    blocks: list[Block],
    main: list[bool],
    views: Collection[str],
    build: TreeBuilder | None = None,
) -> None:
    """Render the reader views in `views` that `article` lacks, or has the first screen of alone, from its tree
    (built now if it has none): what `build_article` would have given with them asked for at first."""
    if not READER_VIEWS & set(views):
        return
    if article.tree is None:
        article.tree = (
            build_tree(snapshot, blocks, main, article.kept)
            if article.kept
            else (build or build_tree)(snapshot, blocks, main)
        )
    if "html" in views and (not article.html or article.kept):
        article.html = to_html(article.tree)
        article.kept = None
    if "markdown" in views and not article.markdown:
        article.markdown, article.markdown_blocks = markdown_blocks(article.tree)


def selection_body(snapshot: dict, node_ids: list[int]) -> tuple[str, str] | None:
    """(markdown, text) of the blocks holding the selected nodes (the extension names the nodes whose own
    text the user's selection touches), rendered as the article is; None when they hold no text. What the
    user selected is saved whether or not the model calls it main."""
    chosen = set(node_ids)
    blocks = blocks_from_snapshot(snapshot)
    picked = [bool(chosen.intersection(b.node_ids)) for b in blocks]
    if not any(picked):
        return None
    article = build_article(snapshot, blocks, picked, {"markdown"})
    return (article.markdown, article.text) if article.text.strip() else None
