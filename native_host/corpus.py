"""Recorded snapshot corpora: msgpack records streamed one after another in one file.

A record is a map ``{"id": str, "snapshot": dict}`` (plus anything the recorder adds, e.g. "ms"). Appending
record by record means a recorder killed mid-write leaves at most one truncated record at the end; the reader
stops there instead of failing, and a resumed recorder cuts it off before appending more.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO, Iterator, TypedDict

import msgpack

CORPUS_NAME = "snapshots-{split}.msgpack"
LIVE_FIELDS = ("visible", "box", "font_size", "font_weight", "display")  # what only a rendered page has


class CorpusRecord(TypedDict, total=False):
    id: str
    snapshot: dict
    ms: float
    loaded: bool  # False when the page's load event had not fired by the timeout (snapshot taken anyway)


def default_dir() -> Path:
    """The per-user cache folder (platformdirs), where corpora go unless a path is given."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("pith"))


def default_path(split: str) -> Path:
    return default_dir() / CORPUS_NAME.format(split=split)


def _scan(f: BinaryIO) -> Iterator[tuple[int, CorpusRecord]]:
    """(end offset, record) for each complete record; stops silently at a truncated tail."""
    unpacker = msgpack.Unpacker(f, raw=False, strict_map_key=False, max_buffer_size=1 << 30)
    while True:
        try:
            record = unpacker.unpack()
        except msgpack.OutOfData:
            return
        except (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, ValueError):
            return  # garbage after the last good record: treat as truncation
        if not isinstance(record, dict) or not isinstance(record.get("id"), str):
            return
        yield unpacker.tell(), record  # type: ignore[misc]


def read(path: Path) -> Iterator[CorpusRecord]:
    """Every complete record of the corpus at `path`, in order."""
    with open(path, "rb") as f:
        for _, record in _scan(f):
            yield record


def read_one(path: Path) -> CorpusRecord:
    """The first record (a single-page .msgpack saved by the extension); a clear error when there is none."""
    for record in read(path):
        return record
    raise ValueError(f"{path} holds no complete snapshot record; record the page again")


def index(path: Path) -> dict[str, tuple[int, int]]:
    """id -> (start, end) byte range of each complete record: a large corpus is joined to the data pages by id
    without holding every snapshot in memory; `load_at` reads one back."""
    spans: dict[str, tuple[int, int]] = {}
    start = 0
    with open(path, "rb") as f:
        for end, record in _scan(f):
            spans[record["id"]] = (start, end)
            start = end
    return spans


def load_at(path: Path, span: tuple[int, int]) -> CorpusRecord:
    with open(path, "rb") as f:
        f.seek(span[0])
        return msgpack.unpackb(f.read(span[1] - span[0]), raw=False, strict_map_key=False)


def strip_live(snapshot: dict) -> dict:
    """A copy of a live snapshot without the live-render fields: the rendered DOM as an HTML snapshot would
    describe it, to tell the DOM's effect from the live features' effect."""
    nodes = [{k: v for k, v in node.items() if k not in LIVE_FIELDS} for node in snapshot["nodes"]]
    return {**snapshot, "nodes": nodes}


class Writer:
    """Appends records to a corpus, resuming an existing one: ids already stored are known (`done`), and a
    truncated last record is cut off first so the stream stays readable."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.done: set[str] = set()
        path.parent.mkdir(parents=True, exist_ok=True)
        good_end = 0
        if path.exists():
            with open(path, "rb") as f:
                for good_end, record in _scan(f):
                    self.done.add(record["id"])
        self._f = open(path, "ab")
        self._f.truncate(good_end)
        self._f.seek(good_end)

    def add(self, record: CorpusRecord) -> None:
        self._f.write(msgpack.packb(record, use_bin_type=True))
        self._f.flush()
        self.done.add(record["id"])

    def close(self) -> None:
        self._f.flush()
        os.fsync(self._f.fileno())
        self._f.close()

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
