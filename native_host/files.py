"""Writing files whose names or contents come from a page, without writing anywhere else.

A page chooses its title, and the title becomes a file name: `safe_filename` makes any title a plain name
that is safe on Linux, macOS and Windows, by the same rules as the extension's `safeFilename`
(extension/background/save.js; tests/test_files.py checks that the two agree). `write_new` never
overwrites (it picks "name (2).md" as the browsers' downloads do), and `replaced_atomically` writes beside
the target under a fresh name and renames, so a partial file never takes the target's place and an
existing file or link of the temporary's name is never followed.
"""

from __future__ import annotations

import os
import re
import tempfile
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from .errors import InputError
from .limits import MAX_FILENAME_BYTES, MAX_FILENAME_CHARS

# What Windows, macOS or Linux refuse in a name, or read as a path: each becomes a blank, but a colon before a
# blank reads as a dash ("Clockwork: a keeper" -> "Clockwork - a keeper") and a double quote as a single one.
FORBIDDEN = frozenset('<>:"/\\|?*')
# Format characters (bidi overrides, zero-width spaces, soft hyphens) are dropped, but the joiners that
# Persian, Indic scripts and emoji sequences need.
JOINERS = frozenset("\u200c\u200d")
# Names Windows reserves for devices, with any extension ("con.tar.md" opens the console too).
WINDOWS_RESERVED = re.compile(r"^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(\s*\..*)?$", re.I)
FALLBACK = "article"


def _char(char: str) -> str:
    """One character of a title as it goes into a name (extension/article_document.js's twin)."""
    if char in FORBIDDEN:
        return "'" if char == '"' else " "
    category = unicodedata.category(char)
    if category in ("Cc", "Zs", "Zl", "Zp"):
        return " "
    if category[0] == "C" and char not in JOINERS:
        return ""
    return char


def safe_stem(title: str | None) -> str:
    """A file name without its extension, from a page title: the title as it reads, apostrophes, dashes,
    accents, emoji and all, less what a file system refuses; never a path, a dot file, a device name or
    empty; at most MAX_FILENAME_CHARS characters and MAX_FILENAME_BYTES of UTF-8 (file systems count bytes:
    255 on most). Its own result gives it back (the background checks the reader's names with that)."""
    name = unicodedata.normalize("NFC", title or "").replace(": ", " - ")
    name = re.sub(" +", " ", "".join(_char(c) for c in name)).lstrip(" .")
    name = name[:MAX_FILENAME_CHARS]
    while len(name.encode("utf-8")) > MAX_FILENAME_BYTES:
        name = name[:-1]
    name = name.rstrip(" .") or FALLBACK
    if WINDOWS_RESERVED.match(name):
        name = f"{FALLBACK} {name}"
    return name


def safe_filename(title: str | None, extension: str) -> str:
    """`safe_stem(title)` with its extension."""
    return f"{safe_stem(title)}.{extension}"


def write_new(directory: Path, name: str, data: bytes) -> Path:
    """Write `data` to `directory/name`, or to "stem (2).ext", "stem (3).ext"... if that exists: never over an
    existing file, never through a link. `name` must be a plain name (from safe_filename)."""
    if Path(name).name != name or name in (".", ".."):
        raise InputError(f"{name!r} is not a plain file name")
    if not directory.is_dir():
        raise InputError(f"{directory} is not a directory; create it or choose another")
    stem, dot, ext = name.rpartition(".") if "." in name else (name, "", "")
    for n in range(1, 10_000):
        candidate = directory / (name if n == 1 else f"{stem} ({n}){dot}{ext}")
        try:
            fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        return candidate
    raise InputError(f"{directory} already holds 9,999 files named like {name!r}; choose another directory")


@contextmanager
def replaced_atomically(target: Path, encoding: str | None = "utf-8") -> Iterator[IO]:
    """A file that becomes `target` when the block ends without error (and is removed if it fails): text in
    `encoding`, or binary when `encoding` is None."""
    if target.is_dir():
        raise InputError(f"{target} is a directory; give a file name, such as {target / 'result.jsonl'}")
    if not target.parent.is_dir():
        raise InputError(f"{target.parent} does not exist; create it or choose another place for {target.name}")
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") if encoding is None else os.fdopen(fd, "w", encoding=encoding) as out:
            yield out
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(temporary, 0o666 & ~mask)  # as open() would have made it, not mkstemp's private 0600
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def shown(path: str) -> str:
    """A file name as rows and messages write it: as it is where it is UTF-8; a name that is not (read by
    Python as surrogate escapes) shows each byte that is not UTF-8 as `\\xNN`, so that it can be written as
    UTF-8 at all. `codecs.escape_decode(shown.encode())[0]` gives the bytes back (for a name without a
    backslash of its own)."""
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
