"""Main blocks -> a clean article: HTML, Markdown and plain text from one pruned copy of the page.

The kept tree is the snapshot restricted to the nodes of main blocks and their ancestors, so tables, lists
and headings keep their structure. Generic containers (div, section, span...) are unwrapped; text that sits
directly in one becomes a paragraph. Only an allowlist of tags survives, links keep absolute http(s)/mailto
targets only, and images that sit inside or between main content become figures. Nothing from the page's
attributes but href, src and alt is carried over: the reader view shows structure, never page styling or code.

Nesting of kept structure is capped (MAX_NESTING), so a page nested 100,000 deep renders without recursion
trouble; deeper structure is flattened.
"""

from __future__ import annotations

import html as htmlmod
import re
from dataclasses import dataclass, field
from typing import Collection

from .blocks import INLINE, Block

MAX_NESTING = 48
BLOCK_TAGS = frozenset("""p h1 h2 h3 h4 h5 h6 ul ol li dl dt dd table thead tbody tfoot tr td th caption pre
blockquote figure figcaption hr""".split())
INLINE_MAP = {"b": "strong", "strong": "strong", "i": "em", "em": "em", "code": "code", "kbd": "code",
              "samp": "code", "tt": "code", "sup": "sup", "sub": "sub", "mark": "mark", "s": "s", "del": "s",
              "strike": "s", "q": "q", "abbr": "abbr", "cite": "cite"}
# Containers whose inline content needs no <p> around it.
HOLDS_INLINE = frozenset("p h1 h2 h3 h4 h5 h6 li dt dd td th caption pre figcaption".split())
SAFE_SCHEMES = ("http", "https", "mailto")
_URL_IGNORED = re.compile(r"[\x00-\x20\x7f]")  # browsers drop these inside URLs: "java\tscript:" is javascript:
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")


def safe_url(url: str | None) -> str | None:
    """The URL if it is http(s), mailto or relative (no scheme: it cannot run code), else None."""
    if not url:
        return None
    cleaned = _URL_IGNORED.sub("", url)
    match = _SCHEME.match(cleaned)
    if match and match.group(1).lower() not in SAFE_SCHEMES:
        return None
    return url.strip()
_SPACE = re.compile(r"\s+")


@dataclass
class Element:
    """A node of the article tree: a tag (from the allowlist) or a text run (tag None)."""

    tag: str | None
    text: str = ""
    attrs: dict[str, str] = field(default_factory=dict)
    children: list["Element"] = field(default_factory=list)


@dataclass
class Article:
    title: str | None
    byline: str | None
    html: str
    markdown: str
    text: str


def _keep_with_ancestors(nodes: list[dict], i: int, keep: set[int]) -> None:
    """Add node i and its ancestors up to the first one already kept (whose own ancestors are then kept too)."""
    while i >= 0 and i not in keep:
        keep.add(i)
        i = nodes[i]["parent"]


def _keep_set(nodes: list[dict], blocks: list[Block], main: list[bool]) -> tuple[set[int], set[int]]:
    content: set[int] = set()
    for b, m in zip(blocks, main):
        if m:
            content.update(b.node_ids)
    keep: set[int] = set()
    for i in content:
        _keep_with_ancestors(nodes, i, keep)
    # Images inside or between main content: the nearest text before and after is main.
    text_main: dict[int, bool] = {}
    for b, m in zip(blocks, main):
        for i in b.node_ids:
            if nodes[i]["tag"] == "#text":
                text_main[i] = m
    last = False
    pending: list[int] = []
    # Only images and the blocks' text nodes matter here, in document order (ids are document order).
    images = [node["id"] for node in nodes if node["tag"] == "img"]
    for i in sorted(text_main.keys() | images) if images else ():
        node = nodes[i]
        if node["tag"] == "img" and safe_url(node.get("src")):
            if last:
                pending.append(i)
        elif i in text_main:
            if text_main[i]:
                for img in pending:
                    _keep_with_ancestors(nodes, img, keep)
            pending = []
            last = text_main[i]
    return keep, content


def build_tree(snapshot: dict, blocks: list[Block], main: list[bool]) -> Element:
    """The pruned, allowlisted article tree."""
    nodes = snapshot["nodes"]
    keep, content = _keep_set(nodes, blocks, main)
    root = Element("article")
    # Map kept snapshot ids to the Element their children go into, walking in document order.
    target: dict[int, Element] = {}
    nesting: dict[int, int] = {}
    for i in sorted(keep):  # ids are document order
        node = nodes[i]
        parent = node["parent"]
        host = target.get(parent, root)
        level = nesting.get(parent, 0)
        tag = node["tag"]
        if tag == "#text":
            if i in content:
                host.children.append(Element(None, node["text"]))
            continue
        if tag == "br":
            host.children.append(Element("br"))
            continue
        if tag == "img":
            src = safe_url(node.get("src"))
            if not src:  # kept only as the ancestor of main text: a script can put nodes inside an <img>
                target[i], nesting[i] = host, level
                continue
            img = Element("img", attrs={"src": src, "alt": node.get("alt", "")})
            if _inside(nodes, i, "figure", keep):
                host.children.append(img)  # the page's own figure, with its own caption
                continue
            fig = Element("figure", children=[img])
            if node.get("alt"):
                fig.children.append(Element("figcaption", children=[Element(None, node["alt"])]))
            host.children.append(fig)
            continue
        out_tag = None
        attrs: dict[str, str] = {}
        if tag in BLOCK_TAGS and level < MAX_NESTING:
            out_tag = tag
        elif tag in INLINE_MAP:
            out_tag = INLINE_MAP[tag]
        elif tag == "a" and safe_url(node.get("href")):
            out_tag, attrs = "a", {"href": safe_url(node["href"])}
        if out_tag is None:
            if tag in INLINE:
                target[i] = host  # unwrap: children go where this node would have gone
                nesting[i] = level
                continue
            out_tag = "div"  # a generic container: flattened once its loose text is in paragraphs
        el = Element(out_tag, attrs=attrs)
        host.children.append(el)
        target[i] = el
        nesting[i] = level + (out_tag in BLOCK_TAGS)
    _paragraphs(root)
    _flatten_divs(root)
    return root


def _inside(nodes: list[dict], i: int, tag: str, keep: set[int]) -> bool:
    p = nodes[i]["parent"]
    while p >= 0:
        if nodes[p]["tag"] == tag:
            return p in keep
        p = nodes[p]["parent"]
    return False


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
                    todo.extend(reversed(c.children))
                else:
                    flat.append(c)
            el.children = flat
        stack.extend(c for c in el.children if c.tag is not None)


def _is_inline(el: Element) -> bool:
    return el.tag is None or el.tag in INLINE_MAP.values() or el.tag in ("a", "br")


def _paragraphs(root: Element) -> None:
    """Wrap runs of inline content that sit directly in a block container into <p>; drop empty elements."""
    stack = [root]
    while stack:
        el = stack.pop()
        if el.tag is None or _is_inline(el):
            continue
        if el.tag not in HOLDS_INLINE and any(_is_inline(c) for c in el.children):
            grouped: list[Element] = []
            run: list[Element] = []
            for c in el.children + [None]:
                if c is not None and _is_inline(c):
                    run.append(c)
                    continue
                if run and any(_has_text(r) for r in run):
                    grouped.append(Element("p", children=run))
                run = []
                if c is not None:
                    grouped.append(c)
            el.children = grouped
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


def to_html(root: Element) -> str:
    out: list[str] = []
    in_pre = 0
    # (element, closing?) events, iterative
    stack: list[tuple[Element, bool]] = [(c, False) for c in reversed(root.children)]
    while stack:
        el, closing = stack.pop()
        if el.tag is None:
            out.append(htmlmod.escape(el.text if in_pre else _SPACE.sub(" ", el.text), quote=False))
            continue
        if closing:
            in_pre -= el.tag == "pre"
            out.append(f"</{el.tag}>")
            if el.tag in BLOCK_TAGS:
                out.append("\n")
            continue
        if el.tag in ("br", "img", "hr"):
            attrs = "".join(f' {k}="{htmlmod.escape(v)}"' for k, v in el.attrs.items())
            out.append(f"<{el.tag}{attrs}>")
            continue
        if not _has_text(el) and el.tag not in ("td", "th"):
            continue
        attrs = "".join(f' {k}="{htmlmod.escape(v)}"' for k, v in el.attrs.items())
        out.append(f"<{el.tag}{attrs}>")
        in_pre += el.tag == "pre"
        stack.append((el, True))
        stack.extend((c, False) for c in reversed(el.children))
    return "".join(out).strip()


def _inline_md(el: Element) -> str:
    parts: list[str] = []
    stack: list[tuple[Element, str | None]] = [(el, None)]
    while stack:
        e, suffix = stack.pop()
        if suffix is not None:
            parts.append(suffix)
            continue
        if e.tag is None:
            parts.append(_SPACE.sub(" ", e.text).replace("*", r"\*").replace("_", r"\_"))
            continue
        if e.tag == "br":
            parts.append("  \n")
            continue
        if e.tag == "img":
            parts.append(f"![{e.attrs.get('alt', '')}]({e.attrs.get('src', '')})")
            continue
        mark = {"strong": "**", "em": "_", "code": "`", "s": "~~"}.get(e.tag, "")
        if e.tag == "a":
            parts.append("[")
            stack.append((e, f"]({e.attrs['href']})"))
        elif mark and e is not el:
            parts.append(mark)
            stack.append((e, mark))
        stack.extend((c, None) for c in reversed(e.children))
    return re.sub(r"[ \t]+", " ", "".join(parts)).strip()


def to_markdown(root: Element) -> str:
    lines: list[str | tuple[str, bool]] = []  # (line, is a list item) for items
    # (element, list depth, ordered index or None, quote prefix)
    stack: list[tuple[Element, int, int | None, str]] = [(c, 0, None, "") for c in reversed(root.children)]
    while stack:
        el, depth, number, quote = stack.pop()
        tag = el.tag
        if tag is None or tag in INLINE_MAP.values() or tag in ("a", "br"):
            text = _inline_md(Element("p", children=[el]))
            if text:
                lines.append(quote + text)
            continue
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            text = _inline_md(el)
            if text:
                lines.append(f"{quote}{'#' * int(tag[1])} {text}")
        elif tag in ("p", "dt", "dd", "caption", "figcaption"):
            text = _inline_md(el)
            if text:
                lines.append(quote + text)
        elif tag == "pre":
            body = "".join(_texts(el)).strip("\n")
            lines.append(f"{quote}```\n{body}\n```")
        elif tag == "li":
            text = _inline_md(Element("p", children=[c for c in el.children if _is_inline(c)]))
            bullet = f"{number}." if number is not None else "-"
            lines.append((f"{quote}{'  ' * depth}{bullet} {text}", True))
            for c in reversed([c for c in el.children if not _is_inline(c)]):
                stack.append((c, depth + 1, None, quote))
            continue
        elif tag in ("ul", "ol"):
            items = [c for c in el.children if c.tag == "li"]
            for k, c in reversed(list(enumerate(items, 1))):
                stack.append((c, depth, k if tag == "ol" else None, quote))
            continue
        elif tag == "table":
            lines.append(_table_md(el, quote))
        elif tag == "figure":
            for c in el.children:
                if c.tag == "img":
                    lines.append(f"{quote}![{c.attrs.get('alt', '')}]({c.attrs.get('src', '')})")
                elif _has_text(c):
                    lines.append(quote + "_" + _inline_md(c) + "_")
        elif tag == "hr":
            lines.append(quote + "---")
        else:  # blockquote, dl, article, and other containers
            q = quote + "> " if tag == "blockquote" else quote
            stack.extend((c, depth, None, q) for c in reversed(el.children))
            continue
    out: list[str] = []
    previous_item = False
    for line in lines:
        text, item = line if isinstance(line, tuple) else (line, False)
        if out and not (item and previous_item):
            out.append("")  # a blank line between blocks, none between the items of a list
        out.append(text)
        previous_item = item
    return "\n".join(out).strip() + "\n" if out else ""


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


def _table_md(table: Element, quote: str) -> str:
    rows: list[list[str]] = []
    stack = [table]
    while stack:
        e = stack.pop()
        if e.tag == "tr":
            rows.append([_inline_md(c).replace("|", r"\|").replace("\n", " ") for c in e.children
                         if c.tag in ("td", "th")])
            continue
        stack.extend(reversed([c for c in e.children if c.tag is not None]))
    rows = [r for r in rows if any(r)]
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(quote + line for line in lines)


_BYLINE = re.compile(r"author|byline|writer|posted-?by|contributor", re.I)


def find_byline(blocks: list[Block], main: list[bool], limit: int = 120) -> str | None:
    """A short block marked as author/byline by its classes, near the first main content."""
    first = next((i for i, m in enumerate(main) if m), None)
    if first is None:
        return None
    for b in blocks[max(0, first - 10): first + 15]:
        if len(b.text) <= limit and any(_BYLINE.search(c) for c in b.class_path[-2:]):
            return " ".join(b.text.split())
    return None


READER_VIEWS = frozenset({"html", "markdown"})  # the renderings of the reader, each built only when asked for


def build_article(snapshot: dict, blocks: list[Block], main: list[bool], title: str | None,
                  shown: list[bool] | None = None, views: Collection[str] = READER_VIEWS) -> Article:
    """`text` is the main content as labelled; the reader's html and markdown show `shown` (the main blocks
    and the page's headline, which most training golds leave out, so the model often does too). Of html and
    markdown, only those in `views` are built (the pruned tree too, when neither is); the others are ""."""
    text = "\n\n".join(b.text for b, m in zip(blocks, main) if m)
    html = markdown = ""
    if "html" in views or "markdown" in views:
        root = build_tree(snapshot, blocks, main if shown is None else shown)
        html = to_html(root) if "html" in views else ""
        markdown = to_markdown(root) if "markdown" in views else ""
    return Article(title=title, byline=find_byline(blocks, main), html=html, markdown=markdown, text=text)
