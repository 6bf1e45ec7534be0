"""Which words of the page's class names mark text the model keeps and the golds leave out (or leaves out and the
golds keep): page by page, the word-F1 change of taking the kept blocks under each class word out of the page's
text (`--side drop`), or of adding the dropped ones (`--side add`), then each word's mean change over all pages
and the pages and sites it moves each way.

    python -m bench.class_words --model runs/cv2/fold-{fold}/assets --folds 2            # every page, out of fold
    python -m bench.class_words --model runs/cv2/fold-{fold}/assets --folds 2 --side add
    python -m bench.class_words --model runs/cv2/fold-{fold}/assets --folds 2 --whole-names  # "sidebar" alone
    python -m bench.class_words --rows runs/class-words.jsonl --words 80                 # the table again
    python -m bench.class_words --model runs/cv2/fold-{fold}/assets --folds 2 --datasets wcxb \
        --snapshots runs/snapshots-wcxb.msgpack                                          # as the browser saw them

A word worth a rule moves many sites one way and few the other: one site's template is not a rule. The
`NOCONTENT` and `WIDGETS` words of decisions.py came from such a run (docs/model.md); a candidate's net effect,
with every rule and the article builder, is then measured by `scripts/cv.sh rules` like any other rule's. This
says where to look, not what ships: a word is read on its own, beside the decision the rules already made.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from bench import out_of_fold
from export.metric import bag_prf, words
from native_host import Extractor
from native_host.pipeline.blocks import Block, blocks_from_snapshot

WORD_SPLIT = re.compile(r"[-_:/]+")  # "share-count", "post_meta", "lg:hidden", "icons/close"
MIN_LETTERS = 3  # "a", "js", "md": too short to name anything
MOVED = 0.001  # a page (or site) whose F1 moves more than this counts as up or down
SIDES = ("drop", "add")


@dataclass(frozen=True)
class Word:
    """One class word over all pages audited."""

    word: str
    mean: float  # its F1 change summed over the pages, over the number of pages audited
    pages_up: int
    pages_down: int
    sites_up: int
    sites_down: int
    worst_dataset: str  # the dataset where it costs (or gains least) in all
    worst_change: float


def class_words(block: Block, whole: bool = False) -> set[str]:
    """The words of the class names on the block's path below `<body>` (each class split at -, _, : and /), or
    with `whole` the names themselves: "sidebar" apart from "has-sidebar" and "sidebar-widget"."""
    out: set[str] = set()
    for entry in block.class_path:
        tag, *classes = entry.lower().partition("#")[0].split(".")
        if tag in ("html", "body"):
            continue
        for name in classes:
            parts = [name] if whole else WORD_SPLIT.split(name)
            out.update(w for w in parts if len(w) >= MIN_LETTERS and not w.isdigit())
    return out


def audit_page(extractor: Extractor, record: dict, side: str = "drop", whole: bool = False) -> dict | None:
    """The page's row: {id, site, type, base F1, changes: {word: F1 change}} for each class word whose blocks
    move its F1 by more than a ten-thousandth; None for a page without gold words. The page's text is read as
    the words of its main blocks, the headline aside (the reader shows it whatever the blocks)."""
    gold = Counter(words(record.get("main_text")))
    if not gold:
        return None
    snapshot = out_of_fold.snapshot_of(record)
    result = extractor.extract_snapshot(snapshot)
    blocks = blocks_from_snapshot(snapshot)
    kept: Counter = Counter()
    moved: dict[str, Counter] = defaultdict(Counter)
    for block, served in zip(blocks, result.blocks):
        if block.index == result.headline_block:
            continue
        bag = Counter(words(block.text))
        if served.main:
            kept += bag
        if served.main == (side == "drop"):
            for word in class_words(block, whole):
                moved[word] += bag
    base = bag_prf(kept, gold)[2]
    changes = {}
    for word, bag in moved.items():
        change = bag_prf(kept - bag if side == "drop" else kept + bag, gold)[2] - base
        if abs(change) > 1e-4:
            changes[word] = round(change, 5)
    site = record.get("site") or record["id"]
    return {
        "id": record["id"],
        "site": site,
        "type": record.get("page_type"),
        "side": side,
        "base": base,
        "changes": changes,
    }


def summarise(rows: Iterable[dict]) -> list[Word]:
    """Each class word's figures over `rows` (audit_page's), best mean change first."""
    pages = 0
    total: Counter = Counter()
    up: Counter = Counter()
    down: Counter = Counter()
    by_site: dict[str, Counter] = defaultdict(Counter)
    by_dataset: dict[str, Counter] = defaultdict(Counter)
    for row in rows:
        pages += 1
        for word, change in row["changes"].items():
            total[word] += change
            by_site[word][row["site"]] += change
            by_dataset[word][row["id"].split("/")[0]] += change
            up[word] += change > MOVED
            down[word] += change < -MOVED
    out = []
    for word, change in total.items():
        sites = by_site[word].values()
        worst = min(by_dataset[word].items(), key=lambda item: item[1])
        out.append(
            Word(
                word,
                change / pages,
                up[word],
                down[word],
                sum(v > MOVED for v in sites),
                sum(v < -MOVED for v in sites),
                worst[0],
                worst[1],
            )
        )
    return sorted(out, key=lambda w: (-w.mean, w.word))


def report(found: list[Word], listed: int, side: str) -> str:
    moved = "dropped" if side == "drop" else "added"
    lines = [
        f"| class word | mean F1 change, its blocks {moved} | pages up | pages down | sites up | sites down | "
        "worst dataset (sum) |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for w in found[:listed]:
        lines.append(
            f"| {w.word} | {w.mean:+.5f} | {w.pages_up} | {w.pages_down} | {w.sites_up} | {w.sites_down} | "
            f"{w.worst_dataset} {w.worst_change:+.3f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    out_of_fold.add_arguments(ap)
    ap.add_argument("--side", choices=SIDES, default="drop", help="drop the kept blocks, or add the dropped ones")
    ap.add_argument("--words", type=int, default=60, help="class words listed")
    ap.add_argument("--whole-names", action="store_true", help="read each class name whole, not its words")
    ap.add_argument("--jsonl", type=Path, default=None, help="also write each page's row here")
    ap.add_argument("--rows", type=Path, default=None, help="summarise the rows of an earlier --jsonl instead")
    args = ap.parse_args()
    if args.rows is not None:
        rows = [json.loads(line) for line in args.rows.read_text(encoding="utf-8").splitlines() if line.strip()]
    else:
        out_of_fold.check(ap, args)
        audited = (
            audit_page(extractor, record, args.side, args.whole_names) for extractor, record in out_of_fold.pages(args)
        )
        rows = [row for row in audited if row is not None]
        if args.jsonl is not None:
            args.jsonl.parent.mkdir(parents=True, exist_ok=True)
            args.jsonl.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    side = rows[0].get("side", args.side) if rows else args.side
    print(f"{len(rows):,} pages", end="\n\n")
    print(report(summarise(rows), args.words, side), end="")


if __name__ == "__main__":
    main()
