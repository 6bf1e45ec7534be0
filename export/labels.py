"""Gold labels per block, from a page's gold main text, by an ORDERED word alignment.

Web2Text labelled CleanEval this way: the page's words (block after block) and the gold words are aligned
in order, so a word in the menu that also occurs in the article ("Home", "the") is not counted as content
just because it appears somewhere in the gold text, which a bag-of-words labelling does. A block is main
when at least MAIN_SHARE of its words align.

The structural labels of NeuScraper (title, heading, paragraph, list, table) come from the tags around the
block, and are only set on main blocks: they teach the article renderer what each main block is. Byline and
date label the short blocks that state the gold author or publish date, where a dataset gives them (WCXB,
Fundus, zh-cwce): cues a page's metadata falls back on when its structured data says nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from difflib import SequenceMatcher

from native_host.pipeline.blocks import Block
from native_host.result import LABELS  # noqa: F401 (the label order, one list for training and serving)

from .metric import words

MAIN_SHARE = 0.5
META_CHARS = 200  # a byline or date block is short: a sentence that names the author is not a byline
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def aligned_counts(blocks: list[Block], gold_text: str) -> list[tuple[int, int]]:
    """(aligned words, words) per block, from one monotone alignment of the page's words to the gold words."""
    owner: list[int] = []
    page: list[str] = []
    for b in blocks:
        w = words(b.text)
        page.extend(w)
        owner.extend([b.index] * len(w))
    gold = words(gold_text or "")
    counts = [[0, 0] for _ in blocks]
    for i in owner:
        counts[i][1] += 1
    if page and gold:
        matcher = SequenceMatcher(None, page, gold, autojunk=False)
        for a, _, size in matcher.get_matching_blocks():
            for k in range(a, a + size):
                counts[owner[k]][0] += 1
    return [(a, n) for a, n in counts]


def _norm(text: str | None) -> str:
    return " ".join(words(text or ""))


def label_blocks(blocks: list[Block], gold_text: str, page_title: str | None = None) -> list[dict[str, int]]:
    """One dict of 0/1 per label in LABELS for each block."""
    counts = aligned_counts(blocks, gold_text)
    title = _norm(page_title)
    labels = []
    title_done = False
    for b, (a, n) in zip(blocks, counts):
        main = int(n > 0 and a >= MAIN_SHARE * n)
        f = b.flags
        is_title = 0
        if main and not title_done:
            text = _norm(b.text)
            if f["heading"] and ("h1" in b.tag_path or (title and text and text in title)):
                is_title, title_done = 1, True
        labels.append(
            {
                "main": main,
                "title": is_title,
                "heading": int(main and f["heading"] and not is_title),
                "paragraph": int(main and f["paragraph"] and not f["heading"]),
                "list": int(main and f["list"] and not f["table"]),
                "table": int(main and f["table"]),
            }
        )
    return labels


def _labelled_blocks(record: dict) -> tuple[list[Block], list[dict]]:
    """The record's page as Pith's blocks, each with the labels its gold gives it (`label_blocks`)."""
    from native_host.pipeline.blocks import blocks_from_snapshot
    from native_host.pipeline.snapshot import snapshot_from_html

    blocks = blocks_from_snapshot(snapshot_from_html(record["html"], url=record.get("url")))
    return blocks, label_blocks(blocks, record.get("main_text") or "", record.get("title"))


def oracle_text(record: dict) -> str:
    """The best a perfect block classifier can extract: exactly the blocks the alignment labels main."""
    blocks, labels = _labelled_blocks(record)
    return "\n\n".join(b.text for b, lab in zip(blocks, labels) if lab["main"])


def shape_oracle_text(record: dict) -> str:
    """The best a classifier that keeps or drops each record shape whole can extract (`decisions.record_shape`:
    a list's items, a thread's posts, an article's paragraphs under one container): the blocks of every shape
    whose words the alignment labels main for at least half. Beside `oracle_text`, it says how much of a
    type's gap a reading of whole shapes would close, and how much is a gold that keeps part of one shape."""
    from native_host.pipeline.decisions import record_shape

    blocks, labels = _labelled_blocks(record)
    shapes = [record_shape(b) for b in blocks]
    main: Counter = Counter()
    every: Counter = Counter()
    for b, lab, shape in zip(blocks, labels, shapes):
        n = len(b.text.split())
        main[shape] += n * lab["main"]
        every[shape] += n
    return "\n\n".join(b.text for b, shape in zip(blocks, shapes) if every[shape] and 2 * main[shape] >= every[shape])


def _numbers(text: str) -> set[int]:
    return {int(n) for n in re.findall(r"\d{1,4}", text)}


def states_date(text: str, gold: str) -> bool:
    """Whether `text` writes the date `gold` (YYYY-MM-DD) in a common form: the year, and the day with the
    month as a number or as a word (any language: a word is taken for the month when the text holds no
    other number that could be one). Relative dates ("2 hours ago") are not recognised."""
    m = _DATE.match(gold or "")
    if not m:
        return False
    year, month, day = (int(x) for x in m.groups())
    numbers = _numbers(text)
    if year not in numbers and year % 100 not in numbers:
        return False
    if day not in numbers:
        return False
    return month in numbers or bool(re.search(r"[^\W\d_]{3,}", text))


def labelled_metadata(blocks: list[Block], author: str | None, date: str | None) -> list[dict[str, int]]:
    """{"byline", "date"} per block: 1 on the short blocks that state the gold author (most of the first
    author's name words) or the gold publish date."""
    names = [words(a) for a in (author or "").split(",") if words(a)]
    first = set(names[0]) if names else set()
    out = []
    for b in blocks:
        short = len(b.text) <= META_CHARS
        text_words = set(words(b.text)) if short else set()
        byline = bool(first) and short and len(first & text_words) * 2 > len(first)
        out.append({"byline": int(byline), "date": int(short and bool(date) and states_date(b.text, date))})
    return out
