"""`pith extract`: main content of HTML files (or stdin) and WARC files as text, markdown, html or json.

One HTML file or `-` prints to stdout. Several files, a directory or a WARC file go to `--out`: result.jsonl
(one JSON object a page, in input order), result.parquet, or a directory that gets one Parquet shard per input
(a run started again skips inputs whose shard exists); over several worker processes (`--engine local`, with a
progress bar on stderr) or a Ray cluster (`--engine ray`). `--fields` picks the columns (docs/corpus.md).
`--snapshot FILE.msgpack` replays a snapshot recorded by the extension's "Record this page" (or one record of
an export.record corpus) through the host's own extract path, to reproduce what the extension showed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError, NotHtmlError
from ..files import safe_filename, write_new
from ..limits import one_page_threads
from ..render.formats import FORMATS, SAVE_EXTENSIONS, json_text, render
from .images import inline_images, local_images

if TYPE_CHECKING:
    from ..result import Result


def register(sub) -> None:
    p = sub.add_parser(
        "extract",
        help="extract the main content of HTML files",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "inputs",
        nargs="*",
        metavar="FILE|DIR|-",
        help="HTML and WARC (.warc, .warc.gz) files, directories of them, or - for stdin",
    )
    p.add_argument(
        "--snapshot",
        type=Path,
        metavar="FILE.msgpack",
        help="replay a recorded live snapshot (the extension's Record this page) instead of HTML",
    )
    p.add_argument("-f", "--format", choices=FORMATS, default="text")
    p.add_argument("-u", "--url", help="the page's URL, to make links absolute (single input)")
    p.add_argument(
        "-o",
        "--out",
        type=Path,
        metavar="FILE.jsonl|FILE.parquet|DIR",
        help="where the rows go (needed for several inputs or a WARC file): JSON lines, Parquet, or a "
        "directory of one Parquet shard per input",
    )
    p.add_argument(
        "--fields",
        metavar="A,B,...|+A,+B",
        help="the columns of --out (default: path,url,record_id,title,byline,date,lang,page_type,text,"
        "word_count,error); +name adds to the default, e.g. +markdown,+blocks",
    )
    p.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local: worker processes here; ray: a Ray cluster, --out DIR (needs pith[corpus])",
    )
    p.add_argument("--ray-address", metavar="ADDR", help="join the Ray cluster at ADDR (default: start one here)")
    p.add_argument(
        "--save",
        type=Path,
        metavar="DIR",
        help="save the output (one input) in DIR, named after the "
        "page's title as the extension's Save does; an existing file is never overwritten; markdown and "
        "text are saved as documents: the properties, a blank line, the body",
    )
    p.add_argument(
        "--images",
        action="store_true",
        help="with --save and -f markdown: write the page's local images (files beside the HTML file) "
        "and its data: images to DIR/images/ and link to them there; nothing is fetched from the network",
    )
    p.add_argument(
        "--template",
        type=Path,
        metavar="FILE.json",
        help="the saved document's name and properties, as in the extension's options "
        "(docs/extension.md, Save): markdown output and --save files follow it",
    )
    p.add_argument(
        "-j",
        "--workers",
        type=int,
        default=None,
        help=f"worker processes for several inputs (default: {min(4, os.cpu_count() or 1)}); with "
        "--engine ray, actors (default: the cluster's CPUs)",
    )
    p.add_argument("--model-dir", type=Path, help="use the model in this directory instead of the shipped one")
    p.set_defaults(func=run)
    snap = sub.add_parser(
        "snapshot",
        help="print the snapshot (format v2) of an HTML file",
        description="Print the snapshot v2 JSON that the model reads for this page.",
    )
    snap.add_argument("input", metavar="FILE|-")
    snap.add_argument("-u", "--url", help="the page's URL, to make links absolute")
    snap.set_defaults(func=run_snapshot)


def run_snapshot(args) -> int:
    from ..pipeline.snapshot import snapshot_from_html

    snapshot = snapshot_from_html(_read(_expand([args.input])[0]), url=args.url)
    sys.stdout.write(json_text(snapshot) + "\n")
    return 0


def _inputs(items: list[str]) -> list[tuple[str, str]]:
    """(file, name relative to the input naming it) for HTML and WARC files, and those under directories. The
    corpus room is imported here, not at the top: `pith host` builds this parser too, and never reads crawls."""
    from ..corpus.pages import HTML_SUFFIXES, input_files
    from ..corpus.warc import WARC_SUFFIXES

    return input_files(items, HTML_SUFFIXES + WARC_SUFFIXES)


def _expand(inputs: list[str]) -> list[str]:
    return [path for path, _ in _inputs(inputs)]


def _read(item: str) -> bytes:
    if item == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(item).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {item}: {exc.strerror}") from exc


def read_template(path: Path | None) -> dict | None:
    """The template of `--template`, or None; InputError names the file and every problem in it."""
    if path is None:
        return None
    from ..render.document import TemplateError, parse_template

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the template {path}: {getattr(exc, 'strerror', None) or exc}") from exc
    try:
        return parse_template(text)
    except TemplateError as exc:
        raise InputError(f"{path}: {exc}; see docs/extension.md, Save") from exc


def replay(args) -> int:
    """A recorded snapshot through Extractor.extract_snapshot, the call the host's "extract" request makes."""
    from ..pipeline.extractor import Extractor
    from ..recorded import read_one

    if args.inputs or args.out or args.save:
        raise InputError("--snapshot replays one recorded file; give no other inputs, --out or --save with it")
    try:
        record = read_one(args.snapshot)
    except OSError as exc:
        raise InputError(f"cannot read {args.snapshot}: {exc.strerror}") from exc
    except ValueError as exc:
        raise InputError(str(exc)) from exc
    result = Extractor(args.model_dir, threads=one_page_threads()).extract_snapshot(record["snapshot"])
    sys.stdout.write(render(result, args.format, read_template(args.template))[1].rstrip("\n") + "\n")
    return 0


def run(args) -> int:
    if args.snapshot:
        return replay(args)
    if not args.inputs:
        raise InputError("give an HTML or WARC file, a directory, - for stdin, or --snapshot FILE.msgpack")
    from ..corpus.warc import is_warc

    files = _inputs(args.inputs)
    warc = any(is_warc(path) for path, _ in files)
    if len(files) == 1 and not warc and not args.out:
        from ..pipeline.binary import binary_reason
        from ..pipeline.extractor import Extractor

        template = read_template(args.template)
        if args.images and not (args.save and args.format == "markdown" and files[0][0] != "-"):
            raise InputError("--images goes with --save DIR, -f markdown and an HTML file (not stdin)")
        html = _read(files[0][0])
        binary = binary_reason(html)
        if binary is not None:
            raise NotHtmlError(f"{files[0][0]} is not an HTML page: {binary}")
        inline: dict[str, bytes] = {}
        if args.images:
            html, inline = inline_images(html)
        result = Extractor(args.model_dir, threads=one_page_threads()).extract_html(html, url=args.url)
        if result.truncated:
            print(
                'pith: truncated: the page is over a size limit of Pith\'s (docs/security.md, "The limits"), so '
                "part of it is left out",
                file=sys.stderr,
            )
        if not result.text.strip():
            print(f"pith: {_no_content(files[0][0], result)}", file=sys.stderr)
        if args.images:
            result.markdown, copied = local_images(result.markdown, Path(files[0][0]), args.save, inline)
            print(f"pith: {copied} image links now point at copies in {args.save / 'images'}", file=sys.stderr)
        name, output = render(result, args.format, template, saved=bool(args.save))
        output = output.rstrip("\n") + "\n"
        if args.save:
            name = safe_filename(name, SAVE_EXTENSIONS[args.format])
            print(f"pith: saved {write_new(args.save, name, output.encode('utf-8'))}", file=sys.stderr)
        else:
            sys.stdout.write(output)
        return 0
    what = "a WARC file" if len(files) == 1 else f"{len(files)} inputs"
    if args.template:
        raise InputError(f"--template shapes one saved page, not {what}; drop it, or give one HTML file")
    if args.save:
        raise InputError(f"--save takes one input (an HTML file), not {what}; collect them with --out result.jsonl")
    if not args.out:
        raise InputError(f"{what}: give --out result.jsonl, result.parquet or a directory to collect the pages")
    if "-" in (path for path, _ in files):
        raise InputError("stdin (-) can only be used alone")
    return _corpus(args, files)


def _no_content(path: str, result: Result) -> str:
    """Why one page gave no text, and the way out: a body with no text is a page that script builds as it loads,
    which only the browser's rendered page holds."""
    where = "stdin" if path == "-" else path
    if not result.blocks:
        said = "; its description is in -f json" if result.description else ""
        return (
            f"no main content: the HTML of {where} holds no text in its body (a page its scripts build as it "
            f"loads){said}. Open the page in the browser and use the extension, or record it there and run "
            "`pith extract --snapshot FILE.msgpack`"
        )
    return f"no main content found in {where}: every block of its text read as page furniture"


def _corpus(args, files: list[tuple[str, str]]) -> int:
    """Many pages: the corpus engines (native_host/corpus/), which need the corpus extra only for WARC files,
    Parquet and Ray."""
    from ..corpus.writers import is_shard_dir
    from ..render.columns import parse_fields

    fields = parse_fields(args.fields)
    shards = is_shard_dir(args.out)
    if args.engine == "ray":
        if not shards:
            raise InputError("--engine ray writes one Parquet shard per input: give --out DIR (a directory)")
        from ..corpus.ray_engine import run_ray

        tally = run_ray(files, args.out, fields, args.workers, args.model_dir and str(args.model_dir), args.ray_address)
    else:
        if args.ray_address:
            raise InputError("--ray-address goes with --engine ray")
        from ..corpus.local import run_local

        workers = args.workers if args.workers is not None else min(4, os.cpu_count() or 1)
        tally = run_local(
            files, args.out, fields, workers, args.model_dir, shards=shards, url=args.url if len(files) == 1 else None
        )
    print(f"pith: {tally.summary()} -> {args.out}", file=sys.stderr)
    return 1 if tally.failed else 0  # a row with an error is a page lost: a script must see it
