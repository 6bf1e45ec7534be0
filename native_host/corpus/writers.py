"""Rows -> files: JSON lines or Parquet by the output's extension, and one Parquet shard per input file.

Every file is written under a temporary name and renamed when complete (native_host/cli/files.py), so a file
that exists is a finished one: that is what lets a job that stopped start again where it was, skipping each
input whose shard is there.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator

from ..cli.files import replaced_atomically
from ..errors import InputError
from .columns import arrow_schema
from .extras import need
from .pages import HTML_SUFFIXES
from .rows import Tally
from .warc import WARC_SUFFIXES

ROWS_PER_GROUP = 1000   # Parquet rows buffered before a row group is written: ~5 MB of text at a page's ~5 kB
SHARD_SUFFIX = ".parquet"
INPUT_SUFFIXES = WARC_SUFFIXES + HTML_SUFFIXES


def is_parquet(out: Path) -> bool:
    return out.suffix.lower() == ".parquet"


def is_shard_dir(out: Path) -> bool:
    """--out names a directory of shards: one that exists, or a new name without an extension."""
    return out.is_dir() or (not out.suffix and not out.exists())


@contextmanager
def row_writer(out: Path, fields: tuple[str, ...]) -> Iterator:
    """A function taking one row at a time; `out` appears, complete, when the block ends without error."""
    if not is_parquet(out):
        with replaced_atomically(out) as f:
            yield lambda row: f.write(json.dumps(row, ensure_ascii=False) + "\n")
        return
    pq = need("pyarrow.parquet")
    pa = need("pyarrow")
    schema = arrow_schema(fields)
    buffered: list[dict] = []
    with replaced_atomically(out, encoding=None) as f, pq.ParquetWriter(f, schema, compression="zstd") as writer:
        def write(row: dict) -> None:
            buffered.append(row)
            if len(buffered) >= ROWS_PER_GROUP:
                writer.write_table(pa.Table.from_pylist(buffered, schema=schema))
                buffered.clear()

        yield write
        if buffered:
            writer.write_table(pa.Table.from_pylist(buffered, schema=schema))


def write_shard(shard: Path, rows: Iterable[dict], fields: tuple[str, ...], tally: Tally) -> None:
    """Write one input's rows to its shard, counting them in `tally`."""
    shard.parent.mkdir(parents=True, exist_ok=True)
    with row_writer(shard, fields) as write:
        for row in rows:
            write(row)
            tally.add(row)


def shard_paths(files: list[tuple[str, str]], out_dir: Path) -> list[Path]:
    """Each input's shard: its name relative to the input named (a directory's subfolders kept), its extension
    replaced by .parquet. Two inputs that would share a shard are an InputError."""
    shards, seen = [], {}
    for path, name in files:
        stem = next((name[: -len(s)] for s in INPUT_SUFFIXES if name.lower().endswith(s)), name)
        shard = out_dir / (stem + SHARD_SUFFIX)
        if shard in seen:
            raise InputError(f"{seen[shard]} and {path} would both be written to {shard}; give them in separate "
                             "runs or rename one")
        seen[shard] = path
        shards.append(shard)
    return shards
