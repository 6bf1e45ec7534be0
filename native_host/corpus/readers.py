"""Input file -> pages: an HTML file is one page, a WARC file many (corpus/warc.py); what cannot be read is a
page carrying its problem."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from ..files import shown
from .pages import Page
from .warc import is_warc, warc_pages


def file_pages(path: str, url: str | None = None) -> Iterator[Page]:
    """The pages of one input file: a WARC file's HTML responses, or an HTML file as one page. What cannot be
    read (a directory that cannot be listed, a file that is no regular file or cannot be opened) is one page
    with its problem."""
    if os.path.isdir(path):
        why: str | None
        try:
            os.listdir(path)
            why = "it is a directory"
        except OSError as exc:
            why = exc.strerror
        yield Page(
            path=path,
            html=None,
            url=url,
            problem=f"cannot read directory {shown(path)}: {why}; the files in it are left out",
        )
        return
    if os.path.exists(path) and not os.path.isfile(path):
        yield Page(
            path=path, html=None, url=url, problem=f"{shown(path)} is not a regular file (a pipe, socket or device)"
        )
        return
    if is_warc(path):
        yield from warc_pages(path)
        return
    try:
        yield Page(path=path, html=Path(path).read_bytes(), url=url)
    except OSError as exc:
        yield Page(path=path, html=None, url=url, problem=f"cannot read {shown(path)}: {exc.strerror}")
