"""Does the Markdown say what the reader shows? Every page of a split, extracted with the shipped model: its
Markdown rendered back by a CommonMark renderer with GFM tables, strikethrough and footnotes (markdown-it, as
forges and note apps render it) against the reader's HTML, word by word.

    python -m bench.markdown_fidelity                 # the dev split: counts, then the pages that differ
    python -m bench.markdown_fidelity --show 40       # more of them

A page differs in its **words** when the two sequences of words (letters only, three or more) differ: text
lost, doubled, or glued to the next word ("place.Last"); in its **nesting** when a word sits in other lists,
items or quotes than in the reader (a paragraph that left its list item). Inside a table nesting is not
compared: a GFM cell holds one line, so a list in a cell is written as its items' text.

Some differences are the page's own: a word split by its markup (`<em>Today</em>s`, a drop cap's
`<span>S</span>amurai`) reads as one word in the Markdown and as two in the HTML's text nodes.
"""

from __future__ import annotations

import argparse
import re
from html.parser import HTMLParser

from export.data import iter_records
from native_host import Extractor
from native_host.progress import progress

_WORD = re.compile(r"[^\W\d_]{3,}")
NESTS = ("li", "blockquote", "table", "pre")  # what a word's place is read from


class Words(HTMLParser):
    """Each word of a rendering, with the items, quotes, tables and code blocks it is inside."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.words: list[tuple[str, tuple[str, ...]]] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        if tag in NESTS:
            self.open.append(tag)

    def handle_endtag(self, tag):
        if tag in NESTS and tag in self.open:
            while self.open.pop() != tag:
                pass

    def handle_data(self, data):
        place = tuple(self.open)
        self.words += [(w.lower(), place) for w in _WORD.findall(data)]


def compare(reader_html: str, rendered: str) -> str | None:
    """ "words" or "nesting" where the rendered Markdown differs from the reader's HTML, else None."""
    shown, written = Words(reader_html).words, Words(rendered).words
    if [w for w, _ in shown] != [w for w, _ in written]:
        return "words"
    if any(a != b and "table" not in a for (_, a), (_, b) in zip(shown, written)):
        return "nesting"
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.markdown_fidelity", description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", default="dev")
    ap.add_argument("--show", type=int, default=20, help="pages listed per kind (default: %(default)s)")
    args = ap.parse_args(argv)
    from markdown_it import MarkdownIt  # the test extra's
    from mdit_py_plugins.footnote import footnote_plugin

    renderer = MarkdownIt("commonmark").enable(["table", "strikethrough"]).use(footnote_plugin)
    extractor = Extractor()
    records = list(iter_records(split=args.split))
    differ: dict[str, list[str]] = {"words": [], "nesting": []}
    for record in progress(records, total=len(records), desc=f"{args.split} pages"):
        result = extractor.extract_html(record["html"], url=record.get("url"))
        kind = compare(result.html, renderer.render(result.markdown))
        if kind:
            differ[kind].append(record["id"])
    words, nesting = len(differ["words"]), len(differ["nesting"])
    print(f"{len(records)} {args.split} pages: {words} differ in words, {nesting} in nesting")
    for kind, ids in differ.items():
        for page in ids[: args.show]:
            print(f"  {kind:8} {page}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
