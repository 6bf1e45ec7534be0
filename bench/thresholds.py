"""The decision threshold per predicted page type: would one threshold per type beat the single one shipped?

    python -m bench.thresholds                  # dev pages and training pages drawn alike
    python -m bench.thresholds --thresholds 0.2,0.3,0.4

Each page runs through the model once; its scores are then decided at every threshold listed, with the page
rules as shipped (`extractor.result_from_scores`), and the text scored by word-F1 against the gold. Pages
are grouped by the page type the model predicts (what a per-type threshold would key on). The training pages
are drawn like the dev pages (bench.memorisation's draw): where the best threshold of a type on dev is not
the best on training pages too, a per-type threshold would be tuned to dev's few pages of it, not learnt.
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections import defaultdict

import numpy as np

from export.data import iter_records
from export.metric import word_prf, words
from native_host import Extractor
from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.pipeline.extractor import result_from_scores
from native_host.pipeline.snapshot import snapshot_from_html
from native_host.progress import progress
from native_host.result import PAGE_TYPES

from .memorisation import SEED, like_dev

THRESHOLDS = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5)


def f1_by_type(
    extractor: Extractor, records: list[dict], thresholds: tuple[float, ...], desc: str
) -> dict[str, dict[float, list[float]]]:
    """Predicted page type ("all" too) -> threshold -> word-F1 of each page."""
    out: dict[str, dict[float, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in progress(records, total=len(records), desc=desc):
        snapshot = snapshot_from_html(r["html"], url=r.get("url"))
        blocks = blocks_from_snapshot(snapshot)
        scores, types = extractor.model.predict(extractor.featurize(snapshot, blocks))
        predicted = PAGE_TYPES[int(np.argmax(types))] if types is not None else None
        for t in thresholds:
            text = result_from_scores(snapshot, blocks, scores, extractor.model.labels, t, ("text",), types).text
            f1 = word_prf(text, r["main_text"])[2]
            for group in ("all", predicted or "none"):
                out[group][t].append(f1)
    return out


def table(
    name: str, found: dict[str, dict[float, list[float]]], thresholds: tuple[float, ...], shipped: float
) -> list[str]:
    lines = [
        f"{name}:",
        "",
        "| predicted type | pages | " + " | ".join(f"{t:g}" for t in thresholds) + " | best | best − shipped |",
        "|---|---:|" + "---:|" * (len(thresholds) + 2),
    ]
    for group in sorted(found, key=lambda g: (g != "all", -len(found[g][thresholds[0]]), g)):
        means = {t: statistics.mean(found[group][t]) for t in thresholds}
        best = max(thresholds, key=lambda t: (means[t], -abs(t - shipped)))
        lines.append(
            f"| {group} | {len(found[group][thresholds[0]])} | "
            + " | ".join(f"{means[t]:.4f}" for t in thresholds)
            + f" | {best:g} | {means[best] - means.get(shipped, means[best]):+.4f} |"
        )
    return lines + [""]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.thresholds", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--thresholds", default=",".join(map(str, THRESHOLDS)), help="comma-separated")
    ap.add_argument("--limit", type=int, default=None, help="at most this many dev pages (a quick check)")
    args = ap.parse_args(argv)
    thresholds = tuple(sorted(float(t) for t in args.thresholds.split(",")))
    extractor = Extractor()
    shipped = extractor.threshold
    if shipped not in thresholds:
        thresholds = tuple(sorted(thresholds + (shipped,)))
    records = [r for r in iter_records() if words(r.get("main_text"))]
    dev = [r for r in records if r["split"] == "dev"][: args.limit]
    train = like_dev([r for r in records if r["split"] == "train"], dev, random.Random(SEED))
    print(f"Word-F1 by the page type the model predicts, decided at each threshold (shipped: {shipped:g})\n")
    for name, chosen in (("dev pages (sites never seen)", dev), ("training pages drawn alike", train)):
        print("\n".join(table(name, f1_by_type(extractor, chosen, thresholds, name), thresholds, shipped)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
