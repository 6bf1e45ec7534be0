"""The dev title set: each dev page's title by Pith's title policy (docs/metadata.md), from the dataset's gold.

    python -m bench.title_policy            # rebuild bench/titles-dev.json's rule verdicts; hand verdicts stay
    python -m bench.title_policy --unsure   # list the pages the rule leaves unsure, to read by hand

The policy: a page's title is its headline as the page shows it (the visible `<h1>`, or the heading that
plays its part), without the site's name or a section before it. The datasets' golds follow other
conventions (the whole `<title>`, a parser's pick of `og:title`), so each gold is checked against the
page's own visible headline elements, read here from the HTML with selectolax and nothing of Pith's:

1. `gold`: the gold says what one of the page's visible `<h1>` says (word-bag F1 >= .9): the gold stands.
2. `h1 in gold`: an `<h1>` says what the gold's longest part says, or all its words are in the gold and it
   has at least half of the gold's words ("Story | Section | Site", a `<title>` with the site's name): the
   `<h1>`'s text.
   A gold holding the site's registered name ("digg" for digg.com) is `unsure` whatever an `<h1>` says: the
   `<h1>` that agrees with it may be the site's logo.
3. `gold, no h1`: the page has no visible `<h1>` with text: the gold stands (a page without an `<h1>` has
   nothing visible that overrules it).
4. `unsure`: the page has an `<h1>` that agrees with no part of the gold: read by hand, the verdict written
   into the file as `hand` with the title the page shows (a site's logo in the `<h1>` and the headline in an
   `<h2>`; a gold that is another heading than the page's headline).

The file holds page ids, verdicts and titles only (short strings), never a page's text.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

from export.data import iter_records

from .metadata import tokens, word_f1

FILE = Path(__file__).with_name("titles-dev.json")
AGREES = 0.9
_PARTS = re.compile(r"\s+[|\-–—·•:»]\s+|\s*[|｜]\s*|:\s+")


def visible_h1s(html: str) -> list[str]:
    """The text of each `<h1>` a reader sees: not inside a template, script, noscript or hidden element."""
    tree = LexborHTMLParser(html)
    found = []
    for node in tree.css("h1"):
        hidden, up = False, node
        while up is not None and up.tag != "html":
            attrs = up.attributes
            style = (attrs.get("style") or "").replace(" ", "").lower()
            if (
                up.tag in ("template", "noscript", "script")
                or "hidden" in attrs
                or (attrs.get("aria-hidden") or "").lower() == "true"
                or "display:none" in style
                or "visibility:hidden" in style
            ):
                hidden = True
                break
            up = up.parent
        text = re.sub(r"\s+", " ", node.text(separator=" ") or "").strip()
        if text and not hidden:
            found.append(text)
    return found


def verdict(gold: str, h1s: list[str], site: str | None = None) -> tuple[str, str | None]:
    """(verdict, the policy's title) for one page by the rule above; (`unsure`, None) where it cannot tell.
    `site`: the name the site registered ("digg" for digg.com): a gold that holds it may be the site's logo
    or a `<title>` with the site's name, whatever an `<h1>` says."""
    if site and site in re.sub(r"\W+", "", gold.lower()):
        return "unsure", None
    if not h1s:
        return "gold, no h1", gold
    if any(word_f1(h, gold) >= AGREES for h in h1s):
        return "gold", gold
    parts = [p for p in _PARTS.split(gold) if p.strip()]
    gold_bag = Counter(tokens(gold))
    for h in h1s:
        bag = Counter(tokens(h))
        if not bag:
            continue
        inside = sum((bag & gold_bag).values()) == sum(bag.values()) and 2 * sum(bag.values()) >= sum(gold_bag.values())
        if word_f1(h, max(parts, key=lambda p: len(tokens(p)))) >= AGREES or inside:
            return "h1 in gold", h
    return "unsure", None


def registered_name(url: str | None) -> str | None:
    """ "digg" for https://digg.com/..., "ageofconan" for forums.ageofconan.com: the site's own name in its host."""
    from native_host.pipeline.metadata import _registered_name, site_of

    host = site_of(url)
    return (_registered_name(host) or None) if host else None


def build() -> dict:
    old = json.loads(FILE.read_text()) if FILE.exists() else {"pages": {}}
    pages = {}
    for record in iter_records(split="dev"):
        if not record.get("title"):
            continue
        kept = old["pages"].get(record["id"])
        if kept and kept.get("verdict") == "hand":
            pages[record["id"]] = kept
            continue
        said, title = verdict(record["title"], visible_h1s(record["html"]), registered_name(record.get("url")))
        pages[record["id"]] = {"dataset": record["dataset"], "verdict": said, "title": title}
    return {"policy": "docs/metadata.md, 'The title policy'; verdicts: bench/title_policy.py", "pages": pages}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.title_policy", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--unsure", action="store_true", help="list the pages left unsure, with their gold and <h1>s")
    args = ap.parse_args(argv)
    found = build()
    FILE.write_text(json.dumps(found, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    counts = Counter(p["verdict"] for p in found["pages"].values())
    print(f"{len(found['pages'])} pages: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if args.unsure:
        records = {r["id"]: r for r in iter_records(split="dev") if r["id"] in found["pages"]}
        for ident, page in found["pages"].items():
            if page["verdict"] == "unsure":
                print(
                    json.dumps(
                        {"id": ident, "gold": records[ident]["title"], "h1": visible_h1s(records[ident]["html"])[:3]},
                        ensure_ascii=False,
                    )
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
