"""Rows -> files: JSON lines or Parquet by the output's extension, and one Parquet shard per input file.

Every file is written under a temporary name and renamed when complete (native_host/files.py), so a file
that exists is a finished one: that is what lets a job that stopped start again where it was, skipping each
input whose shard is there.
"""

from __future__ import annotations

import errno
import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import InputError, OutputError
from ..files import replaced_atomically, shown
from ..render.columns import arrow_schema
from .extras import need
from .pages import HTML_SUFFIXES
from .rows import Tally
from .warc import WARC_SUFFIXES

ROWS_PER_GROUP = 1000  # Parquet rows buffered before a row group is written: ~5 MB of text at a page's ~5 kB
SHARD_SUFFIX = ".parquet"
INPUT_SUFFIXES = WARC_SUFFIXES + HTML_SUFFIXES


def is_parquet(out: Path) -> bool:
    return out.suffix.lower() == ".parquet"


def is_shard_dir(out: Path) -> bool:
    """--out names a directory of shards: one that exists, or a new name without an extension."""
    return out.is_dir() or (not out.suffix and not out.exists())


@contextmanager
def row_writer(out: Path, fields: tuple[str, ...], shard: bool = False) -> Iterator[Callable[[dict], dict]]:
    """A function taking one row at a time and giving back the row written: the row itself, or, where the
    format cannot hold it (a value too large for Parquet, a string no encoding writes), an error row in its
    place. `out` appears, complete, when the block ends without error; an OSError writing it (no space, no
    permission) is an OutputError, one line."""
    try:
        with _row_writer(out, fields) as write:
            yield write
    except OSError as exc:
        raise _cannot_write(out, exc, shard) from exc


@contextmanager
def _row_writer(out: Path, fields: tuple[str, ...]) -> Iterator[Callable[[dict], dict]]:
    if not is_parquet(out):
        with replaced_atomically(out) as f:

            def write_line(row: dict) -> dict:
                try:  # the line is encoded whole before any of it is written
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")
                except (ValueError, TypeError) as exc:  # UnicodeEncodeError: a lone surrogate
                    row = unwritable(row, "JSON lines", exc)
                    f.write(json.dumps(row) + "\n")
                return row

            yield write_line
        return
    pq = need("pyarrow.parquet")
    pa = need("pyarrow")
    schema = arrow_schema(pa, fields)
    buffered: list = []  # one-row record batches: a row the format refuses is known as it comes
    with replaced_atomically(out, encoding=None) as f, pq.ParquetWriter(f, schema, compression="zstd") as writer:

        def write(row: dict) -> dict:
            try:
                batch = pa.RecordBatch.from_pylist([row], schema=schema)
            except OSError:
                raise
            except Exception as exc:  # ArrowCapacityError, OverflowError, a lone surrogate...
                row = unwritable(row, "Parquet", exc)
                batch = pa.RecordBatch.from_pylist([row], schema=schema)
            buffered.append(batch)
            if len(buffered) >= ROWS_PER_GROUP:
                writer.write_table(pa.Table.from_batches(buffered, schema=schema))
                buffered.clear()
            return row

        yield write
        if buffered:
            writer.write_table(pa.Table.from_batches(buffered, schema=schema))


def unwritable(row: dict, form: str, exc: Exception) -> dict:
    """The error row that takes the place of a row `form` cannot hold: its page columns, and why."""
    from ..render.columns import BY_NAME

    kept = {k: (shown(v) if isinstance(v, str) else v) if BY_NAME[k].of_page else None for k, v in row.items()}
    code = "too_large" if isinstance(exc, OverflowError) or type(exc).__name__ == "ArrowCapacityError" else "internal"
    kept["error"] = {
        "code": code,
        "message": shown(f"the page's row cannot be written as {form} ({type(exc).__name__}: {exc}); it is left out")[
            :500
        ],
    }
    return kept


def _cannot_write(out: Path, exc: OSError, shard: bool) -> OutputError:
    ways_out: dict[int | None, str] = {
        errno.ENOSPC: "free some space, or give --out on another disk",
        errno.EDQUOT: "free some of your quota, or give --out on another disk",
    }
    way_out = ways_out.get(exc.errno, "give --out a place you can write to")  # errno: None when not set
    name = shown(str(exc.filename)) if exc.filename else shown(str(out))
    kept = (
        "The shards already written are complete: run the same command again and it resumes after them"
        if shard
        else f"Nothing was written: {shown(out.name)} appears only when complete"
    )
    return OutputError(f"cannot write {name}: {exc.strerror or exc}; {way_out}. {kept}")


def write_shard(shard: Path, rows: Iterable[dict], fields: tuple[str, ...], tally: Tally) -> None:
    """Write one input's rows to its shard, counting them in `tally`."""
    try:
        shard.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _cannot_write(shard.parent, exc, True) from exc
    with row_writer(shard, fields, shard=True) as write:
        for row in rows:
            tally.add(write(row))


def shard_paths(files: list[tuple[str, str]], out_dir: Path) -> list[Path]:
    """Each input's shard: its name relative to the input named (a directory's subfolders kept), its extension
    replaced by .parquet. Two inputs that would share a shard are an InputError."""
    shards: list[Path] = []
    seen: dict[Path, str] = {}
    for path, name in files:
        stem = next((name[: -len(s)] for s in INPUT_SUFFIXES if name.lower().endswith(s)), name)
        shard = out_dir / (stem + SHARD_SUFFIX)
        if shard in seen:
            raise InputError(
                f"{seen[shard]} and {path} would both be written to {shard}; give them in separate runs or rename one"
            )
        seen[shard] = path
        shards.append(shard)
    return shards
