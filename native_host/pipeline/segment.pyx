# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""The segmenter in C: snapshot nodes -> `blocks.Block`s, as `blocks.blocks_from_snapshot` makes them.

`blocks.py` is the reference: this module gives equal blocks (every field, node ids in the same order) with
combine on or off and under the same limits, and `blocks_from_snapshot` uses it only when it is built and
gave the reference's blocks on a probe snapshot at import (docs/performance.md, "Where the time goes"). Per
node it keeps C arrays (parent, owner, inherited state, the structural flags of the tags above) where the
reference makes an object; Python objects are made only for what a block holds.

Where the reference's answer depends on input this module does not model (a node that is not a dict, a
parent after its child, a depth that does not follow from the parents, classes that are not a list of
strings...), `Segmenter.segment` returns None and the caller runs the reference on that page: such pages
are never approximated. Two facts the equality rests on:
* With each element's depth its parent's plus one (the root's 0), the reference's memoised whole paths
  (owners shallower than MEMO_DEPTH) and its nearest-PATH_DEPTH paths (deeper owners) are both "the nearest
  PATH_DEPTH ancestors", and its set of tags is every tag up to the root: here, a flag mask per element.
* Whitespace folds per text node (the reference runs its pattern on each part), over exactly what
  `[\\s\\u200b]+` matches: Python's `\\s` on str is `str.isspace`, Py_UNICODE_ISSPACE here.
* `blocks.parts_words` reads single characters of each text with `str.islower` and `str.isupper`, which are
  Py_UNICODE_ISLOWER and Py_UNICODE_ISUPPER on one character.
"""

from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF, Py_XDECREF
from libc.stdlib cimport malloc, calloc, realloc, free, qsort

cdef extern from "Python.h":
    PyObject* dict_get "PyDict_GetItem"(PyObject* d, PyObject* key)
    PyObject* list_item "PyList_GET_ITEM"(PyObject* l, Py_ssize_t i)
    bint is_dict "PyDict_CheckExact"(PyObject* o)
    bint is_int "PyLong_CheckExact"(PyObject* o)
    bint is_str "PyUnicode_CheckExact"(PyObject* o)
    bint is_list "PyList_CheckExact"(PyObject* o)
    Py_ssize_t int_value "PyLong_AsSsize_t"(PyObject* o)
    PyObject* err_occurred "PyErr_Occurred"()
    void err_clear "PyErr_Clear"()
    int is_true "PyObject_IsTrue"(PyObject* o) except -1
    Py_ssize_t str_len "PyUnicode_GET_LENGTH"(PyObject* o)
    int str_kind "PyUnicode_KIND"(PyObject* o)
    void* str_data "PyUnicode_DATA"(PyObject* o)
    Py_UCS4 str_read "PyUnicode_READ"(int kind, void* data, Py_ssize_t i)
    bint is_space "Py_UNICODE_ISSPACE"(Py_UCS4 ch)
    bint is_lower "Py_UNICODE_ISLOWER"(Py_UCS4 ch)
    bint is_upper "Py_UNICODE_ISUPPER"(Py_UCS4 ch)
    object str_from_ucs4 "PyUnicode_FromKindAndData"(int kind, const void* buffer, Py_ssize_t size)
    object str_slice "PyUnicode_Substring"(object s, Py_ssize_t start, Py_ssize_t end)
    int UCS4_KIND "PyUnicode_4BYTE_KIND"
    PyObject* Py_None
    PyObject* Py_True
    PyObject* Py_False

cdef enum:
    # A tag's code: what the search and the flags need to know of it, learnt once per tag name.
    INLINE = 1
    EXCLUDED = 2
    LINK_TAG = 4      # "a": a link when it has an href
    BREAK = 8         # "br"
    TEXT = 16         # "#text"
    JOINED_TAG = 32   # blocks.JOINED: its text is never parted from its neighbours'
    FLAG_SHIFT = 8    # the tag's structural flags (blocks._flags of a set holding it alone), from this bit up
    # An element's inherited state (bits), as blocks._Inherited holds it.
    IN_EXCLUDED = 1
    IN_LINK = 2
    IN_HIDDEN = 4
    IS_TEXT = 8
    IN_JOINED = 16
    MAX_FLAGS = 7     # flags a block's dict holds before "hidden"
    MAX_CACHED_TAGS = 4096  # tag names whose code is kept between pages (custom elements are unbounded)

cdef str K_PARENT = "parent"
cdef str K_TAG = "tag"
cdef str K_TEXT = "text"
cdef str K_DEPTH = "depth"
cdef str K_HREF = "href"
cdef str K_HIDDEN = "hidden"
cdef str K_CLASSES = "classes"
cdef str K_HTML_ID = "html_id"
cdef str T_TEXT = "#text"
cdef str BLANK_PART = " "  # the part between two texts that are two words (blocks.parts_words)


cdef struct Run:
    Py_ssize_t owner
    Py_ssize_t ids_start
    Py_ssize_t parts_start
    Py_ssize_t link_chars
    bint hidden
    bint joined         # its last part is inside a JOINED tag


cdef struct Rec:
    Py_ssize_t owner
    Py_ssize_t ids_start
    Py_ssize_t ids_end
    Py_ssize_t link_chars
    Py_ssize_t merged
    Py_ssize_t next     # the next record merged into this one's chain, -1 at its end
    Py_ssize_t tail     # the chain's last record (kept on its head)
    PyObject* text      # owned
    bint hidden


cdef int cmp_ssize(const void* a, const void* b) noexcept nogil:
    cdef Py_ssize_t x = (<Py_ssize_t*>a)[0], y = (<Py_ssize_t*>b)[0]
    return (x > y) - (x < y)


cdef int grow(void** array, Py_ssize_t* capacity, Py_ssize_t wanted, size_t item) except -1:
    """Make room for `wanted` items of `item` bytes in a malloc'd array: its capacity doubles, or becomes
    `wanted` when that is more. The array is left as it was when memory runs out."""
    cdef Py_ssize_t size = max(wanted, 2 * capacity[0])
    cdef void* grown = realloc(array[0], size * item)
    if not grown:
        raise MemoryError()
    array[0], capacity[0] = grown, size
    return 0


cdef class _Work:
    """One call's arrays; freed however the call ends."""
    cdef Py_ssize_t n
    cdef Py_ssize_t* parent
    cdef Py_ssize_t* owner
    cdef Py_ssize_t* depth
    cdef Py_ssize_t* stamp
    cdef unsigned char* bits
    cdef unsigned int* mask
    cdef PyObject** tag           # borrowed from the node dicts
    cdef PyObject** label         # owned; NULL until read
    cdef Py_ssize_t* ids
    cdef Py_ssize_t nids, cap_ids
    cdef PyObject** parts         # borrowed text; NULL for a <br>
    cdef Py_ssize_t nparts, cap_parts
    cdef Run* runs
    cdef Py_ssize_t nruns, cap_runs
    cdef Rec* recs
    cdef Py_ssize_t nrecs
    cdef Py_UCS4* buf
    cdef Py_ssize_t cap_buf

    def __cinit__(self, Py_ssize_t n):
        self.n = n
        cdef Py_ssize_t m = n if n > 0 else 1
        self.parent = <Py_ssize_t*>malloc(m * sizeof(Py_ssize_t))
        self.owner = <Py_ssize_t*>malloc(m * sizeof(Py_ssize_t))
        self.depth = <Py_ssize_t*>malloc(m * sizeof(Py_ssize_t))
        self.stamp = <Py_ssize_t*>malloc(m * sizeof(Py_ssize_t))
        self.bits = <unsigned char*>malloc(m * sizeof(unsigned char))
        self.mask = <unsigned int*>malloc(m * sizeof(unsigned int))
        self.tag = <PyObject**>malloc(m * sizeof(PyObject*))
        self.label = <PyObject**>calloc(m, sizeof(PyObject*))
        self.cap_ids = 64
        self.ids = <Py_ssize_t*>malloc(self.cap_ids * sizeof(Py_ssize_t))
        self.cap_parts = 64
        self.parts = <PyObject**>malloc(self.cap_parts * sizeof(PyObject*))
        self.cap_runs = 16
        self.runs = <Run*>malloc(self.cap_runs * sizeof(Run))
        self.cap_buf = 256
        self.buf = <Py_UCS4*>malloc(self.cap_buf * sizeof(Py_UCS4))
        if not (self.parent and self.owner and self.depth and self.stamp and self.bits and self.mask and self.tag
                and self.label and self.ids and self.parts and self.runs and self.buf):
            raise MemoryError()
        cdef Py_ssize_t i
        for i in range(n):
            self.stamp[i] = -1

    def __dealloc__(self):
        cdef Py_ssize_t i
        if self.label:
            for i in range(self.n):
                Py_XDECREF(self.label[i])
        if self.recs:
            for i in range(self.nrecs):
                Py_XDECREF(self.recs[i].text)
        free(self.parent); free(self.owner); free(self.depth); free(self.stamp); free(self.bits)
        free(self.mask); free(self.tag); free(self.label); free(self.ids); free(self.parts); free(self.runs)
        free(self.recs); free(self.buf)

    cdef int push_id(self, Py_ssize_t i) except -1:
        if self.nids == self.cap_ids:
            grow(<void**>&self.ids, &self.cap_ids, self.nids + 1, sizeof(Py_ssize_t))
        self.ids[self.nids] = i
        self.nids += 1
        return 0

    cdef int push_part(self, PyObject* text) except -1:
        if self.nparts == self.cap_parts:
            grow(<void**>&self.parts, &self.cap_parts, self.nparts + 1, sizeof(PyObject*))
        self.parts[self.nparts] = text
        self.nparts += 1
        return 0

    cdef int push_run(self, Py_ssize_t owner, bint hidden) except -1:
        if self.nruns == self.cap_runs:
            grow(<void**>&self.runs, &self.cap_runs, self.nruns + 1, sizeof(Run))
        self.runs[self.nruns] = Run(owner, self.nids, self.nparts, 0, hidden, False)
        self.nruns += 1
        return 0

    cdef int reserve_buf(self, Py_ssize_t size) except -1:
        if size > self.cap_buf:
            grow(<void**>&self.buf, &self.cap_buf, size, sizeof(Py_UCS4))
        return 0


cdef inline Py_ssize_t stripped_len(PyObject* s):
    """len(s.strip()): str.strip's whitespace is str.isspace."""
    cdef Py_ssize_t n = str_len(s), start = 0, end
    cdef int kind = str_kind(s)
    cdef void* data = str_data(s)
    while start < n and is_space(str_read(kind, data, start)):
        start += 1
    end = n
    while end > start and is_space(str_read(kind, data, end - 1)):
        end -= 1
    return end - start


cdef inline bint read_int(PyObject* node, PyObject* key, Py_ssize_t* out):
    """node[key] into out where it is an int that fits; False where it is missing, another type or too big."""
    cdef PyObject* value = dict_get(node, key)
    if value == NULL or not is_int(value):
        return False
    out[0] = int_value(value)
    if out[0] == -1 and err_occurred() != NULL:
        err_clear()
        return False
    return True


cdef inline bint folds(Py_UCS4 ch):
    return is_space(ch) or ch == 0x200b


cdef object clean(_Work w, Py_ssize_t start, Py_ssize_t end, Py_ssize_t max_text):
    """blocks._clean of parts[start:end], cut to max_text characters; None where it is empty."""
    cdef Py_ssize_t total = 0, k, j, n, o = 0, r, line_start, a, b
    cdef PyObject* part
    cdef int kind
    cdef void* data
    cdef Py_UCS4 ch
    cdef bint in_space, newline = False, plain
    if end - start == 1 and w.parts[start] != NULL:
        # Most runs: one text node. When nothing in it folds and no space ends it, it is its own text.
        part = w.parts[start]
        n = str_len(part)
        if n == 0:
            return None
        kind, data = str_kind(part), str_data(part)
        plain = not folds(str_read(kind, data, 0)) and not folds(str_read(kind, data, n - 1))
        k = 0
        while plain and k < n:
            ch = str_read(kind, data, k)
            if folds(ch) and (ch != 0x20 or folds(str_read(kind, data, k + 1))):
                plain = False
            k += 1
        if plain:
            return <object>part if n <= max_text else str_slice(<object>part, 0, max_text)
    for k in range(start, end):
        total += str_len(w.parts[k]) if w.parts[k] != NULL else 1
    w.reserve_buf(total + 1)
    cdef Py_UCS4* buf = w.buf
    for k in range(start, end):
        part = w.parts[k]
        if part == NULL:
            buf[o] = 0x0a
            o += 1
            newline = True
            continue
        n, kind, data = str_len(part), str_kind(part), str_data(part)
        in_space = False  # the pattern runs on each part alone: a run of spaces never spans two parts
        for j in range(n):
            ch = str_read(kind, data, j)
            if folds(ch):
                if not in_space:
                    buf[o] = 0x20
                    o += 1
                    in_space = True
            else:
                buf[o] = ch
                o += 1
                in_space = False
    if newline:
        # Each line without the spaces at its ends, empty lines dropped (in place: writes never pass reads).
        r = 0
        n = o
        o = 0
        while r <= n:
            line_start = r
            while r < n and buf[r] != 0x0a:
                r += 1
            a, b = line_start, r
            while a < b and buf[a] == 0x20:
                a += 1
            while b > a and buf[b - 1] == 0x20:
                b -= 1
            if b > a:
                if o:
                    buf[o] = 0x0a
                    o += 1
                for j in range(a, b):
                    buf[o] = buf[j]
                    o += 1
            r += 1
        a = 0
    else:
        a = 0
        while a < o and buf[a] == 0x20:
            a += 1
        while o > a and buf[o - 1] == 0x20:
            o -= 1
    if o == a:
        return None
    if o - a > max_text:
        o = a + max_text
    return str_from_ucs4(UCS4_KIND, buf + a, o - a)


cdef inline bint parts_words(PyObject* before, PyObject* after):
    """blocks.parts_words: the first character of `after` a capital, and the last of `before` a lower-case
    letter; or that a capital not after a lower-case letter, and `after`'s second a lower-case letter."""
    cdef Py_ssize_t n = str_len(before), m = str_len(after)
    cdef int kind
    cdef void* data
    cdef Py_UCS4 end
    if n == 0 or m == 0 or not is_upper(str_read(str_kind(after), str_data(after), 0)):
        return False
    kind, data = str_kind(before), str_data(before)
    end = str_read(kind, data, n - 1)
    if is_lower(end):
        return True
    return (is_upper(end) and not (n > 1 and is_lower(str_read(kind, data, n - 2)))
            and m > 1 and is_lower(str_read(str_kind(after), str_data(after), 1)))


cdef inline bint same_classes(PyObject* a, PyObject* b) except -1:
    """tuple(a or ()) == tuple(b or ()) for two lists of classes (NULL: none)."""
    if a == b:
        return True
    if a == NULL:
        return len(<list>b) == 0
    if b == NULL:
        return len(<list>a) == 0
    return <list>a == <list>b


cdef class Segmenter:
    """blocks_from_snapshot's rules, read from blocks.py once: the tag sets, `_flags` and `Block`."""
    cdef dict codes              # tag name -> code, as learnt
    cdef object inline, excluded, joined, flags_of, block_type
    cdef tuple flag_names
    cdef list flag_dicts         # flags dict per mask (hidden in the bit after the flags)
    cdef Py_ssize_t path_depth   # of the call in progress

    def __init__(self, inline, excluded, joined, flags_of, block_type):
        self.inline, self.excluded, self.joined = inline, excluded, joined
        self.flags_of, self.block_type = flags_of, block_type
        self.codes = {}
        self.flag_names = tuple(flags_of(frozenset()))
        if len(self.flag_names) > MAX_FLAGS or "hidden" in self.flag_names:
            raise ValueError("more flags than the compiled segmenter holds")
        cdef int m, k, count = len(self.flag_names)
        self.flag_dicts = []
        for m in range(1 << (count + 1)):
            flags = {name: bool(m >> k & 1) for k, name in enumerate(self.flag_names)}
            flags["hidden"] = bool(m >> count & 1)
            self.flag_dicts.append(flags)

    cdef int learn(self, str tag) except -1:
        cdef int code = 0, k
        if tag == T_TEXT:
            code |= TEXT
        if tag in self.inline:
            code |= INLINE
        if tag in self.excluded:
            code |= EXCLUDED
        if tag in self.joined:
            code |= JOINED_TAG
        if tag == "a":
            code |= LINK_TAG
        if tag == "br":
            code |= BREAK
        flags = self.flags_of(frozenset((tag,)))
        if tuple(flags) != self.flag_names:
            raise ValueError("flags changed their names")
        for k, name in enumerate(self.flag_names):
            if flags[name]:
                code |= 1 << (FLAG_SHIFT + k)
        if len(self.codes) < MAX_CACHED_TAGS:
            self.codes[tag] = code
        return code

    cdef bint read_labels(self, _Work w, Py_ssize_t i, object nodes) except -1:
        """The class labels of node i's nearest path_depth ancestors-or-self, each read once a page; False
        where one is not modelled."""
        cdef Py_ssize_t steps = 0
        while i >= 0 and steps < self.path_depth:
            if w.label[i] == NULL:
                self.label(w, i, nodes)
                if w.label[i] == NULL:
                    return False
            steps += 1
            i = w.parent[i]
        return True

    cdef object label(self, _Work w, Py_ssize_t i, object nodes):
        """blocks._class_label of node i (Py_None for none), kept in w.label; left NULL where the reference's
        answer is not modelled (classes not a list of strings, an id not a string)."""
        cdef PyObject* node = list_item(<PyObject*>nodes, i)
        cdef PyObject* cls = dict_get(node, <PyObject*>K_CLASSES)
        cdef PyObject* hid = dict_get(node, <PyObject*>K_HTML_ID)
        cdef PyObject* c
        cdef Py_ssize_t k
        if cls != NULL and cls != Py_None:
            if not is_list(cls):
                return None
            for k in range(len(<list>cls)):
                if not is_str(list_item(cls, k)):
                    return None
        if hid != NULL and hid != Py_None and not is_str(hid):
            return None
        cdef bint has_cls = cls != NULL and cls != Py_None and len(<list>cls) > 0
        cdef bint has_id = hid != NULL and hid != Py_None and str_len(hid) > 0
        if has_cls or has_id:
            text = <str>w.tag[i]
            if has_cls:
                text += "".join(["." + c_ for c_ in <list>cls])
            if has_id:
                text += "#" + <str>hid
        else:
            text = None
        w.label[i] = <PyObject*>text
        Py_INCREF(text)
        return text

    def segment(self, object nodes, bint combine, Py_ssize_t max_blocks, Py_ssize_t max_text,
                Py_ssize_t path_depth, Py_ssize_t memo_depth):
        """The blocks of a snapshot's nodes, or None where this page must go to the reference."""
        if not is_list(<PyObject*>nodes) or max_blocks < 0 or max_text < 0 or path_depth < memo_depth:
            return None
        self.path_depth = path_depth
        cdef Py_ssize_t n = len(<list>nodes), i, p, d, owner, cur = -1, code
        cdef _Work w = _Work(n)
        cdef PyObject* node
        cdef PyObject* value
        cdef PyObject* text
        cdef unsigned char up, mine
        cdef int hides
        cdef Run* run
        for i in range(n):
            node = list_item(<PyObject*>nodes, i)
            if not is_dict(node):
                return None
            if not read_int(node, <PyObject*>K_PARENT, &p):
                return None
            if p < -1 or p >= i or (p >= 0 and w.bits[p] & IS_TEXT):
                return None  # the reference fails on these (or, below -1, takes them for roots)
            w.parent[i] = p
            value = dict_get(node, <PyObject*>K_TAG)
            if value == NULL or not is_str(value):
                return None
            w.tag[i] = value
            found = dict_get(<PyObject*>self.codes, value)
            code = <Py_ssize_t>(<object>found) if found != NULL else self.learn(<str>value)
            if code & TEXT:
                w.bits[i] = IS_TEXT
                w.mask[i] = 0
                if p >= 0:
                    up, owner = w.bits[p], w.owner[p]
                else:
                    up, owner = 0, i
                w.owner[i] = owner
                if up & IN_EXCLUDED:
                    continue
                if cur < 0 or w.runs[cur].owner != owner:
                    w.push_run(owner, owner != i and (w.bits[owner] & IN_HIDDEN) != 0)
                    cur = w.nruns - 1
                    w.stamp[owner] = cur
                    w.push_id(owner)
                text = dict_get(node, <PyObject*>K_TEXT)
                if text == NULL or not is_str(text):
                    return None
                while p >= 0 and w.stamp[p] != cur:  # the inline elements up to the owner, each once a run
                    w.stamp[p] = cur
                    w.push_id(p)
                    p = w.parent[p]
                w.push_id(i)
                run = &w.runs[cur]
                if (w.nparts > run.parts_start and w.parts[w.nparts - 1] != NULL and not run.joined
                        and not up & IN_JOINED and parts_words(w.parts[w.nparts - 1], text)):
                    w.push_part(<PyObject*>BLANK_PART)
                w.push_part(text)
                run.joined = (up & IN_JOINED) != 0
                if up & IN_LINK:
                    w.runs[cur].link_chars += stripped_len(text)
                continue
            if not read_int(node, <PyObject*>K_DEPTH, &d):
                return None
            if d != (w.depth[p] + 1 if p >= 0 else 0):
                return None  # paths below would not be the reference's
            w.depth[i] = d
            value = dict_get(node, <PyObject*>K_HIDDEN)
            hides = 0 if value == NULL or value == Py_False or value == Py_None else (
                1 if value == Py_True else is_true(value))
            mine = (w.bits[p] if p >= 0 else 0) & ~IS_TEXT
            if code & EXCLUDED:
                mine |= IN_EXCLUDED
            if code & JOINED_TAG:
                mine |= IN_JOINED
            if code & LINK_TAG and dict_get(node, <PyObject*>K_HREF) != NULL:
                mine |= IN_LINK
            if hides:
                mine |= IN_HIDDEN
            w.bits[i] = mine
            w.mask[i] = (w.mask[p] if p >= 0 else 0) | <unsigned int>(code >> FLAG_SHIFT)
            w.owner[i] = w.owner[p] if code & INLINE and p >= 0 else i
            if not code & INLINE:
                cur = -1  # a block-level element ends the run of text before it
            elif code & BREAK and cur >= 0 and w.runs[cur].owner == w.owner[i] and not mine & IN_EXCLUDED:
                w.push_id(i)
                w.push_part(NULL)
        return self.finish(w, nodes, combine, max_blocks, max_text, path_depth, memo_depth)

    cdef object finish(self, _Work w, object nodes, bint combine, Py_ssize_t max_blocks, Py_ssize_t max_text,
                       Py_ssize_t path_depth, Py_ssize_t memo_depth):
        cdef Py_ssize_t r, k, ids_end, parts_end, count = 0, d
        cdef Rec* rec
        cdef Run* run
        cdef bint sorted_
        w.recs = <Rec*>malloc((w.nruns if w.nruns else 1) * sizeof(Rec))
        if not w.recs:
            raise MemoryError()
        for r in range(w.nruns):
            run = &w.runs[r]
            ids_end = w.runs[r + 1].ids_start if r + 1 < w.nruns else w.nids
            parts_end = w.runs[r + 1].parts_start if r + 1 < w.nruns else w.nparts
            text = clean(w, run.parts_start, parts_end, max_text)
            if text is None:
                continue
            if w.bits[run.owner] & IS_TEXT:
                # a text node at the root owns its block: the reference reads its depth to choose its paths
                if not read_int(list_item(<PyObject*>nodes, run.owner), <PyObject*>K_DEPTH, &d) or d >= memo_depth:
                    return None
            if not self.read_labels(w, run.owner, nodes):
                return None  # the reference reads every block's path before combining
            sorted_ = True
            for k in range(run.ids_start + 1, ids_end):
                if w.ids[k - 1] > w.ids[k]:
                    sorted_ = False
                    break
            if not sorted_:
                qsort(&w.ids[run.ids_start], ids_end - run.ids_start, sizeof(Py_ssize_t), cmp_ssize)
            rec = &w.recs[w.nrecs]
            rec.owner, rec.ids_start, rec.ids_end = run.owner, run.ids_start, ids_end
            rec.link_chars, rec.merged, rec.next, rec.tail, rec.hidden = run.link_chars, 1, -1, w.nrecs, run.hidden
            rec.text = <PyObject*>text
            Py_INCREF(text)
            w.nrecs += 1
        cdef Py_ssize_t* order = <Py_ssize_t*>malloc((w.nrecs if w.nrecs else 1) * sizeof(Py_ssize_t))
        if not order:
            raise MemoryError()
        try:
            if combine:
                count = self.combine(w, nodes, order, max_text)
                if count < 0:
                    return None
            else:
                for r in range(w.nrecs):
                    order[r] = r
                count = w.nrecs
            if count > max_blocks:
                count = max_blocks
            return self.make_blocks(w, nodes, order, count, path_depth)
        finally:
            free(order)

    cdef Py_ssize_t combine(self, _Work w, object nodes, Py_ssize_t* order, Py_ssize_t max_text) except -2:
        """blocks._combine over the records: the heads of the kept ones go to order; -1 to go to the
        reference."""
        cdef Py_ssize_t r, count = 0, last = -1
        cdef Rec* b
        cdef Rec* head
        cdef PyObject* node
        cdef PyObject* hid
        cdef PyObject* cls
        cdef PyObject* last_cls = NULL
        cdef bint keyed, last_keyed = False
        cdef object merged
        for r in range(w.nrecs):
            b = &w.recs[r]
            node = list_item(<PyObject*>nodes, b.owner)
            hid = dict_get(node, <PyObject*>K_HTML_ID)
            keyed = hid == NULL or hid == Py_None
            cls = NULL
            if keyed:
                cls = dict_get(node, <PyObject*>K_CLASSES)
                if cls != NULL and not is_list(cls):
                    return -1  # tuple() of it: not modelled
            if (count and keyed and last_keyed and w.parent[b.owner] == w.parent[last]
                    and (w.tag[b.owner] == w.tag[last] or <str>w.tag[b.owner] == <str>w.tag[last])
                    and same_classes(cls, last_cls)):
                head = &w.recs[order[count - 1]]
                if (b.owner != head.owner and 2 * b.link_chars >= str_len(b.text)
                        and 2 * head.link_chars >= str_len(head.text)):
                    merged = <object>head.text + "\n" + <object>b.text
                    if str_len(<PyObject*>merged) > max_text:
                        merged = str_slice(merged, 0, max_text)
                    Py_XDECREF(head.text)
                    head.text = <PyObject*>merged
                    Py_INCREF(merged)
                    head.link_chars += b.link_chars
                    head.merged += 1
                    w.recs[head.tail].next = r
                    head.tail = r
                    last, last_keyed, last_cls = b.owner, keyed, cls
                    continue
            order[count] = r
            count += 1
            last, last_keyed, last_cls = b.owner, keyed, cls
        return count

    cdef object make_blocks(self, _Work w, object nodes, Py_ssize_t* order, Py_ssize_t count,
                            Py_ssize_t path_depth):
        cdef Py_ssize_t k, r, j, i, size, steps, nclasses, pos
        cdef Rec* rec
        cdef list out = [None] * count
        cdef list ids, tag_path, class_path
        cdef PyObject* lab
        cdef type block_type = self.block_type
        cdef Py_ssize_t nflags = len(self.flag_names)
        for k in range(count):
            rec = &w.recs[order[k]]
            size = 0
            r = order[k]
            while r >= 0:
                size += w.recs[r].ids_end - w.recs[r].ids_start
                r = w.recs[r].next
            ids = [None] * size
            pos = 0
            r = order[k]
            while r >= 0:
                for j in range(w.recs[r].ids_start, w.recs[r].ids_end):
                    ids[pos] = w.ids[j]
                    pos += 1
                r = w.recs[r].next
            # tag and class paths: the nearest path_depth ancestors-or-self, root first
            steps = 0
            nclasses = 0
            i = rec.owner
            while i >= 0 and steps < path_depth:
                if w.label[i] != Py_None:
                    nclasses += 1
                steps += 1
                i = w.parent[i]
            tag_path = [None] * steps
            class_path = [None] * nclasses
            i = rec.owner
            j = steps
            pos = nclasses
            while j > 0:
                j -= 1
                tag_path[j] = <object>w.tag[i]
                lab = w.label[i]
                if lab != Py_None:
                    pos -= 1
                    class_path[pos] = <object>lab
                i = w.parent[i]
            flags = (<dict>self.flag_dicts[w.mask[rec.owner] | (<unsigned int>rec.hidden << nflags)]).copy()
            depth = w.depth[rec.owner] if not w.bits[rec.owner] & IS_TEXT else \
                <object>dict_get(list_item(<PyObject*>nodes, rec.owner), <PyObject*>K_DEPTH)
            block = block_type.__new__(block_type)
            block.__dict__ = {"index": k, "owner": rec.owner, "node_ids": ids, "text": <object>rec.text,
                              "tag_path": tag_path, "class_path": class_path, "depth": depth,
                              "link_chars": rec.link_chars, "merged": rec.merged, "flags": flags}
            out[k] = block
        return out
