"""`pith extract`: main content of HTML files (or stdin) as text, markdown, html or json.

One file or `-` prints to stdout. Several files or a directory go to `--out result.jsonl` (one JSON object a
page, in input order), over several worker processes, with a progress bar on stderr.
`--snapshot FILE.msgpack` replays a snapshot recorded by the extension's "Record this page" (or one record of
an export.record corpus) through the host's own extract path, to reproduce what the extension showed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ..errors import InputError, PithError
from .files import replaced_atomically, safe_filename, write_new
from ..limits import one_page_threads
from .progress import progress

FORMATS = ("text", "markdown", "html", "json", "blocks")
HTML_SUFFIXES = (".html", ".htm", ".xhtml")
SAVE_EXTENSIONS = {"text": "txt", "markdown": "md", "html": "html", "json": "json", "blocks": "txt"}


def register(sub) -> None:
    p = sub.add_parser("extract", help="extract the main content of HTML files",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="*", metavar="FILE|DIR|-", help="HTML files, directories of them, or - for stdin")
    p.add_argument("--snapshot", type=Path, metavar="FILE.msgpack",
                   help="replay a recorded live snapshot (the extension's Record this page) instead of HTML")
    p.add_argument("-f", "--format", choices=FORMATS, default="text")
    p.add_argument("-u", "--url", help="the page's URL, to make links absolute (single input)")
    p.add_argument("-o", "--out", type=Path, help="write one JSON line per page here (needed for several inputs)")
    p.add_argument("--save", type=Path, metavar="DIR", help="save the output (one input) in DIR, named after the "
                   "page's title as the extension's Save does; an existing file is never overwritten")
    p.add_argument("-j", "--workers", type=int, default=min(4, os.cpu_count() or 1),
                   help="worker processes for several inputs (default: %(default)s)")
    p.add_argument("--model-dir", type=Path, help="use the model in this directory instead of the shipped one")
    p.set_defaults(func=run)
    snap = sub.add_parser("snapshot", help="print the snapshot (format v2) of an HTML file",
                          description="Print the snapshot v2 JSON that the model reads for this page.")
    snap.add_argument("input", metavar="FILE|-")
    snap.add_argument("-u", "--url", help="the page's URL, to make links absolute")
    snap.set_defaults(func=run_snapshot)


def run_snapshot(args) -> int:
    from ..pipeline.snapshot import snapshot_from_html

    snapshot = snapshot_from_html(_read(_expand([args.input])[0]), url=args.url)
    sys.stdout.write(json.dumps(snapshot, ensure_ascii=False) + "\n")
    return 0


def _expand(inputs: list[str]) -> list[str]:
    files: list[str] = []
    for item in inputs:
        if item == "-":
            files.append(item)
            continue
        path = Path(item)
        if path.is_dir():
            found = sorted(str(p) for p in path.rglob("*") if p.suffix.lower() in HTML_SUFFIXES and p.is_file())
            if not found:
                raise InputError(f"no .html/.htm files in directory {item}")
            files.extend(found)
        elif path.is_file():
            files.append(item)
        else:
            raise InputError(f"no such file or directory: {item}")
    return files


def _read(item: str) -> bytes:
    if item == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(item).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {item}: {exc.strerror}") from exc


def render(result, fmt: str) -> str:
    if fmt == "blocks":
        return blocks_table(result)
    if fmt == "json":
        return json.dumps(result.to_dict(), ensure_ascii=False)
    if fmt == "markdown":  # as the extension saves it: YAML front matter, then the body
        from ..pipeline.article import markdown_document

        return markdown_document(result.to_dict())
    if fmt == "html":
        return result.html
    return result.text


def blocks_table(result) -> str:
    """The labelled blocks, one line each: what the model saw and what it decided."""
    lines = [f"{'#':>4} {'main':>5}  {'label':9} text"]
    for b in result.blocks:
        label = max(("title", "heading", "paragraph", "list", "table"), key=lambda k: b.scores[k])
        label = label if b.main and b.scores[label] >= 0.5 else ("main" if b.main else "-")
        text = " ".join(b.text.split())
        lines.append(f"{b.index:>4} {b.scores['main']:5.2f}  {label:9} {text[:90]}")
    return "\n".join(lines)


_WORKER_EXTRACTOR = None


def _init_worker(model_dir, threads: int = 1) -> None:
    global _WORKER_EXTRACTOR
    from ..pipeline.extractor import Extractor

    _WORKER_EXTRACTOR = Extractor(model_dir, threads=threads)


def _work(item: str) -> dict:
    try:
        result = _WORKER_EXTRACTOR.extract_html(_read(item))
        return {"path": item, **result.to_dict()}
    except PithError as exc:
        return {"path": item, "error": {"code": exc.code, "message": exc.message}}
    except Exception as exc:  # one bad page must not lose the others' results
        return {"path": item, "error": {"code": "internal", "message": f"{type(exc).__name__}: {exc}"}}


def replay(args) -> int:
    """A recorded snapshot through Extractor.extract_snapshot, the call the host's "extract" request makes."""
    from ..pipeline.extractor import Extractor
    from .recorded import read_one

    if args.inputs or args.out or args.save:
        raise InputError("--snapshot replays one recorded file; give no other inputs, --out or --save with it")
    try:
        record = read_one(args.snapshot)
    except OSError as exc:
        raise InputError(f"cannot read {args.snapshot}: {exc.strerror}") from exc
    except ValueError as exc:
        raise InputError(str(exc)) from exc
    result = Extractor(args.model_dir, threads=one_page_threads()).extract_snapshot(record["snapshot"])
    sys.stdout.write(render(result, args.format).rstrip("\n") + "\n")
    return 0


def run(args) -> int:
    if args.snapshot:
        return replay(args)
    if not args.inputs:
        raise InputError("give an HTML file, a directory, - for stdin, or --snapshot FILE.msgpack")
    files = _expand(args.inputs)
    if len(files) == 1 and not args.out:
        from ..pipeline.extractor import Extractor

        result = Extractor(args.model_dir, threads=one_page_threads()).extract_html(_read(files[0]), url=args.url)
        output = render(result, args.format).rstrip("\n") + "\n"
        if args.save:
            name = safe_filename(result.title, SAVE_EXTENSIONS[args.format])
            print(f"pith: saved {write_new(args.save, name, output.encode('utf-8'))}", file=sys.stderr)
        else:
            sys.stdout.write(output)
        return 0
    if args.save:
        raise InputError(f"--save takes one input, not {len(files)}; collect several with --out result.jsonl")
    if not args.out:
        raise InputError(f"{len(files)} inputs: give --out result.jsonl to collect them")
    if "-" in files:
        raise InputError("stdin (-) can only be used alone")
    failed = 0
    with replaced_atomically(args.out) as out:  # a partial file never masquerades as a finished one
        if args.workers <= 1:
            _init_worker(args.model_dir, one_page_threads())  # the only worker: its inference gets the cores
            results = map(_work, files)
            pool = None
        else:
            pool = ProcessPoolExecutor(args.workers, initializer=_init_worker, initargs=(args.model_dir,))
            results = pool.map(_work, files, chunksize=4)
        try:
            for row in progress(results, total=len(files), desc="extract"):
                failed += "error" in row
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
        finally:
            if pool:
                pool.shutdown(cancel_futures=True)
    print(f"pith: {len(files) - failed} pages extracted, {failed} failed -> {args.out}", file=sys.stderr)
    return 1 if failed == len(files) else 0
