"""Where WCXB's forum golds stop: do they keep a whole thread, or its first posts only, and what does that
leave for an extractor that cannot read the annotator's mind?

    python -m bench.thread_golds                  # every WCXB forum page, both splits
    python -m bench.thread_golds --out runs/thread-golds.md

Per thread, from the gold's alignment to Pith's own blocks (`export.labels`, as training labels them): the
post bodies are the blocks of the shape that holds most of the gold's words (`decisions.record_shape`, as the
record rule groups a listing's items), and the thread's coverage is the share of those blocks the gold keeps. The
sweep then scores, against every gold, the oracle (the blocks the gold keeps, which knows where each gold
stops) and each policy "the gold's other blocks, plus the first K post bodies of the thread": the best any
extractor can do that keeps or drops a post body by its markup and its place in the thread, whatever K.
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from export.data import iter_records
from export.labels import label_blocks
from export.metric import word_prf
from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.pipeline.decisions import record_shape
from native_host.pipeline.snapshot import snapshot_from_html
from native_host.progress import progress

CUT = 0.8  # a thread whose gold keeps under this share of its post bodies is cut short
KEPT_FIRST = (1, 2, 3, 5, 8, 10, 15, 20, 30, 50, None)  # post bodies kept from the top; None: all


@dataclass
class Thread:
    id: str
    gold: str
    blocks: list[tuple[str, bool, bool]]  # (text, the gold keeps it, a post body)

    @property
    def coverage(self) -> float | None:
        """The share of the thread's post bodies the gold keeps (None: the page shows no post)."""
        posts = [kept for _, kept, post in self.blocks if post]
        return sum(posts) / len(posts) if posts else None


def read_thread(record: dict) -> Thread:
    blocks = blocks_from_snapshot(snapshot_from_html(record["html"], url=record.get("url")))
    kept = [bool(lab["main"]) for lab in label_blocks(blocks, record["main_text"], record.get("title"))]
    words: Counter = Counter()
    for b, k in zip(blocks, kept):
        if k:
            words[record_shape(b)] += len(b.text.split())
    post = words.most_common(1)[0][0] if words else None
    return Thread(
        record["id"], record["main_text"], [(b.text, k, record_shape(b) == post) for b, k in zip(blocks, kept)]
    )


def policy_f1(thread: Thread, first: int | None) -> float:
    """Word-F1 of the gold's blocks that are not post bodies plus the thread's first `first` post bodies."""
    out, n = [], 0
    for text, kept, post in thread.blocks:
        if post:
            n += 1
            if first is None or n <= first:
                out.append(text)
        elif kept:
            out.append(text)
    return word_prf("\n".join(out), thread.gold)[2]


def report(threads: list[Thread]) -> str:
    shown = [t for t in threads if t.coverage is not None]
    cut = sorted((t for t in shown if t.coverage < CUT), key=lambda t: t.coverage or 0)
    oracle = statistics.fmean(word_prf("\n".join(x for x, k, _ in t.blocks if k), t.gold)[2] for t in threads)
    lines = [
        f"{len(threads)} WCXB forum pages; {len(threads) - len(shown)} whose HTML shows no post (F1 0 for any "
        f"extractor); {len(cut)} whose gold keeps under {CUT:.0%} of the thread's post bodies:",
        "",
        "| thread | post bodies the gold keeps |",
        "|---|---:|",
        *(f"| {t.id} | {t.coverage:.2f} |" for t in cut),
        "",
        f"Oracle (the gold's own blocks): {oracle:.3f}",
        "",
        "| policy | mean word-F1 |",
        "|---|---:|",
    ]
    for first in KEPT_FIRST:
        name = "every post body" if first is None else f"the first {first} post bodies"
        lines.append(f"| {name} | {statistics.fmean(policy_f1(t, first) for t in threads):.3f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=None, help="also write the report here")
    args = ap.parse_args(argv)
    records = [r for r in iter_records(["wcxb"]) if r.get("page_type") == "forum" and (r["main_text"] or "").strip()]
    threads = [read_thread(r) for r in progress(records, desc="threads")]
    text = report(threads)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
