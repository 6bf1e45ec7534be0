"""The recorder (export/record.py) in real headless Chromium, and the msgpack corpus it writes
(export/recordings.py): two small pages recorded and read back, resuming, a truncated tail."""

from __future__ import annotations

import msgpack
import pytest

from export import recordings

ARTICLE = (
    "<html><head><title>Tide clock</title></head><body><nav><a href='/'>Home</a></nav>"
    "<article><h1>The tide clock</h1><p>Every evening the keeper winds the harbour clock by hand.</p>"
    "<img src='https://example.com/outside.png'></article></body></html>"
)
LIST = (
    "<html><body><ul><li>One fish</li><li>Two fish</li></ul><p style='display:none'>hidden words</p>"
    "<div style='display:none'><iframe srcdoc='<p>framed</p>'></iframe></div></body></html>"
)  # an iframe in a hidden subtree once failed the walk


def _records():
    return [{"id": "t/one", "html": ARTICLE, "split": "dev"}, {"id": "t/two", "html": LIST, "split": "dev"}]


def test_corpus_resumes_and_tolerates_a_truncated_tail(tmp_path):
    path = tmp_path / "c.msgpack"
    with recordings.Writer(path) as w:
        w.add({"id": "a", "snapshot": {"nodes": []}})
        w.add({"id": "b", "snapshot": {"nodes": [1]}})
    whole = path.read_bytes()
    path.write_bytes(whole + msgpack.packb({"id": "c", "snapshot": {"nodes": [2, 3]}})[:-3])  # killed mid-write
    assert [r["id"] for r in recordings.read(path)] == ["a", "b"]
    with recordings.Writer(path) as w:
        assert w.done == {"a", "b"}
        w.add({"id": "c", "snapshot": {"nodes": [2, 3]}})
    assert [r["id"] for r in recordings.read(path)] == ["a", "b", "c"]


def test_read_one_says_what_to_do_with_an_empty_file(tmp_path):
    (tmp_path / "e.msgpack").write_bytes(b"")
    with pytest.raises(ValueError, match="record the page again"):
        recordings.read_one(tmp_path / "e.msgpack")


@pytest.mark.browser
def test_records_two_pages_in_chromium_and_reads_them_back(tmp_path):
    from export.record import record

    out = tmp_path / "two.msgpack"
    stats = record(out, None, records=_records(), timeout_s=20)
    assert stats["recorded"] == 2 and stats["failed"] == 0
    got = {r["id"]: r["snapshot"] for r in recordings.read(out)}
    assert set(got) == {"t/one", "t/two"}
    one = got["t/one"]
    assert one["source"] == "live" and one["title"] == "Tide clock"
    para = next(n for n in one["nodes"] if n["tag"] == "p")
    assert para["visible"] is True and len(para["box"]) == 4 and para["font_size"] > 0  # live-render fields
    hidden = next(n for n in got["t/two"]["nodes"] if n["tag"] == "p")
    assert hidden["visible"] is False and hidden["display"] == "none"
    again = record(out, None, records=_records(), timeout_s=20)  # a rerun skips what is stored
    assert again["recorded"] == 0 and again["skipped"] == 2
