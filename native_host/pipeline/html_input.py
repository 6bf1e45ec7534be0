"""What HTML must pass before the parser sees it: a `<title>` left open ends before the markup that follows
it (`close_open_title`), and it nests no deeper than limits.MAX_PARSE_DEPTH (`bound_nesting`, on every
parse); that it is text, not a binary file, is pipeline/binary.py's question.

The parser (lexbor) is one call into C that no time limit can stop, and its time grows with the square of the
nesting depth: each block start tag looks down the stack of open elements for a `<p>` to close, so 200,000
nested `<div>`s cost minutes. Browsers cap the depth too (Chromium's parser at 512). `bound_nesting` runs a
tokenizer of its own over the markup (start tags with their attributes, end tags, comments, raw text such as
scripts, the way the HTML tokenizer reads them) and keeps a stack of the elements open, and drops every start
tag that would open deeper than the limit, with its end tag; the text inside stays, held by the deepest
element kept. Its stack never runs lower than the parser's: an end tag pops only what the tree builder would
pop for sure (it stops at the elements that block the end tag, and looks no further than SEARCH_DEPTH down),
so markup built to fool it can only make it drop more. Pages with fewer than limits.DEPTH_SCAN_MIN_TAGS start
tags are parsed as they are: all nested, they cost the parser about half a second.
"""

from __future__ import annotations

import re

from .. import limits

VOID = frozenset(
    "area base basefont bgsound br col embed frame hr image img input keygen link meta param source track wbr".split()
)
# Never pushed: the parser keeps one of each (a second is merged or ignored), so they add a constant depth.
DOCUMENT = frozenset({"html", "head", "body", "frameset"})
# Pushed only inside an open table: elsewhere the parser ignores them.
TABLE_PARTS = frozenset("caption colgroup tbody thead tfoot tr td th".split())
# Raw text: the tokenizer reads to the element's own end tag, markup included. (noscript: lexbor parses it
# as markup, with scripting off; plaintext: to the end.)
RAW_TEXT = frozenset("script style textarea title xmp iframe noembed noframes".split())
FOREIGN = frozenset({"svg", "math"})
INTEGRATION_POINTS = frozenset("foreignobject desc title mi mo mn ms mtext annotation-xml".split())
# HTML start tags that end foreign content (SVG, MathML) where they appear in it.
BREAKOUT = frozenset(
    "b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i img "
    "li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt u ul "
    "var font".split()
)
HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
_P, _FORM = frozenset({"p"}), frozenset({"form"})
# The elements an end tag of a special element cannot close past ("has an element in scope", a superset).
SCOPE = frozenset(
    "applet caption html table td th marquee object template button ol ul select "
    "foreignobject desc mi mo mn ms mtext annotation-xml".split()
)
# The special elements: an end tag of any other element (and a formatting one) stops at them.
SPECIAL = SCOPE | frozenset(
    "address area article aside base basefont bgsound blockquote body br center col colgroup dd details dir div dl "
    "dt embed fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr iframe "
    "img input keygen li link listing main menu meta nav noembed noframes noscript p param plaintext pre script "
    "search section source style summary tbody textarea tfoot thead title tr track wbr xmp".split()
)
TABLE_SCOPE = frozenset({"html", "table", "template"})
# A start tag that closes an open element first: (the elements it closes, the ones it cannot close past).
_LIST_STOPS = SPECIAL - {"address", "div", "p"}
CLOSES = {
    "li": (frozenset({"li"}), _LIST_STOPS),
    "dd": (frozenset({"dd", "dt"}), _LIST_STOPS),
    "dt": (frozenset({"dd", "dt"}), _LIST_STOPS),
    "a": (frozenset({"a"}), SPECIAL),
    "nobr": (frozenset({"nobr"}), SPECIAL),
    "button": (frozenset({"button"}), SCOPE - {"button"}),
    "tr": (frozenset({"tr"}), TABLE_SCOPE | {"tbody", "thead", "tfoot"}),
    "td": (frozenset({"td", "th"}), TABLE_SCOPE | {"tr", "tbody", "thead", "tfoot"}),
    "th": (frozenset({"td", "th"}), TABLE_SCOPE | {"tr", "tbody", "thead", "tfoot"}),
    "tbody": (frozenset({"tbody", "thead", "tfoot"}), TABLE_SCOPE),
    "thead": (frozenset({"tbody", "thead", "tfoot"}), TABLE_SCOPE),
    "tfoot": (frozenset({"tbody", "thead", "tfoot"}), TABLE_SCOPE),
    "option": (frozenset({"option"}), None),
    "optgroup": (frozenset({"option", "optgroup"}), None),
}
# (stops None: only the current node is closed)
# Block start tags close an open <p> first (when it is in button scope).
CLOSES_P = frozenset(
    "address article aside blockquote center details dialog dir div dl fieldset figcaption figure "
    "footer header hgroup main menu nav ol p search section summary ul h1 h2 h3 h4 h5 h6 pre "
    "listing xmp dd dt li".split()
)
SEARCH_DEPTH = 32  # open elements a tag looks down through for the one it closes

_ONE: dict[str, frozenset[str]] = {}


def _one(name: str) -> frozenset[str]:
    """{name}, made once per name (up to 10,000 names: a page can invent any number)."""
    found = _ONE.get(name)
    if found is None:
        found = frozenset((name,))
        if len(_ONE) < 10_000:
            _ONE[name] = found
    return found


# A tag as the tokenizer reads it: HTML's own whitespace (not Python's \s, which has more), attribute values
# quoted only right after "=". Possessive, so that a tag the file ends inside costs one pass, not backtracking.
_TAG = re.compile(
    r"</?([A-Za-z][^\t\n\f\r />]*+)(?:[\t\n\f\r /]++|[^\t\n\f\r />][^\t\n\f\r />=]*+"
    r"(?:[\t\n\f\r ]*+=[\t\n\f\r ]*+(?:\"[^\"]*+\"|'[^']*+'|[^\t\n\f\r >]*+))?+)*+>"
)
_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")  # as HTML lowers names
_COMMENT_END = re.compile(r"--!?>")
_RAW_END = {name: re.compile(rf"</{name}[\t\n\f\r />]", re.I) for name in RAW_TEXT}


class _Stack:
    """The elements open, as the tree builder would have them at most: names, whether each is SVG or
    MathML, and how many of each name are open."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.foreign: list[bool] = []
        self.count: dict[str, int] = {}

    def push(self, name: str, foreign: bool) -> None:
        self.names.append(name)
        self.foreign.append(foreign)
        self.count[name] = self.count.get(name, 0) + 1

    def pop_to(self, i: int) -> None:
        for name in self.names[i:]:
            self.count[name] -= 1
        del self.names[i:], self.foreign[i:]

    def close(self, wanted: frozenset[str], stops: frozenset[str] | None) -> None:
        """Pop the nearest of `wanted` and all above it, if it is within SEARCH_DEPTH of the top with none of
        `stops` above it (`stops` None: if it is the top): there the tree builder pops them too."""
        if not any(self.count.get(name) for name in wanted):
            return
        names = self.names
        reach = 1 if stops is None else SEARCH_DEPTH
        for i in range(len(names) - 1, max(-1, len(names) - 1 - reach), -1):
            if names[i] in wanted:
                self.pop_to(i)
                return
            if stops is None or names[i] in stops:
                return

    def in_foreign(self) -> bool:
        """Whether the current node is SVG or MathML (not an integration point, where HTML goes on)."""
        return bool(self.names) and self.foreign[-1] and self.names[-1] not in INTEGRATION_POINTS


_TITLE_START = re.compile(r"<title\b[^>]*>", re.I)
_TITLE_END = re.compile(r"</title[\t\n\f\r />]", re.I)  # the end tag the tokenizer takes: "</titlevalue" is none
_MARKUP = re.compile(r"<[a-zA-Z!/]")


def close_open_title(html: str) -> str:
    """`html` with a `</title>` put before the first tag after a `<title>` that no end tag closes. The title's
    text is raw to its end tag, so a crawled page whose `</title>` was lost (cut or mangled in the archive)
    reads as one long title and nothing else: the whole page gone. A browser shows that page blank too, but
    a file or a crawl is read for its text, as libxml2-based tools read it. An end tag mangled into another
    name (`</titlevalue="true" -->`) closes nothing, in the tokenizer as here."""
    start = _TITLE_START.search(html)
    if start is None or _TITLE_END.search(html, start.end()):
        return html
    tag = _MARKUP.search(html, start.end())
    return html if tag is None else f"{html[: tag.start()]}</title>{html[tag.start() :]}"


def bound_nesting(html: str) -> tuple[str, bool]:
    """`html` with the start tags that would nest deeper than limits.MAX_PARSE_DEPTH taken out (their end tags
    too), and whether any was."""
    least = limits.DEPTH_SCAN_MIN_TAGS
    if len(html) < 3 * least:  # a start tag takes three characters at least: most pages stop here
        return html, False
    opened = html.count("<")
    if opened < least or opened - html.count("</") < least:  # start tags, at most
        return html, False
    cap = limits.MAX_PARSE_DEPTH
    stack = _Stack()
    dropped: dict[str, int] = {}
    cuts: list[tuple[int, int]] = []
    find, n, pos = html.find, len(html), 0
    while True:
        pos = find("<", pos)
        if pos < 0 or pos + 1 >= n:
            break
        nxt = html[pos + 1]
        if nxt == "!":
            if html.startswith("<!--", pos):
                if html.startswith(">", pos + 4) or html.startswith("->", pos + 4):
                    pos += 5
                    continue
                close = _COMMENT_END.search(html, pos + 4)
                if close is None:
                    break
                pos = close.end()
            else:
                end = find(">", pos)
                if end < 0:
                    break
                pos = end + 1
            continue
        if nxt == "?" or (nxt == "/" and html[pos + 2 : pos + 3] not in _ASCII_LETTERS):
            end = find(">", pos)  # a bogus comment (`</>` included)
            if end < 0:
                break
            pos = end + 1
            continue
        if nxt not in _ASCII_LETTERS and nxt != "/":
            pos += 1
            continue
        tag = _TAG.match(html, pos)
        if tag is None:
            break  # a tag the file ends inside: the tokenizer reads the rest into it
        name = tag.group(1).translate(_ASCII_LOWER)
        start, pos = pos, tag.end()
        if nxt == "/":
            if dropped.get(name):
                dropped[name] -= 1
                cuts.append((start, pos))
            elif name in HEADINGS:
                stack.close(HEADINGS, SCOPE)  # any heading's end tag closes the nearest heading
            elif name == "form":  # </form> takes the form out and leaves what is above it open
                stack.close(_FORM, None)
            else:
                stack.close(_one(name), SCOPE if name in SPECIAL else SPECIAL)
            continue
        if name in VOID or name in DOCUMENT or (name in TABLE_PARTS and not stack.count.get("table")):
            continue
        foreign = stack.in_foreign()
        if foreign and name in BREAKOUT:
            while stack.in_foreign():
                stack.pop_to(len(stack.names) - 1)
            foreign = False
        if foreign or name in FOREIGN:
            if html[pos - 2] == "/":
                continue  # a self-closing SVG or MathML element
            foreign = True
        else:
            if name in CLOSES_P:
                stack.close(_P, SCOPE)
            if name in CLOSES:
                stack.close(*CLOSES[name])
            elif name in HEADINGS and stack.names and stack.names[-1] in HEADINGS:
                stack.pop_to(len(stack.names) - 1)
        if len(stack.names) >= cap:
            dropped[name] = dropped.get(name, 0) + 1
            cuts.append((start, pos))
            continue
        stack.push(name, foreign)
        if foreign:
            continue
        if name == "plaintext":
            break
        if name in RAW_TEXT:
            close = _RAW_END[name].search(html, pos)
            if close is None:
                break
            pos = close.start()
    if not cuts:
        return html, False
    parts, at = [], 0
    for start, end in cuts:
        parts.append(html[at:start])
        at = end
    parts.append(html[at:])
    return "".join(parts), True
