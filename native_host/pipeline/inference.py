"""The shipped model, served with onnxruntime alone (never torch).

Long pages run as overlapping windows of blocks; each block takes its scores from the window in which it sits
farthest from an edge, so no block is judged without context on both sides (SemText cut pages arbitrarily).
The same `windowed` function serves training-time evaluation (with a torch callable) and serving.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from ..errors import ModelError
from ..result import LABELS
from .features import PageInputs

WINDOW = 512  # blocks per window
OVERLAP = 128  # blocks shared by consecutive windows

ASSETS = "assets"
MODEL_FILE = "model.int8.onnx"
CONFIG_FILE = "model.json"
INPUT_NAMES = ("text_ids", "tag_ids", "class_ids", "class_level", "numeric")
PAGE_TYPE_OUTPUT = "page_type"  # logits over PAGE_TYPES, beside "labels" (logits [1, N, len(LABELS)])


def windows(n: int, window: int = WINDOW, overlap: int = OVERLAP) -> list[tuple[int, int]]:
    """[start, stop) spans covering n blocks, consecutive spans sharing `overlap` blocks: as few as cover the
    page, all of one length (within a block). Full-length spans would make a page of window + 1 blocks cost
    two whole windows; equal ones cost the page plus its overlaps."""
    if n <= window:
        return [(0, n)]
    step = window - overlap
    count = -(-(n - overlap) // step)  # fewest spans of at most `window` that cover n
    length = -(-(n + (count - 1) * overlap) // count)  # <= window, since count * step + overlap >= n
    spans = [(k * (length - overlap), k * (length - overlap) + length) for k in range(count)]
    return spans[:-1] + [(n - length, n)]


Window = Callable[[PageInputs], "tuple[np.ndarray, np.ndarray | None]"]


def windowed(
    inputs: PageInputs,
    run: Window,
    window: int = WINDOW,
    overlap: int = OVERLAP,
    each: Callable[[Callable, list], Iterable] = map,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Block scores [N, K] and page-level scores [T] (None when `run` gives none) for a page of any length,
    from `run` applied to windows of at most `window` blocks: a block's from the window where it sits
    farthest from an edge, the page's averaged over the windows by their length. `each(f, spans)` applies
    `run` to the windows, in their order (`map`; a thread pool's map runs them at once)."""
    n = len(inputs)
    spans = windows(n, window, overlap)
    if len(spans) == 1:
        return run(inputs)
    out: np.ndarray | None = None
    page: np.ndarray | None = None
    best = np.full(n, -1)
    for (start, stop), (scores, page_scores) in zip(spans, each(lambda span: run(inputs.window(*span)), spans)):
        if out is None:
            out = np.zeros((n, scores.shape[1]), dtype=scores.dtype)
        if page_scores is not None:
            page = (0 if page is None else page) + page_scores * (stop - start)
        idx = np.arange(start, stop)
        margin = np.minimum(idx - start, stop - 1 - idx)
        take = margin > best[start:stop]
        out[start:stop][take] = scores[take]
        best[start:stop] = np.where(take, margin, best[start:stop])
    assert out is not None  # spans is never empty: the first window made it
    return out, (page / sum(stop - start for start, stop in spans) if page is not None else None)


def default_model_dir() -> Path:
    # Beside this module (not importlib.resources, whose import alone cost the host's cold start ~15 ms).
    return Path(__file__).resolve().parent.parent / ASSETS


def optimised_cache_path(model: Path, ort_version: str) -> Path | None:
    """Where this model's graph, as this onnxruntime optimises it, is cached; None when no cache dir can be
    named. Keyed by the model's bytes, so a retrained model never meets a stale graph."""
    try:
        from platformdirs import user_cache_dir

        root = Path(os.environ.get("PITH_CACHE_DIR") or user_cache_dir("pith"))
        digest = hashlib.sha256(model.read_bytes()).hexdigest()[:20]
    except Exception:  # no home, unreadable model: serve without the cache
        return None
    return root / "onnx" / f"{digest}-ort{ort_version}.onnx"


def _save_optimised(ort, model: Path, target: Path, options_for) -> None:
    """Write the graph optimised at the portable level (no CPU-specific layouts) to `target`, atomically."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        options = options_for(ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED)
        options.optimized_model_filepath = str(tmp)
        ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        os.replace(tmp, target)
    except Exception:  # a cache we cannot write only costs the next start its speed
        pass


class OnnxModel:
    """The int8 ONNX model with its config; `predict(inputs)` gives sigmoid scores [N, len(LABELS)] in LABELS
    order and the page type's probabilities over PAGE_TYPES (None for a model without that head).

    `threads`: onnxruntime's intra-op threads. One for batch work (a worker process per core); more where one
    page is waited on: two threads take a third off a 512-block window (docs/performance.md), and a page of
    several windows runs two at once (onnxruntime's run is thread-safe and lets go of the GIL; the same scores,
    1 to 3 ms off the two windows of a 693-block page)."""

    def __init__(self, model_dir: str | Path | None = None, providers: list[str] | None = None, threads: int = 1):
        self.dir = Path(model_dir) if model_dir else default_model_dir()
        path = self.dir / MODEL_FILE
        config_path = self.dir / CONFIG_FILE
        if not path.is_file() or not config_path.is_file():
            raise ModelError(
                f"model files missing in {self.dir} (need {MODEL_FILE} and {CONFIG_FILE}); "
                "reinstall pith, or retrain with `python -m export.train` (docs/retraining.md)"
            )
        try:
            import onnxruntime as ort
        except ImportError as exc:  # pragma: no cover - a broken install
            raise ModelError(f"onnxruntime cannot be imported ({exc}); run `pip install onnxruntime`") from exc
        self.config = json.loads(config_path.read_text("utf-8"))
        available = ort.get_available_providers()
        if providers is None:
            providers = [p for p in ("CUDAExecutionProvider", "CPUExecutionProvider") if p in available]

        def options_for(level):
            options = ort.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            # Threads that spin between runs would burn a core while the page is read; sleeping costs ~1 ms.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            options.log_severity_level = 3
            options.graph_optimization_level = level
            return options

        full = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Optimising the graph was a quarter of the model's load: on CPU, the graph as an earlier start
        # optimised it is loaded instead (same scores, bit for bit); the first start writes it.
        cached = optimised_cache_path(path, ort.__version__) if providers == ["CPUExecutionProvider"] else None
        if cached is not None and not cached.is_file():
            _save_optimised(ort, path, cached, options_for)
        session = None
        if cached is not None and cached.is_file():
            try:
                session = ort.InferenceSession(str(cached), options_for(full), providers=providers)
            except Exception:  # a damaged cache file: load the shipped model as if there were none
                session = None
        if session is None:
            try:
                session = ort.InferenceSession(str(path), options_for(full), providers=providers)
            except Exception as exc:
                raise ModelError(f"cannot load {path}: {exc}; reinstall pith or run `pith doctor`") from exc
        self.session = session
        self.providers = self.session.get_providers()
        self.threshold = float(self.config["threshold"])
        # What each column of `scores` means, as model.json names them: LABELS for a model of this release;
        # an older one may lack the later heads ("byline", "date"), which the metadata reads by name.
        self.labels = tuple(self.config.get("labels") or LABELS)
        self.model_id = str(self.config.get("model_id", "unknown"))
        self._outputs = [o.name for o in self.session.get_outputs() if o.name in ("labels", PAGE_TYPE_OUTPUT)]
        self._pool = ThreadPoolExecutor(2, thread_name_prefix="pith-window") if threads > 1 else None

    def _run(self, inputs: PageInputs) -> tuple[np.ndarray, np.ndarray | None]:
        feed = {name: getattr(inputs, name)[None] for name in INPUT_NAMES}
        got = dict(zip(self._outputs, self.session.run(self._outputs, feed)))
        scores = 1.0 / (1.0 + np.exp(-got["labels"][0]))
        types = got.get(PAGE_TYPE_OUTPUT)
        if types is not None:
            types = np.exp(types[0] - types[0].max())
            types = types / types.sum()
        return scores, types

    def predict(self, inputs: PageInputs) -> tuple[np.ndarray, np.ndarray | None]:
        if len(inputs) == 0:
            return np.zeros((0, len(self.labels)), dtype=np.float32), None
        return windowed(inputs, self._run, each=self._pool.map if self._pool is not None else map)

    def scores(self, inputs: PageInputs) -> np.ndarray:
        return self.predict(inputs)[0]
