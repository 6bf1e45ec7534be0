"""Corpus jobs on Ray: a local 2-CPU cluster started here and shut down after, giving the local engine's rows;
resumption; and the batch callable for Ray pipelines of one's own. One cluster for the module: Ray's start
is most of these tests' time."""

import os

import pytest
from corpus_support import EXPECTED, read_rows, warcs  # noqa: F401 (warcs: a fixture)

from native_host.cli.main import main as cli_main

pytest.importorskip("fastwarc", reason="the corpus extra: pip install 'pith[corpus]'")
pytest.importorskip("pyarrow", reason="the corpus extra: pip install 'pith[corpus]'")
ray = pytest.importorskip("ray", reason="the corpus extra: pip install 'pith[corpus]'")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        object_store_memory=128 * 1024**2,
        _temp_dir=str(tmp_path_factory.mktemp("ray")),
        logging_level="WARNING",
    )
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def local_rows(warcs, tmp_path_factory):
    out = tmp_path_factory.mktemp("local") / "shards"
    assert cli_main(["extract", str(warcs[0].parent), "--out", str(out), "-j", "2"]) == 1  # a record cut short
    return read_rows(out)


def test_ray_gives_the_local_engines_rows_and_resumes(cluster, warcs, local_rows, tmp_path, capsys):
    out = tmp_path / "shards"
    assert cli_main(["extract", str(warcs[0].parent), "--out", str(out), "--engine", "ray"]) == 1
    assert sorted(p.name for p in out.iterdir()) == ["crawl.parquet", "more.parquet"]
    rows = read_rows(out)
    assert rows == local_rows
    assert [(r["url"], r["error"] and r["error"]["code"]) for r in rows] == [(u, e) for _, u, e in EXPECTED]
    assert "6 pages extracted, 1 failed (bad_input 1)" in capsys.readouterr().err
    (out / "more.parquet").unlink()
    # 0: only more.warc is read again, and all its pages give rows
    assert cli_main(["extract", str(warcs[0].parent), "--out", str(out), "--engine", "ray", "-j", "1"]) == 0
    assert "1 inputs skipped (their shard exists)" in capsys.readouterr().err
    assert read_rows(out) == local_rows


def test_the_batch_callable_composes_with_a_users_own_pipeline(cluster, warcs, local_rows):
    from native_host.corpus.ray_engine import ExtractBatch, warc_dataset

    fields = ("path", "url", "record_id", "title", "text", "error")
    ds = warc_dataset([str(p) for p in warcs]).map_batches(
        ExtractBatch,
        fn_constructor_kwargs={"fields": fields},
        num_cpus=1,
        batch_size=4,
        compute=ray.data.ActorPoolStrategy(size=1),
    )
    got = sorted(ds.take_all(), key=lambda r: r["record_id"])
    want = sorted(({k: r[k] for k in fields} for r in local_rows), key=lambda r: r["record_id"])
    assert got == want


def test_a_file_name_that_is_not_utf8_is_a_row_on_ray_too(cluster, tmp_path):
    import pyarrow.parquet as pq
    from corpus_support import PAGES

    crawl, out = tmp_path / "crawl", tmp_path / "shards"
    crawl.mkdir()
    (crawl / os.fsdecode(b"caf\xe9.html")).write_bytes((PAGES / "article" / "source.html").read_bytes())
    assert cli_main(["extract", str(crawl), "--out", str(out), "--engine", "ray"]) == 0
    assert os.listdir(os.fsencode(out)) == [b"caf\xe9.parquet"]
    with open(os.fsencode(out) + b"/caf\xe9.parquet", "rb") as f:  # pyarrow opens no path that is not UTF-8
        (row,) = pq.read_table(f).to_pylist()
    assert row["path"].endswith("/caf\\xe9.html") and row["error"] is None and "Twice a day" in row["text"]
