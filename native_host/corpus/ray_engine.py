"""The Ray engine: a corpus job over a Ray cluster (a laptop's own, or one already running), with Ray Data.

The input files become a Ray dataset, one row each; an actor pool (`ShardWriter`, one CPU each, the model
loaded once per actor, one inference thread) takes a file at a time, extracts its pages with the same
`PageRows` as the local engine and writes the file's Parquet shard, complete or not at all. The file is the
unit of work because it is the unit of resumption: a job started again skips every input whose shard exists,
and a Common Crawl segment has ~90,000 files, far more than any cluster has cores.

For pipelines of your own, `warc_dataset` reads WARC files into a dataset of pages and `ExtractBatch` is a
callable class for `Dataset.map_batches` that turns a batch of pages into a batch of rows (docs/corpus.md).
"""

from __future__ import annotations

import json
import math
import os
import socket
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, replace
from dataclasses import fields as dataclass_fields
from pathlib import Path

from ..errors import InputError
from ..files import shown
from ..limits import RAY_CONNECT_TIMEOUT_S
from ..render.columns import DEFAULT_FIELDS, arrow_schema
from .extras import need
from .pages import Page
from .readers import file_pages
from .rows import PageRows, Tally
from .writers import shard_paths, write_shard


class ShardWriter:
    """A Ray Data actor: a batch of (input path, shard path) rows in, one summary row per input out."""

    def __init__(self, fields: tuple[str, ...], model_dir: str | None = None):
        self.fields = fields
        self.rows = PageRows(fields, model_dir, threads=1)

    def __call__(self, batch: dict) -> dict:
        out: dict[str, list] = {"path": [], "pages": [], "failed": [], "cpu_s": []}
        for path, given, shard in zip(batch["path"], batch["given"], batch["shard"]):
            tally, cpu = Tally(), time.process_time()
            given = os.fsdecode(given)
            pages = (replace(page, path=given) for page in file_pages(os.fsdecode(path)))  # the path column as given
            write_shard(Path(os.fsdecode(shard)), (self.rows(page) for page in pages), self.fields, tally)
            out["path"].append(shown(given))
            out["pages"].append(tally.pages)
            out["failed"].append(json.dumps(tally.failed))  # by error code
            out["cpu_s"].append(time.process_time() - cpu)
        return out


def _connect(ray, address: str | None) -> bool:
    """Join the cluster at `address` (or this machine's own new one); True if this call started Ray."""
    if ray.is_initialized():
        return False
    joining = address or os.environ.get("RAY_ADDRESS")  # a cluster's own settings are not ours to give
    if joining:
        _check_reachable(joining)
    try:
        ray.init(address=address, logging_level="WARNING", **({} if joining else {"include_dashboard": False}))
    except (ConnectionError, RuntimeError, ValueError) as exc:
        if not joining:
            raise
        raise InputError(
            f"cannot join the Ray cluster at {joining}: {type(exc).__name__}: {exc}; check it with "
            "`ray status --address ...`, set RAY_AUTH_MODE=token if it uses token authentication "
            "(docs/corpus.md), or leave out --ray-address to start Ray here"
        ) from exc
    return True


def _check_reachable(address: str) -> None:
    """Ray retries an address where nothing listens for minutes; a host:port that refuses a TCP connection
    is reported at once instead."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return  # "auto" and the like: Ray resolves them itself, and fails fast
    try:
        socket.create_connection((host, int(port)), timeout=RAY_CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise InputError(
            f"no Ray cluster answers at {address} ({exc.strerror or exc}); start one there with "
            "`ray start --head`, or leave out --ray-address to start Ray here"
        ) from exc


def run_ray(
    files: list[tuple[str, str]],
    out: Path,
    fields: tuple[str, ...],
    workers: int | None = None,
    model_dir: str | None = None,
    address: str | None = None,
) -> Tally:
    """Extract `files` into one Parquet shard each under `out` on Ray, skipping inputs whose shard exists.
    `workers`: actors (default: every CPU of the cluster). Every node must see `files` and `out` at the same
    paths (a shared file system) and have pith[corpus] installed."""
    ray = need("ray")
    need("pyarrow")
    tally = Tally()
    todo = [(path, shard) for (path, _), shard in zip(files, shard_paths(files, out)) if not shard.exists()]
    tally.skipped_inputs = len(files) - len(todo)
    if not todo:
        return tally
    started = _connect(ray, address)
    try:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        actors = max(1, min(workers or cpus, cpus, len(todo)))
        print(f"pith: {len(todo)} inputs on Ray, {actors} actors ({cpus} CPUs in the cluster)", file=sys.stderr)
        # Paths travel as bytes: Arrow holds only UTF-8 strings, and a file name need not be UTF-8.
        ds = need("ray.data").from_items(
            [
                {"path": os.fsencode(Path(p).resolve()), "given": os.fsencode(p), "shard": os.fsencode(s.resolve())}
                for p, s in todo
            ],
            override_num_blocks=len(todo),
        )
        # One file in flight per actor: a queue behind a busy actor would leave another idle at the end.
        pool = need("ray.data").ActorPoolStrategy(size=actors, max_tasks_in_flight_per_actor=1)
        done = ds.map_batches(
            ShardWriter,
            fn_constructor_kwargs={"fields": fields, "model_dir": model_dir},
            batch_size=1,
            compute=pool,
            num_cpus=1,
        )
        for n, summary in enumerate(done.iter_rows(), 1):
            tally.merge(Tally(summary["pages"], json.loads(summary["failed"])))
            tally.cpu_s += summary["cpu_s"]
            print(f"pith: {n}/{len(todo)} inputs, {tally.pages} pages: {summary['path']}", file=sys.stderr)
    finally:
        if started:
            ray.shutdown()
    return tally


PAGE_COLUMNS = tuple(f.name for f in dataclass_fields(Page))


def warc_dataset(paths: list[str]):
    """A Ray dataset of the HTML pages of WARC (or HTML) files: one row per page, with the columns of `Page`
    (path, html, url, record_id, charset, status, problem), ready for `map_batches(ExtractBatch, ...)`."""
    data = need("ray.data")
    return data.from_items([{"file": os.fsencode(p)} for p in paths], override_num_blocks=len(paths)).map_batches(
        _file_pages, batch_size=1
    )


WARC_BATCH_PAGES = 256  # pages per batch `warc_dataset` yields: a 30,000-page file is never whole in memory


def _file_pages(batch: dict) -> Iterator[dict]:
    for file in batch["file"]:
        pages = []
        for page in file_pages(os.fsdecode(file)):
            pages.append({**asdict(page), "path": shown(page.path)})
            if len(pages) == WARC_BATCH_PAGES:
                yield {k: [p[k] for p in pages] for k in PAGE_COLUMNS}
                pages = []
        if pages:
            yield {k: [p[k] for p in pages] for k in PAGE_COLUMNS}


class ExtractBatch:
    """For `ds.map_batches(ExtractBatch, fn_constructor_kwargs={"fields": (...)}, num_cpus=1, batch_size=64,
    compute=ray.data.ActorPoolStrategy(size=N))`: a batch with an `html` column (bytes or str) and optionally
    url, charset, record_id, path, status, problem becomes a pyarrow Table of the chosen columns, one row per
    page, failed pages included."""

    def __init__(self, fields: tuple[str, ...] = DEFAULT_FIELDS, model_dir: str | None = None):
        self.rows = PageRows(tuple(fields), model_dir, threads=1)
        self.pa = need("pyarrow")
        self.schema = arrow_schema(self.pa, self.rows.fields)

    def __call__(self, batch):
        """`batch`: a pyarrow Table or a dict of columns (numpy arrays or lists), as map_batches hands it."""
        columns = (
            batch.to_pydict()
            if hasattr(batch, "to_pydict")
            else {k: (v.tolist() if hasattr(v, "tolist") else list(v)) for k, v in batch.items()}
        )
        rows = []
        for i in range(len(columns["html"])):
            cell = {k: _plain(columns[k][i]) if k in columns else None for k in PAGE_COLUMNS}
            html = cell["html"]
            page = Page(
                path=str(cell["path"] or ""),
                html=html.encode() if isinstance(html, str) else html,
                url=_str(cell["url"]),
                record_id=_str(cell["record_id"]),
                charset=_str(cell["charset"]),
                status=int(cell["status"]) if cell["status"] is not None else None,
                problem=_str(cell["problem"]),
            )
            rows.append(self.rows(page))
        return self.pa.Table.from_pylist(rows, schema=self.schema)


def _plain(value):
    """A cell as plain Python: None for a missing one (numpy's NaN in a column of numbers with gaps)."""
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _str(value) -> str | None:
    return None if value is None else str(value)
