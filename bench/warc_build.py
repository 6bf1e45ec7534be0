"""A bench WARC from the training pages: each page with its URL, as one HTTP response record.

    python -m bench.warc_build OUT.warc.gz --pages 3000 [--files 4]

Pages come from every dataset in ../shared/data (WCXB through its sidecar, so its dropped pages stay out), in a
fixed order (sha1 of the page id), so two runs build the same file. A page without a URL gets
https://<its site>/<its id>. Bodies are UTF-8 with `charset=utf-8` in the HTTP header: the datasets hold pages
already decoded, and the header is what tells the reader so (many pages' own <meta charset> names the encoding
they were first served in).
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path
from urllib.parse import quote

from native_host.corpus.warc import response_record


def bench_pages(count: int) -> list[tuple[str, bytes]]:
    """`count` (url, html) pairs, the same ones every run."""
    from export.data import iter_records

    keyed = []
    for r in iter_records():
        url = r.get("url") or f"https://{r.get('site') or 'unknown.example'}/{quote(r['id'], safe='')}"
        keyed.append((hashlib.sha1(r["id"].encode()).hexdigest(), url, r["html"]))
    keyed.sort()
    return [(url, html.encode("utf-8", "replace")) for _, url, html in keyed[:count]]


def write_warcs(pages: list[tuple[str, bytes]], out: Path, files: int = 1) -> list[Path]:
    """The pages in `files` WARC files of near-equal page counts: out itself, or out's stem with -0, -1..."""
    paths = [out] if files == 1 else [out.with_name(out.name.replace(".warc", f"-{i}.warc", 1)) for i in range(files)]
    for i, path in enumerate(paths):
        with open(path, "wb") as f:
            for url, html in pages[i::files]:
                f.write(response_record(url, html))
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--pages", type=int, default=3000)
    ap.add_argument("--files", type=int, default=1)
    args = ap.parse_args()
    for path in write_warcs(bench_pages(args.pages), args.out, args.files):
        print(f"{path} {path.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
