"""The local engine: a corpus job on this machine's cores.

Pages stream from the inputs in order, go to worker processes in small chunks (a bounded number in flight, so
a 30,000-page WARC file is never all in memory) and come back in order, so the rows are in input order for
any -j. Each worker holds one `PageRows` (the model once, one inference thread); a lone worker runs in this
process and gives inference the cores (limits.one_page_threads), as `pith extract FILE` does.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import groupby
from pathlib import Path
from typing import Iterable, Iterator

from ..cli.progress import progress
from ..errors import PithError
from ..limits import one_page_threads
from .pages import Page, file_pages
from .rows import PageRows, Tally
from .writers import row_writer, shard_paths, write_shard

CHUNK_PAGES = 8         # pages sent to a worker at once: amortises the pipe, keeps the order fine-grained
CHUNKS_PER_WORKER = 4   # chunks in flight per worker: enough to hide the pipe, bounded memory

_ROWS: PageRows | None = None


def _init_worker(fields: tuple[str, ...], model_dir, threads: int, pooled: bool = False) -> None:
    """`pooled`: one of several worker processes, one per core, so the tokenizer keeps to its worker's
    thread too (its own thread pool would contend with the other workers for the same cores)."""
    global _ROWS
    if pooled:
        os.environ["TOKENIZERS_PARALLELISM"] = "false"
    _ROWS = PageRows(fields, model_dir, threads=threads)


def _work(chunk: list[Page]) -> tuple[list[dict], float]:
    """The chunk's rows, and the CPU seconds they took (this worker's threads included)."""
    cpu = time.process_time()
    rows = [_ROWS(page) for page in chunk]
    return rows, time.process_time() - cpu


def _chunks(pages: Iterable[Page]) -> Iterator[list[Page]]:
    chunk: list[Page] = []
    for page in pages:
        chunk.append(page)
        if len(chunk) == CHUNK_PAGES:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def extract_rows(pages: Iterable[Page], fields: tuple[str, ...], workers: int, model_dir=None,
                 tally: Tally | None = None) -> Iterator[dict]:
    """The pages' rows, in order, extracted by `workers` processes (1: in this process); the extraction's CPU
    seconds are added to `tally.cpu_s`."""
    tally = tally if tally is not None else Tally()
    if workers <= 1:
        _init_worker(fields, model_dir, one_page_threads())
        for chunk in _chunks(pages):
            rows, cpu = _work(chunk)
            tally.cpu_s += cpu
            yield from rows
        return
    # forkserver, not fork: a process that already ran the model (a -j 1 job before) holds onnxruntime's
    # threads and locks, and a forked copy of them hangs. The server imports the engine once (numpy,
    # onnxruntime, tokenizers: ~0.2 s) and every worker starts from it; it never runs the model.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([PageRows.__module__, "native_host.pipeline.extractor"])
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker,
                             initargs=(fields, model_dir, 1, True)) as pool:
        pending: deque = deque()

        def done() -> list[dict]:
            try:
                rows, cpu = pending.popleft().result()
            except BrokenProcessPool as exc:
                raise PithError("a worker process died (killed for memory, or a crash in native code); shards "
                                "already written are kept, so running the job again resumes after them, and -j 1 "
                                "shows which page it was") from exc
            tally.cpu_s += cpu
            return rows

        try:
            for chunk in _chunks(pages):
                pending.append(pool.submit(_work, chunk))
                if len(pending) >= workers * CHUNKS_PER_WORKER:
                    yield from done()
            while pending:
                yield from done()
        finally:
            for future in pending:
                future.cancel()


def run_local(files: list[tuple[str, str]], out: Path, fields: tuple[str, ...], workers: int, model_dir=None,
              shards: bool = False, url: str | None = None) -> Tally:
    """Extract every page of `files` ((path, relative name) pairs) into `out`: one file (.jsonl or .parquet),
    or with `shards` a directory holding one Parquet shard per input, skipping inputs whose shard exists."""
    tally = Tally()
    if not shards:
        pages = (page for path, _ in files for page in file_pages(path, url))
        with row_writer(out, fields) as write:
            for row in progress(extract_rows(pages, fields, workers, model_dir, tally), desc="extract"):
                write(row)
                tally.add(row)
        return tally
    todo = [(path, shard) for (path, _), shard in zip(files, shard_paths(files, out)) if not shard.exists()]
    tally.skipped_inputs = len(files) - len(todo)
    # One stream over all the inputs keeps every worker busy across file ends; each page's input is noted as
    # it goes out, and rows come back in the same order, so they are cut back into shards by that note.
    inputs: deque[int] = deque()

    def pages() -> Iterator[Page]:
        for i, (path, _) in enumerate(todo):
            for page in file_pages(path, url):
                inputs.append(i)
                yield page

    rows = progress(extract_rows(pages(), fields, workers, model_dir, tally), desc="extract")
    written = 0
    for i, group in groupby(((inputs.popleft(), row) for row in rows), key=lambda tagged: tagged[0]):
        for _, shard in todo[written:i]:  # inputs without a page still get their (empty) shard: they are done
            write_shard(shard, (), fields, tally)
        write_shard(todo[i][1], (row for _, row in group), fields, tally)
        written = i + 1
    for _, shard in todo[written:]:
        write_shard(shard, (), fields, tally)
    return tally
