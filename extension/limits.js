// Written by `python -m native_host.contracts` from native_host/ (limits.py, pipeline/, errors.py): do not edit.
// Loaded both as a classic script (injected into pages before the content scripts) and as a module
// (imported by the background), so it only assigns globals.
globalThis.PITH_LIMITS = Object.freeze({
  MAX_NODES: 200000,
  MAX_NODE_TEXT: 100000,
  MAX_TOTAL_TEXT: 20000000,
  MAX_ATTR_CHARS: 2048,
  MAX_IMAGE_PX: 100000,
  MAX_CLASSES: 32,
  MAX_META: 256,
  MAX_LINKS: 32,
  MAX_JSON_LD: 32,
  MAX_JSON_LD_CHARS: 100000,
  MAX_TAG_CHARS: 64,
  MAX_TITLE_CHARS: 4096,
  MAX_LANG_CHARS: 64,
  DATE_ATTRIBUTES: Object.freeze(["datetime", "publishdate", "publish-date", "published", "data-published", "data-publishdate", "data-publish-date", "data-published-date", "data-publicationdate", "data-pubdate", "date-time", "data-date", "data-datetime", "data-timestamp"]),
  MAX_REQUEST_BYTES: 67108864,
  MAX_FILENAME_CHARS: 100,
  MAX_FILENAME_BYTES: 200,
  MAX_TEMPLATE_BYTES: 16384,
  MAX_TEMPLATE_PROPERTIES: 50,
  MAX_SAVED_IMAGES: 100,
  MAX_IMAGE_BYTES: 20971520,
  FIRST_SCREEN_CHARS: 4000,
  HOST_NAME: "org.pith.reader",
  HELLO_TIMEOUT_MS: 60000,  // the first request loads the model: allow for a cold disk
  HOST_EARLY_RETRY_MS: 600000,  // after a start ahead of the click fails, none is tried for this long
  EXTRACT_TIMEOUT_MS: 60000,  // base allowance for one extraction...
  EXTRACT_TIMEOUT_MS_PER_MB: 5000,  // ...plus this much per MB of snapshot JSON
  PROGRESS_AFTER_MS: 400,  // show "working" only when a step takes longer than this
  TOAST_MS: 6000,  // how long a success note stays on the page (errors stay until closed)
  FRAME_WAIT_MS: 10000,  // the reader's frame loads and shows its article within this, or the run fails
  BLOB_URL_LIFETIME_MS: 60000,  // a saved article's download URL lives this long (the download reads it at once)
  READER_FONT_MIN_PX: 14,  // the reader's text size: smallest...
  READER_FONT_MAX_PX: 28,  // ...largest...
  READER_FONT_DEFAULT_PX: 19,  // ...and at first
});
globalThis.PITH_CONTRACTS = Object.freeze({
  SKIP_SUBTREE: Object.freeze(["head", "noscript", "script", "style", "template"]),
  LEAF_ONLY: Object.freeze(["audio", "canvas", "embed", "iframe", "object", "select", "svg", "video"]),
  TEX_SCRIPT: Object.freeze(["math/tex", "mode=display"]),
  INLINE: Object.freeze(["a", "abbr", "acronym", "b", "bdi", "bdo", "big", "br", "cite", "code", "data", "del", "dfn", "em", "font", "i", "ins", "kbd", "label", "mark", "nobr", "q", "rp", "rt", "ruby", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr"]),
  META_KEYS: Object.freeze(["name", "property", "itemprop"]),
  LINK_RELS: Object.freeze(["author", "canonical"]),
  DIRS: Object.freeze(["auto", "ltr", "rtl"]),
  HTML_TAGS: Object.freeze({"blockquote": Object.freeze(["id"]), "caption": Object.freeze(["id"]), "dd": Object.freeze(["id"]), "dl": Object.freeze(["id"]), "dt": Object.freeze(["id"]), "figcaption": Object.freeze(["id"]), "figure": Object.freeze(["id"]), "h1": Object.freeze(["id"]), "h2": Object.freeze(["id"]), "h3": Object.freeze(["id"]), "h4": Object.freeze(["id"]), "h5": Object.freeze(["id"]), "h6": Object.freeze(["id"]), "li": Object.freeze(["id"]), "ol": Object.freeze(["id"]), "p": Object.freeze(["id"]), "pre": Object.freeze(["class", "id"]), "table": Object.freeze(["id"]), "tbody": Object.freeze(["id"]), "td": Object.freeze(["id"]), "tfoot": Object.freeze(["id"]), "th": Object.freeze(["id"]), "thead": Object.freeze(["id"]), "tr": Object.freeze(["id"]), "ul": Object.freeze(["id"]), "abbr": Object.freeze(["id"]), "cite": Object.freeze(["id"]), "code": Object.freeze(["class", "id"]), "em": Object.freeze(["id"]), "mark": Object.freeze(["id"]), "q": Object.freeze(["id"]), "s": Object.freeze(["id"]), "span": Object.freeze(["id"]), "strong": Object.freeze(["id"]), "sub": Object.freeze(["id"]), "sup": Object.freeze(["id"]), "a": Object.freeze(["href", "id"]), "img": Object.freeze(["src", "alt", "width", "height", "class"]), "br": Object.freeze([]), "hr": Object.freeze([]), "section": Object.freeze(["class"]), "time": Object.freeze(["datetime"])}),
  MATHML_TAGS: Object.freeze({"annotation": Object.freeze([]), "math": Object.freeze(["display"]), "menclose": Object.freeze([]), "merror": Object.freeze([]), "mfrac": Object.freeze([]), "mi": Object.freeze([]), "mmultiscripts": Object.freeze([]), "mn": Object.freeze([]), "mo": Object.freeze([]), "mover": Object.freeze([]), "mpadded": Object.freeze([]), "mphantom": Object.freeze([]), "mprescripts": Object.freeze([]), "mroot": Object.freeze([]), "mrow": Object.freeze([]), "ms": Object.freeze([]), "mspace": Object.freeze([]), "msqrt": Object.freeze([]), "mstyle": Object.freeze([]), "msub": Object.freeze([]), "msubsup": Object.freeze([]), "msup": Object.freeze([]), "mtable": Object.freeze([]), "mtd": Object.freeze([]), "mtext": Object.freeze([]), "mtr": Object.freeze([]), "munder": Object.freeze([]), "munderover": Object.freeze([]), "none": Object.freeze([]), "semantics": Object.freeze([])}),
  ERROR_CODES: Object.freeze(["bad_input", "bad_request", "bad_snapshot", "cannot_write", "internal", "missing_extra", "model_unavailable", "not_html", "timeout", "too_large", "unknown_type", "unsupported_version"]),
  METADATA_FIELDS: Object.freeze(["url", "title", "byline", "date", "modified", "lang", "dir", "site_name", "description", "canonical_url", "image", "page_type", "shape", "word_count", "reading_minutes", "tags"]),
  SHAPES: Object.freeze(["article", "forum", "listing", "product", "documentation"]),
  TERMINAL_CONTROLS: "[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f]",
});
