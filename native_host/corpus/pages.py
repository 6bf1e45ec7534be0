"""Inputs -> pages: what every corpus job reads, whichever engine runs it.

An input file is an HTML file (one page) or a WARC file (many: native_host/corpus/warc.py). A page that cannot
be read still becomes a `Page`, with `problem` set, so it becomes a row carrying the error: nothing is lost
without a trace.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

HTML_SUFFIXES = (".html", ".htm", ".xhtml")


@dataclass(frozen=True)
class Page:
    """One page to extract. `path` is the input file it came from; `charset` is the HTTP one, where known."""

    path: str
    html: bytes | None
    url: str | None = None
    record_id: str | None = None   # WARC-Record-ID
    charset: str | None = None
    status: int | None = None      # HTTP status
    problem: str | None = None     # why the page could not be read; html is None then


def input_files(inputs: list[str], suffixes: tuple[str, ...]) -> list[tuple[str, str]]:
    """(file, its name relative to the input that named it): files named, and files under the directories
    named whose names end with one of `suffixes` (sorted). InputError for a name that is neither, or a
    directory with none."""
    from ..errors import InputError

    files: list[tuple[str, str]] = []
    for item in inputs:
        path = Path(item)
        if item == "-":
            files.append((item, item))
        elif path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.name.lower().endswith(suffixes) and p.is_file())
            if not found:
                raise InputError(f"no {'/'.join(suffixes)} files in directory {item}")
            files.extend((str(p), p.relative_to(path).as_posix()) for p in found)
        elif path.is_file():
            files.append((item, path.name))
        else:
            raise InputError(f"no such file or directory: {item}")
    return files


def file_pages(path: str, url: str | None = None) -> Iterator[Page]:
    """The pages of one input file: a WARC file's HTML responses, or an HTML file as one page."""
    from .warc import is_warc, warc_pages

    if is_warc(path):
        yield from warc_pages(path)
        return
    try:
        yield Page(path=path, html=Path(path).read_bytes(), url=url)
    except OSError as exc:
        yield Page(path=path, html=None, url=url, problem=f"cannot read {path}: {exc.strerror}")
