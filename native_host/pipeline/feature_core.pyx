# cython: language_level=3, nonecheck=True
"""The features stage's per-block counting and its token ids in C (features.py and the tokenizer are the
references; docs/performance.md).

`FeatureCore.block_numbers` gives `features._block_numbers`'s float64 rows and `FeatureCore.path_ids` gives
`Featurizer._path_ids`'s arrays, bit for bit: what the regular expressions of features.py find is found here
by one loop over each text's code points, with CPython's own character predicates (the ones `re` and the
str methods use: `\\w` is Py_UNICODE_ISALNUM or '_', `\\d` Py_UNICODE_ISDECIMAL, `\\s` Py_UNICODE_ISSPACE),
and the common words and the title's words are looked up in hash tables of code points, so that no string
is made per word. Lower case is str.lower's: ASCII is lowered here, other text by str.lower itself.

A value the reference would take in a way this module does not (a string where a number belongs, an
owner outside the nodes) raises here, and the featurizer hands that page to the reference.

`Bpe` gives the shipped tokenizer's token ids of a block's text; a text it cannot read exactly is left to
the tokenizer (its docstring says which).
"""

from libc.math cimport log, log1p
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, calloc, realloc
from libc.string cimport memset
from cpython.unicode cimport (PyUnicode_READ, PyUnicode_KIND, PyUnicode_DATA, Py_UNICODE_ISALNUM,
                              Py_UNICODE_ISALPHA, Py_UNICODE_ISDECIMAL, Py_UNICODE_ISDIGIT,
                              Py_UNICODE_ISSPACE, Py_UNICODE_ISUPPER)

import numpy as np

cdef extern from "Python.h":
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
    bint PyUnicode_IS_ASCII(object o)
    object PyUnicode_Substring(object s, Py_ssize_t start, Py_ssize_t end)


class Refused(ValueError):
    """A value the compiled counts do not read as the reference would: the page goes to the reference."""


# ---- characters ---------------------------------------------------------------------------------------------

cdef enum:
    WORD = 1        # `\\w` of `re` on str: Py_UNICODE_ISALNUM or '_'
    ALPHA = 2       # str.isalpha
    DIGIT = 4       # str.isdigit
    DECIMAL = 8     # str.isdecimal, `\\d` of `re`
    UPPER = 16      # str.isupper
    SPACE = 32      # str.isspace, `\\s` of `re`


cdef enum:
    KNOWN = 128     # BMP[c] holds c's classes


cdef unsigned char BMP[65536]  # the classes of each code point below U+10000, filled as they are met


cdef unsigned char _lookup(Py_UCS4 c) noexcept:
    cdef bint alpha = Py_UNICODE_ISALPHA(c), decimal = Py_UNICODE_ISDECIMAL(c), digit = Py_UNICODE_ISDIGIT(c)
    cdef bint word = c == 95 or Py_UNICODE_ISALNUM(c)
    return ((WORD if word else 0) | (ALPHA if alpha else 0) | (DIGIT if digit else 0)
            | (DECIMAL if decimal else 0) | (UPPER if Py_UNICODE_ISUPPER(c) else 0)
            | (SPACE if Py_UNICODE_ISSPACE(c) else 0))


cdef inline unsigned char classes(Py_UCS4 c) noexcept:
    """The classes of one code point, as CPython's Unicode database gives them."""
    cdef unsigned char f
    if c < 65536:
        f = BMP[c]
        if not f:
            f = BMP[c] = _lookup(c) | KNOWN
        return f
    return _lookup(c)


cdef inline bint is_word(Py_UCS4 c) noexcept:
    return classes(c) & WORD


cdef inline bint is_az(Py_UCS4 c) noexcept:
    return 97 <= c <= 122


cdef inline bint is_AZ(Py_UCS4 c) noexcept:
    return 65 <= c <= 90


cdef inline Py_UCS4 lower_ascii(Py_UCS4 c) noexcept:
    return <Py_UCS4> (<uint32_t> c + 32) if 65 <= <uint32_t> c <= 90 else c


cdef inline bint is_letter_token(Py_UCS4 c) noexcept:
    """`[^\\W\\d_]`: a word character that is neither a decimal digit nor '_'."""
    return c != 95 and (classes(c) & (WORD | DECIMAL)) == WORD


cdef class _Marks:
    """A small set of code points (punctuation, sentence ends): a byte table below 256, a list above."""

    cdef unsigned char low[256]
    cdef Py_UCS4 high[32]
    cdef int n_high

    def __init__(self, str marks):
        memset(self.low, 0, sizeof(self.low))
        self.n_high = 0
        for ch in marks:
            c = ord(ch)
            if c < 256:
                self.low[c] = 1
            elif self.n_high < 32:
                self.high[self.n_high] = c
                self.n_high += 1
            else:
                raise ValueError("at most 32 marks above U+00FF")

    cdef inline bint has(self, Py_UCS4 c) noexcept:
        cdef int k
        if c < 256:
            return self.low[c]
        for k in range(self.n_high):
            if self.high[k] == c:
                return True
        return False


# ---- word tables --------------------------------------------------------------------------------------------

cdef inline uint64_t _mix(uint64_t h, Py_UCS4 c) noexcept:
    return (h ^ <uint64_t> c) * <uint64_t> 1099511628211ULL


cdef class _Words:
    """A set of strings keyed by their code points: looked up from a slice of any str without making one."""

    cdef Py_UCS4 *pool
    cdef Py_ssize_t *start
    cdef Py_ssize_t *length
    cdef Py_ssize_t *slot
    cdef Py_ssize_t mask, count, capacity, pool_used, pool_size

    def __cinit__(self, Py_ssize_t expected, Py_ssize_t chars):
        cdef Py_ssize_t size = 8
        while size < 2 * expected + 2:
            size *= 2
        self.mask = size - 1
        self.capacity = expected + 1
        self.pool_size = chars + 1
        self.pool = <Py_UCS4 *> malloc(self.pool_size * sizeof(Py_UCS4))
        self.start = <Py_ssize_t *> malloc(self.capacity * sizeof(Py_ssize_t))
        self.length = <Py_ssize_t *> malloc(self.capacity * sizeof(Py_ssize_t))
        self.slot = <Py_ssize_t *> malloc(size * sizeof(Py_ssize_t))
        if not (self.pool and self.start and self.length and self.slot):
            raise MemoryError()
        for i in range(size):
            self.slot[i] = -1
        self.count = 0
        self.pool_used = 0

    def __dealloc__(self):
        free(self.pool)
        free(self.start)
        free(self.length)
        free(self.slot)

    cdef Py_ssize_t find(self, int kind, const void *data, Py_ssize_t i, Py_ssize_t j, bint lower,
                         bint add) except -2:
        """Index of text[i:j] (ASCII lowered first when `lower`), or -1; with `add`, added when missing."""
        cdef uint64_t h = 1469598103934665603ULL
        cdef Py_ssize_t k, s, e, n = j - i
        cdef Py_UCS4 c
        for k in range(i, j):
            c = PyUnicode_READ(kind, data, k)
            h = _mix(h, lower_ascii(c) if lower else c)
        s = <Py_ssize_t> (h & <uint64_t> self.mask)
        while True:
            e = self.slot[s]
            if e < 0:
                break
            if self.length[e] == n and self._same(e, kind, data, i, lower):
                return e
            s = (s + 1) & self.mask
        if not add:
            return -1
        if self.count >= self.capacity or self.pool_used + n > self.pool_size:
            raise ValueError("word table full")
        e = self.count
        self.count += 1
        self.start[e] = self.pool_used
        self.length[e] = n
        for k in range(n):
            c = PyUnicode_READ(kind, data, i + k)
            self.pool[self.pool_used + k] = lower_ascii(c) if lower else c
        self.pool_used += n
        self.slot[s] = e
        return e

    cdef inline bint _same(self, Py_ssize_t e, int kind, const void *data, Py_ssize_t i, bint lower) noexcept:
        cdef Py_ssize_t k
        cdef Py_UCS4 c
        cdef Py_UCS4 *w = self.pool + self.start[e]
        for k in range(self.length[e]):
            c = PyUnicode_READ(kind, data, i + k)
            if (lower_ascii(c) if lower else c) != w[k]:
                return False
        return True

    cdef Py_ssize_t find_str(self, str word, bint add) except -2:
        return self.find(PyUnicode_KIND(word), PyUnicode_DATA(word), 0, PyUnicode_GET_LENGTH(word), False, add)


cdef _Words _words_of(words):
    cdef list items = [w for w in words]
    cdef _Words table = _Words(len(items), sum(len(w) for w in items))
    for w in items:
        table.find_str(w, True)
    return table


cdef _Words _title_words(title):
    """`set(_WORD.findall(title.lower()))`, as a table."""
    if title is None or not title:
        title = ""
    cdef str low = title.lower()
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(low), i = 0, j
    cdef int kind = PyUnicode_KIND(low)
    cdef const void *data = PyUnicode_DATA(low)
    cdef _Words table = _Words(n // 2 + 1, n)
    while i < n:
        if is_word(PyUnicode_READ(kind, data, i)):
            j = i + 1
            while j < n and is_word(PyUnicode_READ(kind, data, j)):
                j += 1
            table.find(kind, data, i, j, False, True)
            i = j
        else:
            i += 1
    return table


# ---- one pass over a block's text ---------------------------------------------------------------------------

cdef enum:
    MAX_TITLE_WORDS = 50    # features._title_overlap reads a block's first 50 words
    MAX_SENTENCES = 10      # the sentence-end count is capped at 10 (features.NUMERIC)


# The rows this module fills, by name; features.RAW orders them (FeatureCore finds each by name there).
ROWS = ("chars", "words", "link_chars", "depth", "punct", "letters", "digits", "uppers", "sentence_ends",
        "word_chars", "hidden", "heading", "list", "table", "paragraph", "pre", "blockquote", "log_merged",
        "siblings", "place", "title_overlap", "has_live", "visible", "box_x", "box_y", "box_w", "box_h",
        "font_size", "font_weight", "display_inline", "common_words")
ANCESTOR_ROWS = ("log_chars", "link_density", "log_blocks", "text_share")  # per level: a1_log_chars, ...

cdef enum:
    MAX_ANCESTOR_LEVELS = 8


cdef class FeatureCore:
    """The featurizer's per-block counts, with its vocabularies and rules (features._CORE_RULES)."""

    cdef dict class_ids, tag_ids
    cdef _Words common
    cdef _Marks punct, sentence_ends
    cdef Py_UCS4 cjk_low[16]
    cdef Py_UCS4 cjk_high[16]
    cdef int n_cjk
    cdef tuple live_inline
    cdef int tag_path, class_levels, class_tokens, ancestor_levels, raw_rows
    # Where each row goes in the output, found by name in features.RAW (the layout lives there alone).
    cdef Py_ssize_t r_chars, r_words, r_link_chars, r_depth, r_punct, r_letters, r_digits, r_uppers, r_sentence_ends
    cdef Py_ssize_t r_word_chars, r_hidden, r_heading, r_list, r_table, r_paragraph, r_pre, r_blockquote
    cdef Py_ssize_t r_log_merged, r_siblings, r_place, r_title_overlap, r_has_live, r_visible, r_font_size
    cdef Py_ssize_t r_font_weight, r_display_inline, r_common_words
    cdef Py_ssize_t r_box[4]
    cdef Py_ssize_t r_ancestor[MAX_ANCESTOR_LEVELS][4]
    cdef dict _split_cache

    def __init__(self, dict class_ids, common, *, dict tag_ids, str punct, str sentence_ends, str cjk,
                 tuple live_inline, int tag_path, int class_levels, int class_tokens, int ancestor_levels,
                 tuple rows):
        self.class_ids = class_ids
        self.tag_ids = tag_ids
        self.common = _words_of(common)
        self.punct = _Marks(punct)
        self.sentence_ends = _Marks(sentence_ends)
        if len(cjk) % 3 or len(cjk) // 3 > 16 or any(cjk[k] != "-" for k in range(1, len(cjk), 3)):
            raise ValueError("cjk: ranges 'a-b', at most 16")
        self.n_cjk = len(cjk) // 3
        for k in range(self.n_cjk):
            self.cjk_low[k] = ord(cjk[3 * k])
            self.cjk_high[k] = ord(cjk[3 * k + 2])
        self.live_inline = live_inline
        self.tag_path, self.class_levels, self.class_tokens = tag_path, class_levels, class_tokens
        self.ancestor_levels = ancestor_levels
        if not 0 <= ancestor_levels <= MAX_ANCESTOR_LEVELS:
            raise ValueError(f"ancestor_levels: at most {MAX_ANCESTOR_LEVELS}")
        fills = (*ROWS, *(f"a{level}_{v}" for level in range(1, ancestor_levels + 1) for v in ANCESTOR_ROWS))
        if len(set(rows)) != len(rows) or set(rows) != set(fills):
            raise ValueError(f"features.RAW and this module's rows differ: {sorted(set(rows) ^ set(fills))}")
        self.raw_rows = len(rows)
        at = {name: k for k, name in enumerate(rows)}
        (self.r_chars, self.r_words, self.r_link_chars, self.r_depth, self.r_punct, self.r_letters, self.r_digits,
         self.r_uppers, self.r_sentence_ends, self.r_word_chars, self.r_hidden, self.r_heading, self.r_list,
         self.r_table, self.r_paragraph, self.r_pre, self.r_blockquote, self.r_log_merged, self.r_siblings,
         self.r_place, self.r_title_overlap, self.r_has_live, self.r_visible, self.r_font_size, self.r_font_weight,
         self.r_display_inline, self.r_common_words) = [at[name] for name in ROWS if not name.startswith("box_")]
        for k, side in enumerate(("x", "y", "w", "h")):
            self.r_box[k] = at[f"box_{side}"]
        for level in range(ancestor_levels):
            for k, v in enumerate(ANCESTOR_ROWS):
                self.r_ancestor[level][k] = at[f"a{level + 1}_{v}"]

    cdef inline bint is_cjk(self, Py_UCS4 c) noexcept:
        cdef int k
        for k in range(self.n_cjk):
            if self.cjk_low[k] <= c <= self.cjk_high[k]:
                return True
        return False

    cdef void text_counts(self, str text, _Words title, double[:, ::1] raw, Py_ssize_t b) except *:
        """Rows chars, words, punct, letters, digits, uppers, sentence_ends, word_chars and title_overlap
        of block `b`, as features._block_numbers counts them with _WORD, _PUNCT, _SENT and str methods."""
        cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), i, words = 0, word_chars = 0, start = 0
        cdef Py_ssize_t punct = 0, letters = 0, digits = 0, uppers = 0, sentences = 0
        cdef Py_ssize_t first[MAX_TITLE_WORDS]
        cdef Py_ssize_t last[MAX_TITLE_WORDS]
        cdef bint ascii_word[MAX_TITLE_WORDS]
        cdef bint in_word = False, word_ascii = True
        cdef int kind = PyUnicode_KIND(text)
        cdef const void *data = PyUnicode_DATA(text)
        cdef Py_UCS4 c
        cdef unsigned char f
        for i in range(n):
            c = PyUnicode_READ(kind, data, i)
            f = classes(c)
            if f & WORD:
                word_chars += 1
                if not in_word:
                    in_word = True
                    word_ascii = True
                    start = i
                if c >= 128:
                    word_ascii = False
            elif in_word:
                in_word = False
                if words < MAX_TITLE_WORDS:
                    first[words], last[words], ascii_word[words] = start, i, word_ascii
                words += 1
            if f & ALPHA:
                letters += 1
            if f & DIGIT:
                digits += 1
            if f & UPPER:
                uppers += 1
            if self.punct.has(c):
                punct += 1
            if self.sentence_ends.has(c) and (i + 1 == n or classes(PyUnicode_READ(kind, data, i + 1)) & SPACE):
                sentences += 1
        if in_word:
            if words < MAX_TITLE_WORDS:
                first[words], last[words], ascii_word[words] = start, n, word_ascii
            words += 1
        raw[self.r_chars, b] = n
        raw[self.r_words, b] = words
        raw[self.r_punct, b] = punct
        raw[self.r_letters, b] = letters
        raw[self.r_digits, b] = digits
        raw[self.r_uppers, b] = uppers
        raw[self.r_sentence_ends, b] = sentences if sentences < MAX_SENTENCES else MAX_SENTENCES
        raw[self.r_word_chars, b] = word_chars
        if title.count and words:
            raw[self.r_title_overlap, b] = self._title_overlap(text, kind, data, first, last, ascii_word,
                                             words if words < MAX_TITLE_WORDS else MAX_TITLE_WORDS, title)

    cdef double _title_overlap(self, str text, int kind, const void *data, Py_ssize_t *first, Py_ssize_t *last,
                               bint *ascii_word, Py_ssize_t words, _Words title) except? -1.0:
        """len({w.lower() for w in words[:50]} & title) / len(title)."""
        cdef Py_ssize_t k, j, e, hits = 0
        cdef str low
        cdef bint seen[MAX_TITLE_WORDS]
        cdef Py_ssize_t found[MAX_TITLE_WORDS]
        for k in range(words):
            if ascii_word[k]:
                e = title.find(kind, data, first[k], last[k], True, False)
            else:
                low = PyUnicode_Substring(text, first[k], last[k]).lower()
                e = title.find_str(low, False)
            found[k] = e
        for k in range(words):  # distinct title words: the table's entries found, each counted once
            e = found[k]
            if e >= 0:
                hits += 1
                for j in range(k):
                    if found[j] == e:
                        hits -= 1
                        break
        return hits / <double> title.count

    cdef double common_share(self, str text) except? -1.0:
        """features._common_share: the share of word_tokens(text) in the common words."""
        cdef str low = text
        cdef bint lower = PyUnicode_IS_ASCII(text)  # ASCII: lowered here, letter by letter
        if not lower:
            low = text.lower()
        cdef Py_ssize_t n = PyUnicode_GET_LENGTH(low), i = 0, j, tokens = 0, hits = 0
        cdef int kind = PyUnicode_KIND(low)
        cdef const void *data = PyUnicode_DATA(low)
        cdef Py_UCS4 c
        while i < n:
            c = PyUnicode_READ(kind, data, i)
            if self.is_cjk(c):
                j = i + 1
            elif is_letter_token(c):
                j = i + 1
                while j < n:
                    c = PyUnicode_READ(kind, data, j)
                    if not is_letter_token(c) or self.is_cjk(c):
                        break
                    j += 1
            else:
                i += 1
                continue
            tokens += 1
            if self.common.find(kind, data, i, j, lower, False) >= 0:
                hits += 1
            i = j
        return hits / <double> tokens if tokens else 0.0

    def block_numbers(self, dict snapshot, list blocks):
        """features._block_numbers(snapshot, blocks, common): float64 [len(features.RAW), N]."""
        cdef list nodes = snapshot["nodes"]
        cdef Py_ssize_t n = len(blocks), size = len(nodes), i, k, p, a, o, level, total_chars = 0
        raw_array = np.zeros((self.raw_rows, n), dtype=np.float64)
        if not n:
            return raw_array
        cdef double[:, ::1] raw = raw_array
        cdef _Words title = _title_words(snapshot.get("title"))
        cdef Py_ssize_t *parent = <Py_ssize_t *> malloc((size + 1) * sizeof(Py_ssize_t))
        cdef int64_t *chars = <int64_t *> calloc(size + 1, sizeof(int64_t))
        cdef int64_t *links = <int64_t *> calloc(size + 1, sizeof(int64_t))
        cdef int64_t *count = <int64_t *> calloc(size + 1, sizeof(int64_t))
        cdef int64_t *children = <int64_t *> calloc(size + 1, sizeof(int64_t))  # by parent + 1 (root: -1)
        cdef int64_t *place = <int64_t *> calloc(size + 1, sizeof(int64_t))
        cdef unsigned char *kind = <unsigned char *> calloc(size + 1, 1)  # 1: an owner's parent; 2: owner
        cdef Py_ssize_t *owner = <Py_ssize_t *> malloc(n * sizeof(Py_ssize_t))
        cdef int64_t total, ln
        cdef dict node, flags
        cdef str text
        if not (parent and chars and links and count and children and place and kind and owner):
            free(parent); free(chars); free(links); free(count); free(children); free(place); free(kind)
            free(owner)
            raise MemoryError()
        try:
            for i in range(size):
                node = nodes[i]
                if node is None or node["id"] != i:
                    raise Refused("node ids are not their places")
                p = node["parent"]
                if p < -1 or p >= size:
                    raise Refused("a parent outside the nodes")
                parent[i] = p
            # _Page: text, link text and blocks under every node, and each owner's place among its siblings.
            for i in range(n):
                b = blocks[i]
                o = b.owner
                if o < 0 or o >= size:
                    raise Refused("an owner outside the nodes")
                owner[i] = o
                text = b.text
                if text is None:
                    raise Refused("a block without text")
                ln = PyUnicode_GET_LENGTH(text)
                total_chars += ln
                chars[o] += ln
                links[o] += b.link_chars
                count[o] += 1
                kind[parent[o] + 1] |= 1
            for i in range(n):
                kind[owner[i] + 1] |= 2
            for i in range(size - 1, 0, -1):
                if count[i]:
                    p = parent[i]
                    if p >= 0:
                        chars[p] += chars[i]
                        links[p] += links[i]
                        count[p] += count[i]
            for i in range(size):
                p = parent[i]
                if kind[p + 1] & 1 and nodes[i]["tag"] != "#text":
                    if kind[i + 1] & 2:
                        place[i] = children[p + 1]
                    children[p + 1] += 1
            total = total_chars if total_chars > 1 else 1
            for i in range(n):
                b = blocks[i]
                o = owner[i]
                node = nodes[o]
                self.text_counts(b.text, title, raw, i)
                raw[self.r_link_chars, i] = _number(b.link_chars)
                raw[self.r_depth, i] = _number(b.depth)
                flags = b.flags
                raw[self.r_hidden, i] = _number(flags.get("hidden", False))
                raw[self.r_heading, i] = _number(flags["heading"])
                raw[self.r_list, i] = _number(flags["list"])
                raw[self.r_table, i] = _number(flags["table"])
                raw[self.r_paragraph, i] = _number(flags["paragraph"])
                raw[self.r_pre, i] = _number(flags["pre"])
                raw[self.r_blockquote, i] = _number(flags["blockquote"])
                raw[self.r_log_merged, i] = _log(b.merged)
                raw[self.r_siblings, i] = children[parent[o] + 1]
                raw[self.r_place, i] = place[o]
                raw[self.r_has_live, i] = 1.0 if ("visible" in node or "box" in node) else 0.0
                raw[self.r_visible, i] = _number(node.get("visible", False))
                box = node.get("box")
                if box:
                    if type(box) is not list or len(<list> box) != 4:
                        raise Refused("a box that is not four numbers")
                    for k in range(4):
                        raw[self.r_box[k], i] = _number((<list> box)[k])
                raw[self.r_font_size, i] = _number(node.get("font_size") or 0.0)
                raw[self.r_font_weight, i] = _number(node.get("font_weight") or 0.0)
                raw[self.r_display_inline, i] = 1.0 if node.get("display", "") in self.live_inline else 0.0
                raw[self.r_common_words, i] = self.common_share(b.text)
                # _ancestor_row: from the owner's parent up.
                a = parent[o]
                for level in range(self.ancestor_levels):
                    if a < 0:
                        continue  # zeros, as raw starts
                    ln = chars[a]
                    raw[self.r_ancestor[level][0], i] = log1p(<double> ln)
                    raw[self.r_ancestor[level][1], i] = links[a] / <double> ln if ln else 0.0
                    raw[self.r_ancestor[level][2], i] = log1p(<double> count[a])
                    raw[self.r_ancestor[level][3], i] = ln / <double> total
                    a = parent[a]
        finally:
            free(parent); free(chars); free(links); free(count); free(children); free(place); free(kind)
            free(owner)
        return raw_array

    # ---- tag and class paths ----------------------------------------------------------------------------

    cdef list class_word_ids(self, str name):
        """[class_ids.get(w, 1) for w in features.class_words(name)]: _SPLIT's four alternatives, in order,
        at each place: [A-Z]?[a-z]+, [A-Z]+(?![a-z]), \\d+ (dropped: all digits), [^\\W\\d_]+."""
        cdef Py_ssize_t n = PyUnicode_GET_LENGTH(name), i = 0, j, k
        cdef int kind = PyUnicode_KIND(name)
        cdef const void *data = PyUnicode_DATA(name)
        cdef Py_UCS4 c
        cdef bint lower, all_digits
        cdef list ids = []
        get = self.class_ids.get
        while i < n:
            c = PyUnicode_READ(kind, data, i)
            lower = False
            if is_AZ(c) and i + 1 < n and is_az(PyUnicode_READ(kind, data, i + 1)):
                j = i + 2
                while j < n and is_az(PyUnicode_READ(kind, data, j)):
                    j += 1
                lower = True
            elif is_az(c):
                j = i + 1
                while j < n and is_az(PyUnicode_READ(kind, data, j)):
                    j += 1
            elif is_AZ(c):
                j = i + 1
                while j < n and is_AZ(PyUnicode_READ(kind, data, j)):
                    j += 1
                if j < n and is_az(PyUnicode_READ(kind, data, j)):
                    j -= 1  # the lookahead: the last capital starts the next word
                lower = True
            elif classes(c) & DECIMAL:
                j = i + 1
                while j < n and classes(PyUnicode_READ(kind, data, j)) & DECIMAL:
                    j += 1
                i = j  # digits only: class_words drops it
                continue
            elif is_letter_token(c):
                j = i + 1
                all_digits = classes(c) & DIGIT
                while j < n:
                    c = PyUnicode_READ(kind, data, j)
                    if not is_letter_token(c):
                        break
                    all_digits = all_digits and classes(c) & DIGIT
                    j += 1
                if all_digits:  # superscripts and the like: str.isdigit, dropped
                    i = j
                    continue
                lower = True
            else:
                i += 1
                continue
            word = PyUnicode_Substring(name, i, j)
            ids.append(get(word.lower() if lower else word, 1))
            i = j
        return ids

    cdef list node_words(self, dict node):
        """Featurizer._node_words."""
        cdef list ids = []
        classes = node.get("classes", ())
        for name in classes:
            if type(name) is not str:
                raise Refused("a class name that is not a string")
            ids.extend(self.class_word_ids(name))
        html_id = node.get("html_id")
        if html_id:
            if type(html_id) is not str:
                raise Refused("an id that is not a string")
            ids.extend(self.class_word_ids(html_id))
        return ids

    def class_words(self, str name):
        """The class-word ids of one name (for the probe and the tests)."""
        return self.class_word_ids(name)

    def path_ids(self, list nodes, list blocks):
        """Featurizer._path_ids(nodes, blocks): tag ids [N, TAG_PATH], class word ids and levels."""
        cdef Py_ssize_t n = len(blocks), size = len(nodes), i, j, k, m, level, used
        tags_array = np.zeros((n, self.tag_path), dtype=np.int64)
        classes_array = np.zeros((n, self.class_tokens), dtype=np.int64)
        levels_array = np.zeros((n, self.class_tokens), dtype=np.int64)
        if not n:
            return tags_array, classes_array, levels_array
        cdef int64_t[:, ::1] tags = tags_array, classes = classes_array, levels = levels_array
        cdef list words_of = [None] * size
        cdef list path, words
        cdef dict node
        for i in range(n):
            b = blocks[i]
            path = b.tag_path
            if path is None:
                raise Refused("a block without a tag path")
            m = len(path)
            k = 0
            j = m - 1
            while j >= 0 and k < self.tag_path:
                tags[i, k] = self.tag_ids.get(path[j], 1)
                k += 1
                j -= 1
            j = b.owner
            if j >= size:
                raise Refused("an owner outside the nodes")
            level = 0
            used = 0
            while j >= 0 and level < self.class_levels and used < self.class_tokens:
                node = nodes[j]
                if node is None:
                    raise Refused("a node that is not a dict")
                words = words_of[j]
                if words is None:
                    words = words_of[j] = self.node_words(node)
                for w in words:
                    if used == self.class_tokens:
                        break
                    classes[i, used] = w
                    levels[i, used] = level
                    used += 1
                level += 1
                j = node["parent"]
                if j >= size:
                    raise Refused("a parent outside the nodes")
        return tags_array, classes_array, levels_array


cdef inline double _number(value) except? -1.0:
    """float(value) for the numbers and booleans of a snapshot; anything else is refused (numpy would read a
    string of digits, say, which the reference then does)."""
    cdef type t = type(value)
    if t is bool or t is int or t is float:
        return float(value)
    raise Refused("a value that is not a number")


cdef inline double _log(value) except? -1.0:
    """math.log of a block's merge count: a positive integer."""
    if type(value) is not int or value <= 0:
        raise Refused("a merge count that is not a positive integer")
    return log(<double> value)


# ---- token ids ----------------------------------------------------------------------------------------------

cdef enum:
    PIECE_WORD = 1    # `\\w` of the tokenizer's Whitespace pre-tokenizer
    PIECE_SPACE = 2   # its `\\s` (on ASCII: \t \n \v \f \r and space, not the \x1c-\x1f that str.isspace counts)
    PIECE_OTHER = 3   # `[^\\w\\s]`
    NO_MERGE = 0x7FFFFFFF
    UNKNOWN = 0       # `Bpe.rules` of a code point not yet learned
    OUTSIDE = -1      # ... of one whose text the tokenizer must take


cdef class Bpe:
    """The shipped tokenizer's first token ids of a text, as features.Featurizer's tokenizer gives them (the
    reference): each character normalized (NFKC, then lower case), the text cut into runs of `\\w` and of
    `[^\\w\\s]` (the Whitespace pre-tokenizer), each run's characters made their vocabulary ids (or their
    "<0xXX>" byte ids where a character has none, else nothing: the byte fallback), and adjacent ids merged
    one pair at a time, the pair of lowest merge rank first and the leftmost among equals, which is what the
    tokenizers library's queue of merges comes to. It made strings, offsets and ids per text: 14-37 µs a
    text, against one or two here.

    ASCII is known from the start (lower case, its classes). Any other character is learned from the
    tokenizer itself (`learn`, features.py): its normalized form, that form's class and symbol ids; or that
    the character's text is the tokenizer's to take (`learn` with no class): a combining mark or anything
    else whose normalized form depends on its neighbours. A text is given None where it holds such a
    character, one outside the BMP or the added token `pad`, and put in `unknown` where it holds a character
    not learned yet."""

    cdef int ascii_ids[128]  # each ASCII character's id once lower-cased (its own or its byte's), or -1
    cdef unsigned char kind[128]
    cdef uint64_t *keys
    cdef int *ranks
    cdef int *made
    cdef uint64_t mask
    cdef int *rules          # per BMP code point: UNKNOWN, OUTSIDE or 1 + its learned entry
    cdef unsigned char *rule_kind
    cdef int *rule_start
    cdef int *rule_count
    cdef int n_rules, room_rules
    cdef int *symbols
    cdef int n_symbols, room_symbols
    cdef readonly int widest  # the most symbol ids one character gives
    cdef readonly int limit
    cdef str pad

    def __cinit__(self):
        self.keys = NULL
        self.ranks = NULL
        self.made = NULL
        self.rules = NULL
        self.rule_kind = NULL
        self.rule_start = NULL
        self.rule_count = NULL
        self.symbols = NULL

    def __dealloc__(self):
        free(self.keys)
        free(self.ranks)
        free(self.made)
        free(self.rules)
        free(self.rule_kind)
        free(self.rule_start)
        free(self.rule_count)
        free(self.symbols)

    def __init__(self, dict vocab, list merges, list ascii_ids, int limit, str pad):
        """`vocab`: token -> id; `merges`: (left, right) token pairs, by rank; `ascii_ids`: each ASCII
        character's starting id (features._symbol_ids), -1 for none; `limit`: ids kept per text."""
        cdef int c, rank
        cdef uint64_t size = 16, slot
        if not pad.isascii() or pad != pad.lower() or not pad:
            raise ValueError("the added token must be lower-case ASCII")
        self.limit = limit
        self.pad = pad
        self.widest = 1
        if len(ascii_ids) != 128:
            raise ValueError("one id for each ASCII character")
        for c in range(128):
            self.ascii_ids[c] = ascii_ids[c]
            ch = chr(c).lower()
            self.kind[c] = (PIECE_WORD if ch.isalnum() or ch == "_" else
                            PIECE_SPACE if ch in " \t\n\x0b\x0c\r" else PIECE_OTHER)
        while size < 4 * len(merges):
            size *= 2
        self.mask = size - 1
        self.keys = <uint64_t *> calloc(size, sizeof(uint64_t))
        self.ranks = <int *> malloc(size * sizeof(int))
        self.made = <int *> malloc(size * sizeof(int))
        self.rules = <int *> calloc(65536, sizeof(int))
        if self.keys == NULL or self.ranks == NULL or self.made == NULL or self.rules == NULL:
            raise MemoryError()
        for slot in range(size):
            self.ranks[slot] = NO_MERGE
        for rank, (left, right) in enumerate(merges):
            # A pair listed twice takes its later rank, as the tokenizers library's map of merges does.
            slot = self._slot(vocab[left], vocab[right])
            self.keys[slot] = _pair(vocab[left], vocab[right])
            self.ranks[slot] = rank
            self.made[slot] = vocab[left + right]

    def learn(self, str char, kind, list ids):
        """`char`'s rule: `kind` "word", "space" or "other" for its normalized form, and that form's symbol
        ids; `kind` None: a text holding it is the tokenizer's."""
        cdef Py_UCS4 c = ord(char)
        cdef int k
        if c < 128 or c > 0xFFFF:
            raise ValueError("rules are learned for non-ASCII characters of the BMP")
        if kind is None:
            self.rules[c] = OUTSIDE
            return
        if self.n_rules == self.room_rules:
            self.room_rules = max(64, 2 * self.room_rules)
            self.rule_kind = <unsigned char *> _grown(self.rule_kind, self.room_rules * sizeof(unsigned char))
            self.rule_start = <int *> _grown(self.rule_start, self.room_rules * sizeof(int))
            self.rule_count = <int *> _grown(self.rule_count, self.room_rules * sizeof(int))
        while self.n_symbols + len(ids) > self.room_symbols:
            self.room_symbols = max(256, 2 * self.room_symbols)
            self.symbols = <int *> _grown(self.symbols, self.room_symbols * sizeof(int))
        self.rule_kind[self.n_rules] = {"word": PIECE_WORD, "space": PIECE_SPACE, "other": PIECE_OTHER}[kind]
        self.rule_start[self.n_rules] = self.n_symbols
        self.rule_count[self.n_rules] = len(ids)
        for k in range(len(ids)):
            self.symbols[self.n_symbols + k] = ids[k]
        self.n_symbols += len(ids)
        self.widest = max(self.widest, len(ids))
        self.n_rules += 1
        self.rules[c] = self.n_rules

    cdef inline uint64_t _slot(self, int left, int right) noexcept:
        """The table slot of a pair: where it sits, or the empty slot where it would."""
        cdef uint64_t key = _pair(left, right)
        cdef uint64_t slot = (key * <uint64_t> 0x9E3779B97F4A7C15ULL >> 40) & self.mask
        while self.ranks[slot] != NO_MERGE and self.keys[slot] != key:
            slot = (slot + 1) & self.mask
        return slot

    cdef inline int _rank(self, int left, int right) noexcept:
        return self.ranks[self._slot(left, right)]

    cdef Py_ssize_t _merge_all(self, int *ids, int *ranks, Py_ssize_t n) noexcept:
        """Merges `ids[:n]` in place; gives how many are left. `ranks[k]` is the rank of the pair at k."""
        cdef Py_ssize_t k, best
        cdef int low
        for k in range(n - 1):
            ranks[k] = self._rank(ids[k], ids[k + 1])
        while n > 1:
            best = -1
            low = NO_MERGE
            for k in range(n - 1):
                if ranks[k] < low:
                    low = ranks[k]
                    best = k
            if best < 0:
                break
            ids[best] = self.made[self._slot(ids[best], ids[best + 1])]
            for k in range(best + 1, n - 1):
                ids[k] = ids[k + 1]
            for k in range(best + 1, n - 2):
                ranks[k] = ranks[k + 1]
            n -= 1
            if best < n - 1:
                ranks[best] = self._rank(ids[best], ids[best + 1])
            if best > 0:
                ranks[best - 1] = self._rank(ids[best - 1], ids[best])
        return n

    cdef inline int _rule(self, Py_UCS4 c) noexcept:
        """The rule of a code point: UNKNOWN, OUTSIDE or 1 + its entry; ASCII has none (see `kind`)."""
        return self.rules[c] if c <= 0xFFFF else OUTSIDE

    def encode(self, list texts, set unknown):
        """Each text's first `limit` token ids (a list), or None where the tokenizer must say; the characters
        of texts given None only because they are not learned yet are added to `unknown`."""
        cdef list out = [], row
        cdef const void *data
        cdef int text_kind
        cdef Py_ssize_t n, i, m, k, take, got, room = 0
        cdef Py_UCS4 c
        cdef unsigned char kind, run
        cdef int rule, symbol
        cdef bint refused, missing
        cdef int *ids = NULL
        cdef int *ranks = NULL
        try:
            for text in texts:
                if type(text) is not str or self.pad in text.lower():
                    out.append(None)
                    continue
                data = PyUnicode_DATA(text)
                text_kind = PyUnicode_KIND(text)
                n = PyUnicode_GET_LENGTH(text)
                refused = missing = False
                if not PyUnicode_IS_ASCII(text):
                    for i in range(n):
                        c = PyUnicode_READ(text_kind, data, i)
                        if c >= 128:
                            rule = self._rule(c)
                            if rule == OUTSIDE:
                                refused = True
                                break
                            if rule == UNKNOWN:
                                missing = True
                                unknown.add(chr(c))
                    if refused or missing:
                        out.append(None)
                        continue
                if n * self.widest > room:
                    free(ids)
                    free(ranks)
                    ids = ranks = NULL
                    room = max(n * self.widest, 2 * room)
                    ids = <int *> malloc(room * sizeof(int))
                    ranks = <int *> malloc(room * sizeof(int))
                    if ids == NULL or ranks == NULL:
                        raise MemoryError()
                row = []
                got = 0
                i = 0
                while i < n and got < self.limit:
                    run = 0
                    m = 0
                    while i < n:
                        c = PyUnicode_READ(text_kind, data, i)
                        if c < 128:
                            kind = self.kind[c]
                        else:
                            rule = self.rules[c] - 1
                            kind = self.rule_kind[rule]
                        if kind == PIECE_SPACE or (run and kind != run):
                            break
                        run = kind
                        if c < 128:
                            symbol = self.ascii_ids[lower_ascii(c)]
                            if symbol >= 0:
                                ids[m] = symbol
                                m += 1
                        else:
                            for k in range(self.rule_count[rule]):
                                ids[m] = self.symbols[self.rule_start[rule] + k]
                                m += 1
                        i += 1
                    if not run:  # a space
                        i += 1
                        continue
                    m = self._merge_all(ids, ranks, m)
                    take = min(m, self.limit - got)
                    for k in range(take):
                        row.append(ids[k])
                    got += take
                out.append(row)
        finally:
            free(ids)
            free(ranks)
        return out


cdef void *_grown(void *block, size_t size) except NULL:
    cdef void *grown = realloc(block, size)
    if grown == NULL:
        raise MemoryError()
    return grown


cdef inline uint64_t _pair(int left, int right) noexcept:
    return (<uint64_t> <uint32_t> left << 32) | <uint32_t> right
