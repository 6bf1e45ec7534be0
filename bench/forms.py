"""What the reader's forms show, page by page, to read a change to them by hand: for each page of the datasets, the
form it takes (pipeline/shape.py) and its parts as the reader shows them: a thread's posters and dates, a listing's
entry titles and links, a product's price line; with the page's word F1. Run it in the tree before a change and
in the tree after, then compare: every page whose parts differ, with what changed.

    python -m bench.forms --datasets wcxb --jsonl runs/forms-before.jsonl          # in one tree
    python -m bench.forms --datasets wcxb --jsonl runs/forms-after.jsonl           # in the other
    python -m bench.forms --compare runs/forms-before.jsonl runs/forms-after.jsonl [--shape forum]

The shipped model unless `--model` names another's assets. The parts are read from the result's HTML by the
classes shape.py gives each form's sections, so they are what the reader and the saved page show.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

from export.data import iter_records
from export.metric import word_prf
from native_host import Extractor
from native_host.pipeline.shape import ITEMS_CLASS, POST_CLASS, PRODUCT_CLASS
from native_host.progress import progress


def parts(html: str) -> dict[str, list]:
    """A form's parts in the reader's HTML: posts as [author, datetime, date shown], entries as [title, link], the
    product's price line."""
    tree = LexborHTMLParser(html)
    posts = []
    for section in tree.css(f"section.{POST_CLASS}"):
        author, time = section.css_first("h3"), section.css_first("time")
        posts.append(
            [
                author.text(strip=True) if author else "",
                (time.attributes.get("datetime") or "") if time else "",
                time.text(strip=True) if time else "",
            ]
        )
    entries = []
    for item in tree.css(f"section.{ITEMS_CLASS} li"):
        title, link = item.css_first("strong"), item.css_first("a")
        entries.append([title.text(strip=True) if title else "", (link.attributes.get("href") or "") if link else ""])
    price = tree.css_first(f"section.{PRODUCT_CLASS} > p > strong")
    return {"posts": posts, "entries": entries, "price": [price.text(strip=True)] if price else []}


def run(datasets: list[str], model: str | None, out: Path) -> None:
    extractor = Extractor(model_dir=model)
    with out.open("w", encoding="utf-8") as f:
        for record in progress(iter_records(datasets=datasets), desc="pages"):
            result = extractor.extract_html(record["html"], record["url"])
            gold = record.get("main_text")
            row = {
                "id": record["id"],
                "shape": result.shape,
                "f1": word_prf(result.text, gold)[2] if gold else None,
                **parts(result.html),
            }
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def _rows(path: Path) -> dict[str, dict]:
    with path.open(encoding="utf-8") as f:
        return {row["id"]: row for row in map(json.loads, f)}


def compare(before: Path, after: Path, shape: str | None) -> Iterable[str]:
    """Each page whose form or parts changed: the form, the F1, and each part's lines that differ."""
    a, b = _rows(before), _rows(after)
    changed = 0
    for page in sorted(a.keys() & b.keys()):
        x, y = a[page], b[page]
        if shape and shape not in (x["shape"], y["shape"]):
            continue
        moved = [k for k in ("shape", "posts", "entries", "price") if x[k] != y[k]]
        if not moved:
            continue
        changed += 1
        f1 = f"{x['f1']:.3f} -> {y['f1']:.3f}" if x["f1"] is not None and y["f1"] is not None else "no gold"
        yield f"{page} [{x['shape']} -> {y['shape']}] F1 {f1}"
        for key in (k for k in moved if k != "shape"):
            pairs = [(p, q) for p, q in zip(x[key], y[key]) if p != q]
            for p, q in pairs:
                yield f"    {key}: {p} -> {q}"
            if len(x[key]) != len(y[key]):
                yield f"    {key}: {len(x[key])} -> {len(y[key])}"
    yield f"{changed} of {len(a.keys() & b.keys())} pages changed"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=["wcxb"])
    parser.add_argument("--model", help="a model's assets folder (default: the shipped model)")
    parser.add_argument("--jsonl", type=Path, help="write one line a page here")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--shape", help="with --compare: only pages that take this form before or after")
    args = parser.parse_args(argv)
    if args.compare:
        for line in compare(*args.compare, args.shape):
            print(line)
        return 0
    if not args.jsonl:
        parser.error("--jsonl or --compare is needed")
    run(args.datasets, args.model, args.jsonl)
    return 0


if __name__ == "__main__":
    sys.exit(main())
