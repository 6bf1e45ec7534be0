"""Is the reader's HTML the tree a browser builds from it? Every page of a split, extracted with the shipped
model: its HTML read by Python's parser, which opens and closes what the markup says, against what an HTML5
parser (lexbor, as a browser's) builds from it in a standards-mode document. Where they part, a browser has
repaired the markup: a paragraph ended at a block inside it, the words after it left outside any paragraph, a
row outside its table dropped.

    python -m bench.reader_html                  # the dev split: the count, then the pages that part
    python -m bench.reader_html --split train --show 5

The reader's DOMParser reads the HTML in quirks mode, which differs from this only by letting a table stay in a
paragraph; a saved page opens in standards mode.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable
from html.parser import HTMLParser

from selectolax.lexbor import LexborHTMLParser

from export.data import iter_records
from native_host import Extractor
from native_host.progress import progress

_VOID = {"br", "img", "hr"}
_BLANKS = re.compile(r"\s+")


class _Written(HTMLParser):
    """The elements and text as written: Python's parser opens and closes what the markup says, repairing
    nothing."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.events: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.events += [f"<{tag}", f"/{tag}"] if tag in _VOID else [f"<{tag}"]

    def handle_endtag(self, tag):
        if tag not in _VOID:
            self.events.append(f"/{tag}")

    def handle_data(self, data):
        self.events.append("#" + data)


def _read_back(html: str) -> list[str]:
    """The elements and text a browser builds from `html` in a standards-mode document (the one a saved page
    opens in; the reader's DOMParser reads it in quirks mode, which differs only by letting a table stay in a
    paragraph)."""
    events: list[str] = []
    body = LexborHTMLParser(f"<!doctype html><html><body>{html}</body></html>").body
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            events.append(node)
            continue
        for child in reversed(list(node.iter(include_text=True))):
            if child.tag == "-text":
                stack.append("#" + child.text_content)
            else:
                stack += [f"/{child.tag}", child] if child.tag not in _VOID else [f"/{child.tag}"]
                stack.append(f"<{child.tag}")
    return events


def _folded(events: list[str]) -> list[str]:
    """Adjacent text joined and its blanks folded, blank runs left out (where they fall is not the tree)."""
    out: list[str] = []
    text = ""
    for e in [*events, ""]:
        if e.startswith("#"):
            text += e[1:]
            continue
        if _BLANKS.sub(" ", text).strip():
            out.append("#" + _BLANKS.sub(" ", text).strip())
        text = ""
        if e:
            out.append(e)
    return out


def reads_back_as_written(html: str) -> str | None:
    """None when a browser builds the tree `html` writes; else where they part, written then read back."""
    written, read = _folded(_Written(html).events), _folded(_read_back(html))
    if written == read:
        return None
    at = next((k for k, (a, b) in enumerate(zip(written, read)) if a != b), min(len(written), len(read)))
    return f"written: {' '.join(written[max(0, at - 4) : at + 6])}\nread:    {' '.join(read[max(0, at - 4) : at + 6])}"


def parted(records: Iterable[dict], extractor: Extractor) -> dict[str, str]:
    """Each page whose reader's HTML a browser reads back otherwise than written: its id -> where they part."""
    found = {}
    for record in records:
        where = reads_back_as_written(extractor.extract_html(record["html"], url=record.get("url")).html)
        if where:
            found[record["id"]] = where
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.reader_html", description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", default="dev")
    ap.add_argument("--show", type=int, default=10, help="pages shown, with where they part (default: %(default)s)")
    args = ap.parse_args(argv)
    records = list(iter_records(split=args.split))
    found = parted(progress(records, total=len(records), desc=f"{args.split} pages"), Extractor())
    print(f"{len(records)} {args.split} pages: {len(found)} read back otherwise than written")
    for page, where in list(found.items())[: args.show]:
        print(f"  {page}\n    " + where.replace("\n", "\n    "))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
