"""HTML -> snapshot v2: the same format the extension's content script builds from a live page.

Offline pages arrive as HTML; the browser sends a rendered DOM. Both become one snapshot (a flat list of
nodes in document order, docs/snapshot.md), so everything after this step sees one kind of input. The live
render fields (visible, box, font size...) are left out here: only a browser can fill them.

The walk is iterative (a page nested 100,000 deep must not hit Python's recursion limit) and never
raises on broken HTML: lexbor repairs the markup the way browsers do. `_walk` is the reference; where the
compiled walk (tree_walk.pyx) is built it runs instead, with the same result (docs/performance.md), unless
the environment sets PITH_PURE_PYTHON=1.
"""

from __future__ import annotations

import codecs
import re
import sys

import selectolax
from selectolax.lexbor import LexborHTMLParser

from .. import limits
from .compiled import load_compiled
from .html_input import bound_nesting, close_open_title
from .page_values import join_url, text_codec

FORMAT = "pith-snapshot"
VERSION = 2
VERSIONS = (1, 2)  # accepted from outside: v1 lacks the page's metadata (docs/snapshot.md), nothing else
TEXT = "#text"

# Subtrees that never show text to a reader; the content script skips the same ones. <noscript> is kept:
# offline no script runs, so its content is what a reader of the HTML sees (lexbor parses it as markup with
# scripting off), and some sites put their whole text there for crawlers. A live page never shows it.
SKIP_SUBTREE = frozenset({"script", "style", "template", "head"})
# A formula's TeX source in a script (MathJax 2 keeps each formula so, beside its drawing): the one script a
# reader's view takes in, as the formula it is (`formula_nodes`). The content script reads the same types.
TEX_SCRIPT_TYPE = "math/tex"
TEX_DISPLAY_MODE = "mode=display"
# Elements kept as a node but whose children are not: icons and embedded documents.
LEAF_ONLY = frozenset({"svg", "iframe", "object", "embed", "canvas", "video", "audio", "select"})

_HIDDEN_STYLE = re.compile(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)", re.I
)
# Where lazy-loading scripts keep an image's real address (the `src` holding a placeholder meanwhile).
LAZY_SRC = ("data-src", "data-lazy-src", "data-original")
_HTML_SPACE = " \t\n\r\f"
_HTML_SPACES = re.compile(r"[ \t\n\r\f]+")
_SRCSET_SPLIT = re.compile(r",[ \t\n\r\f]+")
_DESCRIPTOR = re.compile(r"^([0-9]+(?:\.[0-9]+)?)[wx]$")
CHARSET_PRESCAN_BYTES = 4096  # bytes searched for a <meta charset> (the HTML spec's prescan reads 1024)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_:.\-]+)""", re.I)
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


def decode_html(data: bytes | str, charset: str | None = None) -> str:
    """Bytes -> text the way a browser would: a BOM first, then the HTTP charset (`charset`, from the
    Content-Type the page was served with), then a meta charset (unless the bytes are valid UTF-8 with
    non-ASCII text: then UTF-8), then UTF-8, then cp1252. An unknown charset
    name (`rot13`, `base64`, `undefined`) is passed over, as browsers do: decoding never raises."""
    if isinstance(data, str):
        return data
    for bom, bom_codec in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(bom_codec, errors="replace")
    encoding = text_codec(charset)
    if encoding:
        return data.decode(encoding, errors="replace")
    match = _META_CHARSET.search(data[:CHARSET_PRESCAN_BYTES])
    encoding = text_codec(match.group(1).decode("ascii")) if match else None
    if encoding:
        if encoding.startswith("utf-16"):
            encoding = "utf-8"  # a meta tag read as ASCII cannot be UTF-16 (HTML spec)
        if encoding != "utf-8" and not data.isascii():
            # Bytes that decode as UTF-8, multi-byte characters and all, are UTF-8 whatever the meta tag says
            # (a file re-saved by an editor keeps its old <meta charset=Shift_JIS>): text in another encoding
            # almost never forms valid UTF-8 sequences. A file has no HTTP header to overrule its bytes; the
            # live snapshot never comes here (the browser decoded it).
            try:
                return data.decode("utf-8")
            except UnicodeDecodeError:
                pass
        return data.decode(encoding, errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def _attr(value: str | None) -> str:
    return (value or "").strip()[: limits.MAX_ATTR_CHARS]


def best_srcset_candidate(srcset: str | None) -> str:
    """The largest image a srcset offers (by its w or x descriptor; the first on a tie, none counts as 1x).
    extension/content/snapshot.js reads srcsets by the same rule."""
    best, size = "", -1.0
    for candidate in _SRCSET_SPLIT.split((srcset or "").strip(_HTML_SPACE)):
        words = [w for w in _HTML_SPACES.split(candidate) if w]
        if not words:
            continue
        match = _DESCRIPTOR.match(words[1]) if len(words) > 1 else None
        value = float(match.group(1)) if match else 1.0
        if value > size:
            best, size = words[0], value
    return best


_IMAGE_SIDE = re.compile(r"[\t\n\f\r ]*([0-9]+)(?:\.[0-9]*)?(%?)")


def image_side(value: str | None) -> int | None:
    """An <img>'s width or height attribute in CSS pixels, read as a browser reads a dimension (leading digits,
    a fraction and what follows ignored: "300px" is 300), or None for a percentage, no number, 0 or more than
    `limits.MAX_IMAGE_PX`. extension/content/snapshot.js reads it alike."""
    found = _IMAGE_SIDE.match(value or "")
    if not found or found.group(2) or len(found.group(1)) > 6:
        return None
    side = int(found.group(1))
    return side if 1 <= side <= limits.MAX_IMAGE_PX else None


def image_source(attrs, picture_srcsets: list[str]) -> str:
    """An <img>'s address, as a reader would load it: a lazy loader's real address first, then `src` unless it
    is a data: placeholder, then the largest srcset candidate (its own, then its <picture>'s <source>s),
    then whatever `src` holds."""
    for name in LAZY_SRC:
        value = _attr(attrs.get(name))
        if value:
            return value
    src = _attr(attrs.get("src"))
    if src and src[:5].lower() != "data:":
        return src
    for srcset in (attrs.get("data-srcset"), attrs.get("srcset"), *picture_srcsets):
        best = _attr(best_srcset_candidate(srcset))
        if best:
            return best
    return src


def _picture_srcsets(node) -> list[str]:
    parent = node.parent
    if parent is None or parent.tag != "picture":
        return []
    found = []
    for child in parent.iter():
        if child.tag == "source":
            for name in ("data-srcset", "srcset"):
                value = child.attributes.get(name)
                if value:
                    found.append(value)
    return found


def _join(base: str, ref: str, joined: dict[str, str]) -> str:
    url = joined.get(ref)
    if url is None:
        url = joined[ref] = (join_url(base, ref) or ref)[: limits.MAX_ATTR_CHARS]  # as written if unparsable
    return url


DIRS = frozenset({"ltr", "rtl", "auto"})
# <link rel> values a reader's metadata reads (the canonical address, the author's page).
LINK_RELS = frozenset({"canonical", "author"})
META_KEYS = ("name", "property", "itemprop")


def text_direction(value: str | None) -> str | None:
    """`<html dir>` as the format carries it: ltr, rtl or auto, else None (browsers ignore other values)."""
    value = (value or "").strip().lower()
    return value if value in DIRS else None


def is_json_ld(script_type: str | None) -> bool:
    return (script_type or "").split(";")[0].strip().lower() == "application/ld+json"


def _meta_entry(node, base: str | None) -> dict | None:
    attrs = node.attributes
    content = _attr(attrs.get("content"))
    entry = {k: _attr(attrs.get(k)) for k in META_KEYS if (attrs.get(k) or "").strip()}
    return {**entry, "content": content} if content and entry else None


def _link_entry(node, base: str | None) -> dict | None:
    rel, href = _attr(node.attributes.get("rel")), _attr(node.attributes.get("href"))
    if not href or LINK_RELS.isdisjoint(rel.lower().split()):
        return None
    return {"rel": rel, "href": (join_url(base, href) or href)[: limits.MAX_ATTR_CHARS]}


def _json_ld_entry(node, base: str | None) -> str | None:
    if not is_json_ld(node.attributes.get("type")):
        return None
    text = node.text(deep=True) or ""
    return text if text and len(text) <= limits.MAX_JSON_LD_CHARS else None  # cut, it would not parse: left out


def page_metadata(tree: LexborHTMLParser, base: str | None) -> dict:
    """The page-level fields of v2 that metadata is read from: `<meta>` with a name, property or itemprop,
    `<link rel=canonical|author>`, JSON-LD script text, anywhere in the document, in document order, the
    first so many of each (limits.py)."""
    out: dict[str, list] = {}
    outside: dict[int, bool] = {}  # element -> no <noscript> around it (or on it)
    for field, selector, limit, read in (
        ("meta", "meta[content]", limits.MAX_META, _meta_entry),
        ("links", "link[rel][href]", limits.MAX_LINKS, _link_entry),
        ("json_ld", "script[type]", limits.MAX_JSON_LD, _json_ld_entry),
    ):
        found = out[field] = []
        for node in tree.css(selector):
            if len(found) >= limit:
                break
            entry = read(node, base)
            if entry is not None and _outside_noscript(node, outside):
                found.append(entry)
    return out


def _outside_noscript(node, known: dict[int, bool]) -> bool:
    """Whether no <noscript> holds `node`: the live path cannot see markup inside one (a browser running
    scripts keeps it as text). `known` remembers the answer for every ancestor walked through, so the page
    costs one walk in all, not one to the root per element (elements x depth: 7 s for 8,000)."""
    path = []
    answer = True
    p = node.parent
    while p is not None:
        seen = known.get(p.mem_id)
        if seen is not None:
            answer = seen
            break
        if p.tag == "noscript":
            answer = False
            break
        path.append(p.mem_id)
        p = p.parent
    for mem_id in path:
        known[mem_id] = answer
    return answer


def snapshot_from_html(html: bytes | str, url: str | None = None, charset: str | None = None) -> dict:
    """Parse HTML into snapshot v2 (a dict that passes `validate_snapshot`); `charset`: the HTTP one, if known."""
    text, too_deep = bound_nesting(close_open_title(decode_html(html, charset)))
    tree = LexborHTMLParser(text)
    title, base = _head_fields(tree, url)
    root = tree.root
    lang, direction = _root_fields(root)
    nodes, truncated = _walk_tree(root, base)
    snapshot = {
        "format": FORMAT,
        "version": VERSION,
        "source": "html",
        "url": url,
        "title": title,
        "lang": lang,
        "dir": direction,
        "viewport": None,
        **page_metadata(tree, base),
        "nodes": nodes,
    }
    if truncated or too_deep:
        snapshot["truncated"] = True
    return snapshot


def _head_fields(tree: LexborHTMLParser, url: str | None) -> tuple[str | None, str | None]:
    """The page's title, and the address its links are read against: its <base href> joined to `url`, else
    `url`."""
    head = tree.head
    if head is None:
        return None, url
    title = None
    title_node = head.css_first("title")
    if title_node is not None:
        title = " ".join(title_node.text(deep=True).split())[: limits.MAX_TITLE_CHARS] or None
    base = url
    base_node = head.css_first("base[href]")
    if base_node is not None and url:
        # A <base> no parser accepts leaves every link as written, as Chromium does.
        base = join_url(url, _attr(base_node.attributes.get("href")))
    return title, base


def _root_fields(root) -> tuple[str | None, str | None]:
    """`<html lang>` and `<html dir>`."""
    if root is None:
        return None, None
    return (
        _attr(root.attributes.get("lang"))[: limits.MAX_LANG_CHARS] or None,
        text_direction(root.attributes.get("dir")),
    )


def _walk_tree(root, base: str | None) -> tuple[list[dict], bool]:
    """`_walk`'s answer, from the compiled walk where it is in use."""
    if _compiled is not None and root is not None:
        try:
            return _compiled.walk(root.mem_id, base, _THIS)
        except _compiled.UnknownName:
            pass  # a lexbor name id the compiled walk did not learn at import: the reference reads this page
    return _walk(root, base)


def _walk(root, base: str | None) -> tuple[list[dict], bool]:
    """The page's nodes in document order, and whether a limit cut the walk short. Skipped subtrees (scripts,
    styles, comments) leave no node; leaf-only elements keep theirs but not their children."""
    nodes: list[dict] = []
    truncated = False
    total_text = 0
    joined: dict[str, str] = {}  # href -> absolute URL: menus repeat links, and joining is slow
    in_pre: set[int] = set()  # <pre> elements and everything inside them: there whitespace is content
    # (lexbor node, parent id, depth). A popped node pushes its next sibling, then its first child, so pops
    # come in document order without collecting children.
    stack = [(root, -1, 0)] if root is not None else []
    while stack:
        node, parent, depth = stack.pop()
        sibling = node.next
        if sibling is not None and parent >= 0:
            stack.append((sibling, parent, depth))
        tag = node.tag
        if tag == "-text":
            text = _kept_text(node.text_content, parent in in_pre)
            if not text:
                continue
            if len(text) > limits.MAX_NODE_TEXT:
                text, truncated = text[: limits.MAX_NODE_TEXT], True
            total_text += len(text)
            if total_text > limits.MAX_TOTAL_TEXT or len(nodes) >= limits.MAX_NODES:
                truncated = True
                break
            nodes.append({"id": len(nodes), "parent": parent, "depth": depth, "tag": TEXT, "text": text})
            continue
        if tag == "script":
            script_type = node.attributes.get("type")  # its text is read only when the type can name TeX
            if not script_type or TEX_SCRIPT_TYPE not in script_type.lower():
                continue
            formula = formula_nodes(script_type, node.text(deep=True), len(nodes), parent, depth)
            if len(nodes) + len(formula) > limits.MAX_NODES:
                truncated = True
                break
            nodes += formula
            continue
        if not tag or tag[0] in "-#_!" or tag in SKIP_SUBTREE:
            continue  # comments, doctype, processing instructions, skipped subtrees
        if len(nodes) >= limits.MAX_NODES:
            truncated = True
            break
        nid = len(nodes)
        entry = {"id": nid, "parent": parent, "depth": depth, "tag": tag[: limits.MAX_TAG_CHARS]}
        attrs = node.attributes
        if attrs:
            _add_markup_fields(entry, node, tag, attrs, base, joined)
        nodes.append(entry)
        if tag == "pre" or parent in in_pre:
            in_pre.add(nid)
        if tag not in LEAF_ONLY:
            child = node.child
            if child is not None:
                stack.append((child, nid, depth + 1))
    return nodes, truncated


def formula_nodes(script_type: str | None, source: str | None, nid: int, parent: int, depth: int) -> list[dict]:
    """The nodes a `<script type="math/tex">` stands for (none for any other script, or one without TeX): a
    <math> whose alt is the TeX, as a formula's alttext is kept; a display formula
    (`math/tex; mode=display`) in a <div> of its own, the block it is drawn as. All three walks call this rule
    (the compiled one calls it here; extension/content/snapshot.js is its twin)."""
    parts = [p.strip(_HTML_SPACE) for p in (script_type or "").lower().split(";")]
    tex = _attr(source)
    if parts[0] != TEX_SCRIPT_TYPE or not tex:
        return []
    if TEX_DISPLAY_MODE not in parts[1:]:
        return [{"id": nid, "parent": parent, "depth": depth, "tag": "math", "alt": tex}]
    return [
        {"id": nid, "parent": parent, "depth": depth, "tag": "div"},
        {"id": nid + 1, "parent": nid, "depth": depth + 1, "tag": "math", "alt": tex},
    ]


def _kept_text(text: str | None, in_pre: bool) -> str:
    """A text node's text as the snapshot keeps it ("" for none): whitespace alone becomes one space, except
    inside <pre>, where it is content."""
    if not text:
        return ""
    return " " if not in_pre and not text.strip() else text


def _add_markup_fields(entry: dict, node, tag: str, attrs: dict, base: str | None, joined: dict[str, str]) -> None:
    """The fields an element's attributes give: classes, id, role, aria-label, microdata; a link's address
    and rel, an image's address, alt, width and height (addresses made absolute against `base`), a formula's alttext (its TeX)
    as its alt, a date attribute on any element (`limits.DATE_ATTRIBUTES`, the first it has); and `hidden` when
    markup hides it."""
    cls = attrs.get("class")
    if cls:
        names = [c[: limits.MAX_ATTR_CHARS] for c in cls.split()[: limits.MAX_CLASSES]]
        if names:
            entry["classes"] = names
    for key, field in (("id", "html_id"), ("role", "role"), ("aria-label", "aria_label"), ("itemprop", "itemprop")):
        value = attrs.get(key)
        if value and value.strip():
            entry[field] = _attr(value)
    if "itemscope" in attrs:
        itemtype = attrs.get("itemtype")
        if itemtype and itemtype.strip():
            entry["itemtype"] = _attr(itemtype)
    if tag == "a" and "href" in attrs:
        href = _attr(attrs.get("href"))
        entry["href"] = _join(base, href, joined) if base else href
        rel = attrs.get("rel")
        if rel and rel.strip():
            entry["rel"] = _attr(rel)
    elif tag == "img":
        src = image_source(attrs, _picture_srcsets(node))
        if src:
            entry["src"] = _join(base, src, joined) if base else src
        alt = attrs.get("alt")
        if alt and alt.strip():
            entry["alt"] = _attr(alt)
        for side in ("width", "height"):
            px = image_side(attrs.get(side))
            if px:
                entry[side] = px
    elif tag == "math":  # a formula's TeX (Wikipedia), kept as its alt
        alt = attrs.get("alttext")
        if alt and alt.strip():
            entry["alt"] = _attr(alt)
    for name in limits.DATE_ATTRIBUTES:
        when = attrs.get(name)
        if when and when.strip():
            entry["datetime"] = _attr(when)
            break
    if _hidden_by_markup(tag, attrs):
        entry["hidden"] = True


def _hidden_by_markup(tag: str, attrs) -> bool:
    """`hidden`, `aria-hidden="true"`, an inline style of display:none or visibility:hidden, or a hidden input."""
    style = attrs.get("style")
    return (
        "hidden" in attrs
        or (attrs.get("aria-hidden") or "").strip().lower() == "true"
        or bool(style and _HIDDEN_STYLE.search(style))
        or (tag == "input" and (attrs.get("type") or "").lower() == "hidden")
    )


# A page with something of every rule above, for the compiled walk to prove itself on before it is used.
_PROBE_PAGE = """<!doctype html><html lang=en><head><title>t</title><script>x</script></head><body>
<!-- c --><div class=" a  b " id=" i " role=main aria-label=l itemprop=p itemscope itemtype=t hidden>
<p style="color:red; display : none !important">one  <b>two</b>\n\xa0</p><pre> <i> x </i>\n </pre>
<a href="/x?y" rel=next>a</a><a href=#f>b</a><time datetime=" 2020 ">t</time><input type=HIDDEN>
<picture><source data-srcset="s.jpg 2x, t.jpg 3x"><img src="data:x" alt=" alt " aria-hidden=" TRUE "></picture>
<img data-lazy-src=l.png><svg viewBox="0 0 1 1"><clipPath><path d=""/></clipPath></svg><x-custom-el
data-src=d data-published=" 2021-02-03 " datetime=" ">\ufffd</x-custom-el><template><p>t</p></template>
<select><option>o</select><style>s</style>
</div></body></html>"""


def _probe(tree_walk) -> bool:
    """The compiled walk was built for the installed selectolax (it reads lexbor's structs, whose layout is
    no promised interface) and gives `_walk`'s answer on the probe page."""
    if selectolax.__version__ != tree_walk.SELECTOLAX_VERSION:
        return False
    tree = LexborHTMLParser(_PROBE_PAGE)
    root = tree.root
    if root is None:  # never on the probe page; a probe that fails counts as false (load_compiled)
        return False
    return all(
        tree_walk.walk(root.mem_id, base, _THIS) == _walk(root, base) for base in (None, "https://probe.example/a/")
    )


_THIS = sys.modules[__name__]
_compiled = load_compiled("tree_walk", _probe)
