"""The local engine: a corpus job on this machine's cores.

Pages stream from the inputs in order, go to worker processes in small chunks (a bounded number in flight, so
a 30,000-page WARC file is never all in memory) and come back in order, so the rows are in input order for
any -j. Each worker holds one `PageRows` (the model once, one inference thread); a lone worker runs in this
process and gives inference the cores (limits.one_page_threads), as `pith extract FILE` does.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import groupby
from pathlib import Path

from ..errors import PithError
from ..limits import one_page_threads
from ..progress import progress
from .pages import Page
from .readers import file_pages
from .rows import PageRows, Tally
from .writers import row_writer, shard_paths, write_shard

CHUNK_PAGES = 8  # pages sent to a worker at once: amortises the pipe, keeps the order fine-grained
CHUNKS_PER_WORKER = 4  # chunks in flight per worker: enough to hide the pipe, bounded memory
ENGINE_MODULES = ("native_host.corpus.rows", "native_host.pipeline.extractor")  # what every worker imports

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
    page_rows = _ROWS
    if page_rows is None:  # never: the pool's initializer, or extract_rows for a lone worker, ran _init_worker
        raise RuntimeError("_work before _init_worker")
    cpu = time.process_time()
    rows = [page_rows(page) for page in chunk]
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


def _os_threads() -> int:
    """This process's threads, the ones no Python code started included (0 where the OS does not say)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0


def worker_context() -> multiprocessing.context.BaseContext:
    """How worker processes start: forked from this one where that is safe, else from a forkserver.

    A fork is safe only from a process with one thread: a forked copy of another thread's lock (onnxruntime's,
    once a model has run here; the watchdog's of a -j 1 job) hangs the worker. So the engine's modules are
    imported first, with BLAS kept to one thread (numpy's OpenBLAS starts a thread per core at import, and a
    worker, one per core, needs none), and the process forks if it still has one thread: the command line
    does. onnxruntime and the tokenizer are imported by the workers themselves (importing onnxruntime starts a
    thread). Forked workers start from the engine already imported: 0.30 s from the command's start to the
    workers' first page, against 0.37 s through a forkserver, which must start an interpreter and import the
    engine again (docs/performance.md). Elsewhere (macOS and Windows, where fork is unsafe or missing; a
    process with threads, such as the tests' or a user's) the forkserver, or spawn, starts them."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # this process's numpy (if not yet imported), every worker's
    if sys.platform.startswith("linux"):
        import importlib

        for module in ENGINE_MODULES:
            importlib.import_module(module)
        if "onnxruntime" not in sys.modules and _os_threads() == 1:
            return multiprocessing.get_context("fork")
    if "forkserver" in multiprocessing.get_all_start_methods():
        # The server imports the engine once and every worker starts from it; it never runs the model.
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(list(ENGINE_MODULES))
        return context
    return multiprocessing.get_context("spawn")


def extract_rows(
    pages: Iterable[Page], fields: tuple[str, ...], workers: int, model_dir=None, tally: Tally | None = None
) -> Iterator[dict]:
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
    with ProcessPoolExecutor(
        workers, mp_context=worker_context(), initializer=_init_worker, initargs=(fields, model_dir, 1, True)
    ) as pool:
        pending: deque = deque()

        def done() -> list[dict]:
            try:
                rows, cpu = pending.popleft().result()
            except BrokenProcessPool as exc:
                raise PithError(
                    "a worker process died (killed for memory, or a crash in native code); shards "
                    "already written are kept, so running the job again resumes after them, and -j 1 "
                    "shows which page it was"
                ) from exc
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


def run_local(
    files: list[tuple[str, str]],
    out: Path,
    fields: tuple[str, ...],
    workers: int,
    model_dir=None,
    shards: bool = False,
    url: str | None = None,
) -> Tally:
    """Extract every page of `files` ((path, relative name) pairs) into `out`: one file (.jsonl or .parquet),
    or with `shards` a directory holding one Parquet shard per input, skipping inputs whose shard exists."""
    tally = Tally()
    if not shards:
        every_page = (page for path, _ in files for page in file_pages(path, url))
        with row_writer(out, fields) as write:
            for row in progress(extract_rows(every_page, fields, workers, model_dir, tally), desc="extract"):
                tally.add(write(row))
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
