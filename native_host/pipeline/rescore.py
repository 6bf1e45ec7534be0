"""The model's main-content scores read again beside their page: a small tree ensemble over each block's score
and what surrounds it (the blocks of its record shape, its neighbours, the page's spread of scores, the type
head's probabilities).

The model scores every block in context, but a shop's grid, a listing's rows or a service page's repeated
sections leave it unsure block by block: items of one shape get .2 here and .4 there. Read together, a shape
whose members the model half-keeps is one list. The trees were trained on the cross-validation folds' scores
of pages from sites their model never saw (`export/rescore.py`), so they learnt how the model errs on new
sites, which is what a user's page is.

They run only on pages that are not articles or threads by the type head's word nor by their own (structured
data): on news sites, whose golds differ in what they keep (comments, captions, teasers), they cost as much as
they gain, and a thread has a form of its own (docs/model.md, "Reading the scores again"). A model folder
without `rescore.onnx` is served as it was trained.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import ModelError
from ..result import PAGE_TYPES
from .blocks import HEADINGS, Block
from .decisions import record_shape

RESCORE_FILE = "rescore.onnx"
# The features, in the trees' column order: export/rescore.py writes these names into the graph's metadata, and
# a graph whose names differ is refused (a model folder from another release).
FEATURES = (
    "score",
    *(f"type_{name}" for name in PAGE_TYPES),
    "log_words",
    "link_share",
    "heading",
    "cell",
    "score_before",
    "score_after",
    "score_near",
    "shape_log_blocks",
    "shape_mean_score",
    "shape_kept",
    "shape_link_share",
    "shape_log_words",
    "page_mean_score",
    "page_kept",
    "to_best",
    "position",
    "page_log_blocks",
)
KEPT = 0.3  # a score counted as kept in the shape's and the page's shares: part of what the trees learnt, so
# fixed here, not read from a model's threshold (the shipped one is the same .3)
NEAR = 3  # blocks each side in the neighbourhood's mean score
# Pages the trees leave as the model scored them: articles, whose golds differ across news sites, and threads,
# whose form (shape.py) reads posts by their markup (the trees gained nothing there, live: forum -.0009).
SKIP_TYPES = ("article", "forum")
MIN_BLOCKS = 10  # a page of fewer blocks has no shapes or neighbours to read: its scores stand


def features(blocks: Sequence[Block], main: np.ndarray, types: Sequence[float] | np.ndarray | None) -> np.ndarray:
    """[N, len(FEATURES)] float64: each block's features from the blocks, their main-content scores and the
    type head's probabilities over PAGE_TYPES (zeros for a model without that head)."""
    n = len(blocks)
    out = np.zeros((n, len(FEATURES)), dtype=np.float64)
    if not n:
        return out
    s = np.asarray(main, dtype=np.float64)
    words = np.array([len(b.text.split()) for b in blocks], dtype=np.float64)
    links = np.array([b.link_chars / max(1, len(b.text)) for b in blocks], dtype=np.float64)
    shapes: dict[tuple[str, ...], list[int]] = {}
    for b in blocks:
        shapes.setdefault(record_shape(b), []).append(b.index)
    shape = np.zeros((n, 5))
    for ids in shapes.values():
        ix = np.asarray(ids)
        shape[ix] = (math.log1p(len(ix)), s[ix].mean(), (s[ix] >= KEPT).mean(), links[ix].mean(), words[ix].mean())
    sums = np.concatenate([[0.0], np.cumsum(s)])
    lo = np.maximum(np.arange(n) - NEAR, 0)
    hi = np.minimum(np.arange(n) + NEAR + 1, n)
    tags = [b.tag_path[-1] if b.tag_path else "" for b in blocks]
    k = len(PAGE_TYPES)
    out[:, 0] = s
    if types is not None:
        out[:, 1 : 1 + k] = np.asarray(types, dtype=np.float64)
    out[:, k + 1] = np.log1p(words)
    out[:, k + 2] = links
    out[:, k + 3] = [tag in HEADINGS for tag in tags]
    out[:, k + 4] = [tag in ("td", "th") for tag in tags]
    out[:, k + 5] = np.concatenate([[-1.0], s[:-1]])
    out[:, k + 6] = np.concatenate([s[1:], [-1.0]])
    out[:, k + 7] = (sums[hi] - sums[lo]) / (hi - lo)
    out[:, k + 8 : k + 13] = shape
    out[:, k + 12] = np.log1p(shape[:, 4])
    out[:, k + 13] = s.mean()
    out[:, k + 14] = (s >= KEPT).mean()
    out[:, k + 15] = s / max(float(s.max()), 1e-6)
    out[:, k + 16] = np.arange(n) / n
    out[:, k + 17] = math.log1p(n)
    return out


class Rescorer:
    """The trees as the ONNX graph `export/rescore.py` writes (onnxruntime's tree ensemble, then a sigmoid):
    `features` [N, len(FEATURES)] float64 in, `main` [N, 1] out. The graph's metadata names its features."""

    def __init__(self, path: Path):
        try:
            import onnxruntime as ort

            options = ort.SessionOptions()
            options.intra_op_num_threads = 1  # a thousand rows in a millisecond: a thread pool would cost more
            options.inter_op_num_threads = 1
            options.log_severity_level = 3
            self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
            named = json.loads(self.session.get_modelmeta().custom_metadata_map.get("features", "[]"))
        except Exception as exc:
            raise ModelError(f"cannot read {path}: {exc}; reinstall pith or remove the file") from exc
        if tuple(named) != FEATURES:
            raise ModelError(
                f"{path} was written for other features than this release's; retrain it with "
                "`python -m export.rescore` (docs/retraining.md) or remove it to serve the model alone"
            )

    @classmethod
    def load(cls, model_dir: Path) -> Rescorer | None:
        """The trees beside the model, or None where the folder has none."""
        path = model_dir / RESCORE_FILE
        return cls(path) if path.is_file() else None

    def predict(self, x: np.ndarray) -> np.ndarray:
        """The trees' probability for each row of `x` ([N, len(FEATURES)])."""
        if not len(x):
            return np.zeros(0)
        return self.session.run(None, {"features": np.ascontiguousarray(x, dtype=np.float64)})[0][:, 0]

    def __call__(
        self,
        blocks: Sequence[Block],
        scores: np.ndarray,
        types: Sequence[float] | np.ndarray | None,
        page_type: str | None,
        stated_type: str | None,
    ) -> np.ndarray:
        """`scores` with the main column read again, on a page of MIN_BLOCKS or more that neither the model nor
        the page itself calls a SKIP_TYPES page; else `scores` itself."""
        if len(blocks) < MIN_BLOCKS or page_type in SKIP_TYPES or stated_type in SKIP_TYPES:
            return scores
        out = np.array(scores, copy=True)
        out[:, 0] = self.predict(features(blocks, scores[:, 0], types))
        return out
