"""What each page-level rule (`decisions.py`) takes from and adds to the model's decision, in the gold's words and
in the others', by dataset: which rule throws away content that golds keep, and where.

    python -m bench.rule_audit --model runs/cv/fold-{fold}/assets --folds 5     # every page, out of fold
    python -m bench.rule_audit --split dev                                       # the shipped model on dev
    python -m bench.rule_audit --folds 5 --model ... --datasets wcxb --pages 15 --out runs/rule-audit.md

Each page runs through `Extractor.extract_snapshot` unchanged, trees included, while `decisions.RULE_TRACE` records
the decision after each rule of the last round (a page the safety net lowered runs the rules again, and that
round is the one served). A block's words count as the gold's where the gold alignment labels it main
(`export.labels.aligned_counts`, as training does). "Sure" counts only the blocks the model scored .9 or more:
a rule that removes those overrules a confident model. Pages are listed where a rule removed the most gold
words: the pages to read before changing it. A rule's net effect on F1 is measured by scripts/cv.sh rules; this
says where to look.
"""

from __future__ import annotations

import argparse
import itertools
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from bench import out_of_fold
from export.labels import aligned_counts
from native_host import Extractor
from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.pipeline.decisions import RULE_TRACE

SURE = 0.9  # a block the model scored this or more: a rule that removes it overrules a confident model


@dataclass
class Tally:
    """Words a rule removed from or added to the decision, the gold's and the others'."""

    gold_removed: int = 0
    other_removed: int = 0
    gold_added: int = 0
    other_added: int = 0
    sure_gold_removed: int = 0
    sure_other_removed: int = 0
    pages: int = 0

    def add(self, other: Tally) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class Audit:
    by_rule: dict[str, dict[str, Tally]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(Tally)))
    worst: dict[str, list[tuple[int, int, str]]] = field(default_factory=lambda: defaultdict(list))


def audit_page(extractor: Extractor, record: dict, audit: Audit) -> None:
    """Run one page through the extractor with the rules traced, and add what each rule did to `audit`."""
    gold = record.get("main_text") or ""
    if not gold.split():
        return
    snapshot = out_of_fold.snapshot_of(record)
    steps: list[tuple[str, list[bool]]] = []

    def trace(name: str, main: list[bool]) -> None:
        if name == "threshold":
            steps.clear()  # a lowered threshold runs the rules again: the last round is the one served
        steps.append((name, list(main)))

    token = RULE_TRACE.set(trace)
    try:
        result = extractor.extract_snapshot(snapshot)
    finally:
        RULE_TRACE.reset(token)
    blocks = blocks_from_snapshot(snapshot)
    counts = aligned_counts(blocks, gold)
    sure = [b.scores.get("main", 0.0) >= SURE for b in result.blocks]
    group = (
        record["dataset"]
        if record.get("page_type") in (None, "article")
        else f"{record['dataset']} · {record['page_type']}"
    )
    for (_, before), (name, after) in itertools.pairwise(steps):
        tally = Tally()
        for i, (was, now) in enumerate(zip(before, after)):
            if was == now:
                continue
            aligned, words = counts[i]
            gold_words = min(aligned, words)
            if was:
                tally.gold_removed += gold_words
                tally.other_removed += words - gold_words
                if sure[i]:
                    tally.sure_gold_removed += gold_words
                    tally.sure_other_removed += words - gold_words
            else:
                tally.gold_added += gold_words
                tally.other_added += words - gold_words
        if any(getattr(tally, name_) for name_ in tally.__dataclass_fields__):
            tally.pages = 1
            audit.by_rule[name][group].add(tally)
            if tally.gold_removed:
                audit.worst[name].append((tally.gold_removed, tally.other_removed, record["id"]))


def report(audit: Audit, listed: int) -> str:
    lines = [
        "| rule | group | pages | gold removed | other removed | gold added | other added | sure gold removed | sure other removed |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for rule, groups in audit.by_rule.items():
        total = Tally()
        for tally in groups.values():
            total.add(tally)
        for group, tally in [("all", total), *sorted(groups.items())]:
            lines.append(
                f"| {rule} | {group} | {tally.pages} | {tally.gold_removed:,} | {tally.other_removed:,} | "
                f"{tally.gold_added:,} | {tally.other_added:,} | {tally.sure_gold_removed:,} | "
                f"{tally.sure_other_removed:,} |"
            )
    for rule, worst in audit.worst.items():
        lines.append(f"\n{rule}: the pages it took most gold words from (gold, others, page)")
        lines += [f"- {gold:,} / {other:,} {page}" for gold, other, page in sorted(worst, reverse=True)[:listed]]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    out_of_fold.add_arguments(ap)
    ap.add_argument("--pages", type=int, default=10, help="pages listed per rule")
    ap.add_argument("--out", type=Path, default=None, help="also write the report here (markdown)")
    args = ap.parse_args()
    out_of_fold.check(ap, args)
    audit = Audit()
    for extractor, record in out_of_fold.pages(args):
        audit_page(extractor, record, audit)
    text = report(audit, args.pages)
    print(text, end="")
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
