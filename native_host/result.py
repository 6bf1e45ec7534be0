"""What an extraction returns: the types at the boundary between the engine and its callers."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

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


@dataclass
class Result:
    """Main content of one page, and what a reader view or a clipper shows about it. `node_ids` are snapshot
    node ids, for highlighting in the live page. Metadata fields are None where the page does not say."""

    url: str | None
    title: str | None
    byline: str | None          # author names only
    lang: str | None
    text: str
    markdown: str
    html: str
    node_ids: list[int]
    blocks: list[BlockResult]
    timings: dict[str, float] = field(default_factory=dict)  # milliseconds per stage
    truncated: bool = False
    date: str | None = None           # published, ISO 8601
    modified: str | None = None       # last modified, ISO 8601
    site_name: str | None = None
    dir: str | None = None            # "ltr" | "rtl" | "auto"
    description: str | None = None
    image: Image | None = None
    canonical_url: str | None = None
    page_type: str | None = None      # one of PAGE_TYPES
    word_count: int = 0
    reading_minutes: int = 0
    authors: list[str] = field(default_factory=list)  # the names in `byline`, one each, in its order
    tags: list[str] = field(default_factory=list)     # the page's keywords, at most metadata.MAX_TAGS
    headline_block: int | None = None  # the block holding the page's own headline (main or not), if found

    def to_dict(self) -> dict:
        return asdict(self)
