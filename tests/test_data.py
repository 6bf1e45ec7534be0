"""Reading the dataset files: which records come out, and the errors that say what to fix."""

import gzip

import pytest
from tiny_data import record, write_jsonl_gz, write_tiny_data

from export.data import DATASETS, DataError, data_dir, iter_records, repair_gold


@pytest.fixture
def data(tmp_path, monkeypatch):
    folder = write_tiny_data(tmp_path / "data")
    monkeypatch.setenv("PITH_DATA", str(folder))
    return folder


def ids(**kw):
    return [r["id"] for r in iter_records(**kw)]


def test_data_dir_follows_pith_data(data):
    assert data_dir() == data


def test_split_and_dataset_order(data):
    assert ids(split="dev") == ["cleaneval/dev-1", "cleaneval/dev-2", "wcxb/dev-1", "wcxb/dev-2"]
    assert ids(split="train") == ["cleaneval/train-1", "wcxb/dev-3"]
    assert len(ids()) == 6


def test_wcxb_is_read_through_its_sidecar(data):
    """WCXB's file keeps its first-published split: site, split, author and date come from the sidecar, and a
    page it marks `drop` (a repeat of a held-back test page) is never read."""
    by_id = {r["id"]: r for r in iter_records(datasets=["wcxb"])}
    assert "wcxb/dev-4" not in by_id
    assert by_id["wcxb/dev-3"]["split"] == "train" and by_id["wcxb/dev-3"]["site"] == "site2.example"
    assert (by_id["wcxb/dev-3"]["author"], by_id["wcxb/dev-3"]["date"]) == ("Ann Example", "2024-05-01")


def test_a_missing_sidecar_says_what_to_set(data):
    (data / "wcxb-dev.sites.jsonl.gz").unlink()
    with pytest.raises(DataError, match=r"wcxb-dev\.sites\.jsonl\.gz not found.*PITH_DATA"):
        ids(datasets=["wcxb"])


def test_limit_counts_per_dataset_after_the_split(data):
    assert ids(split="dev", limit=1) == ["cleaneval/dev-1", "wcxb/dev-1"]
    assert ids(limit=0) == []


def test_file_stem_names_the_dataset_too(data):
    assert ids(datasets=["wcxb-dev"]) == ids(datasets=["wcxb"]) == ["wcxb/dev-1", "wcxb/dev-2", "wcxb/dev-3"]


def test_snippet_lists_are_always_lists(data, tmp_path):
    r = record("x/1", "dragnet", "dev", "<p>a</p>", "a")
    r["with"] = None
    del r["without"]
    write_jsonl_gz(data / "dragnet.jsonl.gz", [r])
    (got,) = iter_records(datasets=["dragnet"])
    assert got["with"] == [] and got["without"] == []


def test_utf16_gold_is_repaired():
    damaged = "\ufeffHello world".encode("utf-16-le").decode("latin-1")
    assert damaged.startswith("\xff\xfe")
    assert repair_gold(damaged) == "Hello world"
    assert repair_gold("plain") == "plain" and repair_gold(None) is None


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"datasets": ["cleanevil"]}, "unknown dataset 'cleanevil'; choose among " + ", ".join(DATASETS)),
        ({"split": "test"}, "unknown split 'test'"),
    ],
)
def test_bad_choices_name_the_valid_ones(data, kw, message):
    with pytest.raises(DataError, match=message):
        list(iter_records(**kw))


def test_missing_folder_and_file(tmp_path, monkeypatch):
    monkeypatch.setenv("PITH_DATA", str(tmp_path / "nowhere"))
    with pytest.raises(DataError, match="set PITH_DATA"):
        data_dir()
    monkeypatch.setenv("PITH_DATA", str(tmp_path))
    with pytest.raises(DataError, match=r"cleaneval\.jsonl\.gz not found; set PITH_DATA"):
        list(iter_records())


def test_damaged_line_names_file_and_line(data):
    with gzip.open(data / "dragnet.jsonl.gz", "wt") as f:
        f.write('{"id": "ok", "split": "dev", "html": "", "main_text": "a"}\n{not json\n')
    with pytest.raises(DataError, match=r"dragnet.jsonl.gz:2: not a JSON record"):
        list(iter_records(datasets=["dragnet"]))
