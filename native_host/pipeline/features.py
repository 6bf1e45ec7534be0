"""Blocks -> model inputs. ONE implementation, imported by training (export/) and serving alike, so the
features the model was trained on are exactly the ones it is served.

Per block, as SemText and NeuScraper do:
* text: token ids of the block's text, from a BPE tokenizer trained on the training pages, with a token for
  each byte as its fallback (any script encodes, so German, Chinese or Russian pages do not fall apart);
* tag path: the last TAG_PATH tags from the root to the block, as ids of a fixed HTML tag list;
* class path: class and id names of the nearest ancestors, split into words (camelCase, hyphens,
  underscores, digits), as ids of a vocabulary learnt on the training pages;
* numbers: sizes, densities, position, punctuation, structure, and the live-render fields when present.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .blocks import Block

TEXT_TOKENS = 48       # token ids kept per block (the start of its text)
TEXT_CHARS = 320       # characters of a block handed to the tokenizer: its 48th token ends by 281 in 99% of
                       # the dev blocks that long
TAG_PATH = 8           # nearest tags kept, owner first
CLASS_LEVELS = 4       # nearest ancestors whose class/id words are kept
CLASS_TOKENS = 24      # class words kept per block

# Fixed tag vocabulary: id 0 is padding, 1 an unknown or custom element.
TAGS = ["<pad>", "<unk>"] + """html body head div span p a b i u em strong small big code pre kbd samp var tt
blockquote q cite abbr dfn time mark sub sup br hr h1 h2 h3 h4 h5 h6 ul ol li dl dt dd menu table thead tbody
tfoot tr td th caption colgroup col img picture figure figcaption video audio source iframe embed object canvas
svg math form input button select option textarea label fieldset legend nav header footer main article section
aside address details summary dialog font center s strike del ins nobr noscript data output meter progress
wbr ruby rt rp bdi bdo map area main search hgroup""".split()
TAG_IDS = {t: i for i, t in enumerate(dict.fromkeys(TAGS))}

NUMERIC = [
    "log_chars", "log_words", "link_density", "depth", "rel_position", "punct_ratio", "digit_ratio",
    "upper_ratio", "sentence_ends", "avg_word_len", "hidden", "heading", "list", "table", "paragraph", "pre",
    "blockquote", "log_merged", "log_siblings", "sibling_position", "log_blocks", "title_overlap",
    "has_live", "visible", "box_x", "box_y", "box_w", "box_h", "font_size", "font_weight", "display_inline",
]

_SPLIT = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+|[^\W\d_]+", re.UNICODE)
_WORD = re.compile(r"\w+")
_PUNCT = re.compile(r"[.,;:!?()\"'«»“”‘’\-–—]")
_SENT = re.compile(r"[.!?。！？](?:\s|$)")


def class_words(name: str) -> list[str]:
    """'nav-menu__itemActive2' -> ['nav', 'menu', 'item', 'active']: class names as words, as SemText does."""
    return [w.lower() for w in _SPLIT.findall(name) if not w.isdigit()]


@dataclass
class PageInputs:
    """Model inputs for one page; arrays are indexed by block."""

    text_ids: np.ndarray     # int64 [N, TEXT_TOKENS]
    tag_ids: np.ndarray      # int64 [N, TAG_PATH]
    class_ids: np.ndarray    # int64 [N, CLASS_TOKENS]
    class_level: np.ndarray  # int64 [N, CLASS_TOKENS]  (0 = owner's own classes, 1 = parent's, ...)
    numeric: np.ndarray      # float32 [N, len(NUMERIC)]

    def __len__(self) -> int:
        return len(self.numeric)

    def window(self, start: int, stop: int) -> "PageInputs":
        return PageInputs(*(a[start:stop] for a in (self.text_ids, self.tag_ids, self.class_ids,
                                                    self.class_level, self.numeric)))


class Featurizer:
    """Turns blocks into PageInputs with the shipped tokenizer and class vocabulary.

    Speed matters here (it was half of a page's time): the tokenizer gets the whole page in one batch,
    each node's class words are split and looked up once per page however many blocks sit under it,
    and rows are built as Python lists and handed to numpy once, not assigned row by row."""

    def __init__(self, tokenizer_path: str | Path, class_vocab_path: str | Path):
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self.tokenizer.no_padding()
        # Only the first TEXT_TOKENS ids are read: cut there in Rust, as turning every id of a block into a
        # Python list was two fifths of the tokenizer's time. Same ids (tested on 51,352 dev block texts).
        self.tokenizer.enable_truncation(TEXT_TOKENS)
        # The offsets of `encode_batch` are never read; `encode_batch_fast` (tokenizers >= 0.21) skips them.
        self._encode = getattr(self.tokenizer, "encode_batch_fast", self.tokenizer.encode_batch)
        vocab = json.loads(Path(class_vocab_path).read_text("utf-8"))
        self.class_ids = {w: i for i, w in enumerate(vocab)}  # 0 pad, 1 unk

    def text_ids(self, blocks: list[Block]) -> np.ndarray:
        """int64 [N, TEXT_TOKENS]: the first token ids of each block's text, zero-padded."""
        texts = [b.text[:TEXT_CHARS] for b in blocks]
        unique = list(dict.fromkeys(texts))  # a page repeats a fifth of its block texts (menus, "Reply", dates)
        ids = {t: enc.ids[:TEXT_TOKENS] for t, enc in zip(unique, self._encode(unique))} if unique else {}
        return _padded([ids[t] for t in texts], TEXT_TOKENS)

    def _node_words(self, node: dict) -> list[int]:
        """Vocabulary ids of one element's class and id words, in the order the model was trained on."""
        names = list(node.get("classes", ()))
        if node.get("html_id"):
            names.append(node["html_id"])
        get = self.class_ids.get
        return [get(w, 1) for name in names for w in class_words(name)]

    def __call__(self, snapshot: dict, blocks: list[Block]) -> PageInputs:
        n = len(blocks)
        nodes = snapshot["nodes"]
        children, place = _siblings(nodes, blocks)
        viewport = snapshot.get("viewport") or {}
        vw = float(viewport.get("width") or 1280) or 1280.0
        vh = float(viewport.get("height") or 800) or 800.0
        title_words = set(_WORD.findall((snapshot.get("title") or "").lower()))
        words_of: dict[int, list[int]] = {}  # node id -> its class word ids, filled as blocks need them
        tag_rows, class_rows, level_rows, numeric_rows = [], [], [], []
        for i, b in enumerate(blocks):
            tag_rows.append([TAG_IDS.get(t, 1) for t in b.tag_path[: -TAG_PATH - 1: -1]])
            ids: list[int] = []
            levels: list[int] = []
            j = b.owner
            level = 0
            while j >= 0 and level < CLASS_LEVELS and len(ids) < CLASS_TOKENS:
                node = nodes[j]
                words = words_of.get(j)
                if words is None:
                    words = words_of[j] = self._node_words(node)
                if words:
                    ids.extend(words)
                    levels.extend([level] * len(words))
                level += 1
                j = node["parent"]
            class_rows.append(ids[:CLASS_TOKENS])
            level_rows.append(levels[:CLASS_TOKENS])
            numeric_rows.append(_numbers(b, i, n, nodes, children, place, vw, vh, title_words))
        numeric = np.array(numeric_rows, dtype=np.float32).reshape(n, len(NUMERIC))
        return PageInputs(self.text_ids(blocks), _padded(tag_rows, TAG_PATH), _padded(class_rows, CLASS_TOKENS),
                          _padded(level_rows, CLASS_TOKENS), numeric)


def _padded(rows: list[list[int]], width: int) -> np.ndarray:
    """int64 [len(rows), width] from rows of at most `width` ints, zero-padded on the right."""
    return np.array([row + [0] * (width - len(row)) for row in rows], dtype=np.int64).reshape(len(rows), width)


def _siblings(nodes: list[dict], blocks: list[Block]) -> tuple[dict[int, int], dict[int, int]]:
    """Element children of each block owner's parent, and each owner's place among them: one pass."""
    owners = {b.owner for b in blocks}
    counts = dict.fromkeys((nodes[o]["parent"] for o in owners), 0)
    place: dict[int, int] = {}
    for node in nodes:
        p = node["parent"]
        if p in counts and node["tag"] != "#text":
            if node["id"] in owners:
                place[node["id"]] = counts[p]
            counts[p] += 1
    return counts, place


_ASCII = bytes(range(128))
_ASCII_LETTERS = bytes(c for c in _ASCII if chr(c).isalpha())
_ASCII_DIGITS = bytes(c for c in _ASCII if chr(c).isdigit())
_ASCII_UPPER = bytes(c for c in _ASCII if chr(c).isupper())


def _char_counts(text: str) -> tuple[int, int, int]:
    """How many characters of `text` are letters, digits and upper case, as str.isalpha/isdigit/isupper
    count them. A loop over the characters in Python was a third of the feature time; ASCII text (most
    blocks) is counted by bytes.translate, other text one distinct character at a time."""
    if text.isascii():
        raw = text.encode("ascii")
        size = len(raw)
        return (size - len(raw.translate(None, _ASCII_LETTERS)), size - len(raw.translate(None, _ASCII_DIGITS)),
                size - len(raw.translate(None, _ASCII_UPPER)))
    letters = digits = uppers = 0
    for c, k in Counter(text).items():
        if c.isalpha():
            letters += k
        if c.isdigit():
            digits += k
        if c.isupper():
            uppers += k
    return letters, digits, uppers


def _numbers(b: Block, i: int, n: int, nodes, children, place, vw: float, vh: float,
             title_words: set) -> list[float]:
    text = b.text
    chars = len(text)
    words = _WORD.findall(text)
    nwords = len(words)
    letters, digits, uppers = _char_counts(text)
    letters = letters or 1
    f = b.flags
    owner = nodes[b.owner]
    siblings = children.get(owner["parent"], 1)
    overlap = 0.0
    if title_words and words:
        lw = {w.lower() for w in words[:50]}
        overlap = len(lw & title_words) / len(title_words)
    live = "visible" in owner or "box" in owner
    box = owner.get("box") or (0, 0, 0, 0)
    return [
        math.log1p(chars) / 8,
        math.log1p(nwords) / 6,
        min(1.0, b.link_chars / chars) if chars else 0.0,
        b.depth / 32,
        i / max(1, n - 1),
        len(_PUNCT.findall(text)) / chars if chars else 0.0,
        digits / chars if chars else 0.0,
        uppers / letters,
        min(1.0, len(_SENT.findall(text)) / 10),
        min(1.0, (sum(map(len, words)) / nwords) / 12) if nwords else 0.0,
        float(f.get("hidden", False)),
        float(f["heading"]),
        float(f["list"]),
        float(f["table"]),
        float(f["paragraph"]),
        float(f["pre"]),
        float(f["blockquote"]),
        math.log(b.merged) / 4,
        math.log1p(siblings) / 6,
        place.get(b.owner, 0) / max(1, siblings - 1),
        math.log1p(n) / 10,
        overlap,
        float(live),
        float(owner.get("visible", False)),
        box[0] / vw,
        min(box[1] / vh, 50.0) / 50,
        box[2] / vw,
        min(box[3] / vh, 10.0) / 10,
        (owner.get("font_size") or 0.0) / 32,
        (owner.get("font_weight") or 0.0) / 900,
        float(owner.get("display", "") in ("inline", "inline-block", "inline-flex")),
    ]
