"""FastWARC against warcio, the two maintained Python WARC readers, as Pith reads WARC files: figures, not
pass/fail. warcio is not one of Pith's packages: `pip install warcio` before running.

    python -m bench.warc_build /tmp/bench.warc.gz --pages 3000
    python -m bench.warc_readers /tmp/bench.warc.gz [--repeats 3]

1. Read speed: every response record, its HTTP headers parsed, Content-Type and target URI read, the body read
   whole; the two readers alternate over `--repeats` rounds (a neighbour's load falls on both alike).
2. A damaged file: the same file cut in the middle of a gzip member, and with garbage bytes in the middle: how
   many records each reader returns and whether it says the file is broken.
3. Install weight: the installed size of each package with its dependencies.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import os
import tempfile
import time
from pathlib import Path

HTML = ("text/html", "application/xhtml+xml")


def read_fastwarc(path: Path) -> tuple[int, int, str | None]:
    from fastwarc.warc import ArchiveIterator, WarcRecordType

    pages = size = 0
    try:
        with open(path, "rb") as f:
            for rec in ArchiveIterator(f, record_types=WarcRecordType.response, parse_http=True):
                ctype = rec.http_headers.get("Content-Type") or ""
                rec.headers.get("WARC-Target-URI")
                if ctype.split(";")[0].strip().lower() in HTML:
                    size += len(rec.reader.read())
                    pages += 1
    except Exception as exc:
        return pages, size, f"{type(exc).__name__}: {exc}"
    return pages, size, None


def read_warcio(path: Path) -> tuple[int, int, str | None]:
    from warcio.archiveiterator import ArchiveIterator

    pages = size = 0
    try:
        with open(path, "rb") as f:
            for rec in ArchiveIterator(f):
                if rec.rec_type != "response":
                    continue
                ctype = rec.http_headers.get_header("Content-Type") or ""
                rec.rec_headers.get_header("WARC-Target-URI")
                if ctype.split(";")[0].strip().lower() in HTML:
                    size += len(rec.content_stream().read())
                    pages += 1
    except Exception as exc:
        return pages, size, f"{type(exc).__name__}: {exc}"
    return pages, size, None


READERS = {"fastwarc": read_fastwarc, "warcio": read_warcio}
DEPENDS = {"fastwarc": ["fastwarc", "brotli", "click", "tqdm", "typing_extensions"], "warcio": ["warcio", "six"]}


def installed_mb(names: list[str]) -> float:
    total = 0
    for name in names:
        try:
            total += sum((f.size or 0) for f in md.distribution(name).files or [])
        except md.PackageNotFoundError:
            pass
    return total / 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("warc", type=Path)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    size_mb = args.warc.stat().st_size / 1e6
    best = {name: float("inf") for name in READERS}
    for _ in range(args.repeats):
        for name, read in READERS.items():
            t0 = time.perf_counter()
            pages, _, err = read(args.warc)
            best[name] = min(best[name], time.perf_counter() - t0)
            assert err is None, (name, err)
    print(
        f"## Read speed: {args.warc.name}, {size_mb:.1f} MB gzipped, {pages} HTML pages (best of {args.repeats}; "
        f"load average {os.getloadavg()[0]:.1f})\n"
    )
    print("| reader | version | s | pages/s | MB/s (gzipped) |\n|---|---|---:|---:|---:|")
    for name, s in best.items():
        print(f"| {name} | {md.version(name)} | {s:.2f} | {pages / s:,.0f} | {size_mb / s:.0f} |")
    print(f"\nfastwarc / warcio speed: {best['warcio'] / best['fastwarc']:.1f}x\n")

    data = args.warc.read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        cut = Path(tmp) / "cut.warc.gz"
        cut.write_bytes(data[: len(data) // 2])
        garbled = Path(tmp) / "garbled.warc.gz"
        mid = len(data) // 2
        garbled.write_bytes(data[:mid] + b"\x00garbage\xff" * 64 + data[mid:])
        print("## Damaged files\n\n| reader | file | pages read | error raised |\n|---|---|---:|---|")
        for label, path in (("cut in half", cut), ("garbage in the middle", garbled)):
            for name, read in READERS.items():
                pages, _, err = read(path)
                print(f"| {name} | {label} | {pages} | {err[:90] if err else 'none: ends silently'} |")
    print("\n## Install weight (installed files, dependencies included)\n\n| reader | packages | MB |\n|---|---|---:|")
    for name, deps in DEPENDS.items():
        print(f"| {name} | {', '.join(deps)} | {installed_mb(deps):.1f} |")


if __name__ == "__main__":
    main()
