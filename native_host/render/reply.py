"""The host's reply to an `extract` (docs/protocol.md): a Result shaped into what the request wants.

The browser link (browser/protocol.py) checks the request and moves the bytes; the reply's fields are made here:
the highlight, the outline, the article with its metadata (the fields `Result` marks `reply`), the renderings
asked for, the default template's front matter where Markdown is asked for, and a selection's body in place of
the article's.
"""

from __future__ import annotations

from ..pipeline.article import READER_VIEWS, selection_body
from ..result import REPLY_FIELDS
from .document import default_front_matter

PROTOCOL = 1  # the version every message carries as "v"
WANTS = ("highlight", "outline", "article", "text", "markdown")
DEFAULT_WANT = ("highlight", "article")
ARTICLE_FIELDS = {"html": "article", "markdown": "markdown", "text": "text"}  # reply's article field -> its want
WANT_FIELDS = {
    "highlight": ("node_ids", "blocks"),
    "outline": ("outline", "headline"),
}  # a want's fields outside the article
OUTLINE_SCORE = 0.5  # a main block whose title or heading score is above this is outlined as a title or heading
# Always in a reply's article, whatever the want: the fields Result marks `reply`.
METADATA_FIELDS = REPLY_FIELDS


def envelope(rid: int | None, kind: str) -> dict:
    """What every message of the protocol starts with: its version, the request's id, its type."""
    return {"v": PROTOCOL, "id": rid, "type": kind}


def reader_views(want: frozenset[str]) -> set[str]:
    """The reader's renderings (article.READER_VIEWS) that `want` needs built: the extractor makes only those."""
    return {field for field, asked in ARTICLE_FIELDS.items() if asked in want and field in READER_VIEWS}


def with_selection(reply: dict, snapshot: dict, selection: list[int]) -> dict:
    """The reply whose article body (markdown and text) is the selection's, marked `selection: true`, where
    the selection holds text; else as it was."""
    body = selection_body(snapshot, selection) if selection and "article" in reply else None
    if body is not None:
        reply["article"].update(markdown=body[0], text=body[1], selection=True, markdown_blocks=[])
    return reply


def shape_part(rid: int, result, first: frozenset[str]) -> dict:
    """The `part` of a reply: the fields of the wants in `first`, the article's metadata, `truncated` and
    `timings` (docs/protocol.md, Parts); `first_screen: true` in its article where its html is the first
    screen's alone (`Result.first_screen`)."""
    reply = {**shape_result(rid, result, first), "type": "part"}
    if result.first_screen and "html" in reply["article"]:
        reply["article"]["first_screen"] = True
    return reply


def shape_rest(rid: int, result, want: frozenset[str], first: frozenset[str], html: bool = False) -> dict:
    """The `result` that follows a `part`: the fields of the other wants, `truncated` and `timings`; with
    `html`, the article's whole html too (the part had the first screen's), and `first_screen: false`."""
    reply = shape_result(rid, result, want - first)
    for field in METADATA_FIELDS:
        del reply["article"][field]
    if html:
        reply["article"].update(html=result.html, first_screen=False)
    return reply


def outline_kind(scores: dict[str, float]) -> str:
    """How a main block is outlined on the page: "title", "heading" or "main" (body text)."""
    title, heading = scores.get("title", 0.0), scores.get("heading", 0.0)
    if title > OUTLINE_SCORE and title >= heading:
        return "title"
    return "heading" if heading > OUTLINE_SCORE else "main"


def shape_result(rid: int, result, want: frozenset[str]) -> dict:
    """Only what was asked for: a highlight-only request must not pay for a 5 MB article on the wire, nor the
    extension's outlines for every block's scores (`outline`: at 5,000 elements a fifth of `highlight`'s bytes)."""
    reply = envelope(rid, "result")
    if "highlight" in want:
        reply["node_ids"] = result.node_ids
        reply["blocks"] = [
            {"index": b.index, "node_ids": b.node_ids, "scores": b.scores, "main": b.main} for b in result.blocks
        ]
    if "outline" in want:
        head = result.headline_block
        reply["outline"] = [
            {"node_ids": b.node_ids, "kind": "title" if b.index == head else outline_kind(b.scores)}
            for b in result.blocks
            if b.main
        ]
        # The page's headline, outlined as the title whether or not the model calls it main (most golds leave
        # it out of the body, so it often is not: docs/metadata.md).
        reply["headline"] = next((b.node_ids for b in result.blocks if b.index == head), [])
    article = {field: getattr(result, field) for field in METADATA_FIELDS}
    article["image"] = {"url": result.image.url, "alt": result.image.alt} if result.image else None
    for field, asked in ARTICLE_FIELDS.items():
        if asked in want:
            article[field] = getattr(result, field)
    if "markdown" in want:  # the default template's head, for a client that saves without its own (document.py)
        article["front_matter"] = default_front_matter(article)
        article["markdown_blocks"] = result.markdown_blocks  # the reader's Copy and Save of a selection
    reply["article"] = article
    reply["timings"] = dict(result.timings)
    reply["truncated"] = bool(result.truncated)
    return reply
