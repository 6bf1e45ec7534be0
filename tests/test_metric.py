"""The metric against values worked out by hand, so a change to it shows up as a changed number."""

import pytest

from export.metric import fold, snippet_accuracy, word_prf, words


def test_words_are_lowercased_word_runs():
    assert words("Hello, World! It's 2024.") == ["hello", "world", "it", "s", "2024"]


def test_words_keep_unicode_letters_and_fold_case():
    assert words("Café ÜBER naïve — Ελλάδα 東京") == ["café", "über", "naïve", "ελλάδα", "東京"]


def test_words_of_nothing():
    assert words("") == []
    assert words(None) == []
    assert words(" ,.;— ") == []


def test_underscore_joins_a_word():
    # \w includes "_", so snake_case stays one word, as in the reference definition
    assert words("snake_case x") == ["snake_case", "x"]


def test_prf_hand_computed():
    # pred bag {a:1, b:2, c:1}, gold bag {b:1, c:1, d:1}: common = min counts = b:1 + c:1 = 2
    p, r, f1 = word_prf("a b b c", "b c d")
    assert p == pytest.approx(2 / 4)
    assert r == pytest.approx(2 / 3)
    assert f1 == pytest.approx(4 / 7)  # 2 * (1/2) * (2/3) / (1/2 + 2/3)


def test_prf_counts_repeats_as_a_multiset():
    # pred has "the" three times, gold twice: only two count
    p, r, f1 = word_prf("the the the cat", "the the cat sat")
    assert (p, r) == pytest.approx((3 / 4, 3 / 4))
    assert f1 == pytest.approx(3 / 4)


def test_prf_ignores_case_order_and_punctuation():
    assert word_prf("World, HELLO!", "hello world") == (1.0, 1.0, 1.0)


def test_prf_unicode_case_folding():
    p, r, f1 = word_prf("ÉTÉ à Paris", "été a paris")
    # "à" and "a" are different words: 2 of 3 on each side
    assert (p, r, f1) == pytest.approx((2 / 3, 2 / 3, 2 / 3))


def test_prf_empty_cases():
    assert word_prf("", "some gold text") == (0.0, 0.0, 0.0)
    assert word_prf(None, "some gold text") == (0.0, 0.0, 0.0)
    assert word_prf("leaked menu", "") == (0.0, 0.0, 0.0)
    assert word_prf("", "") == (1.0, 1.0, 1.0)
    assert word_prf("...", None) == (1.0, 1.0, 1.0)


def test_prf_no_common_word():
    assert word_prf("alpha beta", "gamma") == (0.0, 0.0, 0.0)


def test_fold_whitespace_and_case():
    assert fold("  Hello\n\tBig   WORLD ") == "hello big world"
    assert fold(None) == ""


def test_snippet_accuracy_hand_computed():
    pred = "The Quick brown\nfox jumps over the lazy dog."
    # with: found, found (whitespace folded), missing; without: absent, present  -> (2 + 1) / 5
    acc = snippet_accuracy(pred, ["quick brown fox", "LAZY   dog", "cat"], ["subscribe now", "jumps over"])
    assert acc == pytest.approx(3 / 5)


def test_snippet_accuracy_without_snippets_is_not_applicable():
    assert snippet_accuracy("text", [], []) is None
    assert snippet_accuracy("text", None, None) is None
    assert snippet_accuracy("text", ["  "], [""]) is None  # empty snippets say nothing


def test_snippet_accuracy_of_an_empty_prediction():
    # nothing found, but every unwanted snippet is rightly absent
    assert snippet_accuracy("", ["a b"], ["c", "d"]) == pytest.approx(2 / 3)
    assert snippet_accuracy(None, ["a b"], []) == 0.0
