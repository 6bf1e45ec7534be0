"""Blocks -> model inputs. ONE implementation, imported by training (export/) and serving alike, so the
features the model was trained on are exactly the ones it is served.

Per block, as SemText and NeuScraper do:
* text: token ids of the block's text, from a BPE tokenizer trained on the training pages, with a token for
  each byte as its fallback (any script encodes, so German, Chinese or Russian pages do not fall apart);
* tag path: the last TAG_PATH tags from the root to the block, as ids of a fixed HTML tag list;
* class path: class and id names of the nearest ancestors, split into words (camelCase, hyphens,
  underscores, digits), as ids of a vocabulary of words found on many sites (a site's own names are unknown);
* numbers (NUMERIC, each named with its scale): sizes, densities, position, punctuation, structure, how much
  text and how many links the block's ancestors hold, the share of common words, and the live-render fields
  when present.

What a model can learn from a site's own class names and boilerplate strings does not carry to a site it has
never seen; the numbers that describe a block's surroundings (a long, link-free container of running text, or
a short, link-dense one) do, on any site and in any language (docs/model.md).
"""

from __future__ import annotations

import json
import math
import os
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .blocks import Block
from .compiled import load_compiled

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

TEXT_TOKENS = 48  # token ids kept per block (the start of its text)
TEXT_CHARS = 320  # characters of a block handed to the tokenizer: its 48th token ends by 281 in 99% of
# the dev blocks that long
TAG_PATH = 8  # nearest tags kept, owner first
CLASS_LEVELS = 4  # nearest ancestors whose class/id words are kept
CLASS_TOKENS = 24  # class words kept per block
ANCESTOR_LEVELS = 3  # ancestors above a block's owner whose text and links are summed
TOKEN_CACHE_TEXTS = 20_000  # block texts whose token ids are kept across pages (~9 MB at most): a site repeats
# its menus, footers and "Reply" on every page
SPLIT_TEXTS = 32  # new texts from which a featurizer with threads tokenizes them in parts, side by side: 32
# take 0.48 ms in one part and 0.32 in two; 16, 0.24 and 0.22 (2 cores)

# The featurizer's files, beside the model in its assets folder.
TOKENIZER_FILE = "tokenizer.json"
CLASS_VOCAB_FILE = "class_vocab.json"
COMMON_WORDS_FILE = "common_words.json"
FILES = (TOKENIZER_FILE, CLASS_VOCAB_FILE, COMMON_WORDS_FILE)

# Fixed tag vocabulary: id 0 is padding, 1 an unknown or custom element.
TAGS = (
    ["<pad>", "<unk>"]
    + """html body head div span p a b i u em strong small big code pre kbd samp var tt
blockquote q cite abbr dfn time mark sub sup br hr h1 h2 h3 h4 h5 h6 ul ol li dl dt dd menu table thead tbody
tfoot tr td th caption colgroup col img picture figure figcaption video audio source iframe embed object canvas
svg math form input button select option textarea label fieldset legend nav header footer main article section
aside address details summary dialog font center s strike del ins nobr noscript data output meter progress
wbr ruby rt rp bdi bdo map area main search hgroup""".split()
)
TAG_IDS = {t: i for i, t in enumerate(dict.fromkeys(TAGS))}


@dataclass(frozen=True)
class Numeric:
    """One number the model reads per block: `raw` value (computed in `_numbers`) divided by `scale`, so every
    column sits roughly in [0, 1]."""

    name: str
    scale: float
    about: str


def _ancestor_columns(level: int) -> list[Numeric]:
    where = "parent" if level == 1 else ("grandparent" if level == 2 else f"ancestor {level} levels up")
    return [
        Numeric(f"a{level}_log_chars", 10, f"log(1 + characters of text under the owner's {where})"),
        Numeric(f"a{level}_link_density", 1, "share of that text inside links"),
        Numeric(f"a{level}_log_blocks", 6, "log(1 + blocks under it)"),
        Numeric(f"a{level}_text_share", 1, "share of the page's text under it"),
    ]


NUMERIC: tuple[Numeric, ...] = (
    Numeric("log_chars", 8, "log(1 + characters of the block)"),
    Numeric("log_words", 6, "log(1 + words)"),
    Numeric("link_density", 1, "share of the block's characters inside <a href>"),
    Numeric("depth", 32, "the owner's depth in the DOM"),
    Numeric("rel_position", 1, "block index / (blocks - 1)"),
    Numeric("punct_ratio", 1, "punctuation marks per character"),
    Numeric("digit_ratio", 1, "digits per character"),
    Numeric("upper_ratio", 1, "upper-case letters per letter"),
    Numeric("sentence_ends", 10, "sentence ends (. ! ? and CJK full stops before a space), capped at 10"),
    Numeric("avg_word_len", 12, "mean word length, capped at 12"),
    Numeric("hidden", 1, "hidden by markup (hidden, aria-hidden, inline display:none)"),
    Numeric("heading", 1, "inside h1-h6"),
    Numeric("list", 1, "inside a list"),
    Numeric("table", 1, "inside a table"),
    Numeric("paragraph", 1, "inside <p>"),
    Numeric("pre", 1, "inside <pre>"),
    Numeric("blockquote", 1, "inside <blockquote>"),
    Numeric("log_merged", 4, "log(search-phase blocks combined into this one)"),
    Numeric("log_siblings", 6, "log(1 + element children of the owner's parent)"),
    Numeric("sibling_position", 1, "the owner's place among them, 0 to 1"),
    Numeric("log_blocks", 10, "log(1 + blocks on the page)"),
    Numeric("title_overlap", 1, "share of the <title>'s words in the block's first 50 words"),
    Numeric("has_live", 1, "the snapshot carries live-render fields (a browser built it)"),
    Numeric("visible", 1, "live: the owner renders"),
    Numeric("box_x", 1, "live: box left / viewport width"),
    Numeric("box_y", 50, "live: box top / viewport height, capped at 50 screens"),
    Numeric("box_w", 1, "live: box width / viewport width"),
    Numeric("box_h", 10, "live: box height / viewport height, capped at 10 screens"),
    Numeric("font_size", 32, "live: font size in CSS pixels"),
    Numeric("font_weight", 900, "live: font weight"),
    Numeric("display_inline", 1, "live: the owner's display is inline, inline-block or inline-flex"),
    Numeric(
        "common_words",
        1,
        "share of the block's words (CJK: characters) that are common words: running "
        "text is full of them, menus and buttons are not",
    ),
    Numeric("text_share", 1, "share of the page's text in this block"),
    Numeric("char_position", 1, "share of the page's text before this block"),
    *(c for level in range(1, ANCESTOR_LEVELS + 1) for c in _ancestor_columns(level)),
)
NUMERIC_NAMES = tuple(c.name for c in NUMERIC)
_SCALES = np.array([c.scale for c in NUMERIC], dtype=np.float32)

_SPLIT = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+|[^\W\d_]+", re.UNICODE)
_WORD = re.compile(r"\w+")
# The marks counted as punctuation and as sentence ends: the patterns are made of them, and the compiled
# counts (feature_core.pyx) are handed them.
PUNCT_MARKS = ".,;:!?()\"'«»“”‘’-–—"
SENTENCE_MARKS = ".!?。！？"
_PUNCT = re.compile(f"[{re.escape(PUNCT_MARKS)}]")
_SENT = re.compile(f"[{re.escape(SENTENCE_MARKS)}](?:\\s|$)")
# Common-word tokens: a run of letters, but each CJK character (and kana, hangul) alone, as those scripts write
# no spaces between words.
CJK_LETTERS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TOKEN = re.compile(rf"[{CJK_LETTERS}]|[^\W\d_{CJK_LETTERS}]+")


def class_words(name: str) -> list[str]:
    """'nav-menu__itemActive2' -> ['nav', 'menu', 'item', 'active']: class names as words, as SemText does."""
    return [w.lower() for w in _SPLIT.findall(name) if not w.isdigit()]


def word_tokens(text: str) -> list[str]:
    """Lower-cased letter runs, CJK characters one by one: the units the common-word share counts."""
    return _TOKEN.findall(text.lower())


@dataclass
class PageInputs:
    """Model inputs for one page; arrays are indexed by block."""

    text_ids: np.ndarray  # int64 [N, TEXT_TOKENS]
    tag_ids: np.ndarray  # int64 [N, TAG_PATH]
    class_ids: np.ndarray  # int64 [N, CLASS_TOKENS]
    class_level: np.ndarray  # int64 [N, CLASS_TOKENS]  (0 = owner's own classes, 1 = parent's, ...)
    numeric: np.ndarray  # float32 [N, len(NUMERIC)]

    def __len__(self) -> int:
        return len(self.numeric)

    def window(self, start: int, stop: int) -> PageInputs:
        return PageInputs(
            *(a[start:stop] for a in (self.text_ids, self.tag_ids, self.class_ids, self.class_level, self.numeric))
        )


class Featurizer:
    """Turns blocks into PageInputs with the shipped tokenizer, class vocabulary and common-word list.

    Speed matters here (it was half of a page's time): where built, the compiled BPE gives the tokenizer's
    ids for nearly every text (`_compiled_bpe`), the tokenizer gets the rest of the page in one batch,
    each node's class words are split and looked up once per page however many blocks sit under it,
    and rows are built as Python lists and handed to numpy once, not assigned row by row. Where the
    compiled counts (feature_core.pyx) are built, they give the tag and class paths and the per-block
    numbers instead of `_path_ids` and `_block_numbers`, the reference, with the same result."""

    def __init__(self, assets: str | Path, threads: int = 1):
        # The tokenizer's own thread pool costs more than it saves on one page's texts: over the dev pages the
        # feature stage took 6.4 ms at p95 without it against 9.8 ms with it, the median no worse (2 cores).
        # A setting the user made wins. Where one page is waited on (`threads` > 1: the host), a page's many
        # new texts are cut into parts tokenized on threads of our own instead, the tokenizer letting go of
        # the GIL: a 5,000-element page's 1,064 texts take 11 ms instead of 22 on 2 cores.
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        self.threads = max(1, threads)
        self._pool: ThreadPoolExecutor | None = None  # made on first use (its import is a millisecond of a start)
        from tokenizers import Tokenizer

        assets = Path(assets)
        self.tokenizer = Tokenizer.from_file(str(assets / TOKENIZER_FILE))
        self.tokenizer.no_padding()
        # Only the first TEXT_TOKENS ids are read: cut there in Rust, as turning every id of a block into a
        # Python list was two fifths of the tokenizer's time. Same ids (tested on 51,352 dev block texts).
        self.tokenizer.enable_truncation(TEXT_TOKENS)
        # The offsets of `encode_batch` are never read; `encode_batch_fast` (tokenizers >= 0.21) skips them.
        self._encode = getattr(self.tokenizer, "encode_batch_fast", self.tokenizer.encode_batch)
        # The tokenizer's own NFKC + lowercase keeps an alignment entry per character, a quarter of its time.
        # On ASCII text both are plain lower case, which str.lower does exactly, so ASCII texts go, lower-cased,
        # to a tokenizer sharing the same model without the normalizer; other text keeps the tokenizer's own
        # (Python's Unicode tables are not the tokenizer's: 127 code points, newer letters, differ).
        self._ascii = None
        if _nfkc_lower_and_pad(self.tokenizer):
            plain = Tokenizer(self.tokenizer.model)
            plain.pre_tokenizer = self.tokenizer.pre_tokenizer
            plain.enable_truncation(TEXT_TOKENS)
            self._ascii = getattr(plain, "encode_batch_fast", plain.encode_batch)
        # Where built, texts get their ids from the compiled BPE instead (7 times faster), once it gives the
        # tokenizer's on the probe texts; those it cannot read exactly go on to the tokenizer.
        self._bpe = _compiled_bpe(self.tokenizer, self._encode)
        vocab = json.loads((assets / CLASS_VOCAB_FILE).read_text("utf-8"))
        self.class_ids = {w: i for i, w in enumerate(vocab)}  # 0 pad, 1 unk
        self.common = frozenset(json.loads((assets / COMMON_WORDS_FILE).read_text("utf-8")))
        self._core = None if _compiled is None else _compiled.FeatureCore(self.class_ids, self.common, **_CORE_RULES)
        # Token ids of the block texts of earlier pages, emptied when full (a bound on memory, not an LRU: a
        # page's texts are looked up once each, and a site's repeated ones come back at once).
        self._known: dict[str, list[int]] = {}

    def _in_parts(self, encode, texts: list[str]) -> list:
        """`encode(texts)`, in `threads` parts side by side once there are SPLIT_TEXTS of them; the same
        encodings in the same order (each text is encoded alone either way)."""
        parts = min(self.threads, len(texts) // (SPLIT_TEXTS // 2))
        if parts < 2:
            return encode(texts)
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(self.threads - 1, thread_name_prefix="pith-tokenize")
        size = -(-len(texts) // parts)
        later = [self._pool.submit(encode, texts[k : k + size]) for k in range(size, len(texts), size)]
        encoded = encode(texts[:size])
        for part in later:
            encoded += part.result()
        return encoded

    def text_ids(self, blocks: list[Block]) -> np.ndarray:
        """int64 [N, TEXT_TOKENS]: the first token ids of each block's text, zero-padded."""
        texts = [b.text[:TEXT_CHARS] for b in blocks]
        known = self._known
        ids: dict[str, list[int]] = {}
        unique = []  # a page repeats a fifth of its block texts (menus, "Reply", dates)
        for t in dict.fromkeys(texts):
            row = known.get(t)
            if row is None:
                unique.append(t)
            else:
                ids[t] = row
        new = len(unique)
        if self._bpe is not None and unique:
            rows = self._bpe.encode(unique)  # None for a text it leaves to the tokenizer
            ids.update((t, row) for t, row in zip(unique, rows) if row is not None)
            unique = [t for t, row in zip(unique, rows) if row is None]
        if self._ascii is not None:
            # "<pad>", the one added token, is matched before normalizing: a text holding it in any case
            # takes the full path.
            lowered = {t: low for t in unique if t.isascii() and PAD not in (low := t.lower())}
            if lowered:
                encoded = self._in_parts(self._ascii, list(lowered.values()))
                ids.update((t, enc.ids[:TEXT_TOKENS]) for t, enc in zip(lowered, encoded))
                unique = [t for t in unique if t not in ids]
        if unique:
            ids.update((t, enc.ids[:TEXT_TOKENS]) for t, enc in zip(unique, self._in_parts(self._encode, unique)))
        if new:
            if len(known) + new > TOKEN_CACHE_TEXTS:
                known.clear()
            known.update(ids)  # the texts found there too: no harm, and no second pass to tell them apart
        return _padded([ids[t] for t in texts], TEXT_TOKENS)

    def __call__(self, snapshot: dict, blocks: list[Block]) -> PageInputs:
        core = self._core
        paths: tuple[np.ndarray, np.ndarray, np.ndarray]
        if core is not None:
            try:
                paths, raw = core.path_ids(snapshot["nodes"], blocks), core.block_numbers(snapshot, blocks)
            except Exception:  # noqa: BLE001 - a page the compiled counts refuse (odd values) is the reference's
                core = None
        if core is None:
            paths = _path_ids(snapshot["nodes"], blocks, self.class_ids)
            raw = _block_numbers(snapshot, blocks, self.common)
        return PageInputs(self.text_ids(blocks), *paths, _numeric(raw, snapshot))


def _node_words(node: dict, class_ids: dict[str, int]) -> list[int]:
    """Vocabulary ids of one element's class and id words, in the order the model was trained on."""
    names = list(node.get("classes", ()))
    if node.get("html_id"):
        names.append(node["html_id"])
    get = class_ids.get
    return [get(w, 1) for name in names for w in class_words(name)]


def _path_ids(
    nodes: list[dict], blocks: list[Block], class_ids: dict[str, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tag ids [N, TAG_PATH], class word ids and their levels [N, CLASS_TOKENS] (0 = the owner's own classes,
    1 = its parent's, ...)."""
    words_of: dict[int, list[int]] = {}  # node id -> its class word ids, filled as blocks need them
    tag_rows, class_rows, level_rows = [], [], []
    for b in blocks:
        tag_rows.append([TAG_IDS.get(t, 1) for t in b.tag_path[: -TAG_PATH - 1 : -1]])
        ids: list[int] = []
        levels: list[int] = []
        j = b.owner
        level = 0
        while j >= 0 and level < CLASS_LEVELS and len(ids) < CLASS_TOKENS:
            node = nodes[j]
            words = words_of.get(j)
            if words is None:
                words = words_of[j] = _node_words(node, class_ids)
            if words:
                ids.extend(words)
                levels.extend([level] * len(words))
            level += 1
            j = node["parent"]
        class_rows.append(ids[:CLASS_TOKENS])
        level_rows.append(levels[:CLASS_TOKENS])
    return _padded(tag_rows, TAG_PATH), _padded(class_rows, CLASS_TOKENS), _padded(level_rows, CLASS_TOKENS)


# The tokenizer's normalizer, as tokenizer.json writes it, that plain lower case matches on ASCII text, and
# its one added token (id 0, padding).
_NFKC_LOWER = {"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"}]}
PAD = "<pad>"


def _nfkc_lower_and_pad(tokenizer) -> bool:
    """Whether the tokenizer normalizes by NFKC and lower case and has PAD as its only added token: what the
    ASCII shortcut and the compiled BPE both take for granted (`tokenizer.json` is not read a second time)."""
    normalizer = tokenizer.normalizer
    added = [t.content for t in tokenizer.get_added_tokens_decoder().values()]
    return normalizer is not None and json.loads(normalizer.__getstate__()) == _NFKC_LOWER and added == [PAD]


def _padded(rows: list[list[int]], width: int) -> np.ndarray:
    """int64 [len(rows), width] from rows of at most `width` ints, zero-padded on the right: the ints laid into
    the leading cells of each row in one assignment (padding each row as a list first took twice as long)."""
    lengths = np.fromiter(map(len, rows), np.intp, count=len(rows))
    out = np.zeros((len(rows), width), dtype=np.int64)
    out[np.arange(width) < lengths[:, None]] = np.fromiter(
        chain.from_iterable(rows), np.int64, count=int(lengths.sum())
    )
    return out


class _Page:
    """What every block's numbers read of the whole page, computed once: the title's words, each owner's
    siblings, and for every element the text, link text and blocks beneath it."""

    def __init__(self, snapshot: dict, blocks: list[Block]):
        nodes = self.nodes = snapshot["nodes"]
        self.title_words = set(_WORD.findall((snapshot.get("title") or "").lower()))
        self.children, self.place = _siblings(nodes, blocks)
        # Subtree sums, by one pass from the last node up: a node's parent always comes before it.
        size = len(nodes)
        chars = [0] * size
        links = [0] * size
        count = [0] * size
        for b in blocks:
            chars[b.owner] += len(b.text)
            links[b.owner] += b.link_chars
            count[b.owner] += 1
        for i in range(size - 1, 0, -1):
            if count[i]:
                p = nodes[i]["parent"]
                if p >= 0:
                    chars[p] += chars[i]
                    links[p] += links[i]
                    count[p] += count[i]
        self.chars, self.links, self.count = chars, links, count
        self.total = max(1, sum(len(b.text) for b in blocks))


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
        return (
            size - len(raw.translate(None, _ASCII_LETTERS)),
            size - len(raw.translate(None, _ASCII_DIGITS)),
            size - len(raw.translate(None, _ASCII_UPPER)),
        )
    letters = digits = uppers = 0
    for c, k in Counter(text).items():
        if c.isalpha():
            letters += k
        if c.isdigit():
            digits += k
        if c.isupper():
            uppers += k
    return letters, digits, uppers


def _common_share(text: str, common: frozenset[str]) -> float:
    tokens = word_tokens(text)
    return sum(map(common.__contains__, tokens)) / len(tokens) if tokens else 0.0


def _title_overlap(words: list[str], title: set[str]) -> float:
    return len({w.lower() for w in words[:50]} & title) / len(title) if words else 0.0


_LIVE_INLINE = ("inline", "inline-block", "inline-flex")


# The per-block values `_numeric` reads, one row each in this order ([len(RAW), N], float64). Counted by
# `_block_numbers` (the reference) or by the compiled `FeatureCore.block_numbers`, which must give the same
# numbers to the last bit; the arithmetic on them is `_numeric`'s alone, so the two share it.
RAW = (
    "chars",
    "words",
    "link_chars",
    "depth",
    "punct",
    "letters",
    "digits",
    "uppers",
    "sentence_ends",
    "word_chars",
    "hidden",
    "heading",
    "list",
    "table",
    "paragraph",
    "pre",
    "blockquote",
    "log_merged",
    "siblings",
    "place",
    "title_overlap",
    "has_live",
    "visible",
    "box_x",
    "box_y",
    "box_w",
    "box_h",
    "font_size",
    "font_weight",
    "display_inline",
    "common_words",
    *(
        f"a{level}_{v}"
        for level in range(1, ANCESTOR_LEVELS + 1)
        for v in ("log_chars", "link_density", "log_blocks", "text_share")
    ),
)


_ANCESTOR_PREFIXES = tuple(f"a{level}_" for level in range(1, ANCESTOR_LEVELS + 1))


def _block_numbers(snapshot: dict, blocks: list[Block], common: frozenset[str]) -> np.ndarray:
    """float64 [len(RAW), N]: the counts and values behind NUMERIC, per block."""
    n = len(blocks)
    if not n:
        return np.zeros((len(RAW), 0), dtype=np.float64)
    page = _Page(snapshot, blocks)
    nodes = page.nodes
    texts = [b.text for b in blocks]
    owners = [nodes[b.owner] for b in blocks]
    words = [_WORD.findall(t) for t in texts]
    counts = np.array([_char_counts(t) for t in texts], dtype=np.float64).reshape(n, 3)
    flags = np.array(
        [
            (f.get("hidden", False), f["heading"], f["list"], f["table"], f["paragraph"], f["pre"], f["blockquote"])
            for f in (b.flags for b in blocks)
        ],
        dtype=np.float64,
    ).reshape(n, 7)
    boxes = np.array([o.get("box") or (0, 0, 0, 0) for o in owners], dtype=np.float64).reshape(n, 4)
    ancestors = np.array([_ancestor_row(o["parent"], page) for o in owners], dtype=np.float64).reshape(
        n, 4 * ANCESTOR_LEVELS
    )
    title = page.title_words
    return np.array(
        [
            [len(t) for t in texts],
            [len(w) for w in words],
            [b.link_chars for b in blocks],
            [b.depth for b in blocks],
            [len(_PUNCT.findall(t)) for t in texts],
            *counts.T,
            [min(10, len(_SENT.findall(t))) for t in texts],
            [sum(map(len, w)) for w in words],
            *flags.T,
            [math.log(b.merged) for b in blocks],
            [page.children.get(o["parent"], 1) for o in owners],
            [page.place.get(b.owner, 0) for b in blocks],
            [_title_overlap(w, title) for w in words] if title else np.zeros(n),
            [float("visible" in o or "box" in o) for o in owners],
            [float(o.get("visible", False)) for o in owners],
            *boxes.T,
            [o.get("font_size") or 0.0 for o in owners],
            [o.get("font_weight") or 0.0 for o in owners],
            [float(o.get("display", "") in _LIVE_INLINE) for o in owners],
            [_common_share(t, common) for t in texts],
            *ancestors.T,
        ],
        dtype=np.float64,
    ).reshape(len(RAW), n)


def _numeric(raw: np.ndarray, snapshot: dict) -> np.ndarray:
    """float32 [N, len(NUMERIC)]: NUMERIC for every block from its RAW values, each column divided by its
    scale. Column by column over the page (a Python expression per block and column was most of the feature
    stage's time)."""
    n = raw.shape[1]
    if not n:
        return np.zeros((0, len(NUMERIC)), dtype=np.float32)
    vw, vh = _viewport(snapshot)
    r = dict(zip(RAW, raw))  # each row by its name in RAW: the order lives there alone
    # log1p runs on arrays of their own, as when the model was trained: numpy's vectorised loops may take
    # another path on a view into `raw`.
    chars, nwords, siblings = r["chars"].copy(), r["words"], r["siblings"]
    has = chars > 0
    safe = np.where(has, chars, 1.0)
    total = max(1.0, chars.sum())
    columns = [
        np.log1p(chars),
        np.log1p(nwords.copy()),
        np.where(has, np.minimum(1.0, r["link_chars"] / safe), 0.0),
        r["depth"],
        np.arange(n) / max(1, n - 1),
        np.where(has, r["punct"] / safe, 0.0),
        np.where(has, r["digits"] / safe, 0.0),
        r["uppers"] / np.maximum(r["letters"], 1.0),
        r["sentence_ends"],
        np.where(nwords > 0, np.minimum(12.0, r["word_chars"] / np.maximum(nwords, 1.0)), 0.0),
        *(r[flag] for flag in ("hidden", "heading", "list", "table", "paragraph", "pre", "blockquote")),
        r["log_merged"],
        np.log1p(siblings.copy()),
        r["place"] / np.maximum(1.0, siblings - 1),
        np.full(n, math.log1p(n)),
        r["title_overlap"],
        r["has_live"],
        r["visible"],
        r["box_x"] / vw,
        np.minimum(r["box_y"] / vh, 50.0),
        r["box_w"] / vw,
        np.minimum(r["box_h"] / vh, 10.0),
        r["font_size"],
        r["font_weight"],
        r["display_inline"],
        r["common_words"],
        chars / total,
        (np.cumsum(chars) - chars) / total,
        *(r[name] for name in RAW if name.startswith(_ANCESTOR_PREFIXES)),
    ]
    return np.array(columns, dtype=np.float64).T.astype(np.float32) / _SCALES


def _viewport(snapshot: dict) -> tuple[float, float]:
    """The viewport's width and height in CSS pixels; a desktop window's where the snapshot has none."""
    viewport = snapshot.get("viewport") or {}
    return float(viewport.get("width") or 1280) or 1280.0, float(viewport.get("height") or 800) or 800.0


def _ancestor_row(a: int, page: _Page) -> tuple[float, ...]:
    """The four ancestor columns of each of ANCESTOR_LEVELS ancestors, from the owner's parent `a` up."""
    row: list[float] = []
    nodes = page.nodes
    for _ in range(ANCESTOR_LEVELS):
        if a < 0:
            row += (0.0, 0.0, 0.0, 0.0)
            continue
        total = page.chars[a]
        row += (
            math.log1p(total),
            page.links[a] / total if total else 0.0,
            math.log1p(page.count[a]),
            total / page.total,
        )
        a = nodes[a]["parent"]
    return tuple(row)


# What the compiled counts are handed of this module's rules, so that they live here only.
_CORE_RULES = dict(
    tag_ids=TAG_IDS,
    punct=PUNCT_MARKS,
    sentence_ends=SENTENCE_MARKS,
    cjk=CJK_LETTERS,
    live_inline=_LIVE_INLINE,
    tag_path=TAG_PATH,
    class_levels=CLASS_LEVELS,
    class_tokens=CLASS_TOKENS,
    ancestor_levels=ANCESTOR_LEVELS,
    rows=RAW,
)
# The compiled counts' probe: texts where a character class, a case rule or a script could go wrong, on a
# page with live fields, a title and class names of every kind.
PROBE_TEXTS = (
    "",
    " ",
    "\n",
    "Hello, World! It's 10:30. OK? (yes) - fine; done: \"x\" 'y'",
    "İstanbul İİ ǅǈ ß ﬁ ΣΟΦΊΑ ος",
    "漢字かな・カナー 한국어 ＡＢＣ１２。次！終わり？ 豈",
    "x² ½ Ⅻ ٣٤ ०१ ¹²³ _under_score_ __ a_1",
    "e\u0301 a\u0308 Å <pad> <PAD>",
    "\U0001d400\U0001d41a \U0001f600 \U00020000\U0002a6d6 \U000e0041",
    "tabs\tand\nlines.\u3000end!\u2029ok?\x1c",
    "«quotes» “double” ‘single’ – — -- ...",
    "THE and The the OF of",
    "a " * 70 + "title words",
    "\u0130stanbul \u0131\u0307 \u1e9e \u2126 \u212a",
    "\u00a0\u2007\u202f\u200b. . .\u00a0",
)
PROBE_CLASSES = (
    "navMenu__itemActive2",
    "HTMLParser x² ÉTÉ étéAb",
    "main_Content-٣ ABc aBC",
    "\u0130\u0131 ǅa ٣b Ⅻ ½x",
    "\U0001d400a \u3042b 漢 a1b22c333",
    "",
)
PROBE_TITLE = "İstanbul: Hello WORLD — 漢字 ٣ x² the title"


def probe_page(texts=PROBE_TEXTS, names=PROBE_CLASSES, title=PROBE_TITLE) -> tuple[dict, list[Block]]:
    """A snapshot and its blocks, one block per text, owned by elements with `names` as classes and ids,
    nested in a few ways, every other one with live fields."""
    nodes = [{"id": 0, "parent": -1, "tag": "html"}, {"id": 1, "parent": 0, "tag": "body"}]
    blocks = []
    for i, text in enumerate(texts):
        classes = names[i % len(names)].split()
        parent = 1 if i % 3 == 0 else len(nodes) - 1
        owner = {
            "id": len(nodes),
            "parent": parent,
            "tag": "p",
            "classes": classes,
            "html_id": classes[-1:] and classes[-1] + "Id",
        }
        if i % 2:
            owner.update(
                visible=i % 4 == 1,
                box=[i, 2.5 * i, 100, 20.25],
                font_size=16 - i,
                font_weight=400 + i,
                display=("inline", "block")[i % 2 == 0],
            )
        nodes += [owner, {"id": len(nodes) + 1, "parent": len(nodes), "tag": "#text"}]
        blocks.append(
            Block(
                i,
                owner["id"],
                [owner["id"]],
                text,
                ["html", "body", "p"][: 1 + i % 3] + ["x-y"] * (i % 7),
                [],
                i % 5,
                link_chars=i % 3,
                merged=1 + i % 2,
                flags=dict(
                    heading=i % 2 == 0,
                    list=i % 3 == 0,
                    table=False,
                    paragraph=True,
                    pre=i == 4,
                    blockquote=False,
                    **({"hidden": True} if i == 5 else {}),
                ),
            )
        )
    return {"title": title, "viewport": {"width": 1000}, "nodes": nodes}, blocks


def _probe(feature_core) -> bool:
    """The compiled counts give the reference's numbers and paths on the probe page."""
    class_ids = {w: i for i, w in enumerate(["<pad>", "<unk>", *{w for c in PROBE_CLASSES for w in class_words(c)}])}
    common = frozenset(["the", "and", "of", "a", "字", "か", "ος", "istanbul", "ok"])
    core = feature_core.FeatureCore(class_ids, common, **_CORE_RULES)
    snapshot, blocks = probe_page()
    return np.array_equal(core.block_numbers(snapshot, blocks), _block_numbers(snapshot, blocks, common)) and all(
        np.array_equal(a, b)
        for a, b in zip(core.path_ids(snapshot["nodes"], blocks), _path_ids(snapshot["nodes"], blocks, class_ids))
    )


_compiled = load_compiled("feature_core", _probe)

# The tokenizer model's settings the compiled BPE reproduces: BPE over characters, no prefixes or suffixes,
# bytes for a character outside the vocabulary, then nothing; after the Whitespace pre-tokenizer.
_BPE_SETTINGS = {
    "type": "BPE",
    "dropout": None,
    "unk_token": None,
    "continuing_subword_prefix": None,
    "end_of_word_suffix": None,
    "byte_fallback": True,
    "ignore_merges": False,
}
# Texts the compiled BPE must tokenize as the tokenizer does before it is used: merges inside and across
# words, punctuation runs, digits, '_', control characters, the added token's pieces, characters that
# normalize to several, to a space or to ASCII, and the probe's other scripts.
BPE_PROBE_TEXTS = (
    *PROBE_TEXTS,
    "The THEORY of internationalisation, re-stated: 3.14159!",
    "\x00\x01\x1c\x1f\x7f~`^|{}[]<>\\ <pad pad> <PA D>",
    "aaaaaaaaaaaaaaaaaaaaaaaa" * 3,
    "x" * 400,
    "Don’t “quote” me… café – naïve ÆØÅ Straße ﬁne",
    "Привет, МИР! Ёлка",
    "\u00a0x\u2003y ＡＢＣ ｶﾀｶﾅ ㍿",
)
# Hangul jamo compose with their neighbours under NFKC, whatever their category says.
_JAMO = ((0x1100, 0x11FF), (0x3130, 0x318F), (0xA960, 0xA97F), (0xD7B0, 0xD7FF))


def _stands_alone(char: str) -> bool:
    """Whether NFKC leaves `char`'s neighbours as they are, and they it: no combining mark, no jamo, and a
    character Python's Unicode tables know (a newer one could be either)."""
    code, category = ord(char), unicodedata.category(char)
    return (
        not unicodedata.combining(char)
        and category[0] != "M"
        and category not in ("Cn", "Cs")
        and not any(a <= code <= b for a, b in _JAMO)
    )


def _char_rule(tokenizer, vocab: dict[str, int], char: str) -> tuple[str | None, list[int]]:
    """How the tokenizer reads one non-ASCII character wherever it stands, asked of the tokenizer itself: its
    normalized form's class ("word", "space", "other") and symbol ids; (None, []) where that form could depend
    on the neighbours or mixes classes, so that texts holding it stay the tokenizer's."""
    form = tokenizer.normalizer.normalize_str(char)
    if not form or not all(map(_stands_alone, char + form)):
        return None, []
    pieces = [p for p, _ in tokenizer.pre_tokenizer.pre_tokenize_str(f"a{form}a")]
    kind = (
        "word"
        if pieces == [f"a{form}a"]
        else "space"
        if pieces == ["a", "a"]
        else "other"
        if pieces == ["a", form, "a"]
        else None
    )
    return kind, [i for x in form for i in _symbol_ids(vocab, x)] if kind in ("word", "other") else []


def _symbol_ids(vocab: dict[str, int], char: str) -> list[int]:
    """The BPE's starting ids for one character: its own, else its UTF-8 bytes' "<0xXX>" ids (the byte
    fallback), else none, as the tokenizer drops a character it has no id for."""
    if char in vocab:
        return [vocab[char]]
    utf8 = char.encode("utf-8")
    fallback = [i for i in (vocab.get(f"<0x{b:02X}>") for b in utf8) if i is not None]
    return fallback if len(fallback) == len(utf8) else []


class _CompiledBpe:
    """feature_core.Bpe, and the rules of the characters it meets, learned from the tokenizer once each."""

    def __init__(self, bpe, tokenizer, vocab: dict[str, int]):
        self.bpe, self.tokenizer, self.vocab = bpe, tokenizer, vocab

    def encode(self, texts: list[str]) -> list[list[int] | None]:
        """Each text's ids, or None for one the tokenizer must take (the added token, a combining mark)."""
        unknown: set[str] = set()
        rows = self.bpe.encode(texts, unknown)
        if unknown:
            for char in unknown:
                self.bpe.learn(char, *_char_rule(self.tokenizer, self.vocab, char))
            later = [k for k, row in enumerate(rows) if row is None]
            for k, row in zip(later, self.bpe.encode([texts[k] for k in later], set())):
                rows[k] = row
        return rows


def _compiled_bpe(tokenizer, encode) -> _CompiledBpe | None:
    """The compiled BPE for the tokenizer where built, the model, normalizer, added token and pre-tokenizer are
    what it reproduces, and it gives `encode`'s ids (the tokenizer's, the reference) on BPE_PROBE_TEXTS; else None."""
    if _compiled is None:
        return None
    try:
        state = json.loads(tokenizer.model.__getstate__())
        if (
            {k: state.get(k) for k in _BPE_SETTINGS} != _BPE_SETTINGS
            or json.loads(tokenizer.pre_tokenizer.__getstate__()) != {"type": "Whitespace"}
            or not _nfkc_lower_and_pad(tokenizer)
        ):
            return None
        vocab = state["vocab"]
        merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in state["merges"]]
        ascii_ids = [(_symbol_ids(vocab, chr(c)) or [-1])[0] for c in range(128)]
        bpe = _CompiledBpe(_compiled.Bpe(vocab, merges, ascii_ids, TEXT_TOKENS, PAD), tokenizer, vocab)
        rows = bpe.encode(list(BPE_PROBE_TEXTS))
        expected = [e.ids[:TEXT_TOKENS] for e in encode(list(BPE_PROBE_TEXTS))]
        ok = (
            all(row is None or row == want for row, want in zip(rows, expected))
            and all(row is not None for t, row in zip(BPE_PROBE_TEXTS, rows) if t.isascii() and PAD not in t.lower())
            and bpe.encode(["x<PAD>y", "e\u0301"]) == [None, None]
        )
    except Exception:  # noqa: BLE001 - a model it cannot read is the tokenizer's alone
        return None
    return bpe if ok else None
