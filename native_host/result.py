"""What an extraction returns: the types at the boundary between the engine and its callers."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

LABELS = ("main", "title", "heading", "paragraph", "list", "table")


@dataclass
class BlockResult:
    """One text block of the page, with the model's scores for each label in LABELS."""

    index: int
    node_ids: list[int]
    text: str
    scores: dict[str, float]
    main: bool


@dataclass
class Result:
    """Main content of one page. `node_ids` are snapshot node ids, for highlighting in the live page."""

    url: str | None
    title: str | None
    byline: str | None
    lang: str | None
    text: str
    markdown: str
    html: str
    node_ids: list[int]
    blocks: list[BlockResult]
    timings: dict[str, float] = field(default_factory=dict)  # milliseconds per stage
    truncated: bool = False

    def to_dict(self) -> dict:
        return asdict(self)
