"""The reader's form, from the page type: a forum thread as posts, a listing as items, a product as its price,
pictures, description, specifications and questions, documentation and articles as the article tree.

`plan_shape` reads the page (the snapshot, its blocks and the main ones) once and returns a `ShapePlan`: the
form it will take and what that form needs (each post's span, author and date; each item's title, link,
snippet and picture; a product's price and pictures). Its `build` is the article's tree builder
(`article.build_article`), so the HTML and the Markdown carry the same structure. Shaping changes how the
main content is laid out; the only main text it leaves out is a post's badges, signature and buttons and a
product's button labels (`ShapePlan.hidden`), which leave the result's `text` too, so that the text is what
the reader shows. `node_ids` (the highlight) are the main blocks' as before.

Where the type is unsure (the model's probability under `limits.SHAPE_MIN_CONFIDENCE`), or the page lacks
the structure its type promises (a "forum" without two posts with authors, a "listing" without three linked
items), the page gets the article form.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from ..limits import (
    SHAPE_FORUM_SHARE,
    SHAPE_MAX_GAPS,
    SHAPE_MAX_IMAGES,
    SHAPE_MAX_TRIES,
    SHAPE_MAX_UNITS,
    SHAPE_MIN_CONFIDENCE,
    SHAPE_MIN_ITEMS,
    SHAPE_MIN_POSTS,
    SHAPE_UNIT_LEVELS,
    SHAPE_UNIT_SHARE,
)
from .article import Element, TreeBuilder, build_tree, safe_url, shown_src, subtree_ends
from .blocks import Block
from .dates import parse_date
from .page_values import join_url

SHAPES = ("article", "forum", "listing", "product", "documentation")  # the reader's forms
# The form of each page type (result.PAGE_TYPES); any other type reads as an article.
SHAPE_OF_TYPE = {
    "forum": "forum",
    "listing": "listing",
    "collection": "listing",
    "product": "product",
    "documentation": "documentation",
}
# The class of each shaped section (the reader's stylesheet styles them; its sanitiser allows pith-* classes).
POST_CLASS, ITEMS_CLASS, PRODUCT_CLASS, FAQ_CLASS = "pith-post", "pith-items", "pith-product", "pith-faq"

# A forum post's parts that are not its body: who wrote it (name, avatar, rank, badges, post count), its
# signature, its dateline and its buttons. A class is one of these when one of its words starts so...
CHROME_PREFIXES = tuple(
    """signature badge avatar rank flair award reputation karma postprofile userinfo userextra attribution
actionbar usertitle postcount joined""".split()
)
# ...or is one of these words, and none of CONTENT_WORDS ("message-userContent" is the body)
CHROME_WORDS = frozenset({"sig", "user", "author", "poster", "profile", "meta", "reactions", "likes", "footer"})
CONTENT_WORDS = frozenset({"content", "body", "text", "quote", "entry"})
CHROME_TAGS = frozenset({"header", "footer", "aside", "nav"})  # inside a post: its head, foot and side boxes
QUOTE_WORDS = ("quote", "blockquote")  # a post's quote of another: set apart as a <blockquote>
QUOTE_PART_WORDS = frozenset({"title", "head", "header", "author", "name", "cite", "meta", "expand", "button"})
# Where a post names its author, strongest first: a class naming a user's name, then a link to a profile.
AUTHOR_CLASS = ("username", "user-name", "author", "poster", "nickname", "screenname")
PROFILE_LINK = re.compile(
    r"/(?:members?|users?|u|profiles?|people|community/profile)/|[?&]mode=viewprofile\b|/member\.php[?/]", re.I
)  # the last two: phpBB's memberlist.php?mode=viewprofile&u=2, vBulletin's member.php?u=2
DATE_CLASS = ("date", "time", "posted", "published")
MAX_NAME_CHARS = 64  # an author's name; longer text is a sentence, not a name
MAX_INITIAL_CHARS = 2  # an avatar's letters, or "by", before the poster's name in its element ("G Guest 6381")
MAX_DATE_CHARS = 64  # a date as shown, and a price
MAX_NAME_NODES = 32  # nodes of an author's name, a date or a price: small elements, whatever wraps them
# A post's date given as a Unix time (NodeBB's `data-timestamp="1768264164807"`, in milliseconds), read only
# between these years: ten or thirteen digits outside them are an id, not a date.
EPOCH_YEARS = (1995, 2100)
MAX_PRICE_NODES = MAX_NAME_NODES  # a price's element is small: a wrapper of the whole product is not read as one
MAX_PRICE_LINE_EXTRA = 20  # characters besides the price in a body line that only repeats it ("Regular price")
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
TITLE_CLASS_WORDS = frozenset({"title", "heading", "headline"})  # a class word that names an entry's title
_PRICE_LABEL = re.compile(r"^\s*(?:[^\W\d_]+\s+){0,2}[^\W\d_]+\s*:\s*(?=\S)")  # "Your Price: " before an amount
FOOTNOTE_MARKS = " *†‡¹²³"  # what a price line ends with that points to its small print
# "Size: 140 x 190 cm": a specification, as a product lists them
_SPEC = re.compile(r"^\s*([^:\n]{1,40}?)\s*:\s+(\S.{0,300})$", re.S)
_PRICE = re.compile(r"(?:[$€£¥₹]|\b(?:USD|EUR|GBP|CHF|JPY|CAD|AUD))\s?\d|\d[\d.,]*\s?(?:[$€£¥₹]|\b(?:USD|EUR|GBP)\b)")
CURRENCY_SYMBOLS = {"GBP": "£", "EUR": "€", "USD": "$", "JPY": "¥", "INR": "₹"}
NO_CENTS = frozenset({"JPY", "KRW", "VND", "CLP", "ISK", "HUF"})  # currencies written without two decimals
# A class name's words ("userTitle": user, Title): the reader's chrome test and forums.py's furniture read them.
CLASS_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def reader_shape(page_type: str | None, confidence: float | None, stated: str | None = None) -> str:
    """The reader's form for a page type the model gave with `confidence` (its probability). Under
    SHAPE_MIN_CONFIDENCE, the type the page states in its structured data decides, and without one the page
    reads as an article. A confidence of None: the type has no probability (stated, or pinned), and is taken
    as it is."""
    if confidence is not None and confidence < SHAPE_MIN_CONFIDENCE:
        page_type = stated
    return SHAPE_OF_TYPE.get(page_type or "", "article")


@dataclass(frozen=True)
class Post:
    """One post of a thread: the snapshot ids [start, end), who wrote it and when (as the page shows it)."""

    start: int
    end: int
    author: str
    date: str | None = None
    datetime: str | None = None  # the machine-readable date, where the page gives one


@dataclass(frozen=True)
class Item:
    """One entry of a listing: the snapshot ids [start, end), its title, link, snippet and picture."""

    start: int
    end: int
    title: str
    href: str | None
    snippet: str = ""
    image: str | None = None
    alt: str = ""


@dataclass(frozen=True)
class Product:
    """What a product page adds above its description: its price and its pictures."""

    price: str | None = None
    images: tuple[str, ...] = ()


@dataclass
class ShapePlan:
    """The reader's form (one of SHAPES) and what it is built from; `build(snapshot, blocks, main)` is the
    article's tree in that form (article.build_tree for the article and documentation forms)."""

    shape: str = "article"
    posts: list[Post] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    product: Product | None = None
    # Main blocks the form leaves out: a post's badges, signature and buttons (its author line is its header),
    # a product's button labels. The caller takes them out of the body, so that its text is what the reader shows.
    hidden: frozenset[int] = frozenset()

    @property
    def own_builder(self) -> TreeBuilder | None:
        """The form's own tree builder, or None where its tree is article.build_tree's (the article and
        documentation forms, a product whose parts were not found)."""
        if self.shape == "forum":
            return lambda snapshot, blocks, main: _thread_tree(snapshot, blocks, main, self.posts)
        if self.shape == "listing":
            return lambda snapshot, blocks, main: _listing_tree(snapshot, blocks, main, self.items)
        if self.shape == "product" and self.product is not None:
            product = self.product
            return lambda snapshot, blocks, main: _product_tree(snapshot, blocks, main, product)
        return None

    def build(self, snapshot: dict, blocks: list[Block], main: list[bool]) -> Element:
        return (self.own_builder or build_tree)(snapshot, blocks, main)


def plan_shape(
    snapshot: dict,
    blocks: Sequence[Block],
    main: Sequence[bool],
    page_type: str | None,
    confidence: float | None = None,
    stated: str | None = None,
    forum_share: float = 0.0,
) -> ShapePlan:
    """The form the page's article takes (`reader_shape`), and its parts; the article form where the type is
    unsure or the page lacks the structure of its type. `forum_share`: the head's probability of a forum,
    with which an unsure page that states no type tries the thread's form (SHAPE_FORUM_SHARE)."""
    shape = reader_shape(page_type, confidence, stated)
    unsure = confidence is not None and confidence < SHAPE_MIN_CONFIDENCE and not stated
    if shape == "article" and unsure and forum_share >= SHAPE_FORUM_SHARE:
        shape = "forum"  # taken only where its posts are found, below
    if shape in ("article", "documentation"):
        return ShapePlan(shape)
    page = _Page(snapshot["nodes"], snapshot.get("url"))
    if shape == "forum":
        posts = _posts(page, blocks, main)
        return ShapePlan("forum", posts=posts, hidden=_post_chrome(page, blocks, main, posts)) if posts else ShapePlan()
    if shape == "listing":
        items = _items(page, blocks, main)
        return ShapePlan("listing", items=items) if items else ShapePlan()
    buttons = frozenset(b.index for b, m in zip(blocks, main) if m and page.nodes[b.owner]["tag"] == "button")
    return ShapePlan("product", product=_product(snapshot, page), hidden=buttons)


class _Page:
    """The snapshot's nodes with each element's subtree end and class words, computed once."""

    def __init__(self, nodes: list[dict], url: str | None = None):
        self.nodes = nodes
        self.url = url  # the page's own address, to tell a link to a place on it
        self.end = subtree_ends(nodes)
        self._words: dict[int, tuple[str, ...]] = {}

    def words(self, i: int) -> tuple[str, ...]:
        """The words of node i's class names, lower-cased: "message-userContent" -> message, user, content."""
        found = self._words.get(i)
        if found is None:
            names = self.nodes[i].get("classes", ())
            found = self._words[i] = tuple(w.lower() for name in names for w in CLASS_WORDS.findall(name))
        return found

    def text(self, i: int) -> str:
        """Node i's text, its whitespace folded."""
        nodes = self.nodes
        return " ".join(" ".join(nodes[k]["text"] for k in range(i, self.end[i]) if nodes[k]["tag"] == "#text").split())

    def inside(self, i: int) -> range:
        return range(i, self.end[i])


def _start(block: Block) -> int:
    """Where a block starts in the page: its first node (text nodes are in document order)."""
    return block.node_ids[0] if block.node_ids else block.owner


class _Main:
    """The main blocks in the order they start, to find those inside a subtree by bisection: a thread of a
    thousand posts must not cost a pass over the page's blocks per post."""

    def __init__(self, blocks: Sequence[Block], main: Sequence[bool]):
        self.blocks = blocks
        pairs = sorted((_start(b), k) for k, (b, m) in enumerate(zip(blocks, main)) if m)
        self.starts = [p for p, _ in pairs]
        self.order = [k for _, k in pairs]

    def within(self, start: int, end: int, drop: Sequence[range] = ()) -> list[Block]:
        """The main blocks that start inside [start, end), but those starting inside a span of `drop`."""
        ks = self.order[bisect_left(self.starts, start) : bisect_left(self.starts, end)]
        found = [self.blocks[k] for k in ks]
        return [b for b in found if not any(_start(b) in r for r in drop)] if drop else found


def _units(page: _Page, blocks: Sequence[Block], main: Sequence[bool]) -> list[list[int]]:
    """Candidate sets of repeated units holding the main blocks, best first: siblings of one parent with the
    same tag, each holding main text, that hold SHAPE_UNIT_SHARE of the main blocks together. More units
    first (a thread's posts before the paragraphs of its longest post), SHAPE_MAX_TRIES sets at most, each
    unit at most SHAPE_UNIT_LEVELS above its text. Not the same class: a thread marks its
    first post or its author's posts with a class of their own."""
    nodes = page.nodes
    members: dict[tuple[int, str], dict[int, int]] = {}  # (parent, tag) -> unit -> main blocks
    total = 0
    for b, m in zip(blocks, main):
        if not m:
            continue
        total += 1
        i = nodes[b.owner]["parent"] if nodes[b.owner]["tag"] == "#text" else b.owner
        for _ in range(SHAPE_UNIT_LEVELS):
            node = nodes[i]
            if node["parent"] < 0:
                break
            key = (node["parent"], node["tag"])
            unit = members.setdefault(key, {})
            unit[i] = unit.get(i, 0) + 1
            i = node["parent"]
    found = [
        sorted(unit)
        for unit in members.values()
        if 2 <= len(unit) <= SHAPE_MAX_UNITS and sum(unit.values()) >= SHAPE_UNIT_SHARE * total
    ]
    return sorted(found, key=len, reverse=True)[:SHAPE_MAX_TRIES]


def _is_chrome(page: _Page, i: int) -> bool:
    """Whether element i is a post's author box, signature, badges, dateline or buttons."""
    if page.nodes[i]["tag"] in CHROME_TAGS:
        return True
    words = page.words(i)
    if not words or CONTENT_WORDS.intersection(words):
        return False
    return any(w in CHROME_WORDS or w.startswith(CHROME_PREFIXES) for w in words)


def _chrome(page: _Page, start: int, end: int) -> list[range]:
    """The spans of a post's parts that are not its body (the post's own node aside)."""
    spans: list[range] = []
    i = start + 1
    while i < end:
        if page.nodes[i]["tag"] != "#text" and _is_chrome(page, i):
            spans.append(page.inside(i))
            i = page.end[i]
        else:
            i += 1
    return spans


def _author(page: _Page, start: int, end: int) -> str | None:
    """The name a post gives for its author: microdata (the author's `name` where it has one: Discourse
    writes "Laubrani (Laubrani)", the name and then the handle), a class naming a user's name (a link first),
    then the text of a link to a profile; of an element that goes on past the name, the name alone."""
    nodes = page.nodes
    elements = [i for i in range(start, end) if nodes[i]["tag"] != "#text"]
    found = [i for i in elements if nodes[i].get("itemprop") in ("author", "creator")]
    names = [i for i in elements if _author_class(nodes[i])]
    found += [i for i in names if nodes[i]["tag"] == "a"] + names
    found += [i for i in elements if nodes[i]["tag"] == "a" and PROFILE_LINK.search(nodes[i].get("href", ""))]
    for i in dict.fromkeys(found):  # a class-named link is in `found` twice: read once
        i = _own_name(page, i)
        name = page.text(i) if page.end[i] - i <= MAX_NAME_NODES else ""  # a name is a small element
        if 0 < len(name) <= MAX_NAME_CHARS:
            return name
    return None


def _author_class(node: dict) -> bool:
    return any(c in n.lower() for n in node.get("classes", ()) for c in AUTHOR_CLASS)


def _own_name(page: _Page, i: int) -> int:
    """The name inside an author element whose text opens with it and goes on with the same name again or the
    poster's rank, place, counts or date (Discourse's "Laubrani (Laubrani)", "Barbara Brooklyn, NY",
    StackExchange's "Cleb 26.3k 23 gold badges", Invision's "Payam Montie 9 Posted March 5, 2024"): its
    `itemprop="name"`, else its link to a profile or with a class naming a user's name; else the element. The
    avatar is passed over (NodeBB's profile link around "J" and "Offline" before the one around "JonB"), and an
    unmarked initial or a "by" may come before the name ("G Guest 6381", phpBB's "by Minoa » Tue Aug 27"); a
    full name in brackets after a handle says more ("rimelek (Ákos Takács)"), and a one-letter avatar ("C") is
    no name."""
    avatars = _avatars(page, i)
    j = _name_in(page, i, avatars)
    if j is None:
        return i
    if len(_text_but(page, range(i, j), avatars)) > MAX_INITIAL_CHARS:
        return i
    bracketed = _BRACKETED.match(_text_but(page, range(page.end[j], page.end[i]), avatars))
    return i if bracketed and _letters(bracketed.group(1)) != _letters(page.text(j)) else j


def _name_in(page: _Page, i: int, avatars: Sequence[range]) -> int | None:
    """The first node inside node i, outside its avatars, that may hold a poster's name alone."""
    return next((j for j in range(i + 1, page.end[i]) if _names_poster(page, j) and not _inside(j, avatars)), None)


def _names_poster(page: _Page, j: int) -> bool:
    """Whether node j may hold a poster's name alone: a name property or a link to a profile or with a class
    naming a user's name, of two letters or more (an avatar's initial, a `<meta>` and a picture hold fewer)."""
    node = page.nodes[j]
    named = "name" in (node.get("itemprop") or "").split() or (
        node["tag"] == "a" and bool(PROFILE_LINK.search(node.get("href", "")) or _author_class(node))
    )
    return named and len(page.text(j)) >= 2


def _avatars(page: _Page, i: int) -> list[range]:
    """The subtrees inside node i that show a poster's picture: an element with a class word starting
    "avatar", or a link holding a picture or such an element (NodeBB's link around the initial "K" and the
    status "Offline")."""
    nodes, end = page.nodes, page.end
    found: list[range] = []
    k = i + 1
    while k < end[i]:
        inside = range(k, end[k])
        if _avatar(page, k) or (
            nodes[k]["tag"] == "a" and any(nodes[m]["tag"] == "img" or _avatar(page, m) for m in inside)
        ):
            found.append(inside)
            k = end[k]
        else:
            k += 1
    return found


def _avatar(page: _Page, k: int) -> bool:
    return any(w.startswith("avatar") for w in page.words(k))


def _inside(j: int, spans: Sequence[range]) -> bool:
    return any(j in r for r in spans)


def _text_but(page: _Page, nodes: range, drop: Sequence[range]) -> str:
    """The text of the text nodes in `nodes` but those inside a span of `drop`, its whitespace folded."""
    texts = (page.nodes[k]["text"] for k in nodes if page.nodes[k]["tag"] == "#text" and not _inside(k, drop))
    return " ".join(" ".join(texts).split())


_BRACKETED = re.compile(r"\s*\((.+)\)\s*$", re.S)


def _date(page: _Page, start: int, end: int) -> tuple[str | None, str | None]:
    """When a post was written, as shown and as machine-readable: a dated element, else a class naming a
    date whose text holds a digit, else a date written after the poster's name in an element whose class names
    an author (phpBB's `<p class="author">by Minoa » Tue Aug 27, 2019 5:58 am</p>`)."""
    nodes = page.nodes
    for i in range(start, end):
        if nodes[i].get("datetime"):
            stamp, written = _stamp(nodes[i]["datetime"])
            if stamp is None:
                continue  # digits that are no time: an id
            shown = page.text(i) if page.end[i] - i <= MAX_NAME_NODES else ""
            return (shown if 0 < len(shown) <= MAX_DATE_CHARS else written), stamp
    for i in range(start, end):
        names = nodes[i].get("classes", ())
        if nodes[i]["tag"] != "#text" and any(d in n.lower() for n in names for d in DATE_CLASS):
            shown = page.text(i) if page.end[i] - i <= MAX_NAME_NODES else ""
            if 0 < len(shown) <= MAX_DATE_CHARS and any(c.isdigit() for c in shown):
                return shown, None
    for i in range(start, end):
        if nodes[i]["tag"] != "#text" and _author_class(nodes[i]) and page.end[i] - i <= MAX_NAME_NODES:
            avatars = _avatars(page, i)
            name = _name_in(page, i, avatars)
            shown = _text_but(page, range(i if name is None else page.end[name], page.end[i]), avatars)
            shown = shown.lstrip(_DATE_LEAD)
            when = parse_date(shown) if len(shown) <= MAX_DATE_CHARS else None
            if when:
                return shown, when
    return None, None


_DATE_LEAD = " »·|-–—:,"  # what parts a poster's name from the date after it


def _stamp(value: str) -> tuple[str | None, str]:
    """A machine-readable date as the post's `<time datetime>` and as a reader reads it: as written, or a Unix
    time in seconds or milliseconds as ISO 8601 and "2026-01-13 00:29 UTC"; (None, "") for digits outside
    EPOCH_YEARS."""
    value = value.strip()
    if not (value.isdigit() and len(value) in (10, 13)):
        return value, value
    when = datetime.fromtimestamp(int(value) / (1000 if len(value) == 13 else 1), UTC)
    if not EPOCH_YEARS[0] <= when.year < EPOCH_YEARS[1]:
        return None, ""
    return when.isoformat(timespec="seconds"), when.strftime("%Y-%m-%d %H:%M UTC")


def _posts(page: _Page, blocks: Sequence[Block], main: Sequence[bool]) -> list[Post]:
    """The thread's posts: the most repeated units of the main content of which at least SHAPE_MIN_POSTS,
    and half or more, name an author, with at most SHAPE_MAX_GAPS runs of other main content between them."""
    found = _Main(blocks, main)
    for units in _units(page, blocks, main):
        posts = []
        for u in units:
            end = page.end[u]
            author = _author(page, u, end)
            if author and _has_words(page, found, u, end):
                date, stamp = _date(page, u, end)
                posts.append(Post(u, end, author, date, stamp))
        if len(posts) >= SHAPE_MIN_POSTS and 2 * len(posts) >= len(units) and _gaps(found, posts) <= SHAPE_MAX_GAPS:
            return posts
    return []


def _gaps(found: _Main, posts: list[Post]) -> int:
    """Runs of main blocks outside the posts between the first post and the last: each is a part of the
    article between two posts, built on its own from the whole page."""
    starts = [p.start for p in posts]
    runs, outside = 0, False
    for s in found.starts[bisect_left(found.starts, posts[0].start) : bisect_left(found.starts, posts[-1].end)]:
        k = bisect_right(starts, s) - 1
        out = k < 0 or s >= posts[k].end
        runs += out and not outside
        outside = out
    return runs


def _post_chrome(page: _Page, blocks: Sequence[Block], main: Sequence[bool], posts: list[Post]) -> frozenset[int]:
    """The main blocks in the posts' author boxes, signatures, badges and buttons, but those that only say
    what the post's header shows (its author and date: "ana (Ana Lind) Jan 3, 2026"); and the subject lines
    that only repeat the thread's."""
    found = _Main(blocks, main)
    hidden: set[int] = set()
    openers: list[Block] = []  # each post's first block of its body
    for post in posts:
        chrome = _chrome(page, post.start, post.end)
        header = _letters(f"{post.author} {post.date or ''}")
        body = found.within(post.start, post.end, chrome)
        openers += body[:1]
        said = {b.index for b in body}
        hidden.update(
            b.index
            for b in found.within(post.start, post.end)
            if b.index not in said and _letters(b.text) not in header
        )
    return frozenset(hidden | _repeated_subjects(openers))


def _repeated_subjects(openers: list[Block]) -> set[int]:
    """The posts' subject lines that two posts or more share once a reply's "Re:" is set aside (phpBB heads
    each post "Re: Turning off all LED of RPi 5"): the thread's title again, which the reader's header shows.
    A subject of a post's own stays. A post's subject is a heading that opens its body (`openers`)."""
    subjects: dict[str, list[int]] = {}
    for first in openers:
        if first.flags.get("heading"):
            subjects.setdefault(_letters(_REPLY.sub("", first.text)), []).append(first.index)
    return {k for key, ks in subjects.items() if key and len(ks) >= 2 for k in ks}


_REPLY = re.compile(r"^\s*(?:(?:re|aw|sv|vs|odp)\s*(?:\[\d+\])?\s*:\s*)+", re.I)  # "Re:", "AW:", "Re[2]:"


def _letters(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


def _has_words(page: _Page, found: _Main, start: int, end: int) -> bool:
    """Whether the main text of a post, outside its author box, signature and buttons, holds a word (a board
    index's rows hold names and counts only)."""
    return any(any(c.isalpha() for c in b.text) for b in found.within(start, end, _chrome(page, start, end)))


def _items(page: _Page, blocks: Sequence[Block], main: Sequence[bool]) -> list[Item]:
    """The listing's entries: the most repeated units of the main content of which at least SHAPE_MIN_ITEMS,
    and half or more, have a title with a link."""
    found = _Main(blocks, main)
    for units in _units(page, blocks, main):
        items = [item for u in units if (item := _item(page, found, u)) is not None]
        if len(items) >= SHAPE_MIN_ITEMS and 2 * len(items) >= len(units):
            return items
    return []


def _item(page: _Page, found: _Main, u: int) -> Item | None:
    """An entry's title (its heading of the highest rank, the first of them: a job board's card heads the job
    "h3" under its company's "h5"; else its first link with text, or what a class inside that link calls the
    title), link, snippet and picture. Links to a place on the page are no entry's. None for a section: a
    heading over a list of links (a wiki's letter over its column, whose only other link is "edit"), or a
    list of links with no heading."""
    nodes, end = page.nodes, page.end[u]
    headings = [i for i in range(u, end) if nodes[i]["tag"] in HEADINGS and page.text(i)]
    heading = min(headings, key=lambda i: (nodes[i]["tag"], i), default=None)
    links = [i for i in range(u, end) if nodes[i]["tag"] == "a" and _leaves(page, nodes[i].get("href"))]
    title_node: int | None = heading
    if heading is not None:
        link = next((i for i in links if heading <= i < page.end[heading]), None)
        if link is None:  # the card's own link ("Apply", its picture's), never an item of a list in it (its tags)
            in_lists = _in_lists(page, u)
            link = next((i for i in links if i not in in_lists), None)
    else:
        link = next((i for i in links if page.text(i)), None)
        if link is not None and link in _in_lists(page, u):
            return None  # a list of links, not an entry titled by its first
        title_node = None if link is None else _named_title(page, link)
    if title_node is None or link is None:
        return None
    title = page.text(title_node)
    inside_title = page.inside(title_node)
    said = " ".join(title.split())
    snippet = " ".join(
        " ".join(b.text.split()).replace(said, "", 1) if any(i in inside_title for i in b.node_ids) else b.text
        for b in found.within(u, end, [inside_title])  # a block that holds the title and more: "Moby-Dick by"
    )
    image = next((i for i in range(u, end) if nodes[i]["tag"] == "img" and shown_src(nodes[i])), None)
    if heading is not None and link not in inside_title and not snippet.strip() and image is None:
        return None  # a heading alone, its link another's (a wiki's "edit"): a section's, not an entry's
    return Item(
        u,
        end,
        title,
        safe_url(nodes[link].get("href")),
        " ".join(snippet.split()),
        shown_src(nodes[image]) if image is not None else None,
        nodes[image].get("alt", "") if image is not None else "",
    )


def _leaves(page: _Page, href: str | None) -> bool:
    """Whether a link goes to another page (an entry's), not to a place on this one ("#project", or the
    page's own address with a fragment)."""
    url = safe_url(href)
    if not url or (href or "").lstrip().startswith("#"):
        return False
    return not (page.url and "#" in url and url.split("#")[0] == page.url.split("#")[0])


def _named_title(page: _Page, link: int) -> int:
    """Within a link that wraps a whole card (its picture, title and description), the element a class names
    its title ("card-title", "field--name-field-list-heading"); else the link."""
    return next(
        (i for i in range(link + 1, page.end[link]) if TITLE_CLASS_WORDS.intersection(page.words(i)) and page.text(i)),
        link,
    )


def _in_lists(page: _Page, u: int) -> set[int]:
    """The nodes inside unit u that sit in a list of two items or more (`<ul>`, `<ol>`); such a list's own
    lists are not read again."""
    nodes, end = page.nodes, page.end
    found: set[int] = set()
    i = u + 1
    while i < end[u]:
        if (
            nodes[i]["tag"] in ("ul", "ol")
            and sum(nodes[k]["tag"] == "li" and nodes[k]["parent"] == i for k in range(i + 1, end[i])) >= 2
        ):
            found.update(range(i + 1, end[i]))
            i = end[i]
        else:
            i += 1
    return found


def _product(snapshot: dict, page: _Page) -> Product:
    """A product's price (structured data, microdata, a meta tag, else the first element whose class names a
    price and whose text reads as one) and its pictures (structured data, microdata), at most SHAPE_MAX_IMAGES."""
    offers, images = _json_ld_product(snapshot.get("json_ld") or [])
    price = offers
    nodes = page.nodes
    if price is None:
        metas = {
            m.get("property") or m.get("name") or m.get("itemprop"): m["content"] for m in snapshot.get("meta", ())
        }
        amount = metas.get("product:price:amount") or metas.get("og:price:amount") or metas.get("price")
        currency = metas.get("product:price:currency") or metas.get("og:price:currency") or metas.get("priceCurrency")
        price = _priced(amount, currency) if amount and _priced_above_zero(amount) else None
    if price is None:
        found = None  # the first element that names a price and shows one, or the innermost such inside it
        for i, node in enumerate(nodes):
            if found is not None and i >= page.end[found]:
                break
            classes = node.get("classes")  # the words of only those classes that hold "price" at all
            named = classes and "price" in " ".join(classes).lower() and "price" in page.words(i)
            if (named or node.get("itemprop") == "price") and page.end[i] - i <= MAX_PRICE_NODES:
                buttons = [page.inside(k) for k in range(i + 1, page.end[i]) if nodes[k]["tag"] == "button"]
                shown = _text_but(page, page.inside(i), buttons)  # "$60/box", not its "Learn more" button
                shown = _said_once(shown) if len(shown) <= 2 * MAX_DATE_CHARS else shown
                shown = _PRICE_LABEL.sub("", shown, count=1).rstrip(FOOTNOTE_MARKS)  # "Your Price: 9,75€", "$999 *"
                if len(shown) <= MAX_DATE_CHARS and _PRICE.search(shown) and _priced_above_zero(_amount(shown)):
                    found, price = i, shown
    for node in nodes:
        if node["tag"] == "img" and node.get("itemprop") == "image" and shown_src(node):
            images.append(node["src"])
    url = snapshot.get("url")
    absolute = (join_url(url, i) if url else i for i in images)
    kept = [u for u in dict.fromkeys(safe_url(a) for a in absolute) if u and u.startswith(("http:", "https:"))]
    return Product(price, tuple(kept[:SHAPE_MAX_IMAGES]))


def _json_ld_product(scripts: Iterable[str]) -> tuple[str | None, list[str]]:
    """The price and pictures of the first schema.org Product in the page's JSON-LD."""
    for script in scripts:
        try:
            data = json.loads(script)
        except (ValueError, RecursionError):
            continue
        stack = [data]
        while stack:
            obj = stack.pop()
            if isinstance(obj, list):
                stack.extend(reversed(obj))
            elif isinstance(obj, dict):
                kind = obj.get("@type")
                if kind == "Product" or (isinstance(kind, list) and "Product" in kind):
                    return _offer_price(obj.get("offers")), _urls(obj.get("image"))
                stack.extend(reversed([obj[k] for k in ("@graph", "mainEntity") if k in obj]))
    return None, []


def _offer_price(offers: object) -> str | None:
    offer = offers[0] if isinstance(offers, list) and offers else offers
    if not isinstance(offer, dict):
        return None
    amount = offer.get("price", offer.get("lowPrice"))
    if not isinstance(amount, (str, int, float)) or isinstance(amount, bool) or not _priced_above_zero(str(amount)):
        return None
    currency = offer.get("priceCurrency")
    return _priced(str(amount), currency if isinstance(currency, str) else None)


def _priced_above_zero(amount: str) -> bool:
    """Whether an offer's amount is a price: a shop states 0 for "ask us" or "configure first"."""
    try:
        return float(amount.strip().replace(",", "")) > 0
    except ValueError:
        return bool(amount.strip())


def _priced(amount: str, currency: str | None) -> str:
    """An amount with its currency as a shop writes it: a symbol before it where the code has one, none where
    the amount already shows one ("$168.00"), and cents in two digits ("18.0", a number in JSON, reads 18.00)."""
    amount = amount.strip()
    code = (currency or "").strip().upper()
    if re.fullmatch(r"\d+\.\d", amount) and code not in NO_CENTS:
        amount += "0"
    if not code or _PRICE.search(amount):
        return amount
    symbol = CURRENCY_SYMBOLS.get(code)
    return f"{symbol}{amount}" if symbol else f"{amount} {code}"


def _amount(shown: str) -> str:
    """The number in a price as shown ("GBP 0.00" -> "0.00"), for `_priced_above_zero`."""
    found = re.search(r"\d[\d.,]*", shown)
    return found.group() if found else shown


def _said_once(text: str) -> str:
    """A price said twice, once for screen readers and once in parts for the eye (Amazon's "EUR 21.86 EUR 21 .
    86", eBay's "GBP 0.00 GBP 0.00"), as its first saying; any other text as it is."""
    letters = _letters(text)
    half = len(letters) // 2
    if not letters or len(letters) % 2 or letters[:half] != letters[half:]:
        return text
    seen = 0
    for cut, c in enumerate(text, 1):  # where the first saying's last letter or digit is
        seen += c.isalnum()
        if seen == half:
            return text[:cut].strip()
    return text


def _urls(value: object) -> list[str]:
    values = value if isinstance(value, list) else [value]
    out = []
    for v in values:
        url = v.get("url") or v.get("contentUrl") if isinstance(v, dict) else v
        if isinstance(url, str):
            out.append(url)
    return out


# Trees


def _text_el(text: str) -> Element:
    return Element(None, text)


def _sub_snapshot(snapshot: dict, start: int, end: int, retag: dict[int, str]) -> dict:
    """The subtree [start, end) as a snapshot of its own (ids from 0), some elements given another tag."""
    nodes = snapshot["nodes"]
    sub = []
    for node in nodes[start:end]:
        i = node["id"]
        copy = dict(node, id=i - start, parent=node["parent"] - start if i > start else -1)
        if i in retag:
            copy["tag"] = retag[i]
        sub.append(copy)
    return {**snapshot, "nodes": sub}


def _sub_blocks(found: _Main, start: int, end: int, drop: Sequence[range]) -> tuple[list[Block], list[bool]]:
    """The main blocks inside [start, end), their node ids shifted to the sub-snapshot's, but those in `drop`."""
    out = [replace(b, node_ids=[i - start for i in b.node_ids]) for b in found.within(start, end, drop)]
    return out, [True] * len(out)


def _thread_tree(snapshot: dict, blocks: list[Block], main: list[bool], posts: list[Post]) -> Element:
    """The thread: main content outside the posts as the article has it, in its place; each post as a
    section headed by its author and date, its quotes set apart, its signature, badges and buttons left out."""
    page = _Page(snapshot["nodes"])
    found = _Main(blocks, main)
    root = Element("article")
    starts = [p.start for p in posts]
    done = 0  # the posts placed so far
    outside: list[bool] = [False] * len(blocks)

    def flush() -> None:
        if any(outside):
            root.children.extend(build_tree(snapshot, blocks, outside).children)
            outside[:] = [False] * len(blocks)

    for k, (b, m) in enumerate(zip(blocks, main)):
        if not m:
            continue
        while done < len(posts) and _start(b) >= posts[done].end:
            flush()
            root.children.append(_post_section(snapshot, page, found, posts[done]))
            done += 1
        if done < len(posts) and _start(b) >= starts[done]:
            continue  # inside the post placed next
        outside[k] = True
    flush()
    for post in posts[done:]:
        root.children.append(_post_section(snapshot, page, found, post))
    return root


def _post_section(snapshot: dict, page: _Page, found: _Main, post: Post) -> Element:
    nodes = page.nodes
    chrome = _chrome(page, post.start, post.end)
    retag = {post.start: "div"}  # the post's own element (an <li>, a <tr>) is the section now
    retag |= {
        i: "blockquote"
        for i in range(post.start + 1, post.end)
        if nodes[i]["tag"] in ("div", "aside", "section")
        and any(w in QUOTE_WORDS for w in page.words(i))
        and not QUOTE_PART_WORDS.intersection(page.words(i))
    }
    sub_blocks, sub_main = _sub_blocks(found, post.start, post.end, chrome)
    if post.date:  # a dateline in the post's body says what its header says: once is enough
        date = _letters(post.date)
        sub_main = [m and _letters(b.text) != date for b, m in zip(sub_blocks, sub_main)]
    body = build_tree(_sub_snapshot(snapshot, post.start, post.end, retag), sub_blocks, sub_main)
    head = [Element("h3", children=[_text_el(post.author)])]
    if post.date:
        attrs = {"datetime": post.datetime} if post.datetime else {}
        head.append(Element("p", children=[Element("time", attrs=attrs, children=[_text_el(post.date)])]))
    return Element("section", attrs={"class": POST_CLASS}, children=head + body.children)


def _listing_tree(snapshot: dict, blocks: list[Block], main: list[bool], items: list[Item]) -> Element:
    """The listing: main content outside the items as the article has it, then the items as one list, each
    with its picture, its linked title and its snippet."""
    starts = [i.start for i in items]

    def in_item(b: Block) -> bool:
        k = bisect_right(starts, _start(b)) - 1
        return k >= 0 and _start(b) < items[k].end

    outside = [m and not in_item(b) for b, m in zip(blocks, main)]
    first = items[0].start
    before = [o and _start(b) < first for b, o in zip(blocks, outside)]
    after = [o and _start(b) >= first for b, o in zip(blocks, outside)]
    root = Element("article")
    if any(before):
        root.children.extend(build_tree(snapshot, blocks, before).children)
    entries = []
    for item in items:
        children: list[Element] = []
        if item.image:
            picture = Element("img", attrs={"src": item.image, "alt": item.alt})
            children += [Element("span", children=[picture]), _text_el(" ")]  # on the title's line
        title = Element("strong", children=[_text_el(item.title)])
        children.append(Element("a", attrs={"href": item.href}, children=[title]) if item.href else title)
        if item.snippet:  # on the item's own lines: Markdown reads a paragraph after a bullet as outside it
            children += [Element("br"), _text_el(item.snippet)]
        entries.append(Element("li", children=children))
    root.children.append(Element("section", attrs={"class": ITEMS_CLASS}, children=[Element("ul", children=entries)]))
    if any(after):
        root.children.extend(build_tree(snapshot, blocks, after).children)
    return root


def _product_tree(snapshot: dict, blocks: list[Block], main: list[bool], product: Product) -> Element:
    """The product: its price and the pictures the article lacks first, then its description with lists and
    definition lists of specifications as tables, and each question heading with its answer as a section."""
    nodes = snapshot["nodes"]
    summaries = [n["id"] for n in nodes if n["tag"] == "summary"]
    page = _Page(nodes) if summaries else None
    retag = {  # a collapsed answer's question, unless a heading inside it says so already
        i: "h3" for i in summaries if page and not any(nodes[k]["tag"] in HEADINGS for k in page.inside(i))
    }
    if retag:
        snapshot = {**snapshot, "nodes": [dict(n, tag=retag[n["id"]]) if n["id"] in retag else n for n in nodes]}
    root = build_tree(snapshot, blocks, main)  # without the buttons' labels (`ShapePlan.hidden`)
    _spec_tables(root)
    _faq_sections(root)
    if product.price:  # the price is shown above: a short line of the body that only repeats it goes
        short = len(product.price) + MAX_PRICE_LINE_EXTRA
        root.children = [
            c for c in root.children if not (c.tag == "p" and product.price in _plain(c) and len(_plain(c)) <= short)
        ]
    shown = {e.attrs.get("src") for e in root.walk() if e.tag == "img"}
    head: list[Element] = []
    if product.price:
        head.append(Element("p", children=[Element("strong", children=[_text_el(product.price)])]))
    for src in product.images:
        if src not in shown:
            head.append(Element("figure", children=[Element("img", attrs={"src": src, "alt": ""})]))
    if head:
        root.children.insert(0, Element("section", attrs={"class": PRODUCT_CLASS}, children=head))
    return root


def _plain(el: Element) -> str:
    return " ".join("".join(e.text for e in el.walk() if e.tag is None).split())


def _spec_tables(root: Element) -> None:
    """Lists whose every item reads "Name: value", and definition lists, as two-column tables."""
    for el in list(root.walk()):
        rows: list[tuple[str, str]] = []
        if el.tag in ("ul", "ol") and len(el.children) >= 2:
            for li in el.children:
                match = _SPEC.match(_plain(li)) if li.tag == "li" else None
                if match is None:
                    rows = []
                    break
                rows.append((match.group(1), match.group(2)))
        elif el.tag == "dl":
            name = None
            for c in el.children:
                if c.tag == "dt":
                    if name is not None:  # a name whose value was not kept: its row, the value empty
                        rows.append((name, ""))
                    name = _plain(c)
                elif c.tag == "dd" and name is not None:
                    rows.append((name, _plain(c)))
                    name = None
            if name is not None:
                rows.append((name, ""))
            if any(n.endswith("?") for n, _ in rows):
                rows = []  # questions and answers, not specifications
        if len(rows) >= 2:
            body = [
                Element("tr", children=[Element("th", children=[_text_el(n)]), Element("td", children=[_text_el(v)])])
                for n, v in rows
            ]
            el.tag, el.attrs, el.children = "table", {}, [Element("tbody", children=body)]


def _faq_sections(root: Element) -> None:
    """Each heading that asks a question, with what follows it up to the next heading of its level or
    above, as a section of its own (wherever such headings sit in the tree)."""
    for el in list(root.walk()):
        if el.tag in HEADINGS or not any(c.tag in HEADINGS and _plain(c).endswith("?") for c in el.children):
            continue
        out: list[Element] = []
        open_section: Element | None = None
        level = 0
        for c in el.children:
            if c.tag in HEADINGS:
                if open_section is not None and int(c.tag[1]) <= level:
                    open_section = None
                if open_section is None and _plain(c).endswith("?"):
                    open_section, level = Element("section", attrs={"class": FAQ_CLASS}, children=[c]), int(c.tag[1])
                    out.append(open_section)
                    continue
            if open_section is not None:
                open_section.children.append(c)
            else:
                out.append(c)
        el.children = out
