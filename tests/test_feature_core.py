"""The compiled feature counts (native_host/pipeline/feature_core.pyx) give the Python reference's model
inputs, to the last bit, on tricky texts, on every page here and on seeded random text from all of Unicode;
its BPE gives the tokenizer's ids for every ASCII text; and they are in use wherever they were built."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from compiled_support import compiled_module, pure_python_prints
from hypothesis import example, given, settings
from hypothesis import strategies as st

from native_host.pipeline import features as F
from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.pipeline.inference import default_model_dir
from native_host.pipeline.snapshot import snapshot_from_html

PAGES = Path(__file__).parent / "pages"
FEATURIZE = F.Featurizer(default_model_dir())

feature_core = compiled_module("feature_core")

pytestmark = pytest.mark.skipif(feature_core is None, reason="the compiled feature counts are not built here")


def core_for(common=None, class_ids=None):
    return feature_core.FeatureCore(
        FEATURIZE.class_ids if class_ids is None else class_ids,
        FEATURIZE.common if common is None else common,
        **F._CORE_RULES,
    )


def assert_same_numbers(snapshot, blocks, core=None, common=None, class_ids=None):
    core = core or core_for(common, class_ids)
    common = FEATURIZE.common if common is None else common
    class_ids = FEATURIZE.class_ids if class_ids is None else class_ids
    compiled, python = core.block_numbers(snapshot, blocks), F._block_numbers(snapshot, blocks, common)
    assert compiled.dtype == python.dtype and compiled.shape == python.shape
    differ = np.argwhere(compiled != python)
    assert not len(differ), [(F.RAW[r], blocks[b].text, compiled[r, b], python[r, b]) for r, b in differ[:5]]
    for got, want in zip(core.path_ids(snapshot["nodes"], blocks), F._path_ids(snapshot["nodes"], blocks, class_ids)):
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_the_compiled_rows_follow_the_python_layout_by_name():
    """FeatureCore places each row where features.RAW names it: a reordered layout moves the compiled rows
    with it, and a layout naming a row the module does not fill (or missing one) is refused."""
    snapshot, blocks = F.probe_page()
    reordered = tuple(reversed(F.RAW))
    core = feature_core.FeatureCore(FEATURIZE.class_ids, FEATURIZE.common, **{**F._CORE_RULES, "rows": reordered})
    python = F._block_numbers(snapshot, blocks, FEATURIZE.common)
    assert np.array_equal(core.block_numbers(snapshot, blocks), python[[F.RAW.index(name) for name in reordered]])
    for rows in (F.RAW[:-1], (*F.RAW[:-1], "unknown_row"), (*F.RAW, F.RAW[0])):
        with pytest.raises(ValueError, match=r"features\.RAW and this module"):
            feature_core.FeatureCore(FEATURIZE.class_ids, FEATURIZE.common, **{**F._CORE_RULES, "rows": rows})


def both_inputs(snapshot, blocks) -> tuple[F.PageInputs, F.PageInputs]:
    assert FEATURIZE._core is not None
    compiled = FEATURIZE(snapshot, blocks)
    saved, FEATURIZE._core = FEATURIZE._core, None
    try:
        python = FEATURIZE(snapshot, blocks)
    finally:
        FEATURIZE._core = saved
    return compiled, python


def assert_same_inputs(a: F.PageInputs, b: F.PageInputs):
    for name in ("text_ids", "tag_ids", "class_ids", "class_level", "numeric"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name


def test_the_compiled_counts_are_in_use_where_built():
    """Built, they must have passed their probe: a failed probe means they disagree with the reference."""
    assert F._compiled is feature_core
    assert FEATURIZE._core is not None


def test_pith_pure_python_keeps_the_reference():
    code = (
        "from native_host.pipeline import features, snapshot; from native_host.pipeline.features import *; "
        "from native_host.pipeline.inference import default_model_dir; "
        "f = Featurizer(default_model_dir()); "
        "print(features._compiled is None, snapshot._compiled is None, f._core is None, f._bpe is None)"
    )
    assert pure_python_prints(code) == ["True", "True", "True", "True"]


TRICKY = [
    "",
    " ",
    "\n",
    "\t \u3000",
    "_",
    "__init__",
    "a_b c_d",
    "<pad>",
    "<PAD> x",
    "İ",
    "İİİ istanbul İSTANBUL",
    "ı\u0307",
    "ǅungla ǈ ǋ",
    "ß SS ẞ",
    "ﬁ ﬂ",
    "ΣΟΦΊΑ σοφία ς",
    "Ωhm Kelvin",
    "e\u0301 a\u0308 o\u0302\u0323",
    "漢字かな・カナー",
    "한국어 문장입니다.",
    "ＡＢＣ ａｂｃ １２３",
    "次。終わり！本当？ はい。",
    "。！？",
    "文\u3000。 x",
    "x² ½ Ⅻ ⅻ ①",
    "٣٤٥ ०१२ ๑๒",
    "¹²³ ₁₂",
    "10:30, 1.5; 2-3",
    "«quotes» “double” ‘single’ – — -",
    "End.",
    "End. ",
    "End.\n",
    "a.b.c",
    "Wait... what?!",
    "ok?\u2029next",
    "ok!\x1cx",
    "ok.\x85x",
    "ok.\u200bx",
    "\U0001d400\U0001d41a \U0001f600 \U00020000\U0002a6d6 \U000e0041 \U0010ffff",
    "\ud800 \udfff x\ud83d",
    "THE the The tHe of OF",
    "the " * 80,
    "word " * 60 + "title",
    "İstanbul hello WORLD",
    "\u00a0\u2007\u202f. . .",
    "x" * 500,
    "Ǆ" * 3 + "ǆ",
    "\u3040\u30ff\u3400\u4dbf\u4e00\u9fff\uac00\ud7af\uf900\ufaff",
    "\u303f\u3100\u33ff\u4dc0\ua000\ud7b0\ufb00",
]
NAMES = [
    "navMenu__itemActive2",
    "HTMLParser x² ÉTÉ étéAb",
    "main_Content-٣ ABc aBC",
    "İı ǅa ٣b Ⅻ ½x ²",
    "\U0001d400a \u3042b 漢 a1b22c333",
    "",
    "post-body entry-content",
    "ABCdef XMLHttpRequest iOS",
]


def test_tricky_texts_give_the_reference_numbers():
    for title in (F.PROBE_TITLE, "", None, "the hello world", "İstanbul", "x² ٣ _ ok"):
        snapshot, blocks = F.probe_page(TRICKY, NAMES, title)
        assert_same_numbers(snapshot, blocks)
        assert_same_numbers(
            snapshot,
            blocks,
            common=frozenset(["the", "of", "字", "か", "istanbul", "i̇stanbul", "σοφία", "ok", "x", "ς"]),
        )


def test_class_words_are_those_of_class_words():
    core = core_for()
    for name in NAMES + TRICKY:
        assert core.class_words(name) == [FEATURIZE.class_ids.get(w, 1) for w in F.class_words(name)], name


def test_every_page_here_gives_the_reference_inputs():
    pages = sorted(PAGES.rglob("*.html"))
    assert pages
    for path in pages:
        snapshot = snapshot_from_html(path.read_bytes(), url="https://example.com/a/page.html")
        blocks = blocks_from_snapshot(snapshot)
        assert_same_inputs(*both_inputs(snapshot, blocks))


def test_pages_with_live_fields_give_the_reference_inputs():
    """The fields only a browser fills (visible, box, font, display), on every element of each page here."""
    rng = random.Random(7)
    for path in sorted(PAGES.rglob("*.html")):
        snapshot = snapshot_from_html(path.read_bytes())
        snapshot["viewport"] = {"width": rng.choice((390, 1280.5)), "height": rng.choice((0, 844))}
        for node in snapshot["nodes"]:
            if node["tag"] != "#text" and rng.random() < 0.8:
                node.update(
                    visible=rng.random() < 0.9,
                    box=[rng.uniform(-50, 1500), rng.randrange(0, 90000), rng.randrange(0, 1300), rng.uniform(0, 9000)],
                    font_size=rng.choice((0, 12.5, 16, None)),
                    font_weight=rng.choice((400, 700, 0)),
                    display=rng.choice(("block", "inline", "inline-flex", "flex", "")),
                )
        assert_same_inputs(*both_inputs(snapshot, blocks_from_snapshot(snapshot)))


# Characters where a class, a case rule or a script boundary lies, and the ranges around them.
_EDGES = [
    c
    for a, b in ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF))
    for c in (a - 1, a, a + 1, b - 1, b, b + 1)
]
_INTERESTING = (
    "_-.,;:!?()\"'«»“”‘’–—。！？ \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u200a\u200b\u2028\u2029\u202f"
    "\u205f\u3000\ufeff<>padPADİıǅǈǋßẞﬁΣσςΩΚ²³¹½Ⅻⅻ①٣०๑１ＡａÀàÉéÿ\u0301\u0307\u0308\u0345ͅ"
    + "".join(map(chr, _EDGES))
    + "aAzZ09"
)


def _random_text(rng: random.Random) -> str:
    size = rng.choice((0, 1, 2, 5, 12, 40, 120))
    out = []
    for _ in range(size):
        pick = rng.random()
        if pick < 0.35:
            out.append(rng.choice(_INTERESTING))
        elif pick < 0.55:
            out.append(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ._-"))
        elif pick < 0.7:
            out.append(chr(rng.randrange(0x80, 0x3000)))
        elif pick < 0.85:
            out.append(chr(rng.randrange(0x3000, 0x10000)))
        else:
            out.append(chr(rng.randrange(0x10000, 0x110000)))  # every plane, unassigned ones too
    return "".join(out)


def test_random_unicode_gives_the_reference_numbers():
    rng = random.Random(20240519)
    texts = [_random_text(rng) for _ in range(4000)]
    common = frozenset(w.lower() for w in rng.sample(texts, 400) if w) | FEATURIZE.common
    words = sorted({w for t in texts[:600] for w in F.class_words(t)})
    class_ids = {w: i for i, w in enumerate(["<pad>", "<unk>", *words[::2]])}
    core = core_for(common, class_ids)
    for start in range(0, len(texts), 100):
        chunk = texts[start : start + 100]
        title = chunk[0] + " " + " ".join(t.split(" ")[0] for t in chunk[1:20])
        snapshot, blocks = F.probe_page(chunk, [t for t in chunk[:30] if t.strip()] or ["x"], title)
        assert_same_numbers(snapshot, blocks, core, common, class_ids)


@pytest.mark.parametrize("spoil", ["box", "owner", "font", "flag", "parent", "ids", "merged", "title", "classes"])
def test_values_the_counts_do_not_read_go_to_the_reference(spoil):
    """A page with a value the compiled counts refuse gets the reference's inputs (or its error)."""
    snapshot, blocks = F.probe_page()
    nodes = snapshot["nodes"]
    owner = nodes[blocks[1].owner]
    if spoil == "box":
        owner["box"] = ["1", 2, 3, 4]  # numpy reads a string of digits
    elif spoil == "owner":
        blocks[2].owner = -1  # Python wraps round to the last node
    elif spoil == "font":
        owner["font_size"] = "16"
    elif spoil == "flag":
        blocks[0].flags["heading"] = "1"  # numpy reads it as 1.0
    elif spoil == "parent":
        nodes[-1]["parent"] = -7  # below -1: the reference takes it as "no parent"
    elif spoil == "ids":
        nodes[3]["id"] = 99
    elif spoil == "merged":
        blocks[0].merged = 2.0
    elif spoil == "title":
        snapshot["title"] = 7
    elif spoil == "classes":
        owner["classes"] = [None]
    saved, FEATURIZE._core = FEATURIZE._core, None
    try:
        python = FEATURIZE(snapshot, blocks)
    except Exception as exc:  # noqa: BLE001 - the reference refuses it: the featurizer must raise the same
        FEATURIZE._core = saved
        with pytest.raises(type(exc)):
            FEATURIZE(snapshot, blocks)
        return
    finally:
        FEATURIZE._core = saved
    with pytest.raises(feature_core.Refused):  # refused by the compiled counts, not read another way
        FEATURIZE._core.block_numbers(snapshot, blocks)
        FEATURIZE._core.path_ids(nodes, blocks)
    assert_same_inputs(FEATURIZE(snapshot, blocks), python)


# ---- the compiled BPE ----------------------------------------------------------------------------------------


def _tokenizer_ids(texts):
    """What training saw: the tokenizer alone, its own normalizer included, cut as the featurizer cuts."""
    return [e.ids[: F.TEXT_TOKENS] for e in FEATURIZE.tokenizer.encode_batch(list(texts))]


def assert_bpe_is_the_tokenizer(texts, bpe=None):
    """Every text the compiled BPE reads gets the tokenizer's ids; the ASCII ones without the added token are
    all read. Gives the texts it left to the tokenizer."""
    rows = (bpe or F._compiled_bpe(FEATURIZE.tokenizer, FEATURIZE._encode)).encode(list(texts))
    for text, row, want in zip(texts, rows, _tokenizer_ids(texts)):
        assert row == want or row is None, text
        assert row is not None or F.PAD in text.lower() or not text.isascii(), text
    return [t for t, row in zip(texts, rows) if row is None]


def test_the_compiled_bpe_is_in_use_where_built():
    assert FEATURIZE._bpe is not None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(max_codepoint=127), max_size=120), max_size=8))
@example(["", " ", "\x0b\x0c\x1c\x1d\x1e\x1f\x7f\x00", "A<PAD>b", "<pad", "x" * 400, "__init__ a_b 3.14 -- !?"])
def test_any_ascii_texts_get_the_tokenizers_ids(texts):
    assert_bpe_is_the_tokenizer(texts, FEATURIZE._bpe)


def test_every_merge_and_ascii_token_gets_the_tokenizers_ids():
    state = json.loads(FEATURIZE.tokenizer.model.__getstate__())
    merges = [m.split(" ") if isinstance(m, str) else m for m in state["merges"]]
    pieces = [a + b for a, b in merges] + [t for t in state["vocab"] if t.isascii()]
    ascii_pieces = [t for t in pieces if t.isascii()]
    rng = random.Random(7)
    texts = ascii_pieces + [" ".join(rng.sample(ascii_pieces, 12)) for _ in range(300)]
    texts += ["".join(rng.sample(ascii_pieces, 6)).upper() for _ in range(300)]
    assert_bpe_is_the_tokenizer(texts, FEATURIZE._bpe)


def test_random_unicode_gets_the_tokenizers_ids_or_goes_to_it():
    """A fresh BPE meets each character first in these texts, learns it, and reads what it can exactly."""
    rng = random.Random(20261124)
    texts = [_random_text(rng) for _ in range(4000)] + list(TRICKY)
    texts = [t for t in texts if not any(0xD800 <= ord(c) <= 0xDFFF for c in t)]  # no str the tokenizer takes
    assert_bpe_is_the_tokenizer(texts)
    # Characters that stand alone, in every class: all read.
    alphabet = "aZ09_ é’“”…ßИяΣς漢字かな가ＡａÀÿ«»–—。！？.,;:!?()<>\t\n\xa0\u3000\u2029\x1c\x85\u200b€²ﬁ"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 60))) for _ in range(2000)]
    assert not [t for t in assert_bpe_is_the_tokenizer(texts) if F.PAD not in t.lower()]


def test_every_block_here_gets_the_tokenizers_ids():
    texts = sorted(
        {
            b.text[: F.TEXT_CHARS]
            for page in sorted(PAGES.rglob("*.html"))
            for b in blocks_from_snapshot(snapshot_from_html(page.read_bytes()))
        }
    )
    assert len(texts) > 200 and any(not t.isascii() for t in texts)
    assert len(assert_bpe_is_the_tokenizer(texts)) < len(texts) // 10


def test_characters_whose_form_depends_on_their_neighbours_are_left_to_the_tokenizer():
    bpe = F._compiled_bpe(FEATURIZE.tokenizer, FEATURIZE._encode)
    # A combining accent composes with the letter before it; jamo compose into a syllable; ¼ mixes classes;
    # İ lower-cases to i and a combining dot; an astral character is outside the BMP the rules cover.
    texts = ["e\u0301", "\u1100\u1161", "\u3131\u314f", "¼", "İ", "\U0001f600 ok", "x \u0308"]
    assert bpe.encode(texts) == [None] * len(texts)
    assert assert_bpe_is_the_tokenizer(texts, bpe) == texts
    # What does stand alone is read, whatever it normalizes to: several characters, a space, ASCII.
    read = ["…", "ﬁ", "\u00a0a\u3000b", "ＡＢＣ", "Σ", "가", "€£", "\u200b\xad"]
    assert assert_bpe_is_the_tokenizer(read, bpe) == []


def test_a_page_mixing_texts_gets_the_tokenizers_ids_through_the_featurizer():
    from types import SimpleNamespace

    featurize = F.Featurizer(default_model_dir())
    texts = [
        "Plain ASCII, twice.",
        "Plain ASCII, twice.",
        "café “quoted”",
        "x <PAD> y",
        "ΣΟΦΙΑ",
        "",
        "x" * 400,
        "e\u0301 \U0001f600",
    ]
    got = featurize.text_ids([SimpleNamespace(text=t) for t in texts])
    assert got.tolist() == [row + [0] * (F.TEXT_TOKENS - len(row)) for row in _tokenizer_ids(texts)]


def test_a_bpe_that_disagrees_or_a_model_it_does_not_reproduce_is_not_used(monkeypatch):
    from tokenizers import Tokenizer

    assert F._compiled_bpe(FEATURIZE.tokenizer, FEATURIZE._encode) is not None

    class OneIdShort(feature_core.Bpe):
        def encode(self, texts, unknown):
            return [row[:-1] if row and len(row) > 3 else row for row in super().encode(texts, unknown)]

    monkeypatch.setattr(feature_core, "Bpe", OneIdShort)
    assert F._compiled_bpe(FEATURIZE.tokenizer, FEATURIZE._encode) is None
    monkeypatch.undo()
    spec = json.loads((default_model_dir() / F.TOKENIZER_FILE).read_text("utf-8"))
    for change in (
        {"pre_tokenizer": {"type": "WhitespaceSplit"}},
        {"model": {**spec["model"], "unk_token": "<pad>"}},
        {"model": {**spec["model"], "byte_fallback": False}},
        {"normalizer": {"type": "NFC"}},
        {"added_tokens": spec["added_tokens"] + [{**spec["added_tokens"][0], "id": 1, "content": "[x]"}]},
    ):
        other = Tokenizer.from_str(json.dumps({**spec, **change}))
        assert F._compiled_bpe(other, FEATURIZE._encode) is None, change
