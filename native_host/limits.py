"""Every size and time limit of Pith, in one place.

A web page is untrusted input: these bounds keep a hostile page from costing unbounded time or memory.
Where a limit cuts a page short, the answer carries ``truncated: true`` so the user knows.
"""

import os

# Snapshot building and validation.
MAX_NODES = 200_000  # nodes kept per snapshot; later nodes are dropped (truncated)
MAX_NODE_TEXT = 100_000  # characters kept per text node
MAX_TOTAL_TEXT = 20_000_000  # characters kept per snapshot, all text nodes together
MAX_ATTR_CHARS = 2_048  # characters kept per attribute value (class, id, href, src, alt, role)
MAX_CLASSES = 32  # class names kept per element
MAX_TAG_CHARS = 64  # of an element's tag name, and of its CSS display value (live)
# HTML before the parser (pipeline/html_input.py): the parser's time grows with the square of the nesting depth
# (minutes at 200,000 nested <div>s) and no time limit can stop it, so tags nested deeper than this are left
# out (truncated), as Chromium's parser caps its tree at 512. Pages with fewer tags are parsed as they are.
MAX_PARSE_DEPTH = 512
DEPTH_SCAN_MIN_TAGS = 20_000  # start tags in a page before its nesting is scanned: all nested, ~0.5 s of parse
MAX_TITLE_CHARS = 4096  # of the page's <title>
MAX_LANG_CHARS = 64  # of the page's lang tag
MAX_URL_CHARS = 8192  # of the page's address a snapshot arrives with
# Live-render numbers (the content script's), bounded to what a browser produces: a snapshot over them is
# refused; the features divide by and scale them, so a huge value must not reach the model.
MAX_COORD_PX = 1e9  # |x|, |y|, width, height of a box; the viewport's sides and scroll height
MAX_FONT_SIZE_PX = 1e6
MAX_FONT_WEIGHT = 1000  # CSS's largest
# An image's width and height attributes (CSS pixels) as the snapshot keeps them, so the reader gives the picture
# the page's size and its box before it loads; a larger side, a percentage or no number is left out.
MAX_IMAGE_PX = 100_000
# The page's metadata (snapshot v2): the first so many of each are kept; they never set `truncated`.
MAX_META = 256  # <meta> tags with a name, property or itemprop (dev pages: 210 at most)
MAX_LINKS = 32  # <link rel=canonical|author>
MAX_JSON_LD = 32  # JSON-LD scripts (dev pages: 15 at most)
MAX_JSON_LD_CHARS = 100_000  # characters per JSON-LD script; a longer one is left out, as cut it would not parse
# The attributes that hold a date on any element (`<time datetime>`, `<lit-timestamp publishdate>`, `<span
# data-published>`...): the first of these an element has, in this order, is its `datetime` field, cut to
# MAX_ATTR_CHARS. One value per element; extension/limits.js is written from it (native_host/contracts.py).
DATE_ATTRIBUTES = (
    "datetime",
    "publishdate",
    "publish-date",
    "published",
    "data-published",
    "data-publishdate",
    "data-publish-date",
    "data-published-date",
    "data-publicationdate",
    "data-pubdate",
    "date-time",
    "data-date",
    "data-datetime",
    "data-timestamp",
)  # a publication's names first

# Blocks: the sequence the model labels.
MAX_BLOCKS = 20_000  # blocks labelled per page; the rest are labelled boilerplate (truncated)
MAX_BLOCK_TEXT = 20_000  # characters of a block's text kept for features and the article

# Inference threads (onnxruntime, intra-op). Batch work runs one page per worker process on one thread each;
# where a person waits on one page (the host, `pith extract FILE`), up to this many cores share it.
ONE_PAGE_THREADS = 4


def one_page_threads() -> int:
    """Inference threads for a page a person is waiting on: the machine's cores, up to ONE_PAGE_THREADS."""
    return max(1, min(ONE_PAGE_THREADS, os.cpu_count() or 1))


# Corpus jobs (native_host/corpus/). A page over this becomes a row with a "timeout" error and the job goes on. The
# slowest pages the size limits allow take ~7 s (docs/security.md); this leaves room for a slower machine.
PAGE_TIME_LIMIT_S = 20.0
RAY_CONNECT_TIMEOUT_S = 10.0  # to reach --ray-address before handing it to Ray (which retries for minutes)

# Native messaging.
MAX_REQUEST_BYTES = 64 * 1024 * 1024  # browser -> host: Chromium's cap (Firefox sends up to 4 GiB)
MAX_REPLY_FRAME_BYTES = 1024 * 1024  # host -> browser cap; longer answers are chunked
HOST_IDLE_TIMEOUT_S = 600.0  # the host exits after this long without a request (0 = never)
HOST_FRAMES_IN_FLIGHT = 2  # requests read and not yet answered: the one in work and one read ahead
HOST_BYTES_IN_FLIGHT = MAX_REQUEST_BYTES  # their sizes together; past it a frame waits unread until the host is idle
# After a reply's part (`first`: the reader's first screen) the host waits this long, or until the next message
# arrives, before building the rest (Markdown, text): the browser paints the part meanwhile without the host on
# one of its cores (docs/protocol.md, Parts). The rest only enables Copy and Save.
REST_AFTER_PART_S = 0.15
# Text (characters) the reader's first screen shows before its first paint: the host's `part` holds the
# article's first top-level elements with at least this much where the rest is long, and the frame parses that
# much alone before painting (docs/protocol.md, Parts; extension/reader/reader.js).
FIRST_SCREEN_CHARS = 4000
MAX_QUOTED_CHARS = 80  # of a request's value quoted in an error reply and the log
MAX_REQUEST_ID = 2**53 - 1  # |id| a request may carry: the largest integer JavaScript holds exactly
# JSON objects and arrays, and object keys, a request may hold: a valid snapshot's most (a node is an object with a
# `classes` and a `box` array and at most 24 keys; the page adds its own object, arrays and keys, each meta tag
# and link) plus room for the envelope. A frame over either is refused before it is decoded: decoding costs up
# to ~35 bytes of memory per byte of a frame of tiny containers or unique keys (docs/security.md, Memory).
MAX_REQUEST_CONTAINERS = 3 * MAX_NODES + MAX_META + MAX_LINKS + 64
MAX_REQUEST_KEYS = 24 * MAX_NODES + 4 * MAX_META + 2 * MAX_LINKS + 64

# Saved files (native_host/files.py, extension/background/save.js): a name from a page title, before ".md".
MAX_FILENAME_CHARS = 100  # characters kept of the title
MAX_FILENAME_BYTES = 200  # of UTF-8: file systems allow 255 bytes, with room for " (12).md"
MAX_TEMPLATE_BYTES = 16384  # a save template's JSON text (docs/extension.md, Save)
MAX_TEMPLATE_PROPERTIES = 50  # and its properties
MAX_SAVED_IMAGES = 100  # images saved beside one Markdown file; the rest stay links
MAX_IMAGE_BYTES = 20 * 1024 * 1024  # and each image's size

# Host logs (platformdirs user_log_dir, or $PITH_LOG_DIR).
LOG_MAX_BYTES = 1024 * 1024  # one log file, before it is rotated
LOG_BACKUPS = 3  # rotated files kept

# `pith doctor`.
DOCTOR_ROUNDTRIP_TIMEOUT_S = 60.0  # the whole round trip through the launcher, model load included

# The reader's form by page type (native_host/pipeline/shape.py). The model's page type shapes the reader only at
# this probability or more: under it the page reads as an article, the form every page reads well in, where a
# wrong form (a news page cut into "posts") reads worse than none. On WCXB's 121 dev pages (`python -m
# bench.shape_confidence`) it leaves one page in a wrong form, against five with no threshold, and the form
# is right on .893 of them against .909 (the others read as articles). See docs/extension.md.
SHAPE_MIN_CONFIDENCE = 0.8
SHAPE_MIN_POSTS = 2  # posts with an author, for a thread's form
# Under SHAPE_MIN_CONFIDENCE and with no type the page states, a page the head gives at least this probability of
# being a forum tries the thread's form, which takes only where SHAPE_MIN_POSTS posts with authors are found: a
# thread whose markup the model has not seen (a forum app rendered in the browser) splits its vote between
# forum and listing. On WCXB's pages out of fold it gives the thread's form to 2 more threads and to no page
# of another type (docs/extension.md).
SHAPE_FORUM_SHARE = 0.2
SHAPE_MIN_ITEMS = 3  # entries with a linked title, for a listing's form
SHAPE_UNIT_SHARE = 0.4  # of the main blocks the posts or entries hold together (the rest stays, around them)
# Runs of other main content between a thread's posts: each is built from the whole page (a pass over its nodes),
# so a page of a thousand posts each followed by a main line must not cost a thousand passes.
SHAPE_MAX_GAPS = 16
# A hostile page nests its text 500 deep under 20,000 blocks: posts and entries are looked for this many levels
# above each block, among the few sets of siblings that hold the most units.
SHAPE_UNIT_LEVELS = 24
SHAPE_MAX_TRIES = 4
SHAPE_MAX_UNITS = 2000  # posts or entries of one page; a page with more reads as an article
SHAPE_MAX_IMAGES = 8  # a product's pictures above its description
