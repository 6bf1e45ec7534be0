"""Recorded snapshot corpora for training and measurement: the runtime's record format
(native_host/recorded.py), written, resumed and indexed by id.

A resumed recorder cuts a truncated last record off before appending more.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import msgpack

from native_host.pipeline.page_values import url_host
from native_host.recorded import CorpusRecord, read, read_one, scan  # noqa: F401 (re-exported)

if TYPE_CHECKING:
    from native_host.pipeline.blocks import Block

CORPUS_NAME = "snapshots-{split}.msgpack"
LIVE_FIELDS = ("visible", "box", "font_size", "font_weight", "display")  # what only a rendered page has
# A recording that holds under this share of its gold's words did not render offline (an app whose scripts
# cannot load, e.g. a Discourse forum shows no post): it says nothing of what a reader's browser shows, so it is
# neither trained on (export.prepare) nor scored (bench.live).
RENDERED_GOLD_SHARE = 0.5
RECORDER_HOST = "127.0.0.1"  # where export.record serves the pages it records


def default_dir() -> Path:
    """The per-user cache folder (platformdirs), where corpora go unless a path is given."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("pith"))


def default_path(split: str) -> Path:
    return default_dir() / CORPUS_NAME.format(split=split)


def index(path: Path) -> dict[str, tuple[int, int]]:
    """id -> (start, end) byte range of each complete record: a large corpus is joined to the data pages by id
    without holding every snapshot in memory; `load_at` reads one back."""
    spans: dict[str, tuple[int, int]] = {}
    start = 0
    with open(path, "rb") as f:
        for end, record in scan(f):
            spans[record["id"]] = (start, end)
            start = end
    return spans


def load_at(path: Path, span: tuple[int, int]) -> CorpusRecord:
    with open(path, "rb") as f:
        f.seek(span[0])
        return msgpack.unpackb(f.read(span[1] - span[0]), raw=False, strict_map_key=False)


def as_browsed(snapshot: dict, url: str | None) -> dict:
    """A recorded snapshot with the address a reader's browser gives it: the recorder serves each page from
    127.0.0.1 (nothing outside is reached), so its recording holds that address where the browser has the
    page's own. What reads the address (a section's front page, `metadata.section_front`; the site's name)
    then reads it as in the browser; the HTML path is given the same one. A snapshot taken elsewhere is
    returned as it is."""
    if url_host(snapshot.get("url") or "") == RECORDER_HOST:
        return {**snapshot, "url": url}
    return snapshot


def rendered_share(snapshot: dict, gold: str, blocks: Sequence[Block] | None = None) -> float:
    """The share of the gold's words (each occurrence) that the snapshot's text (its `blocks`, where the
    caller has them) holds anywhere."""
    from native_host.pipeline.blocks import blocks_from_snapshot

    from .metric import words

    page = {w for b in (blocks if blocks is not None else blocks_from_snapshot(snapshot)) for w in words(b.text)}
    gold_words = words(gold)
    return sum(w in page for w in gold_words) / len(gold_words) if gold_words else 1.0


def rendered(snapshot: dict, gold: str, blocks: Sequence[Block] | None = None) -> bool:
    """Whether a recorded snapshot shows the page's content (RENDERED_GOLD_SHARE)."""
    return rendered_share(snapshot, gold, blocks) >= RENDERED_GOLD_SHARE


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
                for good_end, record in scan(f):  # noqa: B007 - the last good offset is read after the loop
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

    def __enter__(self) -> Writer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
