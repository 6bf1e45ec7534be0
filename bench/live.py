"""The shipped model on what the browser sees versus what the HTML says, on the same dev pages.

    python -m export.record --split dev                 # once: the recorded corpus
    python -m bench.live [--snapshots FILE] [--out runs/live.md]

Three inputs per page, word-F1 against the gold main text (native_host/metric.py): the snapshot built from the
stored HTML (snapshot_from_html), the recorded live snapshot as recorded, and the same live snapshot with its
live-render fields stripped. The third separates the rendered DOM's effect from the live features' effect.
Only pages present in the corpus (and with a non-empty gold) are scored.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from export.data import iter_records
from native_host import corpus
from native_host.extractor import Extractor
from native_host.metric import word_prf, words
from native_host.progress import progress

INPUTS = ("html", "live", "live, stripped")


def page_f1s(extractor: Extractor, record: dict, live: dict) -> dict[str, float]:
    texts = {"html": extractor.extract_html(record["html"], url=record.get("url")).text,
             "live": extractor.extract_snapshot(live).text,
             "live, stripped": extractor.extract_snapshot(corpus.strip_live(live)).text}
    return {name: word_prf(text, record["main_text"])[2] for name, text in texts.items()}


def table(rows: list[tuple[str, dict[str, float]]]) -> str:
    """Markdown: mean word-F1 per dataset and overall, one column per input."""
    groups: dict[str, list[dict[str, float]]] = {}
    for dataset, f1s in rows:
        groups.setdefault(dataset, []).append(f1s)
    groups["all"] = [f for _, f in rows]
    lines = ["| dataset | pages | " + " | ".join(INPUTS) + " |", "|---|---:|" + "---:|" * len(INPUTS)]
    for name, scored in groups.items():
        means = [statistics.fmean(s[k] for s in scored) for k in INPUTS]
        lines.append(f"| {name} | {len(scored)} | " + " | ".join(f"{m:.3f}" for m in means) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--snapshots", type=Path, default=corpus.default_path("dev"))
    ap.add_argument("--out", type=Path, default=None, help="also write the table here")
    args = ap.parse_args(argv)
    if not args.snapshots.is_file():
        ap.error(f"{args.snapshots} not found; record it first: python -m export.record --split dev")
    spans = corpus.index(args.snapshots)
    extractor = Extractor()
    todo = [r for r in iter_records(split="dev") if r["id"] in spans and words(r["main_text"])]
    rows = [(r["dataset"], page_f1s(extractor, r, corpus.load_at(args.snapshots, spans[r["id"]])["snapshot"]))
            for r in progress(todo, desc="scoring")]
    out = table(rows)
    print(out)
    if args.out:
        args.out.write_text(out + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
