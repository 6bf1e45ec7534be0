"""What an extraction returns: the types at the boundary between the engine and its callers."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

# What the model scores per block: main content, NeuScraper's structure labels, and the byline and date cues
# metadata falls back on. One list, trained (export/) and served in this order.
LABELS = ("main", "title", "heading", "paragraph", "list", "table", "byline", "date")
PAGE_TYPES = ("article", "forum", "product", "collection", "listing", "documentation", "service")  # WCXB's


@dataclass
class BlockResult:
    """One text block of the page, with the model's scores for each label in LABELS."""

    index: int
    node_ids: list[int]
    text: str
    scores: dict[str, float]
    main: bool


@dataclass
class Image:
    """The article's lead image."""

    url: str
    alt: str | None = None


def carried(about: str, column: str | None = None, reply: bool = False, from_metadata: bool = False) -> dict:
    """A Result field's `metadata`: who else carries the field (the one statement of each: see `Result`)."""
    return {"about": about, "column": column, "reply": reply, "from_metadata": from_metadata}


@dataclass(kw_only=True)
class Result:
    """Main content of one page, and what a reader view or a clipper shows about it. `node_ids` are snapshot
    node ids, for highlighting in the live page. Metadata fields are None where the page does not say.

    Each field says who else carries it (`carried`), and the others derive their lists from that:
    `from_metadata`, copied from the header read (pipeline.metadata.Metadata, a field or property of the same
    name); `reply`, in every reply's article (render.reply.METADATA_FIELDS; extension/background/actions.js
    is tested equal); `column`, a corpus output column of that kind (render.columns.KINDS), described by
    `about`. A new field is stated here, and read in Metadata."""

    url: str | None = field(metadata=carried("the page's URL", reply=True))  # the corpus's url column: the page's
    title: str | None = field(metadata=carried("the page's headline", "string", True, True))
    byline: str | None = field(metadata=carried("author names", "string", True, True))
    date: str | None = field(default=None, metadata=carried("published, ISO 8601", "string", True, True))
    modified: str | None = field(default=None, metadata=carried("last modified, ISO 8601", "string", True, True))
    lang: str | None = field(metadata=carried("the page's language, as it declares it", "string", True, True))
    dir: str | None = field(default=None, metadata=carried("ltr, rtl or auto", "string", True, True))
    site_name: str | None = field(default=None, metadata=carried("the site's name", "string", True, True))
    description: str | None = field(default=None, metadata=carried("the page's own summary", "string", True, True))
    canonical_url: str | None = field(
        default=None, metadata=carried("the URL the page names as its own", "string", True, True)
    )
    image: Image | None = field(default=None, metadata=carried("the lead image", "image", True, True))
    page_type: str | None = field(
        default=None, metadata=carried("article, forum, product, ... (result.PAGE_TYPES)", "string", True, True)
    )
    shape: str = field(
        default="article",
        metadata=carried("the reader's form: article, forum, listing, product, documentation", reply=True),
    )
    text: str = field(metadata=carried("the main content as plain text", "string"))
    word_count: int = field(default=0, metadata=carried("words of the main content", "int", True))
    reading_minutes: int = field(default=0, metadata=carried("minutes to read it", "int", True))
    truncated: bool = field(default=False, metadata=carried("a size limit cut the page short", "bool"))
    markdown: str = field(metadata=carried("the main content as Markdown (built only when asked)", "string"))
    html: str = field(metadata=carried("the main content as clean HTML (built only when asked)", "string"))
    node_ids: list[int] = field(metadata=carried("the snapshot nodes of the content", "int_list"))
    blocks: list[BlockResult] = field(metadata=carried("every block with the model's scores and decision", "blocks"))
    authors: list[str] = field(
        default_factory=list,
        metadata=carried("the names in byline, one each, in its order", "string_list", from_metadata=True),
    )
    tags: list[str] = field(
        default_factory=list,
        metadata=carried("the page's keywords, at most metadata.MAX_TAGS", "string_list", True, True),
    )
    headline_block: int | None = field(
        default=None,
        metadata=carried("the block holding the page's own headline (main or not), if found", from_metadata=True),
    )
    timings: dict[str, float] = field(default_factory=dict, metadata=carried("milliseconds per stage"))

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def markdown_blocks(self) -> list[list[int]]:
        """Where each top-level element of `html` is in `markdown` ([start, end) in code points, pipeline/
        article.py's markdown_blocks): what the reader's Copy and Save take a selection by. Not a field: the
        reply's alone, never a column nor in `to_dict`."""
        return getattr(self, "_markdown_blocks", [])

    @markdown_blocks.setter
    def markdown_blocks(self, spans: list[list[int]]) -> None:
        self._markdown_blocks = spans

    @property
    def first_screen(self) -> bool:
        """Whether `html` is the first screen's alone, the whole to follow (a reply's `part`: docs/protocol.md,
        Parts). Not a field, as `markdown_blocks`."""
        return getattr(self, "_first_screen", False)

    @first_screen.setter
    def first_screen(self, cut: bool) -> None:
        self._first_screen = cut


def _flagged(flag: str) -> tuple[str, ...]:
    return tuple(f.name for f in fields(Result) if f.metadata[flag])


REPLY_FIELDS = _flagged("reply")  # always in a reply's article: small, what a reader's header shows
FROM_METADATA = _flagged("from_metadata")  # copied from the header read, name for name
