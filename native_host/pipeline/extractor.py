"""The engine: page -> snapshot -> blocks -> features -> model -> decisions -> metadata -> article.

`Extractor` loads the model once and serves any number of pages; the native-messaging host, the CLI and
Python users all go through it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from pathlib import Path

import numpy as np

from ..gc_pause import gc_paused
from ..limits import MAX_BLOCKS
from ..result import FROM_METADATA, PAGE_TYPES, BlockResult, Result
from ..version import __version__
from .article import READER_VIEWS, add_views, build_article
from .blocks import Block, blocks_from_snapshot
from .decisions import main_blocks
from .features import Featurizer
from .inference import OnnxModel
from .metadata import length, read_metadata, read_stated, read_structured, section_front, stated_page_type
from .rescore import Rescorer
from .schema import validate_snapshot
from .shape import plan_shape
from .snapshot import snapshot_from_html


class Extractor:
    """Loads the shipped model (or the one in `model_dir`) once; CPU unless a CUDA provider is present.
    `threads` for inference: 1 suits a worker among many, `limits.one_page_threads()` one page waited on."""

    def __init__(self, model_dir: str | Path | None = None, providers: list[str] | None = None, threads: int = 1):
        self.model = OnnxModel(model_dir, providers, threads)
        self.featurize = Featurizer(self.model.dir, threads)
        self.rescorer = Rescorer.load(self.model.dir)  # None for a model folder without rescore.onnx

    @property
    def threshold(self) -> float:
        """The decision threshold on the main-content score, chosen on dev at training time (model.json)."""
        return self.model.threshold

    @property
    def info(self) -> dict:
        return {
            "model_id": self.model.model_id,
            "providers": list(self.model.providers),
            "version": __version__,
            "threshold": self.threshold,
        }

    def extract_html(
        self,
        html: bytes | str,
        url: str | None = None,
        views: Collection[str] = READER_VIEWS,
        charset: str | None = None,
    ) -> Result:
        """`views`: which of the reader's renderings ("html", "markdown") to build; those left out are "".
        `charset`: the one the page was served with (HTTP Content-Type), which beats its <meta charset>."""
        with gc_paused():
            t0 = time.perf_counter()
            snapshot = snapshot_from_html(html, url=url, charset=charset)
            result = self._extract(snapshot, {"snapshot": (time.perf_counter() - t0) * 1000}, views)
            # Freed before the collector comes back: its first pass would otherwise go over every node of the
            # page, just made and about to go (0.2 ms of a median page, 1.3 at p95).
            del snapshot
        return result

    def extract_snapshot(
        self,
        snapshot: dict,
        views: Collection[str] = READER_VIEWS,
        later: Collection[str] = (),
        ready: Callable[[Result], None] | None = None,
        first_chars: int = 0,
    ) -> Result:
        """Extract from a snapshot that arrived from outside: it is validated first (SnapshotError). A
        highlight alone needs no reader views: at 5k nodes they were a seventh of the engine's time.
        `ready(result)`, when given, is called with the result as soon as `views` are built; the views in
        `later` are built after it returns, into the same result (the reader's Markdown, 13 ms at 5k nodes,
        is made while its first screen is on the wire). With `ready` and `first_chars`, the html `ready` gets
        may be the first screen's alone, its first top-level elements holding that much text
        (`Result.first_screen`); the whole follows in the same result."""
        with gc_paused():
            t0 = time.perf_counter()
            validate_snapshot(snapshot)
            timings = {"validate": (time.perf_counter() - t0) * 1000}
            return self._extract(snapshot, timings, views, later, ready, first_chars)

    def _extract(
        self,
        snapshot: dict,
        timings: dict[str, float],
        views: Collection[str],
        later: Collection[str] = (),
        ready: Callable[[Result], None] | None = None,
        first_chars: int = 0,
    ) -> Result:
        clock = time.perf_counter()

        def lap(stage: str) -> None:
            nonlocal clock
            now = time.perf_counter()
            timings[stage] = (now - clock) * 1000
            clock = now

        blocks = blocks_from_snapshot(snapshot)
        lap("blocks")
        inputs = self.featurize(snapshot, blocks)
        lap("features")
        scores, types = self.model.predict(inputs)
        lap("inference")

        def stamp(result: Result) -> None:
            timings["total"] = sum(v for k, v in timings.items() if k != "total")
            result.timings = {k: round(v, 3) for k, v in timings.items()}

        first: Callable[[Result], None] | None = None
        if ready is not None:  # `first` is defined only here, where the checker knows `ready` is set

            def tell(result: Result) -> None:
                nonlocal clock
                stamp(result)
                ready(result)
                clock = time.perf_counter()  # the time `ready` took is the caller's, not a stage's

            first = tell

        result = result_from_scores(
            snapshot,
            blocks,
            scores,
            self.model.labels,
            self.threshold,
            views,
            types,
            lap=lap,
            later=later,
            ready=first,
            first_chars=first_chars,
            rescorer=self.rescorer,
        )
        stamp(result)
        return result


def result_from_scores(
    snapshot: dict,
    blocks: list[Block],
    scores: np.ndarray,
    labels: Sequence[str],
    threshold: float,
    views: Collection[str] = READER_VIEWS,
    type_scores: Sequence[float] | np.ndarray | None = None,
    lap: Callable[[str], None] = lambda stage: None,
    later: Collection[str] = (),
    ready: Callable[[Result], None] | None = None,
    first_chars: int = 0,
    rescorer: Rescorer | None = None,
) -> Result:
    """Everything after the model: decisions, metadata and article from the blocks' scores ([N, len(labels)])
    and the page type head's probabilities over PAGE_TYPES (`type_scores`; None for a model without that
    head). Apart from the model so that it can
    be checked exactly on pinned scores, whichever CPU made them (tests/test_pinned_stages.py); `lap(stage)`
    is called as each stage ends, and the timings are the caller's. With `ready`, the result goes to it once
    `views` are built, and the views in `later` are then added to it ("later views" in the timings); its html
    may then be the first screen's alone (`first_chars`: Extractor.extract_snapshot), the whole added after.
    `rescorer`: the trees that read the main column again beside its page (rescore.py), where the model's
    folder has them."""
    structured = read_structured(snapshot)  # the page's own word on its type decides the page-level rules
    stated_type = stated_page_type(structured)
    predicted_type, type_confidence, product_share, forum_share = None, None, 0.0, 0.0
    if type_scores is not None:
        types = np.asarray(type_scores, dtype=np.float32)
        predicted_type, type_confidence = PAGE_TYPES[int(np.argmax(types))], float(np.max(types))
        product_share = float(types[PAGE_TYPES.index("product")])
        forum_share = float(types[PAGE_TYPES.index("forum")])
        if predicted_type == "article" and stated_type != "article" and section_front(structured, snapshot.get("url")):
            # a section's front page lists its items: the type head's likeliest type other than an article
            others = np.where(np.arange(len(PAGE_TYPES)) == PAGE_TYPES.index("article"), -np.inf, types)
            predicted_type = PAGE_TYPES[int(np.argmax(others))]
    page_type = predicted_type or stated_type
    if rescorer is not None:
        scores = rescorer(blocks, scores, type_scores, predicted_type, stated_type)
    main = main_blocks(snapshot, blocks, scores, threshold, page_type, product_share, read_stated(structured))
    lap("decisions")
    meta = read_metadata(snapshot, blocks, main, scores, labels, predicted_type, structured)
    lap("metadata")
    header = meta.header_blocks()
    body = [m and i not in header for i, m in enumerate(main)]  # the header shows those, not the body
    plan = plan_shape(snapshot, blocks, body, page_type, type_confidence, stated_type, forum_share)  # reader's form
    if plan.hidden:  # a post's badges and signature, a product's buttons: the text says what the reader shows
        body = [m and i not in plan.hidden for i, m in enumerate(body)]
    build = plan.own_builder
    article = build_article(snapshot, blocks, body, views, build, first_chars if ready is not None else 0)
    lap("article")
    node_ids = sorted({i for b, m in zip(blocks, main) if m for i in b.node_ids})
    # Rounded by numpy in one call, not round() per score (a sixth of everything after the model): the same
    # values (checked on 2 million float32 scores).
    rounded = np.round(scores.astype(np.float64), 4).tolist()
    words, minutes = length(article.text)
    block_results = [
        BlockResult(b.index, b.node_ids, b.text, dict(zip(labels, s)), m) for b, s, m in zip(blocks, rounded, main)
    ]
    result = Result(
        url=snapshot.get("url"),
        text=article.text,
        markdown=article.markdown,
        html=article.html,
        node_ids=node_ids,
        blocks=block_results,
        truncated=bool(snapshot.get("truncated")) or len(blocks) >= MAX_BLOCKS,
        word_count=words,
        reading_minutes=minutes,
        shape=plan.shape,
        **{name: getattr(meta, name) for name in FROM_METADATA},
    )
    result.markdown_blocks = article.markdown_blocks
    if ready is not None:
        result.first_screen = article.kept is not None
        ready(result)
        add_views(article, snapshot, blocks, body, {*later, "html"} if result.first_screen else later, build)
        result.first_screen = False
        result.html, result.markdown = article.html, article.markdown
        result.markdown_blocks = article.markdown_blocks
        lap("later views")
    return result
