"""Every page of the training data through the extractor, with damaged copies of each: no exception allowed.

    python -m bench.sweep                        # all datasets (7,342 pages), 3 damaged copies of each
    nice -n 10 python -m bench.sweep -j 2        # the same on 2 worker processes, one thread each
    python -m bench.sweep --limit 1 --no-cli     # one page per dataset, no `pith extract` pass
    python -m bench.sweep --only dragnet/0042    # one page and its copies, with the whole traceback

Each page goes through `Extractor.extract_html` with its URL, as the data holds it (text), then three damaged
copies of it as bytes, so that decoding is tried too: cut at a random byte, random bytes flipped (one per
KiB, at least one), and one of its start tags repeated 2,000 times in place. The damage is drawn from a
generator seeded by `--seed` and the page's id, so a run is reproducible page by page. Then every one of
those pages is written as a file into a temporary directory and `pith extract DIR --out res.jsonl` runs over
them: one row per file, none failed. Prints the pages, the damaged pages, every exception (page, damage,
error) and the slowest page with its time; exits 1 on any exception or a CLI row missing or failed. An
exception that a stage caught and logged to go on without one of its sources or fields (metadata.py reads
each under a guard) counts as one too: it still cost the page a value it could have had.

Workers (`-j`) are processes with one inference thread each, so a page's time is its own. The time of the
slowest page is wall time on whatever else the machine runs; it is a figure to watch, not a limit.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DAMAGES = ("cut", "flip", "repeat")
REPEATS = 2_000  # copies of the repeated tag
FLIP_EVERY = 1024  # one flipped byte per this many bytes, at least one
IN_FLIGHT = 4  # pages queued per worker: memory stays flat however many pages there are
_START_TAG = re.compile(rb"<[A-Za-z][^<>]{0,200}>")  # bounded: the sweep's own regex must not be the slow part


def damaged(html: bytes, kind: str, rng: random.Random) -> bytes:
    """`html` damaged one way: "cut" at a random byte, "flip" random bytes, "repeat" one start tag."""
    if kind == "cut":
        return html[: rng.randrange(len(html) + 1)]
    if kind == "flip":
        data = bytearray(html)
        for _ in range(max(1, len(data) // FLIP_EVERY) if data else 0):
            i = rng.randrange(len(data))
            data[i] ^= rng.randrange(1, 256)
        return bytes(data)
    tags = list(_START_TAG.finditer(html))
    if not tags:
        return b"<div>" * REPEATS + html
    tag = rng.choice(tags)
    return html[: tag.start()] + tag.group() * REPEATS + html[tag.end() :]


def variants(record: dict, seed: int) -> Iterator[tuple[str, str | bytes]]:
    """The page as the data holds it, then its damaged copies, as (kind, html)."""
    yield "page", record["html"]
    data = record["html"].encode("utf-8", "replace")
    for kind in DAMAGES:
        yield kind, damaged(data, kind, random.Random(f"{seed}:{record['id']}:{kind}"))


@dataclass
class Outcome:
    id: str
    kind: str
    seconds: float
    error: str | None = None


class _Caught(logging.Handler):
    """Collects the exceptions the engine caught and logged (with their traceback) while a page ran."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.found: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            where = traceback.extract_tb(exc.__traceback__)[-1]
            self.found.append(
                f"caught: {record.getMessage()}: {type(exc).__name__}: {exc} "
                f"({Path(where.filename).name}:{where.lineno})"
            )


_EXTRACTOR = None
_CAUGHT = _Caught()


def _init(model_dir: str | None) -> None:
    global _EXTRACTOR
    from native_host import Extractor

    _EXTRACTOR = Extractor(model_dir, threads=1)
    engine_log = logging.getLogger("native_host")
    engine_log.addHandler(_CAUGHT)
    engine_log.propagate = False  # counted here; the tracebacks would only flood the progress


def _sweep_page(record: dict, seed: int, full_traceback: bool = False) -> list[Outcome]:
    out = []
    for kind, html in variants(record, seed):
        _CAUGHT.found.clear()
        t0 = time.perf_counter()
        try:
            _EXTRACTOR.extract_html(html, url=record.get("url"))
            error = "; ".join(_CAUGHT.found) or None
        except Exception as exc:  # counted and reported: finding these is the point
            lines = traceback.format_exc().strip().splitlines()
            error = "\n".join(lines) if full_traceback else f"{type(exc).__name__}: {exc} ({lines[-3].strip()})"
        out.append(Outcome(record["id"], kind, time.perf_counter() - t0, error))
    return out


def _records(args) -> Iterator[dict]:
    from export.data import iter_records

    for record in iter_records(args.datasets, limit=args.limit):
        if not args.only or record["id"] == args.only:
            yield {k: record[k] for k in ("id", "url", "html")}


def _results(args) -> Iterator[list[Outcome]]:
    """Outcomes page by page, from one process or `args.workers`, with at most IN_FLIGHT pages queued each."""
    if args.workers <= 1:
        _init(args.model_dir)
        for record in _records(args):
            yield _sweep_page(record, args.seed, bool(args.only))
        return
    with ProcessPoolExecutor(args.workers, initializer=_init, initargs=(args.model_dir,)) as pool:
        pending = set()
        for record in _records(args):
            pending.add(pool.submit(_sweep_page, record, args.seed))
            if len(pending) >= IN_FLIGHT * args.workers:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                yield from (f.result() for f in done)
        for future in pending:
            yield future.result()


def _write_pages(args, folder: Path) -> list[str]:
    """Every page and damaged copy the sweep ran, as files for `pith extract DIR`; their paths."""
    paths = []
    for n, record in enumerate(_records(args)):
        for kind, html in variants(record, args.seed):
            path = folder / f"{n:05d}-{kind}.html"
            path.write_bytes(html.encode("utf-8", "replace") if isinstance(html, str) else html)
            paths.append(str(path))
    return paths


def cli_pass(args) -> tuple[int, int, int, list[str]]:
    """`pith extract DIR --out res.jsonl` over the pages: (files, rows, failed rows, problems)."""
    with tempfile.TemporaryDirectory(prefix="pith-sweep-") as tmp:
        folder = Path(tmp) / "pages"
        folder.mkdir()
        print("sweep: writing the pages for `pith extract`...", file=sys.stderr, flush=True)
        paths = _write_pages(args, folder)
        out = Path(tmp) / "res.jsonl"
        command = [
            sys.executable,
            "-m",
            "native_host",
            "extract",
            str(folder),
            "--out",
            str(out),
            "-j",
            str(max(1, args.workers)),
        ]
        if args.model_dir:
            command += ["--model-dir", args.model_dir]
        print(f"sweep: {' '.join(command[1:])}", file=sys.stderr, flush=True)
        done = subprocess.run(command, cwd=ROOT)
        rows = list(_row_outcomes(out)) if out.exists() else []  # (path, error): the rows are GBs in all
    problems = [] if done.returncode == 0 else [f"pith extract exited with {done.returncode}"]
    failed = [(path, error) for path, error in rows if error]
    problems += [f"{path}: {error['code']}: {error['message']}" for path, error in failed]
    if sorted(path for path, _ in rows) != sorted(paths):
        problems.append(f"{len(paths)} files but {len(rows)} rows, or rows for other paths")
    return len(paths), len(rows), len(failed), problems


def _row_outcomes(path: Path) -> Iterator[tuple[str, dict | None]]:
    """Each row's path and error (None when it has none), one line at a time."""
    with open(path, encoding="utf-8") as rows:
        for line in rows:
            row = json.loads(line)
            yield row["path"], row.get("error")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.sweep", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--datasets", nargs="*", help="datasets to sweep (default: all)")
    ap.add_argument("--limit", type=int, help="pages per dataset (default: all)")
    ap.add_argument("--only", help="one page id: sweep it and its copies, printing whole tracebacks")
    ap.add_argument("--seed", type=int, default=0, help="seed of the damage (default: %(default)s)")
    ap.add_argument("-j", "--workers", type=int, default=1, help="worker processes (default: %(default)s)")
    ap.add_argument("--model-dir", help="model directory (default: the shipped model)")
    ap.add_argument("--no-cli", action="store_true", help="skip the `pith extract DIR` pass")
    args = ap.parse_args(argv)
    # One thread per worker everywhere: onnxruntime's (threads=1), the tokenizer's and BLAS's.
    os.environ.update(TOKENIZERS_PARALLELISM="false", OMP_NUM_THREADS="1")
    from native_host.progress import progress

    total = sum(1 for _ in _records(args))
    if not total:
        print("sweep: no page matches", file=sys.stderr)
        return 1
    started = time.perf_counter()
    outcomes: list[Outcome] = []
    for page in progress(_results(args), total=total, desc="sweep"):
        outcomes.extend(page)
        for o in page:
            if o.error:
                print(f"\nsweep: EXCEPTION {o.id} ({o.kind}): {o.error}", file=sys.stderr, flush=True)
    errors = [o for o in outcomes if o.error]
    slowest = max(outcomes, key=lambda o: o.seconds)
    times = sorted(o.seconds for o in outcomes)
    print(f"pages: {sum(o.kind == 'page' for o in outcomes)}")
    print(f"damaged pages: {sum(o.kind != 'page' for o in outcomes)} ({', '.join(DAMAGES)}; seed {args.seed})")
    print(f"exceptions: {len(errors)}")
    for o in errors:
        print(f"  {o.id} ({o.kind}): {o.error}")
    print(
        f"slowest page: {slowest.id} ({slowest.kind}) {slowest.seconds:.2f} s; median {times[len(times) // 2]:.3f} s, "
        f"99th percentile {times[int(len(times) * 0.99)]:.3f} s; {time.perf_counter() - started:.0f} s in all "
        f"on {args.workers} worker(s)"
    )
    failed = bool(errors)
    if not args.no_cli:
        files, rows, bad, problems = cli_pass(args)
        print(f"pith extract DIR: {files} files, {rows} rows, {bad} failed")
        for problem in problems[:20]:
            print(f"  {problem}")
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
