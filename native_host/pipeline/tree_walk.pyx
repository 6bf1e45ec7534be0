# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""The HTML path's snapshot walk in C: lexbor's parsed tree -> snapshot v2 nodes, as `snapshot._walk` does.

`snapshot._walk` is the reference: this module gives the same nodes (same dicts, order and values) and the
same `truncated`, and `snapshot.snapshot_from_html` uses it only when it imported, was built for the
selectolax that is installed, and gave the reference's answer on a probe page at import
(docs/performance.md, "Where the time goes"). It reads lexbor's node, element, attribute and name structs
directly and makes Python objects only for what the snapshot holds: per DOM node selectolax's Python API
makes a wrapper, a tag string and an attribute dict, which was most of the walk's time.

Why its own declarations, not selectolax's `lexbor.pxd`: that file declares lexbor's types as `cdef extern
from "lexbor/..."`, so a module cimporting it must compile against lexbor's headers, which selectolax's
wheels do not ship. The few structs read here are declared below instead, field for field as lexbor lays
them out, and no lexbor function is called or linked: the tree comes in as the address selectolax gives
(`LexborNode.mem_id`), names come from lexbor's name entries or, for its built-in names, the tables below.
Layouts are not a promised interface, hence the pin to one selectolax version (SELECTOLAX_VERSION).
"""

from cpython.object cimport PyObject
from cpython.unicode cimport PyUnicode_DecodeUTF8, PyUnicode_GET_LENGTH
from libc.stdint cimport uintptr_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcmp, memset

# The selectolax release whose lexbor these declarations were checked against (its wheels bundle lexbor);
# snapshot.py uses this module with that release only.
SELECTOLAX_VERSION = "1.0.2"

cdef extern from *:
    """
    /* lexbor's structs as far as this module reads them (lexbor/dom/interfaces/{node,character_data,
       element,attr}.h, lexbor/core/{str,hash}.h, lexbor/tag/tag.h), with lexbor's field order. */
    typedef struct { unsigned char *data; size_t length; } pith_lxb_str;

    typedef struct pith_lxb_node pith_lxb_node;
    struct pith_lxb_node {
        void *events;                        /* lxb_dom_event_target_t */
        uintptr_t local_name;                /* tag or attribute id */
        uintptr_t prefix;
        uintptr_t ns;
        void *owner_document;
        pith_lxb_node *next;
        pith_lxb_node *prev;
        pith_lxb_node *parent;
        pith_lxb_node *first_child;
        pith_lxb_node *last_child;
        void *user;
        int type;                            /* lxb_dom_node_type_t */
    };

    typedef struct { pith_lxb_node node; pith_lxb_str data; } pith_lxb_character_data;

    typedef struct pith_lxb_attr pith_lxb_attr;
    struct pith_lxb_attr {
        pith_lxb_node node;
        uintptr_t upper_name;
        uintptr_t qualified_name;
        pith_lxb_str *value;
        void *owner;
        pith_lxb_attr *next;
        pith_lxb_attr *prev;
    };

    typedef struct {
        pith_lxb_node node;
        uintptr_t upper_name;
        uintptr_t qualified_name;
        pith_lxb_str *is_value;
        pith_lxb_attr *first_attr;
    } pith_lxb_element;

    /* lexbor_hash_entry_t: the head of a tag's or attribute's name data (lxb_tag_data_t,
       lxb_dom_attr_data_t); a name id past the built-in ones is the address of that data. */
    #define PITH_LXB_HASH_SHORT_SIZE 16
    typedef struct {
        union { unsigned char *long_str; unsigned char short_str[PITH_LXB_HASH_SHORT_SIZE + 1]; } u;
        size_t length;
        void *next;
    } pith_lxb_hash_entry;

    static const unsigned char *pith_lxb_entry_name(uintptr_t id, size_t *length) {
        const pith_lxb_hash_entry *entry = (const pith_lxb_hash_entry *) id;
        *length = entry->length;
        return entry->length <= PITH_LXB_HASH_SHORT_SIZE ? entry->u.short_str : entry->u.long_str;
    }
    """
    ctypedef struct pith_lxb_str:
        unsigned char *data
        size_t length
    ctypedef struct pith_lxb_node:
        uintptr_t local_name
        pith_lxb_node *next
        pith_lxb_node *parent
        pith_lxb_node *first_child
        int type
    ctypedef struct pith_lxb_character_data:
        pith_lxb_str data
    ctypedef struct pith_lxb_attr:
        pith_lxb_node node
        uintptr_t qualified_name
        pith_lxb_str *value
        pith_lxb_attr *next
    ctypedef struct pith_lxb_element:
        pith_lxb_node node
        uintptr_t qualified_name
        pith_lxb_attr *first_attr
    const unsigned char *pith_lxb_entry_name(uintptr_t id, size_t *length)

import re

from .. import limits

class UnknownName(Exception):
    """A built-in lexbor name id this module did not learn at import: the caller walks that page in Python."""


# lexbor's node types (lxb_dom_node_type_t) and the tag ids selectolax names itself (`LexborNode.tag`).
cdef enum:
    NODE_ELEMENT = 1
    NODE_TEXT = 3
    TAG_TEXT = 2          # "-text"
    TAG_DOCUMENT = 3      # "-document"
    TAG_COMMENT = 4       # "-comment"
    TAG_DOCTYPE = 5       # "-doctype"
    # A name id below this is one of lexbor's built-in names; above, the address of a name entry.
    BUILTIN_LIMIT = 0x10000
    ATTR_CACHE = 256      # slots of a walk's cache of attribute names past the built-in ones

# The element names lexbor has built-in ids for (lexbor/tag/const.h), as of selectolax 1.0.2's lexbor; the ids
# themselves are learnt at import (_learn_builtin_tags), and a built-in id not learnt makes the walk refuse the
# page (UnknownName) rather than guess.
_TAG_NAMES = tuple("""
a abbr acronym address altglyph altglyphdef altglyphitem animatecolor animatemotion animatetransform
annotation-xml applet area article aside audio b base basefont bdi bdo bgsound big blink blockquote body br
button canvas caption center cite clippath code col colgroup data datalist dd del desc details dfn dialog dir
div dl dt em embed feblend fecolormatrix fecomponenttransfer fecomposite feconvolvematrix fediffuselighting
fedisplacementmap fedistantlight fedropshadow feflood fefunca fefuncb fefuncg fefuncr fegaussianblur feimage
femerge femergenode femorphology feoffset fepointlight fespecularlighting fespotlight fetile feturbulence
fieldset figcaption figure font footer foreignobject form frame frameset glyphref h1 h2 h3 h4 h5 h6 head
header hgroup hr html i iframe image img input ins isindex kbd keygen label legend li lineargradient link
listing main malignmark map mark marquee math menu meta meter mfenced mglyph mi mn mo ms mtext multicol nav
nextid nobr noembed noframes noscript object ol optgroup option output p param path picture plaintext pre
progress q radialgradient rb rp rt rtc ruby s samp script section select slot small source spacer span strike
strong style sub summary sup svg table tbody td template textarea textpath tfoot th thead time title tr track
tt u ul var video wbr xmp search selectedcontent""".split())

# The attributes the snapshot reads, each with its index into an element's found-attribute array; the date
# attributes (limits.DATE_ATTRIBUTES, in their order) last, from A_DATE on.
_WANTED = ("class", "id", "role", "aria-label", "itemprop", "itemscope", "itemtype", "href", "rel",
           "src", "alt", "style", "hidden", "aria-hidden", "type", "data-src", "data-lazy-src", "data-original",
           "data-srcset", "srcset", "alttext", "width", "height") + tuple(limits.DATE_ATTRIBUTES)
cdef enum:
    A_CLASS, A_ID, A_ROLE, A_ARIA_LABEL, A_ITEMPROP, A_ITEMSCOPE, A_ITEMTYPE, A_HREF, A_REL
    A_SRC, A_ALT, A_STYLE, A_HIDDEN, A_ARIA_HIDDEN, A_TYPE, A_DATA_SRC, A_DATA_LAZY_SRC, A_DATA_ORIGINAL
    A_DATA_SRCSET, A_SRCSET, A_ALTTEXT, A_WIDTH, A_HEIGHT, A_DATE
    MAX_WANTED = A_DATE + 32  # room for 32 date attributes
cdef int N_WANTED = len(_WANTED)
if N_WANTED > MAX_WANTED or len(set(_WANTED)) != N_WANTED:
    raise ImportError("limits.DATE_ATTRIBUTES is longer than this module has room for, or repeats a name")

# What the walk needs to know of a tag name (computed once per name).
cdef enum:
    T_SKIP = 1        # not a node: a skipped subtree (script, style, template, head) or not an element name
    T_LEAF = 2        # kept, children not walked (LEAF_ONLY)
    T_PRE = 4
    T_A = 8
    T_IMG = 32
    T_INPUT = 64
    T_PICTURE = 128
    T_SOURCE = 256
    T_MATH = 512
    T_SCRIPT = 1024   # skipped, unless it holds a formula's TeX (snapshot.formula_nodes)

cdef object _builtin_key = None      # the rules _builtin_info was made with
cdef list _builtin_info = []         # by id: (name, name cut to MAX_TAG_CHARS, flags)
cdef int _builtin_attr_wanted[BUILTIN_LIMIT]  # by lexbor's built-in attribute id: index into _WANTED, or -1
_WANTED_BYTES = tuple(name.encode("ascii") for name in _WANTED)
cdef const char *_wanted_name[MAX_WANTED]
cdef size_t _wanted_length[MAX_WANTED]
for _i, _name in enumerate(_WANTED_BYTES):
    _wanted_name[_i] = <const char *> _name
    _wanted_length[_i] = len(_name)


cdef tuple _BUILTIN_TAGS = ()  # by lexbor's built-in tag id: the name, or None


def _learn_builtin_tags():
    """lexbor's built-in tag ids, learnt by creating one element of each name: the ids move between lexbor
    releases (a new element name takes an id in alphabetical order)."""
    from selectolax.lexbor import LexborHTMLParser

    global _BUILTIN_TAGS
    cdef uintptr_t id
    found = {}
    parser = LexborHTMLParser("")
    for name in _TAG_NAMES:
        node = parser.create_node(name)
        id = (<pith_lxb_node *> <size_t> node.mem_id).local_name
        if node.tag != name or id >= BUILTIN_LIMIT or id <= TAG_DOCTYPE:
            raise ImportError(f"lexbor names the element {name!r} differently from this module")
        found[id] = name
    _BUILTIN_TAGS = tuple(found.get(id) for id in range(max(found) + 1))


_learn_builtin_tags()


def _learn_builtin_attrs():
    """Which of lexbor's built-in attribute ids are names the snapshot reads. lexbor gives a name its built-in
    id whenever it has one, so one element carrying every wanted name tells them all; any other built-in id
    is a name the snapshot does not read. Learnt from the parser rather than written down, as the set of
    built-in names changes between lexbor releases."""
    from selectolax.lexbor import LexborHTMLParser

    cdef pith_lxb_attr *attr
    cdef uintptr_t id
    cdef int i
    for i in range(BUILTIN_LIMIT):
        _builtin_attr_wanted[i] = -1
    tree = LexborHTMLParser("<p " + " ".join(_WANTED) + ">")
    element = tree.body.child
    if list(element.attributes) != list(_WANTED):
        raise ImportError("selectolax reads the probe element's attributes differently")
    attr = (<pith_lxb_element *> <size_t> element.mem_id).first_attr
    i = 0
    while attr != NULL:
        id = attr.qualified_name if attr.qualified_name != 0 else attr.node.local_name
        if id < BUILTIN_LIMIT:
            _builtin_attr_wanted[id] = i
        i += 1
        attr = attr.next
    if i != N_WANTED:
        raise ImportError("lexbor's attribute list is not laid out as this module reads it")


_learn_builtin_attrs()


cdef class _Helpers:
    """The reference's own rules that stay in Python (the markup tables, URL joining, the image address),
    looked up once per walk so that a test's patched limit or table is seen as the reference sees it."""
    cdef object skip_subtree, leaf_only, join, image_source, image_side, hidden_style_search, text_tag, formula_nodes
    cdef object tex_type
    cdef Py_ssize_t max_nodes, max_node_text, max_total_text, max_attr, max_classes, max_tag

    def __init__(self, snapshot_module):
        self.skip_subtree = snapshot_module.SKIP_SUBTREE
        self.leaf_only = snapshot_module.LEAF_ONLY
        self.join = snapshot_module._join
        self.image_source = snapshot_module.image_source
        self.image_side = snapshot_module.image_side
        self.hidden_style_search = snapshot_module._HIDDEN_STYLE.search
        self.text_tag = snapshot_module.TEXT
        self.formula_nodes = snapshot_module.formula_nodes
        self.tex_type = snapshot_module.TEX_SCRIPT_TYPE
        self.max_nodes = limits.MAX_NODES
        self.max_node_text = limits.MAX_NODE_TEXT
        self.max_total_text = limits.MAX_TOTAL_TEXT
        self.max_attr = limits.MAX_ATTR_CHARS
        self.max_classes = limits.MAX_CLASSES
        self.max_tag = limits.MAX_TAG_CHARS

    cdef list builtin_tags(self):
        """tag_info of every built-in name, kept while the rules it depends on stay the same."""
        global _builtin_key, _builtin_info
        key = (self.skip_subtree, self.leaf_only, self.max_tag)
        if key != _builtin_key:
            _builtin_info = [name and self.tag_info(name) for name in _BUILTIN_TAGS]
            _builtin_key = key
        return _builtin_info

    cdef tuple tag_info(self, str name):
        cdef int flags = 0
        if not name or name[0] in "-#_!" or name in self.skip_subtree:
            flags |= T_SKIP
        if name in self.leaf_only:
            flags |= T_LEAF
        flags |= {"pre": T_PRE, "a": T_A, "img": T_IMG, "input": T_INPUT,
                  "picture": T_PICTURE, "source": T_SOURCE, "math": T_MATH, "script": T_SCRIPT}.get(name, 0)
        return (name, name[: self.max_tag], flags)


cdef str _tag_name(uintptr_t id):
    """An element's name from its name id (lxb_dom_element_qualified_name without the call)."""
    cdef size_t length
    cdef const unsigned char *name
    if id < BUILTIN_LIMIT:
        if id < <uintptr_t> len(_BUILTIN_TAGS) and _BUILTIN_TAGS[id] is not None:
            return _BUILTIN_TAGS[id]
        raise UnknownName(f"lexbor tag id {id:#x} is not one this module learnt")
    name = pith_lxb_entry_name(id, &length)
    return _decode(name, length)


cdef inline str _decode(const unsigned char *data, size_t length):
    # As selectolax decodes every name, value and text: bytes lexbor passed through become U+FFFD.
    return PyUnicode_DecodeUTF8(<const char *> data, length, "replace")


cdef struct Frame:
    pith_lxb_node *node
    Py_ssize_t parent
    PyObject *parent_id  # the parent's "id" value, owned by its entry in `nodes`
    Py_ssize_t depth
    bint in_pre        # the parent is a <pre> or inside one


cdef class _Walk:
    cdef _Helpers h
    cdef list builtin        # lexbor's built-in tag names' info, by id
    cdef dict names          # name id past the built-in ones -> tag info (ids are addresses: one page only)
    cdef uintptr_t attr_ids[ATTR_CACHE]  # attribute name ids past the built-in ones, last seen in each slot
    cdef int attr_indexes[ATTR_CACHE]    # and their index into _WANTED, or -1
    cdef object base
    cdef dict joined
    cdef pith_lxb_attr *found[MAX_WANTED]

    def __cinit__(self, _Helpers helpers, base):
        self.h = helpers
        self.builtin = helpers.builtin_tags()
        self.names = {}
        memset(self.attr_ids, 0, sizeof(self.attr_ids))
        self.base = base
        self.joined = {}

    cdef tuple tag_of(self, pith_lxb_node *node):
        """(name, cut name, flags) of an element node."""
        cdef pith_lxb_element *element = <pith_lxb_element *> node
        cdef uintptr_t id = element.qualified_name if element.qualified_name != 0 else node.local_name
        if id < BUILTIN_LIMIT:
            if id < <uintptr_t> len(self.builtin) and self.builtin[id] is not None:
                return <tuple> self.builtin[id]
            raise UnknownName(f"lexbor tag id {id:#x} is not one this module learnt")
        key = <size_t> id
        info = self.names.get(key)
        if info is None:
            info = self.names[key] = self.h.tag_info(_tag_name(id))
        return <tuple> info

    cdef int attr_index(self, pith_lxb_attr *attr) noexcept:
        """The attribute's index into _WANTED, or -1."""
        cdef uintptr_t id = attr.qualified_name if attr.qualified_name != 0 else attr.node.local_name
        cdef size_t length, slot
        cdef const unsigned char *name
        cdef int i, index = -1
        if id < BUILTIN_LIMIT:
            return _builtin_attr_wanted[id]
        slot = ((id >> 4) ^ (id >> 12)) & (ATTR_CACHE - 1)
        if self.attr_ids[slot] == id:
            return self.attr_indexes[slot]
        name = pith_lxb_entry_name(id, &length)
        for i in range(N_WANTED):
            if _wanted_length[i] == length and memcmp(_wanted_name[i], name, length) == 0:
                index = i
                break
        self.attr_ids[slot] = id
        self.attr_indexes[slot] = index
        return index

    cdef bint collect(self, pith_lxb_node *node) except -1:
        """Fill `found` with the element's wanted attributes (the last of a repeated name, as a dict keeps
        it); False when the element has no attributes at all."""
        cdef pith_lxb_attr *attr = (<pith_lxb_element *> node).first_attr
        cdef int i
        if attr == NULL:
            return False
        for i in range(N_WANTED):
            self.found[i] = NULL
        while attr != NULL:
            i = self.attr_index(attr)
            if i >= 0:
                self.found[i] = attr
            attr = attr.next
        return True

    cdef object get(self, int i):
        """attrs.get(name): the value, None for an attribute without one or not there."""
        cdef pith_lxb_attr *attr = self.found[i]
        if attr == NULL or attr.value == NULL or attr.value.data == NULL:
            return None
        return _decode(attr.value.data, attr.value.length)

    cdef join(self, ref):
        """snapshot._join, its cache read here: menus repeat their links."""
        url = self.joined.get(ref)
        return url if url is not None else self.h.join(self.base, ref, self.joined)

    cdef str cut(self, value):
        """snapshot._attr: stripped, cut to MAX_ATTR_CHARS, "" for none."""
        return (value or "").strip()[: self.h.max_attr]

    cdef list picture_srcsets(self, pith_lxb_node *node):
        cdef pith_lxb_node *parent = node.parent
        cdef pith_lxb_node *child
        cdef list found = []
        if parent == NULL or parent.type != NODE_ELEMENT or not (self.flags_of(parent) & T_PICTURE):
            return found
        child = parent.first_child
        while child != NULL:
            if child.type == NODE_ELEMENT and self.flags_of(child) & T_SOURCE and self.collect(child):
                for i in (A_DATA_SRCSET, A_SRCSET):
                    value = self.get(i)
                    if value:
                        found.append(value)
            child = child.next
        return found

    cdef int flags_of(self, pith_lxb_node *node) except -1:
        if node.local_name in (TAG_TEXT, TAG_DOCUMENT, TAG_COMMENT, TAG_DOCTYPE):
            return T_SKIP
        return self.tag_of(node)[2]

    cdef markup_fields(self, dict entry, pith_lxb_node *node, int flags):
        """snapshot._add_markup_fields, from `found`."""
        cdef Py_ssize_t max_attr = self.h.max_attr
        cdef int i
        for i in range(A_DATE, N_WANTED):  # read first: an image's <picture> overwrites `found`
            when = self.get(i)
            if when and when.strip():
                when = self.cut(when)
                break
        else:
            when = None
        cls = self.get(A_CLASS)
        if cls:
            names = [c[:max_attr] for c in cls.split()[: self.h.max_classes]]
            if names:
                entry["classes"] = names
        for i, field in ((A_ID, "html_id"), (A_ROLE, "role"), (A_ARIA_LABEL, "aria_label"),
                         (A_ITEMPROP, "itemprop")):
            value = self.get(i)
            if value and value.strip():
                entry[field] = self.cut(value)
        if self.found[A_ITEMSCOPE] != NULL:
            itemtype = self.get(A_ITEMTYPE)
            if itemtype and itemtype.strip():
                entry["itemtype"] = self.cut(itemtype)
        if flags & T_A and self.found[A_HREF] != NULL:
            href = self.cut(self.get(A_HREF))
            entry["href"] = self.join(href) if self.base else href
            rel = self.get(A_REL)
            if rel and rel.strip():
                entry["rel"] = self.cut(rel)
        elif flags & T_IMG:
            alt = self.get(A_ALT)
            width, height = self.h.image_side(self.get(A_WIDTH)), self.h.image_side(self.get(A_HEIGHT))
            attrs = {"src": self.get(A_SRC), "data-srcset": self.get(A_DATA_SRCSET), "srcset": self.get(A_SRCSET),
                     "data-src": self.get(A_DATA_SRC), "data-lazy-src": self.get(A_DATA_LAZY_SRC),
                     "data-original": self.get(A_DATA_ORIGINAL)}
            hidden = self.hidden(flags)
            src = self.h.image_source(attrs, self.picture_srcsets(node))  # overwrites `found`: read first
            if src:
                entry["src"] = self.join(src) if self.base else src
            if alt and alt.strip():
                entry["alt"] = self.cut(alt)
            if width:
                entry["width"] = width
            if height:
                entry["height"] = height
            if when is not None:
                entry["datetime"] = when
            if hidden:
                entry["hidden"] = True
            return
        elif flags & T_MATH:
            alttext = self.get(A_ALTTEXT)
            if alttext and alttext.strip():
                entry["alt"] = self.cut(alttext)
        if when is not None:
            entry["datetime"] = when
        if self.hidden(flags):
            entry["hidden"] = True

    cdef list formula(self, pith_lxb_node *node, Py_ssize_t nid, object parent, Py_ssize_t depth):
        """snapshot.formula_nodes for a script whose attributes are in `found`; its text is read only when its
        type can name TeX (a page's scripts are long)."""
        cdef pith_lxb_node *child
        cdef pith_lxb_character_data *chars
        script_type = self.get(A_TYPE)
        if not script_type or self.h.tex_type not in script_type.lower():
            return []
        parts = []
        child = node.first_child
        while child != NULL:
            if child.local_name == TAG_TEXT and child.type == NODE_TEXT:
                chars = <pith_lxb_character_data *> child
                if chars.data.data != NULL:
                    parts.append(_decode(chars.data.data, chars.data.length))
            child = child.next
        return self.h.formula_nodes(script_type, "".join(parts), nid, parent, depth)

    cdef bint hidden(self, int flags) except -1:
        """snapshot._hidden_by_markup, from `found`."""
        if self.found[A_HIDDEN] != NULL:
            return True
        if (self.get(A_ARIA_HIDDEN) or "").strip().lower() == "true":
            return True
        style = self.get(A_STYLE)
        if style and self.h.hidden_style_search(style):
            return True
        return bool(flags & T_INPUT and (self.get(A_TYPE) or "").lower() == "hidden")

    cdef tuple run(self, pith_lxb_node *root):
        cdef list nodes = []
        cdef bint truncated = False
        cdef Py_ssize_t total_text = 0, nid, length
        cdef Py_ssize_t max_nodes = self.h.max_nodes, max_node_text = self.h.max_node_text
        cdef Py_ssize_t max_total_text = self.h.max_total_text
        cdef Py_ssize_t size = 0, capacity = 64
        cdef Frame frame
        cdef Frame *stack
        cdef Frame *grown
        cdef pith_lxb_node *node
        cdef pith_lxb_character_data *chars
        cdef int flags
        cdef str text
        cdef dict entry
        cdef tuple info
        cdef object id_object, minus_one = -1
        text_tag = self.h.text_tag
        if root == NULL:
            return nodes, False
        stack = <Frame *> malloc(capacity * sizeof(Frame))
        if stack == NULL:
            raise MemoryError()
        try:
            stack[0] = Frame(root, -1, <PyObject *> minus_one, 0, False)
            size = 1
            while size:
                size -= 1
                frame = stack[size]
                node = frame.node
                if size + 2 > capacity:
                    capacity *= 2
                    grown = <Frame *> realloc(stack, capacity * sizeof(Frame))
                    if grown == NULL:
                        raise MemoryError()
                    stack = grown
                if node.next != NULL and frame.parent >= 0:
                    stack[size] = Frame(node.next, frame.parent, frame.parent_id, frame.depth, frame.in_pre)
                    size += 1
                if node.local_name == TAG_TEXT:
                    if node.type != NODE_TEXT:
                        continue
                    chars = <pith_lxb_character_data *> node
                    if chars.data.data == NULL or chars.data.length == 0:
                        continue
                    if not frame.in_pre and _ascii_space_only(chars.data.data, chars.data.length):
                        text = " "
                    else:
                        text = _decode(chars.data.data, chars.data.length)
                        if not frame.in_pre and not text.strip():
                            text = " "
                    length = PyUnicode_GET_LENGTH(text)
                    if length > max_node_text:
                        text, truncated = text[:max_node_text], True
                        length = max_node_text
                    total_text += length
                    if total_text > max_total_text or len(nodes) >= max_nodes:
                        truncated = True
                        break
                    nodes.append({"id": len(nodes), "parent": <object> frame.parent_id, "depth": frame.depth,
                                  "tag": text_tag, "text": text})
                    continue
                if node.local_name in (TAG_DOCUMENT, TAG_COMMENT, TAG_DOCTYPE) or node.type != NODE_ELEMENT:
                    continue
                info = self.tag_of(node)
                flags = info[2]
                if flags & T_SKIP:
                    if flags & T_SCRIPT and self.collect(node):
                        formula = self.formula(node, len(nodes), <object> frame.parent_id, frame.depth)
                        if len(nodes) + len(formula) > max_nodes:
                            truncated = True
                            break
                        nodes += formula
                    continue
                nid = len(nodes)
                if nid >= max_nodes:
                    truncated = True
                    break
                id_object = nid
                entry = {"id": id_object, "parent": <object> frame.parent_id, "depth": frame.depth, "tag": info[1]}
                if self.collect(node):
                    self.markup_fields(entry, node, flags)
                nodes.append(entry)
                if not (flags & T_LEAF) and node.first_child != NULL:
                    stack[size] = Frame(node.first_child, nid, <PyObject *> id_object, frame.depth + 1,
                                        bool(flags & T_PRE) or frame.in_pre)
                    size += 1
        finally:
            free(stack)
        return nodes, truncated


cdef inline bint _ascii_space_only(const unsigned char *data, size_t length) noexcept:
    """Whether the bytes are all characters `str.strip()` removes, ASCII ones only (a non-ASCII byte: not
    known here, the caller decodes and asks Python)."""
    cdef size_t i
    cdef unsigned char c
    for i in range(length):
        c = data[i]
        if not (c == 32 or 9 <= c <= 13 or 28 <= c <= 31):
            return False
    return True


def walk(size_t root_address, base, snapshot_module):
    """`snapshot._walk(tree.root, base)` for the node at `root_address` (`LexborNode.mem_id` of a live
    parser's root; the caller keeps the parser alive): (nodes, truncated)."""
    return _Walk(_Helpers(snapshot_module), base).run(<pith_lxb_node *> root_address)
