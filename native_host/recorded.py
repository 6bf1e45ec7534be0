"""Recorded snapshots: msgpack records, one after another in one file (the extension's "Record this page"
file holds one; export/recordings.py writes and indexes whole training corpora in the same format).

A record is a map ``{"id": str, "snapshot": dict}`` (plus anything the recorder adds, e.g. "ms"). Appending
record by record means a recorder killed mid-write leaves at most one truncated record at the end; the reader
stops there instead of failing. The runtime only replays a recorded page (`pith extract --snapshot`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, TypedDict

import msgpack


class CorpusRecord(TypedDict, total=False):
    id: str
    snapshot: dict
    ms: float
    loaded: bool  # False when the page's load event had not fired by the timeout (snapshot taken anyway)


def scan(f: BinaryIO) -> Iterator[tuple[int, CorpusRecord]]:
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
        for _, record in scan(f):
            yield record


def read_one(path: Path) -> CorpusRecord:
    """The first record (a single-page .msgpack saved by the extension); a clear error when there is none."""
    for record in read(path):
        return record
    raise ValueError(f"{path} holds no complete snapshot record; record the page again")
