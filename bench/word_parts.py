"""Do the golds part two words that meet at an element's edge where `blocks.parts_words` parts them?

    python -m bench.word_parts                    # the training pages
    python -m bench.word_parts --split dev --show 20

Every place on a page where the segmenter puts a blank between two texts (a lower-case letter, then a capital,
across an element's edge: `<b>Industry Competency</b>Our experts`; a word in capitals, then a capitalised one:
`<span>LUX</span>Columbia`), and, for contrast, every other edge between two letters of one run that it leaves
joined, each read against the page's gold main text: the two words apart
in the gold ("competency our"), joined ("competencyour"), or neither (the gold has other words there, or not
that text). A rule that parts what the golds keep joined would cost the metric's words; one that leaves joined
what the golds part, the reverse. Golds are made from rendered pages, where the page's style shows the parts.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter

from export.data import iter_records
from native_host.pipeline.blocks import Blanks
from native_host.pipeline.snapshot import snapshot_from_html
from native_host.progress import progress

_LAST_WORD = re.compile(r"(\w+)\Z")
_FIRST_WORD = re.compile(r"^(\w+)")


def edges(nodes: list[dict]):
    """(kind, last word before, first word after, parted) for each edge between two texts of one line where a
    letter meets a letter: its kind the case of the two letters ("lower>upper", "upper>upper"...), and whether
    the rule parts it (`blocks.parts_words`, outside code and raised text)."""
    blanks = Blanks(nodes)
    for i, node in enumerate(nodes):
        if node["tag"] != "#text":
            continue
        j = blanks.previous(i)
        before = _LAST_WORD.search(nodes[j]["text"]) if j is not None else None
        after = _FIRST_WORD.match(node["text"])
        if before and after and before.group(1)[-1].isalpha() and after.group(1)[0].isalpha():
            a, b = before.group(1), after.group(1)
            kind = f"{'lower' if a[-1].islower() else 'upper'}>{'upper' if b[0].isupper() else 'lower'}"
            yield kind, a, b, blanks.before(i)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.word_parts", description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", default="train")
    ap.add_argument("--show", type=int, default=0, help="parted pairs listed where the gold joins them")
    args = ap.parse_args(argv)
    records = list(iter_records(split=args.split))
    counts: Counter[tuple[str, bool, str]] = Counter()
    joined_in_gold: list[str] = []
    for record in progress(records, total=len(records), desc=f"{args.split} pages"):
        gold = " ".join((record.get("main_text") or "").split()).lower()
        if not gold:
            continue
        nodes = snapshot_from_html(record["html"], url=record.get("url"))["nodes"]
        for kind, a, b, parted in edges(nodes):
            apart, joined = f"{a} {b}".lower() in gold, f"{a}{b}".lower() in gold
            verdict = "apart" if apart and not joined else "joined" if joined and not apart else "neither"
            counts[kind, parted, verdict] += 1
            if parted and verdict == "joined" and len(joined_in_gold) < args.show:
                joined_in_gold.append(f"  {record['id']}: {a}|{b}")
    print(f"{len(records)} {args.split} pages: letters meeting at an element's edge, against the golds")
    print("| edge | the rule | pairs | apart in the gold | joined in the gold | neither |")
    print("|---|---|---:|---:|---:|---:|")
    for kind in ("lower>upper", "upper>lower", "lower>lower", "upper>upper"):
        for parted in (True, False):
            row = [counts[kind, parted, v] for v in ("apart", "joined", "neither")]
            if sum(row):
                print(f"| {kind} | {'parts' if parted else 'joins'} | {sum(row)} | " + " | ".join(map(str, row)) + " |")
    for line in joined_in_gold:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
