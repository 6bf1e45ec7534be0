"""What the corpus tests share: WARC files written from tests/pages, with the rows they must give.

`write_warcs(dir)` writes two WARC files: `crawl.warc.gz` holds five HTML responses, a PNG response (not a
page: no row), one page whose HTTP charset names no encoding (its <meta> decides), one in KOI8-R that only its
HTTP charset identifies, and ends in a gzip member cut short inside its record (a row with an error);
`more.warc` is uncompressed. EXPECTED lists the rows' (url, error code) in order.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from native_host.corpus.warc import response_record

PAGES = Path(__file__).parent / "pages"
RUSSIAN = (
    "<html><body><h1>Новости</h1><p>Привет, мир. Это длинный абзац о погоде в Москве и о том, как "
    "меняется климат год от года.</p></body></html>"
)
EXPECTED = [  # (file, url, error code) per row, in order
    ("crawl.warc.gz", "https://gazette.example/tides", None),
    ("crawl.warc.gz", "https://cafe.example/menu", None),
    ("crawl.warc.gz", "https://news.example/ru", None),
    ("crawl.warc.gz", "https://broken.example/", None),
    ("crawl.warc.gz", "https://gazette.example/tides-again", "bad_input"),
    ("more.warc", "https://bom.example/", None),
    ("more.warc", "https://gazette.example/copy", None),
]


def write_warcs(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    article = (PAGES / "article" / "source.html").read_bytes()
    last = response_record("https://gazette.example/tides-again", article)
    crawl = b"".join(
        [
            response_record("https://gazette.example/tides", article),
            response_record(
                "https://gazette.example/chart.png", b"\x89PNG\r\n\x1a\n" + bytes(64), content_type="image/png"
            ),
            response_record(
                "https://cafe.example/menu",
                (PAGES / "cp1252" / "source.html").read_bytes(),
                content_type="text/html; charset=no-such-charset",
            ),
            response_record(
                "https://news.example/ru", RUSSIAN.encode("koi8-r"), content_type="text/html; charset=KOI8-R"
            ),
            response_record(
                "https://broken.example/",
                (PAGES / "broken" / "source.html").read_bytes(),
                content_type="application/xhtml+xml",
            ),
            last[: len(last) * 2 // 3],  # the gzip member breaks off inside the record's body
        ]
    )
    more = b"".join(
        gzip.decompress(r)
        for r in (
            response_record(
                "https://bom.example/", (PAGES / "utf8-bom" / "source.html").read_bytes(), content_type="text/html"
            ),
            response_record("https://gazette.example/copy", article),
        )
    )
    (directory / "crawl.warc.gz").write_bytes(crawl)
    (directory / "more.warc").write_bytes(more)
    return [directory / "crawl.warc.gz", directory / "more.warc"]


def read_rows(path: Path) -> list[dict]:
    """The rows of a .jsonl or .parquet file, or of every shard under a directory (sorted by shard name)."""
    if path.is_dir():
        return [row for shard in sorted(path.rglob("*.parquet")) for row in read_rows(shard)]
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="session")
def warcs(tmp_path_factory) -> list[Path]:
    """The two WARC files of `write_warcs`, in a folder of their own."""
    return write_warcs(tmp_path_factory.mktemp("warc"))
