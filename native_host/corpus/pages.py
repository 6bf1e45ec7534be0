"""Pages: what every corpus job reads, whichever engine runs it, and the input files it reads them from.

An input file is an HTML file (one page) or a WARC file (many: native_host/corpus/warc.py); corpus/readers.py
reads either into pages. A page that cannot be read still becomes a `Page`, with `problem` set, so it becomes a
row carrying the error: nothing is lost without a trace.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

HTML_SUFFIXES = (".html", ".htm", ".xhtml")


@dataclass(frozen=True)
class Page:
    """One page to extract. `path` is the input file it came from; `charset` is the HTTP one, where known."""

    path: str
    html: bytes | None
    url: str | None = None
    record_id: str | None = None  # WARC-Record-ID
    charset: str | None = None
    status: int | None = None  # HTTP status
    problem: str | None = None  # why the page could not be read; html is None then


def input_files(inputs: list[str], suffixes: tuple[str, ...]) -> list[tuple[str, str]]:
    """(file, its name relative to the input that named it): files named, and files under the directories
    named whose names end with one of `suffixes` (sorted). A directory that cannot be listed is kept as an
    input of its own, so that it becomes a row with its error (`file_pages`). InputError for a name that is
    neither file nor directory, or a directory with none of these files and no unreadable part."""
    from ..errors import InputError

    files: list[tuple[str, str]] = []
    for item in inputs:
        path = Path(item)
        if item == "-":
            files.append((item, item))
        elif path.is_dir():
            unreadable: list[OSError] = []
            found: list[Path] = []
            for folder, _, names in os.walk(path, onerror=unreadable.append):
                found.extend(Path(folder, name) for name in names if name.lower().endswith(suffixes))
            found += [Path(exc.filename) for exc in unreadable if exc.filename is not None]
            if not found:
                raise InputError(f"no {'/'.join(suffixes)} files in directory {item}")
            files.extend((str(p), p.relative_to(path).as_posix() if p != path else p.name) for p in sorted(found))
        elif path.is_file():
            files.append((item, path.name))
        else:
            raise InputError(f"no such file or directory: {item}")
    return files
