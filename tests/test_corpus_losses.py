"""A corpus job loses nothing without a row that says so (docs/corpus.md, "Failures are rows"): file names
that are not UTF-8, unreadable directories, WARC files cut inside a later gzip member, records without an HTTP
head, binary files; an --out that cannot be written is one line; a page nested 200,000 deep ends with its row
within the page limit (docs/security.md, "Corpus jobs")."""

import errno
import gzip
import os
import tempfile
from pathlib import Path

import pytest
from corpus_support import PAGES, read_rows

from native_host import limits
from native_host.cli.main import main as cli_main
from native_host.corpus import writers
from native_host.corpus.pages import Page
from native_host.corpus.rows import PageRows
from native_host.corpus.warc import response_record
from native_host.files import shown
from native_host.pipeline.html_input import bound_nesting
from native_host.pipeline.snapshot import snapshot_from_html

pytest.importorskip("fastwarc", reason="the corpus extra: pip install 'pith[corpus]'")
pytest.importorskip("pyarrow", reason="the corpus extra: pip install 'pith[corpus]'")

ARTICLE = (PAGES / "article" / "source.html").read_bytes()
OUTPUTS = ["rows.jsonl", "rows.parquet", "shards"]


def _extract(inputs, out: Path, *more: str) -> int:
    return cli_main(["extract", *map(str, inputs), "--out", str(out), "-j", "1", *more])


# Item 4: a file name that is not UTF-8.


@pytest.mark.parametrize("out", OUTPUTS)
def test_a_file_name_that_is_not_utf8_is_a_row_with_the_name_escaped(tmp_path, out, capsys):
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    (crawl / os.fsdecode(b"caf\xe9.html")).write_bytes(ARTICLE)
    (crawl / "plain.html").write_bytes(ARTICLE)
    assert _extract([crawl], tmp_path / out) == 0, capsys.readouterr().err
    if out == "shards":  # pyarrow opens no path that is not UTF-8: the shards are read as open files
        import pyarrow.parquet as pq

        rows = []
        for shard in sorted((tmp_path / out).iterdir()):
            with open(shard, "rb") as f:
                rows += pq.read_table(f).to_pylist()
    else:
        rows = read_rows(tmp_path / out)
    assert [Path(r["path"]).name for r in rows] == ["caf\\xe9.html", "plain.html"]
    assert all(r["error"] is None and "Twice a day" in r["text"] for r in rows)
    if out == "shards":  # the shard keeps the input's own bytes
        assert sorted(os.listdir(os.fsencode(tmp_path / out))) == [b"caf\xe9.parquet", b"plain.parquet"]


def test_the_escaped_name_gives_the_bytes_back():
    import codecs

    name = os.fsdecode(b"/data/caf\xe9-\xff.html")
    assert shown(name) == "/data/caf\\xe9-\\xff.html"
    assert codecs.escape_decode(shown(name).encode())[0] == b"/data/caf\xe9-\xff.html"
    assert shown("/data/café.html") == "/data/café.html"


# Item 5: the page limit covers the parse.


def _deepest(snapshot: dict) -> int:
    return max(node["depth"] for node in snapshot["nodes"])


def test_a_page_nested_200000_deep_gets_its_row_within_the_page_limit():
    """The page of issue 32: 2.2 MB, <div> nested 200,000 deep. The parser's time grows with the square of the
    depth, so its row took minutes; with the nesting bounded before the parse it is a result, cut short."""
    depth = 200_000
    html = "<html><body>" + "<div>" * depth + "<p>At the bottom of the well.</p>" + "</div>" * depth
    snapshot = snapshot_from_html(html)
    assert snapshot["truncated"] is True and _deepest(snapshot) <= limits.MAX_PARSE_DEPTH + 8
    row = PageRows(("path", "text", "truncated", "error"))(Page("deep.html", html.encode()))
    assert row["error"] is None and row["truncated"] is True
    assert "At the bottom of the well." in row["text"]  # the text inside the dropped tags stays


# Markup that would fool a scan that believes every end tag: the parser keeps these nested, so the scan must too.
N = limits.DEPTH_SCAN_MIN_TAGS
FOOLING = {
    "an end tag out of scope": "<div><marquee></div>" * N,
    "an end tag past a special element": "<span><div></span>" * N,
    "self-closing in HTML after leaving SVG": "<svg><div/>" + "<article/>" * N,
    "a heading's end tag closes the nearest heading": ("<h1>" + "<div>" * 30 + "<h2></h1>") * (N // 30),
    "</form> leaves what is above it open": ("<form>" + "<div>" * 30 + "</form>") * (N // 30),
    "a quoted <script> in an attribute": '<a title="<script>">' + "<div>" * N,
    "an unquoted value with a quote": "<div a=b'>" * N + "'",
    "end tags of no open element": "<span>" * N + "</x>" * N,
    "a comment closed at once": "<!-->" + "<div>" * N + "-->",
    "a tag name with a no-break space": "<div\xa0></div>" * N,
    "a tag name whose Python lower case is ASCII (Kelvin sign)": "<a\u212a></ak>" * N,
    "a non-ASCII letter after <": "<\xe9" + "<div>" * N,
}


@pytest.mark.parametrize("shape", FOOLING)
def test_markup_built_to_fool_the_depth_scan_still_parses_within_the_cap(shape):
    snapshot = snapshot_from_html("<html><body>" + FOOLING[shape])
    assert _deepest(snapshot) <= limits.MAX_PARSE_DEPTH + 8


ORDINARY = {  # over DEPTH_SCAN_MIN_TAGS tags, as big pages write them: none of these nests deep
    "table without end tags": "<table>" + "<tr><td>cell<td>cell" * N + "</table>",
    "lists without end tags": ("<ul>" + "<li>item<p>para" * 50 + "</ul>") * (N // 100),
    "svg icons": ("<svg viewBox='0 0 9 9'>" + "<path d='M0 0'/>" * 40 + "</svg>") * (N // 40),
    "scripts writing markup": "<script>for (i = 0; i<n; i++) s += '<div>';</script>" * N,
    "paragraphs without end tags": "<div>" + "<p>text <b>bold</b>" * N + "</div>",
    "misnested formatting": "<p><b><i>x</b></i>" * N,
}


@pytest.mark.parametrize("shape", ORDINARY)
def test_ordinary_markup_with_many_tags_is_parsed_as_it_is(shape):
    html = "<!doctype html><html><body>" + ORDINARY[shape] + "</body></html>"
    assert bound_nesting(html) == (html, False)


# Item 9: silent losses.


def test_a_warc_cut_inside_its_second_member_keeps_the_first_and_says_where_it_was_cut(tmp_path):
    info = gzip.compress(b"WARC/1.0\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n", mtime=0)
    page = response_record("https://a.example/", ARTICLE)
    warc = tmp_path / "cut.warc.gz"
    for cut, first in ((20, info + page), (20, page)):  # warcinfo first (0 pages before the cut), or a page
        second = response_record("https://b.example/", ARTICLE)
        warc.write_bytes(first + second[:cut])
        out = tmp_path / "rows.jsonl"
        assert _extract([warc], out) == 1
        rows = read_rows(out)
        assert [r["url"] for r in rows[:-1]] == ["https://a.example/"] and rows[0]["error"] is None
        assert rows[-1]["error"]["code"] == "bad_input" and "truncated" in rows[-1]["error"]["message"]


def test_warc_files_gzipped_whole_or_concatenated_end_cleanly(tmp_path):
    """The end check reads again from the last record's gzip member: a member of several records (WARC files
    joined with cat) or one stream over the whole file must read as whole, not damaged."""
    records = [gzip.decompress(response_record(f"https://{n}.example/", ARTICLE)) for n in "abcd"]
    shapes = {
        "joined.warc.gz": gzip.compress(b"".join(records[:2])) + gzip.compress(b"".join(records[2:])),
        "whole.warc.gz": gzip.compress(b"".join(records)),
    }
    for name, data in shapes.items():
        (tmp_path / name).write_bytes(data)
    assert _extract([tmp_path / name for name in shapes], tmp_path / "rows.jsonl") == 0
    assert [r["error"] for r in read_rows(tmp_path / "rows.jsonl")] == [None] * 8


def test_a_response_record_without_an_http_head_is_a_row(tmp_path):
    body = b"<html><body><p>no HTTP head before me</p></body></html>"
    head = (
        f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:7>\r\nWARC-Target-URI: https://c.example/\r\n"
        f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    warc = tmp_path / "nohttp.warc.gz"
    warc.write_bytes(gzip.compress(head + body + b"\r\n\r\n") + response_record("https://d.example/", ARTICLE))
    assert _extract([warc], tmp_path / "rows.jsonl") == 1
    rows = read_rows(tmp_path / "rows.jsonl")
    assert [(r["url"], r["error"] and r["error"]["code"]) for r in rows] == [
        ("https://c.example/", "bad_input"),
        ("https://d.example/", None),
    ]


def test_an_unreadable_directory_is_a_row(tmp_path, monkeypatch):
    crawl = tmp_path / "crawl"
    (crawl / "locked").mkdir(parents=True)
    (crawl / "locked" / "inside.html").write_bytes(ARTICLE)
    (crawl / "open.html").write_bytes(ARTICLE)
    scandir = os.scandir

    def locked(path="."):  # as a directory without read permission does, for root as well
        if os.fspath(path).endswith("locked"):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", locked)
    monkeypatch.setattr(os, "listdir", lambda path=".": [entry.name for entry in locked(path)])
    assert _extract([crawl], tmp_path / "rows.jsonl") == 1
    rows = read_rows(tmp_path / "rows.jsonl")
    assert [(Path(r["path"]).name, r["error"] and r["error"]["code"]) for r in rows] == [
        ("locked", "bad_input"),
        ("open.html", None),
    ]
    assert "Permission denied" in rows[0]["error"]["message"]


BINARIES = {
    "image.html": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8,
    "program.htm": b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 8,
    "noise.html": bytes(range(256)) * 16,
}


def test_binary_files_are_not_html_rows_and_one_line_alone(tmp_path, capsys):
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    for name, data in BINARIES.items():
        (crawl / name).write_bytes(data)
    (crawl / "page.html").write_bytes(ARTICLE)
    assert _extract([crawl], tmp_path / "rows.jsonl") == 1
    codes = {Path(r["path"]).name: r["error"] and r["error"]["code"] for r in read_rows(tmp_path / "rows.jsonl")}
    assert codes == {"image.html": "not_html", "program.htm": "not_html", "noise.html": "not_html", "page.html": None}
    capsys.readouterr()
    assert cli_main(["extract", str(crawl / "image.html")]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "not an HTML page" in err and "PNG" in err


def test_a_page_cut_by_a_limit_says_so_on_stderr(tmp_path, capsys):
    page = tmp_path / "long.html"
    page.write_text("<html><body><p>" + "word " * (limits.MAX_NODE_TEXT // 4) + "</p></body></html>")
    assert cli_main(["extract", str(page)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("word word") and "pith: truncated" in err


def test_a_row_its_format_cannot_hold_is_an_error_row_in_its_place(tmp_path):
    from native_host.corpus.rows import Tally
    from native_host.render.columns import parse_fields

    fields = parse_fields("+status")
    good = {f: None for f in fields} | {"path": "a.html", "text": "fine", "word_count": 1}
    too_big = good | {"path": "b.html", "word_count": 2**70}  # over Parquet's int64
    surrogate = good | {"path": "c.html", "title": "\udce9"}  # no UTF-8 for it
    for out, codes in (("rows.parquet", [None, "too_large", "internal"]), ("rows.jsonl", [None, None, "internal"])):
        tally = Tally()
        with writers.row_writer(tmp_path / out, fields) as write:
            for row in (good, too_big, surrogate):
                tally.add(write(row))
        rows = read_rows(tmp_path / out)
        assert [r["error"] and r["error"]["code"] for r in rows] == codes
        assert [r["path"] for r in rows] == ["a.html", "b.html", "c.html"] and rows[0]["text"] == "fine"
        assert sum(tally.failed.values()) == codes.count("too_large") + codes.count("internal")


# Item 10: an --out that cannot be written.


def test_an_out_directory_without_write_permission_is_one_line(tmp_path, monkeypatch, capsys):
    def refused(*args, dir=None, **kwargs):  # as a read-only directory answers, for root as well
        raise PermissionError(errno.EACCES, "Permission denied", str(dir))

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    for out in OUTPUTS:
        assert _extract([PAGES / "article" / "source.html"], tmp_path / out) == 1
        err = _said(capsys)
        assert len(err) == 1 and "cannot write" in err[0] and "Permission denied" in err[0]


@pytest.mark.parametrize("out", OUTPUTS)
def test_a_full_disk_is_one_line_and_what_was_written_stays_whole(tmp_path, monkeypatch, capsys, out):
    inputs = []
    for name in ("a.html", "b.html", "c.html"):
        (tmp_path / name).write_bytes(ARTICLE)
        inputs.append(tmp_path / name)
    opened = writers.replaced_atomically
    files = []

    def full_after_the_first(target, encoding="utf-8"):
        files.append(target)
        context = opened(target, encoding)
        if len(files) == 1 and out == "shards":
            return context
        return _failing_writes(context)

    monkeypatch.setattr(writers, "replaced_atomically", full_after_the_first)
    assert _extract(inputs, tmp_path / out) == 1
    err = _said(capsys)
    assert len(err) == 1 and "No space left on device" in err[0] and "free some space" in err[0]
    left = sorted(p.name for p in tmp_path.rglob("*") if p.is_file() and not p.name.endswith(".html"))
    assert left == (["a.parquet"] if out == "shards" else [])  # no partial file, no temporary left behind
    if out == "shards":
        assert [r["error"] for r in read_rows(tmp_path / out)] == [None]  # the shard written is whole
        monkeypatch.setattr(writers, "replaced_atomically", opened)
        assert _extract(inputs, tmp_path / out) == 0
        assert "2 pages extracted, 0 failed, 1 inputs skipped" in capsys.readouterr().err


def _said(capsys) -> list[str]:
    """What the command said on stderr, its progress lines left out; no traceback may be among it."""
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return [line for line in err.splitlines() if line.startswith("pith:")]


class _failing_writes:
    """A replaced_atomically context whose file's writes fail as on a full disk."""

    def __init__(self, context):
        self.context = context

    def __enter__(self):
        f = self.context.__enter__()

        def write(data):
            raise OSError(errno.ENOSPC, "No space left on device")

        f.write = write
        return f

    def __exit__(self, *exc):
        return self.context.__exit__(*exc)
