"""The field's extraction metric (WCXB's), shared by the evaluation harness and training-time model selection.

Bag-of-words F1 compares the multiset of words an extractor returned with the multiset of the gold main
text, so it forgives differences in layout, order and whitespace and punishes both missing content (recall)
and leaked boilerplate (precision). Kept dependency-free and Counter-based: training scores every dev page
after every epoch.

Edge cases, decided here once:
- a word is a run of ``\\w`` (Unicode, Python ``re``) in the lower-cased text, so "Café" and "café" match,
  digits count, punctuation never does;
- prediction and gold both without words: P = R = F1 = 1 (nothing to find, nothing leaked);
- exactly one side without words, or no word in common: P = R = F1 = 0;
- snippet accuracy of a page without snippets is None (not applicable), so it never counts as 0 or 1 in
  an average; snippets that are empty after whitespace folding say nothing and are ignored.
"""

from __future__ import annotations

import re
from collections import Counter

_WORD = re.compile(r"\w+")


def words(text: str | None) -> list[str]:
    """The lower-cased ``\\w+`` runs of `text`, in order; None counts as no text."""
    return _WORD.findall(text.lower()) if text else []


def word_prf(pred: str | None, gold: str | None) -> tuple[float, float, float]:
    """(precision, recall, F1) of the bag of words of `pred` against that of `gold`."""
    return bag_prf(Counter(words(pred)), Counter(words(gold)))


def bag_prf(pred_bag: Counter, gold_bag: Counter) -> tuple[float, float, float]:
    """`word_prf` of two bags of words already counted: for a caller that scores many variants of one page."""
    if not pred_bag and not gold_bag:
        return 1.0, 1.0, 1.0
    common = sum((pred_bag & gold_bag).values())
    if not common:
        return 0.0, 0.0, 0.0
    precision = common / sum(pred_bag.values())
    recall = common / sum(gold_bag.values())
    return precision, recall, 2 * precision * recall / (precision + recall)


def fold(text: str | None) -> str:
    """Whitespace runs to one space, ends stripped, lower-cased: how snippets and predictions are compared."""
    return " ".join(text.split()).lower() if text else ""


def snippet_accuracy(pred: str | None, with_: list[str] | None, without: list[str] | None) -> float | None:
    """Share of `with_` snippets found in `pred` plus `without` snippets absent from it; None if no snippets."""
    text = fold(pred)
    wanted = [s for s in map(fold, with_ or []) if s]
    unwanted = [s for s in map(fold, without or []) if s]
    if not wanted and not unwanted:
        return None
    right = sum(s in text for s in wanted) + sum(s not in text for s in unwanted)
    return right / (len(wanted) + len(unwanted))
