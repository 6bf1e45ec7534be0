# cython: language_level=3, boundscheck=False, wraparound=False
"""Validation's two per-node loops in C (schema.py is the reference; docs/performance.md), and the nodes made
from the rows the extension sends (`nodes_from_rows`; browser/protocol.py is the reference).

`ItemAccept.first_refused` runs `schema._fast_accept`'s test over an array's items and says where the first
item it does not accept sits; `tree_consistent` runs `validate_snapshot`'s tree rules over the nodes and says
whether all hold. Both only ever answer for the reference's fast path: an item this module refuses, or a
tree it finds inconsistent, goes to the Python checks, which raise the precise error or let it pass. Built
from the schema's names and numbers (`schema._accept_spec`), so the schema file stays the one statement of
the format.
"""

from cpython.dict cimport PyDict_GetItem, PyDict_Next
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.object cimport PyObject, PyObject_RichCompareBool, Py_EQ, Py_GE, Py_LE

cdef extern from "Python.h":
    Py_ssize_t PyUnicode_GET_LENGTH(object o)

# A field's kind, as `schema._accept_spec` names them.
KINDS = ("string", "boolean", "integer", "number", "array")
cdef enum:
    K_STRING = 0
    K_BOOLEAN = 1
    K_INTEGER = 2
    K_NUMBER = 3
    K_ARRAY = 4

cdef double EXACT = 9007199254740992.0  # 2**53: integers below it convert to double exactly


cdef class Field:
    """One property's test: its kind and bounds (lengths for strings and arrays, values for numbers)."""

    cdef int kind
    cdef bint required
    cdef Py_ssize_t min_len, max_len       # max_len -1: none
    cdef object lo, hi                     # the schema's bounds as the reference compares them (or None)
    cdef double lo_d, hi_d
    cdef bint exact_bounds                 # both bounds, where present, convert to double exactly
    cdef Field item

    def __init__(self, kind, required=False, min_len=0, max_len=None, lo=None, hi=None, item=None):
        self.kind = KINDS.index(kind)
        self.required = required
        self.min_len = min_len
        self.max_len = -1 if max_len is None else max_len
        self.lo, self.hi = lo, hi
        self.lo_d = float(lo) if lo is not None else 0.0
        self.hi_d = float(hi) if hi is not None else 0.0
        self.exact_bounds = all(b is None or (type(b) is float or abs(b) < EXACT) and float(b) == b
                                for b in (lo, hi))
        self.item = item
        if self.kind == K_ARRAY and item is None:
            raise ValueError("an array field needs its item's test")


cdef bint _in_bounds_as_python(Field f, object x):
    """The bounds compared as Python compares them: exact for any int and float."""
    return ((f.lo is None or PyObject_RichCompareBool(x, f.lo, Py_GE))
            and (f.hi is None or PyObject_RichCompareBool(x, f.hi, Py_LE)))


cdef bint _in_bounds(Field f, object x, double d):
    """`x`, whose exact value is `d`, within the bounds."""
    if f.exact_bounds:
        return (f.lo is None or d >= f.lo_d) and (f.hi is None or d <= f.hi_d)
    return _in_bounds_as_python(f, x)


cdef bint _int_ok(Field f, object x):
    cdef int overflow = 0
    cdef long long v = PyLong_AsLongLongAndOverflow(x, &overflow)
    if overflow == 0 and -EXACT < v < EXACT:
        return _in_bounds(f, x, <double>v)
    return _in_bounds_as_python(f, x)  # beyond what a double holds exactly


cdef bint _ok(Field f, object x):
    """The reference's expression for one value (`schema._scalar_test`, `_scalar_array_test`)."""
    cdef type t = type(x)
    cdef Py_ssize_t n, i
    if f.kind == K_STRING:
        if t is not str:
            return False
        n = PyUnicode_GET_LENGTH(x)
        return n >= f.min_len and (f.max_len < 0 or n <= f.max_len)
    if f.kind == K_BOOLEAN:
        return t is bool
    if f.kind == K_INTEGER:
        return t is int and _int_ok(f, x)
    if f.kind == K_NUMBER:
        if t is float:
            return _in_bounds(f, x, <double>x)
        return t is int and _int_ok(f, x)
    # K_ARRAY
    if t is not list:
        return False
    n = len(<list>x)
    if n < f.min_len or (f.max_len >= 0 and n > f.max_len):
        return False
    for i in range(n):
        if not _ok(f.item, (<list>x)[i]):
            return False
    return True


cdef class ItemAccept:
    """`schema._fast_accept` for one object schema: `fields` maps each property to its Field; `closed`:
    additionalProperties is false."""

    cdef dict fields
    cdef Py_ssize_t required
    cdef bint closed

    def __init__(self, dict fields, bint closed):
        self.fields = fields
        self.required = sum(1 for f in fields.values() if (<Field>f).required)
        self.closed = closed

    cpdef bint accept(self, object v):
        cdef Py_ssize_t pos = 0, seen = 0
        cdef PyObject *key
        cdef PyObject *value
        cdef PyObject *spec
        if type(v) is not dict:
            return False
        while PyDict_Next(v, &pos, &key, &value):
            spec = PyDict_GetItem(self.fields, <object>key)
            if spec is NULL:
                if self.closed:
                    return False
                continue
            if not _ok(<Field>spec, <object>value):
                return False
            if (<Field>spec).required:
                seen += 1
        return seen == self.required

    def first_refused(self, list items, Py_ssize_t start=0):
        """The index of the first item from `start` on that `accept` refuses; len(items) when none is."""
        cdef Py_ssize_t i, n = len(items)
        for i in range(start, n):
            if not self.accept(items[i]):
                return i
        return n


def tree_consistent(list nodes):
    """Whether every node's id is its index, its parent comes before it and is no text node, and its depth
    is its parent's plus one: `validate_snapshot`'s loop, for nodes that passed the schema. False sends the
    nodes to that loop, for the error (or, for a value this loop does not read, the pass)."""
    return _tree_consistent(nodes)


cdef bint _field(dict node, str name, long long *out):
    """node[name] as a C integer; False when it is no exact int or does not fit."""
    cdef PyObject *value = PyDict_GetItem(node, name)
    cdef int overflow = 0
    if value is NULL or type(<object>value) is not int:
        return False
    out[0] = PyLong_AsLongLongAndOverflow(<object>value, &overflow)
    return overflow == 0


cdef bint _tree_consistent(list nodes) except -1:
    cdef Py_ssize_t i, n = len(nodes)
    cdef long long id_, parent, depth, want
    cdef object node, text_tag = "#text"
    cdef long long *depths = <long long *>PyMem_Malloc((n + 1) * sizeof(long long))
    if depths is NULL:
        raise MemoryError()
    try:
        for i in range(n):
            node = nodes[i]
            if type(node) is not dict:
                return False
            if not (_field(node, "id", &id_) and _field(node, "parent", &parent) and _field(node, "depth", &depth)):
                return False
            if id_ != i or parent >= i:
                return False
            want = 0 if parent < 0 else depths[parent] + 1
            if depth != want:
                return False
            if parent >= 0 and PyObject_RichCompareBool((<dict>nodes[parent]).get("tag"), text_tag, Py_EQ):
                return False
            depths[i] = want
        return True
    finally:
        PyMem_Free(depths)


def nodes_from_rows(list rows):
    """`browser.protocol._nodes_from_rows` (the reference) for rows it reads without an error: the same node
    dicts, key for key in the same order; None where a row is malformed, and the reference says which."""
    cdef Py_ssize_t i, n = len(rows), back, parent, depth, size
    cdef int overflow = 0
    cdef object row, tag, fields
    cdef list nodes = []
    cdef dict node
    cdef Py_ssize_t *depths = <Py_ssize_t *>PyMem_Malloc((n + 1) * sizeof(Py_ssize_t))
    if depths is NULL:
        raise MemoryError()
    try:
        for i in range(n):
            row = rows[i]
            if type(row) is not list:
                return None
            size = len(<list>row)
            if size < 2 or size > 3:
                return None
            if type((<list>row)[0]) is not int:
                return None
            back = <Py_ssize_t>PyLong_AsLongLongAndOverflow((<list>row)[0], &overflow)
            if overflow or back < 0 or back > i:
                return None
            if back:
                parent = i - back
                depth = depths[parent] + 1
            else:
                parent = -1
                depth = 0
            depths[i] = depth
            tag = (<list>row)[1]
            if type(tag) is int:
                if size != 3 or tag != 0:
                    return None
                nodes.append({"id": i, "parent": parent, "depth": depth, "tag": "#text", "text": (<list>row)[2]})
                continue
            if type(tag) is not str:
                return None
            node = {"id": i, "parent": parent, "depth": depth, "tag": tag}
            if size == 3:
                fields = (<list>row)[2]
                if type(fields) is not dict:
                    return None
                if "id" in fields or "parent" in fields or "depth" in fields or "tag" in fields:
                    return None
                node.update(<dict>fields)
            nodes.append(node)
        return nodes
    finally:
        PyMem_Free(depths)
