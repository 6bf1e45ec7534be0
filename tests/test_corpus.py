"""Corpus jobs on the local engine: WARC in, JSON lines / Parquet / shards out, columns, failures as rows,
resumption, and the plain CLI without the corpus extra."""

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from corpus_support import EXPECTED, PAGES, read_rows, warcs  # noqa: F401 (warcs: a fixture)

from native_host.cli.main import main as cli_main
from native_host.corpus.deadline import within
from native_host.corpus.pages import Page
from native_host.corpus.rows import PageRows
from native_host.errors import InputError, PageTimeoutError
from native_host.render.columns import BY_NAME, DEFAULT_FIELDS, parse_fields
from native_host.result import LABELS

pytest.importorskip("fastwarc", reason="the corpus extra: pip install 'pith[corpus]'")
pytest.importorskip("pyarrow", reason="the corpus extra: pip install 'pith[corpus]'")


@pytest.fixture(scope="module")
def local_jsonl(warcs, tmp_path_factory):
    out = tmp_path_factory.mktemp("out") / "rows.jsonl"
    # 1: a page failed (the record cut short)
    assert cli_main(["extract", str(warcs[0].parent), "--out", str(out), "-j", "2", "--fields", "+html,+status"]) == 1
    return read_rows(out)


def test_every_html_response_is_a_row_in_order_and_failures_are_rows(local_jsonl):
    got = [(Path(r["path"]).name, r["url"], r["error"] and r["error"]["code"]) for r in local_jsonl]
    assert got == EXPECTED
    assert all(r["record_id"].startswith("<urn:uuid:") for r in local_jsonl)
    assert len({r["record_id"] for r in local_jsonl}) == len(local_jsonl)
    broken = local_jsonl[4]
    assert "cut short" in broken["error"]["message"] and broken["text"] is None and broken["record_id"]
    assert all(r["error"] is None and r["status"] == 200 for r in local_jsonl if r is not broken)


def test_the_target_uri_is_the_page_url_and_the_http_charset_is_honoured(local_jsonl):
    article, cafe, russian = local_jsonl[0], local_jsonl[1], local_jsonl[2]
    assert "Twice a day" in article["text"] and article["title"] == "How Tides Work"
    assert '<img src="https://gazette.example/img/tide-chart.png"' in article["html"]  # links resolved
    assert "Café crème" in cafe["text"]  # an unknown HTTP charset: the page's <meta> decides
    assert "Привет, мир" in russian["text"]  # KOI8-R, known only from the HTTP header


def test_parquet_holds_the_same_rows_as_json_lines(warcs, local_jsonl, tmp_path):
    out = tmp_path / "rows.parquet"
    assert cli_main(["extract", *map(str, warcs), "--out", str(out), "-j", "1", "--fields", "+html,+status"]) == 1
    assert read_rows(out) == local_jsonl


def test_fields_choose_the_columns(warcs, tmp_path):
    out = tmp_path / "few.jsonl"
    assert cli_main(["extract", str(warcs[1]), "--out", str(out), "--fields", "url,text"]) == 0
    rows = read_rows(out)
    assert [list(r) for r in rows] == [["url", "text", "error"]] * 2  # error is always kept
    assert parse_fields(None) == DEFAULT_FIELDS
    assert parse_fields("+markdown,+blocks") == tuple(
        c for c in BY_NAME if c in DEFAULT_FIELDS + ("markdown", "blocks")
    )
    with pytest.raises(InputError, match="no column 'nope'; choose among path, url"):
        parse_fields("url,nope")


def test_blocks_and_node_ids_round_trip_through_parquet(warcs, tmp_path):
    fields = "url,node_ids,blocks,image,truncated"
    for name in ("b.jsonl", "b.parquet"):
        assert cli_main(["extract", str(warcs[1]), "--out", str(tmp_path / name), "--fields", fields]) == 0
    jsonl, parquet = read_rows(tmp_path / "b.jsonl"), read_rows(tmp_path / "b.parquet")
    assert jsonl == parquet
    assert parquet[1]["node_ids"] and set(parquet[1]["blocks"][0]["scores"]) == set(LABELS)


def test_a_text_only_job_builds_no_reader_views():
    assert PageRows(DEFAULT_FIELDS).views == ()
    assert PageRows(parse_fields("+markdown")).views == ("markdown",)


def test_a_page_over_the_time_limit_is_a_row_and_the_next_page_goes_on():
    page = Page("x.html", (PAGES / "article" / "source.html").read_bytes(), "https://gazette.example/tides")
    rows = PageRows(time_limit_s=1e-6)
    extract = rows.extractor.extract_html

    def slow_extract(*args):
        # The page itself ends in a few ms, mostly in compiled code, which may be within one switch of the
        # interpreter's lock: the watchdog would not run before it ends. Python steps first, where its
        # exception lands, so that the page outlasts its limit on any machine.
        end = time.monotonic() + 5.0
        while time.monotonic() < end:
            pass
        return extract(*args)

    rows.extractor.extract_html = slow_extract
    slow = rows(page)
    assert slow["error"]["code"] == "timeout" and slow["url"] == page.url and slow["text"] is None
    assert "Twice a day" in PageRows()(page)["text"]


@pytest.mark.parametrize("in_thread", [False, True])  # Ray Data runs its workers' functions off the main thread
def test_the_time_limit_interrupts_python_work_in_any_thread(in_thread):
    outcome = {}

    def spin(seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            pass
        return "finished"

    def job():
        try:
            within(0.05, spin, 30)
        except PageTimeoutError as exc:
            outcome["error"] = exc.code
        outcome["after"] = within(5, spin, 0.01)
        for _ in range(500):  # deadlines that end as the work does: none may fire after its block
            try:
                within(0.0005, spin, 0.0005)
            except PageTimeoutError:
                pass
        outcome["clean"] = sum(range(1000))

    if in_thread:
        t = threading.Thread(target=job)
        t.start()
        t.join()
    else:
        job()
    assert outcome == {"error": "timeout", "after": "finished", "clean": 499500}


def test_shards_one_per_input_resume_where_they_stopped(warcs, tmp_path):
    out = tmp_path / "shards"
    article = tmp_path / "article.html"  # a shard is named after its input file
    article.write_bytes((PAGES / "article" / "source.html").read_bytes())
    argv = ["extract", str(warcs[0].parent), str(article), "--out", str(out), "-j", "2"]
    assert cli_main(argv) == 1  # crawl.warc.gz's record cut short
    shards = sorted(p.relative_to(out).as_posix() for p in out.rglob("*"))
    assert shards == ["article.parquet", "crawl.parquet", "more.parquet"]
    whole = read_rows(out)
    assert len(whole) == len(EXPECTED) + 1
    (out / "crawl.parquet").unlink()
    before = (out / "more.parquet").stat().st_mtime_ns
    assert cli_main(argv) == 1
    assert (out / "more.parquet").stat().st_mtime_ns == before  # skipped, not rewritten
    assert read_rows(out) == whole
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temporary left behind


def test_two_inputs_that_would_share_a_shard_are_refused(warcs, tmp_path, capsys):
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "more.warc").write_bytes(warcs[1].read_bytes())
    assert cli_main(["extract", str(warcs[1]), str(other / "more.warc"), "--out", str(tmp_path / "s")]) == 1
    assert "would both be written to" in capsys.readouterr().err


def test_a_warc_file_needs_out_and_ray_needs_a_directory(warcs, tmp_path, capsys):
    assert cli_main(["extract", str(warcs[1])]) == 1
    assert "--out result.jsonl, result.parquet or a directory" in capsys.readouterr().err
    assert cli_main(["extract", str(warcs[1]), "--out", str(tmp_path / "r.parquet"), "--engine", "ray"]) == 1
    assert "--out DIR" in capsys.readouterr().err


BLOCK_EXTRA = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("fastwarc", "pyarrow", "ray", "warcio", "pandas"):
            raise ImportError("blocked: " + name)
sys.meta_path.insert(0, Block())
from native_host.cli.main import main
code = main(sys.argv[1:])
assert not {m.split(".")[0] for m in sys.modules} & {"fastwarc", "pyarrow", "ray"}
sys.exit(code)
"""


def test_html_to_json_lines_needs_no_corpus_extra_and_warc_names_it(warcs, tmp_path):
    out = tmp_path / "plain.jsonl"
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            BLOCK_EXTRA,
            "extract",
            str(PAGES / "article" / "source.html"),
            str(PAGES / "cp1252" / "source.html"),
            "--out",
            str(out),
            "-j",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert [json.loads(line)["error"] for line in out.read_text().splitlines()] == [None, None]
    run = subprocess.run(
        [sys.executable, "-c", BLOCK_EXTRA, "extract", str(warcs[1]), "--out", str(tmp_path / "w.jsonl")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1
    assert "pip install 'pith[corpus]'" in run.stderr and "reading WARC files" in run.stderr


def test_the_docs_table_names_every_column():
    doc = (Path(__file__).parents[1] / "docs" / "corpus.md").read_text(encoding="utf-8")
    table = doc[doc.index("| column | Arrow type | what |") : doc.index("JSON lines and Parquet hold")]
    assert {c for c in BY_NAME if f"`{c}`" not in table} == set()
    assert ", ".join(DEFAULT_FIELDS) in " ".join(doc.split())


def test_an_address_where_no_cluster_answers_is_an_error_at_once(warcs, tmp_path, capsys):
    pytest.importorskip("ray", reason="the corpus extra: pip install 'pith[corpus]'")
    import socket

    with socket.socket() as s:  # a port nothing listens on once this closes
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    argv = [
        "extract",
        str(warcs[1]),
        "--out",
        str(tmp_path / "s"),
        "--engine",
        "ray",
        "--ray-address",
        f"127.0.0.1:{port}",
    ]
    assert cli_main(argv) == 1
    assert f"no Ray cluster answers at 127.0.0.1:{port}" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


def test_the_command_line_parser_the_host_builds_imports_no_corpus_code():
    code = (
        "import sys; from native_host.cli.main import build_parser; build_parser(); "
        "print(sorted(m for m in sys.modules if m.startswith('native_host.corpus')))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "[]", run.stderr
