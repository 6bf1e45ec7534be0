"""What the extension shares with the host, written from the host's own definitions into extension/limits.js.

Python is the one source: the limits (native_host/limits.py), the snapshot's tag sets (pipeline/snapshot.py,
pipeline/blocks.py), the article's allowlist (pipeline/article.py), the terminal controls (pipeline/inert.py), the error codes (errors.py) and the fields of
every reply's article (result.py). The
extension loads the written file in every context (injected before the content scripts, imported by the
background, a classic script in the options page) as the globals PITH_LIMITS and PITH_CONTRACTS.
tests/test_extension_files.py fails while the file differs from what this module writes now.

    python -m native_host.contracts           # write extension/limits.js
    python -m native_host.contracts --check   # exit 1 if it is out of date
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from native_host import errors, limits
from native_host.browser.identity import HOST_NAME
from native_host.pipeline.article import HTML_TAGS, MATHML_TAGS
from native_host.pipeline.blocks import INLINE
from native_host.pipeline.inert import TERMINAL_CONTROLS
from native_host.pipeline.shape import SHAPES
from native_host.pipeline.snapshot import (
    DIRS,
    LEAF_ONLY,
    LINK_RELS,
    META_KEYS,
    SKIP_SUBTREE,
    TEX_DISPLAY_MODE,
    TEX_SCRIPT_TYPE,
)
from native_host.result import REPLY_FIELDS

PATH = Path(__file__).resolve().parent.parent / "extension" / "limits.js"
COMMAND = "python -m native_host.contracts"

# The limits.py names the extension reads, in the order written.
SHARED_LIMITS = (
    "MAX_NODES",
    "MAX_NODE_TEXT",
    "MAX_TOTAL_TEXT",
    "MAX_ATTR_CHARS",
    "MAX_IMAGE_PX",
    "MAX_CLASSES",
    "MAX_META",
    "MAX_LINKS",
    "MAX_JSON_LD",
    "MAX_JSON_LD_CHARS",
    "MAX_TAG_CHARS",
    "MAX_TITLE_CHARS",
    "MAX_LANG_CHARS",
    "DATE_ATTRIBUTES",
    "MAX_REQUEST_BYTES",
    "MAX_FILENAME_CHARS",
    "MAX_FILENAME_BYTES",
    "MAX_TEMPLATE_BYTES",
    "MAX_TEMPLATE_PROPERTIES",
    "MAX_SAVED_IMAGES",
    "MAX_IMAGE_BYTES",
    "FIRST_SCREEN_CHARS",
)

# The extension's own bounds, which the host never sees: name, value, what it bounds.
EXTENSION_LIMITS = (
    ("HELLO_TIMEOUT_MS", 60000, "the first request loads the model: allow for a cold disk"),
    ("HOST_EARLY_RETRY_MS", 600000, "after a start ahead of the click fails, none is tried for this long"),
    ("EXTRACT_TIMEOUT_MS", 60000, "base allowance for one extraction..."),
    ("EXTRACT_TIMEOUT_MS_PER_MB", 5000, "...plus this much per MB of snapshot JSON"),
    ("PROGRESS_AFTER_MS", 400, 'show "working" only when a step takes longer than this'),
    ("TOAST_MS", 6000, "how long a success note stays on the page (errors stay until closed)"),
    ("FRAME_WAIT_MS", 10000, "the reader's frame loads and shows its article within this, or the run fails"),
    ("BLOB_URL_LIFETIME_MS", 60000, "a saved article's download URL lives this long (the download reads it at once)"),
    ("READER_FONT_MIN_PX", 14, "the reader's text size: smallest..."),
    ("READER_FONT_MAX_PX", 28, "...largest..."),
    ("READER_FONT_DEFAULT_PX", 19, "...and at first"),
)


def error_codes() -> list[str]:
    """Every code a PithError carries (background/errors.js must have words for each)."""
    return sorted(
        {cls.code for cls in vars(errors).values() if isinstance(cls, type) and issubclass(cls, errors.PithError)}
    )


def contracts() -> dict[str, object]:
    """The lists both sides read, as JSON values (sets sorted)."""
    return {
        # The live path skips <noscript> as well: scripts run there, so its content is never shown (docs/snapshot.md).
        "SKIP_SUBTREE": sorted(SKIP_SUBTREE | {"noscript"}),
        "LEAF_ONLY": sorted(LEAF_ONLY),
        "TEX_SCRIPT": [TEX_SCRIPT_TYPE, TEX_DISPLAY_MODE],  # snapshot.formula_nodes's script type and display mode
        "INLINE": sorted(INLINE),
        "META_KEYS": list(META_KEYS),
        "LINK_RELS": sorted(LINK_RELS),
        "DIRS": sorted(DIRS),
        "HTML_TAGS": {tag: list(attrs) for tag, attrs in HTML_TAGS.items()},
        "MATHML_TAGS": {tag: list(attrs) for tag, attrs in MATHML_TAGS.items()},
        "ERROR_CODES": error_codes(),
        "METADATA_FIELDS": list(REPLY_FIELDS),  # what every reply's article carries (background/actions.js)
        "SHAPES": list(SHAPES),  # the reader's forms (pipeline/shape.py): the reader styles each
        # A character class read by both regular expression engines alike (article_document.js: new RegExp).
        "TERMINAL_CONTROLS": TERMINAL_CONTROLS.pattern,
    }


def _frozen(value: object) -> str:
    """A JSON value as JavaScript, every array and object frozen."""
    if isinstance(value, list):
        return "Object.freeze([" + ", ".join(_frozen(v) for v in value) + "])"
    if isinstance(value, dict):
        return "Object.freeze({" + ", ".join(f"{json.dumps(k)}: {_frozen(v)}" for k, v in value.items()) + "})"
    return json.dumps(value)


def render() -> str:
    """The text of extension/limits.js."""
    lines = [
        f"// Written by `{COMMAND}` from native_host/ (limits.py, pipeline/, errors.py): do not edit.",
        "// Loaded both as a classic script (injected into pages before the content scripts) and as a module",
        "// (imported by the background), so it only assigns globals.",
        "globalThis.PITH_LIMITS = Object.freeze({",
    ]
    for name in SHARED_LIMITS:
        value = getattr(limits, name)
        lines.append(f"  {name}: {_frozen(list(value) if isinstance(value, tuple) else value)},")
    lines.append(f"  HOST_NAME: {json.dumps(HOST_NAME)},")
    for name, value, note in EXTENSION_LIMITS:
        lines.append(f"  {name}: {json.dumps(value)},  // {note}")
    lines += ["});", "globalThis.PITH_CONTRACTS = Object.freeze({"]
    lines += [f"  {name}: {_frozen(value)}," for name, value in contracts().items()]
    lines += ["});", ""]
    return "\n".join(lines)


def write_generated(path: Path, text: str, command: str, args: list[str]) -> int:
    """A generated file's command line: `args` empty writes `text` to `path`, `--check` says whether `path`
    holds it already (1, naming `command`, where not); an exit status."""
    if args == ["--check"]:
        if path.read_text(encoding="utf-8") != text:
            print(f"{path} is out of date: run {command} to regenerate", file=sys.stderr)
            return 1
        return 0
    if args:
        print(f"usage: {command} [--check]", file=sys.stderr)
        return 2
    path.write_text(text, encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    return write_generated(PATH, render(), COMMAND, sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
