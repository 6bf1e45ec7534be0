"""The featurizer's shortcuts give the model exactly the inputs it was trained on."""

from __future__ import annotations

import string
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from native_host.pipeline.features import TEXT_CHARS, TEXT_TOKENS, TOKENIZER_FILE, Featurizer, _padded
from native_host.pipeline.inference import default_model_dir

FEATURIZE = Featurizer(default_model_dir())


def _reference_ids(texts: list[str]):
    """Token ids by the tokenizer alone, its own normalizer included: what training saw."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(default_model_dir() / TOKENIZER_FILE))
    tok.no_padding()
    return _padded([tok.encode(t[:TEXT_CHARS]).ids[:TEXT_TOKENS] for t in texts], TEXT_TOKENS)


def _ids(texts: list[str]):
    return FEATURIZE.text_ids([SimpleNamespace(text=t) for t in texts])


def test_ascii_texts_take_the_shortcut_and_others_the_tokenizers_own_normalizer():
    assert FEATURIZE._ascii is not None  # the shipped tokenizer is NFKC + lowercase: the shortcut is on
    texts = [
        "Hello WORLD, it's 10:30!",
        "<pad> x",
        "a <PAD> b",
        "<Pad>",
        "ΟΔΟΣ ΣΟΦΙΑΣ",
        "ﬁnal ①②",
        "ＡＢＣ ａｂｃ",
        "İstanbul",
        "Straße",
        "ℌello",
        "mixed ASCII and café",
        "",
        " ",
        "x" * 400,
    ]
    assert (_ids(texts) == _reference_ids(texts)).all()


@settings(max_examples=80, deadline=None)
@given(st.lists(st.text(alphabet=string.printable + "<>ΣσςİıßﬁＡé①", max_size=80), min_size=1, max_size=12))
def test_any_texts_give_the_ids_the_tokenizer_gives(texts):
    assert (_ids(texts) == _reference_ids(texts)).all()


@pytest.mark.parametrize("compiled_bpe", [True, False])
def test_texts_of_earlier_pages_are_not_tokenized_again_and_the_memory_is_bounded(monkeypatch, compiled_bpe):
    import native_host.pipeline.features as features

    featurize = Featurizer(default_model_dir())
    asked: list[str] = []
    if compiled_bpe and featurize._bpe is None:
        pytest.skip("the compiled BPE is not built or not in use here")
    if compiled_bpe:  # the texts it tokenizes count as asked; those it leaves go on to the tokenizer
        bpe = featurize._bpe
        featurize._bpe = SimpleNamespace(
            encode=lambda texts: [
                asked.append(t.lower()) or row if row is not None else row for t, row in zip(texts, bpe.encode(texts))
            ]
        )
    else:
        featurize._bpe = None
    for name in ("_ascii", "_encode"):
        encode = getattr(featurize, name)
        monkeypatch.setattr(featurize, name, lambda texts, encode=encode: asked.extend(texts) or encode(texts))
    menu = ["Home", "About us", "Contact", "Reply", "Ελληνικά"]
    first = featurize.text_ids([SimpleNamespace(text=t) for t in menu + ["An article's first paragraph."]])
    assert len(asked) == 6
    asked.clear()
    page = menu + ["Another article, another paragraph."]
    again = featurize.text_ids([SimpleNamespace(text=t) for t in page])
    assert asked == ["another article, another paragraph."]  # lower-cased for the ASCII tokenizer
    assert (again[:5] == first[:5]).all() and (again == _reference_ids(page)).all()
    monkeypatch.setattr(features, "TOKEN_CACHE_TEXTS", 8)
    fresh = [f"text number {k}" for k in range(5)]
    featurize.text_ids([SimpleNamespace(text=t) for t in fresh])
    assert len(featurize._known) <= 8 and "text number 4" in featurize._known and "Home" not in featurize._known
    asked.clear()
    assert (featurize.text_ids([SimpleNamespace(text=t) for t in page]) == _reference_ids(page)).all()
    assert len(asked) == 6


def test_a_featurizer_with_threads_tokenizes_many_texts_in_parts_with_the_same_ids(monkeypatch):
    import native_host.pipeline.features as features

    featurize = Featurizer(default_model_dir(), threads=3)
    featurize._bpe = None  # the tokenizer's own paths, as where the compiled BPE is not built
    calls: list[tuple[str, int]] = []
    for name in ("_ascii", "_encode"):
        encode = getattr(featurize, name)
        monkeypatch.setattr(
            featurize, name, lambda texts, name=name, encode=encode: calls.append((name, len(texts))) or encode(texts)
        )
    # Both paths get enough new texts to be cut (ASCII ones, and others the tokenizer normalizes itself),
    # in an order that interleaves them; then a page too small to cut.
    texts = [
        f"Paragraph {k} says something: {k * 7919}." if k % 3 else f"Ελληνικά κείμενο {k} ΣΟΦΙΑΣ"
        for k in range(3 * features.SPLIT_TEXTS + 5)
    ]
    got = featurize.text_ids([SimpleNamespace(text=t) for t in texts])
    assert (got == _reference_ids(texts)).all()
    assert [name for name, _ in calls] == ["_ascii"] * 3 + ["_encode"] * 2  # 3 parts at most, 16 texts at least
    assert sum(n for _, n in calls) == len(texts)
    calls.clear()
    few = [f"Only a few texts {k}" for k in range(features.SPLIT_TEXTS - 1)]
    assert (featurize.text_ids([SimpleNamespace(text=t) for t in few]) == _reference_ids(few)).all()
    assert calls == [("_ascii", len(few))]
