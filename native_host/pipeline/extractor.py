"""The engine: page -> snapshot -> blocks -> features -> model -> labels -> article.

`Extractor` loads the model once and serves any number of pages; the native-messaging host, the CLI and
Python users all go through it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Collection

import numpy as np

from .. import __version__
from .article import READER_VIEWS, build_article
from .blocks import blocks_from_snapshot
from .features import Featurizer
from ..gc_pause import gc_paused
from ..limits import MAX_BLOCKS
from .inference import CLASS_VOCAB_FILE, TOKENIZER_FILE, OnnxModel
from ..result import LABELS, BlockResult, Result
from .schema import validate_snapshot
from .snapshot import snapshot_from_html


class Extractor:
    """Loads the shipped model (or the one in `model_dir`) once; CPU unless a CUDA provider is present.
    `threads` for inference: 1 suits a worker among many, `limits.one_page_threads()` one page waited on."""

    def __init__(self, model_dir: str | Path | None = None, providers: list[str] | None = None, threads: int = 1):
        self.model = OnnxModel(model_dir, providers, threads)
        self.featurize = Featurizer(self.model.dir / TOKENIZER_FILE, self.model.dir / CLASS_VOCAB_FILE)

    @property
    def threshold(self) -> float:
        """The decision threshold on the main-content score, chosen on dev at training time (model.json)."""
        return self.model.threshold

    @property
    def info(self) -> dict:
        return {"model_id": self.model.model_id, "providers": list(self.model.providers), "version": __version__,
                "threshold": self.threshold}

    def extract_html(self, html: bytes | str, url: str | None = None, views: Collection[str] = READER_VIEWS
                     ) -> Result:
        """`views`: which of the reader's renderings ("html", "markdown") to build; those left out are ""."""
        with gc_paused():
            t0 = time.perf_counter()
            snapshot = snapshot_from_html(html, url=url)
            return self._extract(snapshot, {"snapshot": (time.perf_counter() - t0) * 1000}, views)

    def extract_snapshot(self, snapshot: dict, views: Collection[str] = READER_VIEWS) -> Result:
        """Extract from a snapshot that arrived from outside: it is validated first (SnapshotError). A
        highlight alone needs no reader views: at 5k nodes they were a seventh of the engine's time."""
        with gc_paused():
            t0 = time.perf_counter()
            validate_snapshot(snapshot)
            return self._extract(snapshot, {"validate": (time.perf_counter() - t0) * 1000}, views)

    def _extract(self, snapshot: dict, timings: dict[str, float], views: Collection[str]) -> Result:
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
        scores = self.model.scores(inputs)
        lap("inference")
        main = [bool(s) for s in scores[:, 0] >= self.threshold]
        title, head = _headline(blocks, scores, main)
        shown = [m or i == head for i, m in enumerate(main)]  # the reader shows the headline too
        article = build_article(snapshot, blocks, main, title or snapshot.get("title"), shown, views)
        lap("article")
        node_ids = sorted({i for b, m in zip(blocks, main) if m for i in b.node_ids})
        block_results = [BlockResult(b.index, b.node_ids, b.text, {k: round(v, 4) for k, v in zip(LABELS, s)}, m)
                         for b, s, m in zip(blocks, scores.astype(np.float64).tolist(), main)]
        timings["total"] = sum(timings.values())
        return Result(url=snapshot.get("url"), title=article.title, byline=article.byline, lang=snapshot.get("lang"),
                      text=article.text, markdown=article.markdown, html=article.html, node_ids=node_ids,
                      blocks=block_results, timings={k: round(v, 3) for k, v in timings.items()},
                      truncated=bool(snapshot.get("truncated")) or len(blocks) >= MAX_BLOCKS)


HEADLINE_MIN = 0.5   # title + heading score a main block needs to be taken as the page's headline
HEADLINE_CHARS = 200
HEADLINE_BEFORE = 3  # blocks before the first main block where the page's <h1> may sit


def _headline(blocks, scores, main) -> tuple[str | None, int | None]:
    """The page's own headline beats a <title> with a site suffix. An <h1> in the main content or just above
    it comes first: most gold texts leave the headline out, so the model often scores it as not main, and its
    title head is weakly trained (docs/model.md). Failing that, the main block most likely to be the title, if
    it reads as a title or heading at all. Returns the headline and the block it came from."""
    first = next((i for i, m in enumerate(main) if m), None)
    if first is None:
        return None, None
    for i in range(max(0, first - HEADLINE_BEFORE), len(blocks)):
        b = blocks[i]
        if (main[i] or i < first) and b.tag_path[-1:] == ["h1"] and 0 < len(b.text) <= HEADLINE_CHARS:
            return " ".join(b.text.split()), i
    best = None
    for b, s, m in zip(blocks, scores, main):
        if m and len(b.text) <= HEADLINE_CHARS and s[1] + s[2] >= HEADLINE_MIN and (best is None or s[1] > best[0]):
            best = (s[1], b)
    return (" ".join(best[1].text.split()), best[1].index) if best else (None, None)
