"""The shipped model, served with onnxruntime alone (never torch).

Long pages run as overlapping windows of blocks; each block takes its scores from the window in which it sits
farthest from an edge, so no block is judged without context on both sides (SemText cut pages arbitrarily).
The same `windowed` function serves training-time evaluation (with a torch callable) and serving.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Callable

import numpy as np

from .errors import ModelError
from .features import PageInputs
from .result import LABELS

WINDOW = 512     # blocks per window
OVERLAP = 128    # blocks shared by consecutive windows

ASSETS = "assets"
MODEL_FILE = "model.int8.onnx"
CONFIG_FILE = "model.json"
TOKENIZER_FILE = "tokenizer.json"
CLASS_VOCAB_FILE = "class_vocab.json"
INPUT_NAMES = ("text_ids", "tag_ids", "class_ids", "class_level", "numeric")


def windows(n: int, window: int = WINDOW, overlap: int = OVERLAP) -> list[tuple[int, int]]:
    """[start, stop) spans covering n blocks, consecutive spans sharing `overlap` blocks."""
    if n <= window:
        return [(0, n)]
    step = window - overlap
    spans = []
    start = 0
    while True:
        stop = min(start + window, n)
        spans.append((max(0, stop - window), stop))
        if stop == n:
            return spans
        start += step


def windowed(inputs: PageInputs, run: Callable[[PageInputs], np.ndarray], window: int = WINDOW,
             overlap: int = OVERLAP) -> np.ndarray:
    """Scores [N, K] for a page of any length, from `run` applied to windows of at most `window` blocks."""
    n = len(inputs)
    spans = windows(n, window, overlap)
    if len(spans) == 1:
        return run(inputs)
    out = None
    best = np.full(n, -1)
    for start, stop in spans:
        scores = run(inputs.window(start, stop))
        if out is None:
            out = np.zeros((n, scores.shape[1]), dtype=scores.dtype)
        idx = np.arange(start, stop)
        margin = np.minimum(idx - start, stop - 1 - idx)
        take = margin > best[start:stop]
        out[start:stop][take] = scores[take]
        best[start:stop] = np.where(take, margin, best[start:stop])
    return out


def default_model_dir() -> Path:
    return Path(str(resources.files(__package__).joinpath(ASSETS)))


class OnnxModel:
    """The int8 ONNX model with its config; `scores(inputs)` gives sigmoid scores [N, 6] in LABELS order."""

    def __init__(self, model_dir: str | Path | None = None, providers: list[str] | None = None):
        self.dir = Path(model_dir) if model_dir else default_model_dir()
        path = self.dir / MODEL_FILE
        config_path = self.dir / CONFIG_FILE
        if not path.is_file() or not config_path.is_file():
            raise ModelError(f"model files missing in {self.dir} (need {MODEL_FILE} and {CONFIG_FILE}); "
                             "reinstall pith, or retrain with `python -m export.train` (docs/retraining.md)")
        try:
            import onnxruntime as ort
        except ImportError as exc:  # pragma: no cover - a broken install
            raise ModelError(f"onnxruntime cannot be imported ({exc}); run `pip install onnxruntime`") from exc
        self.config = json.loads(config_path.read_text("utf-8"))
        available = ort.get_available_providers()
        if providers is None:
            providers = [p for p in ("CUDAExecutionProvider", "CPUExecutionProvider") if p in available]
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1   # pages are small; one thread avoids contention across workers
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(str(path), options, providers=providers)
        except Exception as exc:
            raise ModelError(f"cannot load {path}: {exc}; reinstall pith or run `pith doctor`") from exc
        self.providers = self.session.get_providers()
        self.threshold = float(self.config["threshold"])
        self.model_id = str(self.config.get("model_id", "unknown"))

    def _run(self, inputs: PageInputs) -> np.ndarray:
        feed = {name: getattr(inputs, name)[None] for name in INPUT_NAMES}
        logits = self.session.run(["labels"], feed)[0][0]
        return 1.0 / (1.0 + np.exp(-logits))

    def scores(self, inputs: PageInputs) -> np.ndarray:
        if len(inputs) == 0:
            return np.zeros((0, len(LABELS)), dtype=np.float32)
        return windowed(inputs, self._run)
