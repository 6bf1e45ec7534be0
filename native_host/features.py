"""Blocks -> model inputs. ONE implementation, imported by training (export/) and serving alike, so the
features the model was trained on are exactly the ones it is served.

Per block, as SemText and NeuScraper do:
* text: token ids of the block's text, from a byte-level BPE tokenizer trained on the training pages (any
  script encodes, so German, Chinese or Russian pages do not fall apart);
* tag path: the last TAG_PATH tags from the root to the block, as ids of a fixed HTML tag list;
* class path: class and id names of the nearest ancestors, split into words (camelCase, hyphens,
  underscores, digits), as ids of a vocabulary learnt on the training pages;
* numbers: sizes, densities, position, punctuation, structure, and the live-render fields when present.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .blocks import Block

TEXT_TOKENS = 48       # token ids kept per block (the start of its text)
TEXT_CHARS = 400       # characters of a block handed to the tokenizer
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
    """Turns blocks into PageInputs with the shipped tokenizer and class vocabulary."""

    def __init__(self, tokenizer_path: str | Path, class_vocab_path: str | Path):
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        vocab = json.loads(Path(class_vocab_path).read_text("utf-8"))
        self.class_ids = {w: i for i, w in enumerate(vocab)}  # 0 pad, 1 unk

    def __call__(self, snapshot: dict, blocks: list[Block]) -> PageInputs:
        n = len(blocks)
        text_ids = np.zeros((n, TEXT_TOKENS), dtype=np.int64)
        if n:
            encodings = self.tokenizer.encode_batch([b.text[:TEXT_CHARS] for b in blocks])
            for i, enc in enumerate(encodings):
                ids = enc.ids[:TEXT_TOKENS]
                text_ids[i, : len(ids)] = ids
        tag_ids = np.zeros((n, TAG_PATH), dtype=np.int64)
        class_ids = np.zeros((n, CLASS_TOKENS), dtype=np.int64)
        class_level = np.zeros((n, CLASS_TOKENS), dtype=np.int64)
        numeric = np.zeros((n, len(NUMERIC)), dtype=np.float32)
        nodes = snapshot["nodes"]
        children, place = _siblings(nodes, blocks)
        viewport = snapshot.get("viewport") or {}
        vw = float(viewport.get("width") or 1280) or 1280.0
        vh = float(viewport.get("height") or 800) or 800.0
        title_words = set(_WORD.findall((snapshot.get("title") or "").lower()))
        for i, b in enumerate(blocks):
            path = b.tag_path[::-1][:TAG_PATH]
            tag_ids[i, : len(path)] = [TAG_IDS.get(t, 1) for t in path]
            k = 0
            level = 0
            j = b.owner
            while j >= 0 and level < CLASS_LEVELS and k < CLASS_TOKENS:
                node = nodes[j]
                names = list(node.get("classes", ()))
                if node.get("html_id"):
                    names.append(node["html_id"])
                for name in names:
                    for w in class_words(name):
                        if k < CLASS_TOKENS:
                            class_ids[i, k] = self.class_ids.get(w, 1)
                            class_level[i, k] = level
                            k += 1
                level += 1
                j = node["parent"]
            numeric[i] = _numbers(b, i, n, nodes, children, place, vw, vh, title_words)
        return PageInputs(text_ids, tag_ids, class_ids, class_level, numeric)


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


def _numbers(b: Block, i: int, n: int, nodes, children, place, vw: float, vh: float,
             title_words: set) -> list[float]:
    text = b.text
    chars = len(text)
    words = _WORD.findall(text)
    nwords = len(words)
    letters = sum(c.isalpha() for c in text) or 1
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
        sum(c.isdigit() for c in text) / chars if chars else 0.0,
        sum(c.isupper() for c in text) / letters,
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
