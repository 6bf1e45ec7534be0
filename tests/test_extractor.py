"""The shipped model through the whole pipeline, without torch; and the `pith extract` CLI."""

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from native_host import Extractor, ModelError, SnapshotError, snapshot_from_html
from native_host.cli.main import main as cli_main
from native_host.pipeline.inference import OVERLAP, WINDOW, windows
from native_host.result import LABELS

PAGES = Path(__file__).parent / "pages"
ARTICLE = PAGES / "article" / "source.html"


@pytest.fixture(scope="module")
def extractor():
    return Extractor()


def test_runs_with_torch_unimportable():
    code = """
import sys, importlib.abc
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch.") or name == "export" or name.startswith("export."):
            raise ImportError("blocked: " + name)
sys.meta_path.insert(0, Block())
import native_host
r = native_host.Extractor().extract_html(open(sys.argv[1], "rb").read())
assert "Twice a day" in r.text, r.text
assert not any(m == "torch" or m.startswith("torch.") for m in sys.modules)
print("ok", len(r.node_ids))
"""
    out = subprocess.run([sys.executable, "-c", code, str(ARTICLE)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok")


def test_article_page_main_content(extractor):
    r = extractor.extract_html(ARTICLE.read_bytes(), url="https://gazette.example/tides")
    for wanted in ("Twice a day the sea rises", "Spring and neap tides", "neap tides", "Bay of Fundy"):
        assert wanted in r.text
    for boiler in ("All rights reserved", "Buy cheap boats", "Privacy", "Storm warning"):
        assert boiler not in r.text
    assert r.title == "How Tides Work"
    assert r.node_ids == sorted(set(r.node_ids))
    assert len(r.blocks) > 10 and all(set(b.scores) == set(LABELS) for b in r.blocks)
    # the headline and byline are the header: the body starts with the article's first paragraph
    assert r.byline == "Marta Lindqvist"
    assert r.markdown.startswith("Twice a day") and r.html.startswith("<p>Twice a day")
    assert "How Tides Work" not in r.text + r.markdown + r.html and "Lindqvist" not in r.text + r.markdown
    assert "| Place | Mean range |\n|---|---|\n| Bay of Fundy | 16 m |\n| Mediterranean | 0.3 m |" in r.markdown
    assert '<img src="https://gazette.example/img/tide-chart.png"' in r.html
    assert r.image.url == "https://gazette.example/img/tide-chart.png" and r.word_count > 100 and r.reading_minutes == 1
    assert set(r.timings) >= {
        "snapshot",
        "blocks",
        "features",
        "inference",
        "decisions",
        "metadata",
        "article",
        "total",
    }


def test_snapshot_and_html_paths_agree(extractor):
    html = ARTICLE.read_bytes()
    a = extractor.extract_html(html, url="https://g.example/")
    b = extractor.extract_snapshot(snapshot_from_html(html, url="https://g.example/"))
    assert a.text == b.text and a.node_ids == b.node_ids


def test_reader_views_are_built_only_when_asked(extractor):
    html = ARTICLE.read_bytes()
    full = extractor.extract_html(html)
    for views, built in (((), ()), (("markdown",), ("markdown",)), (("html",), ("html",))):
        r = extractor.extract_html(html, views=views)
        assert (r.text, r.node_ids, r.title, r.byline) == (full.text, full.node_ids, full.title, full.byline)
        for field in ("html", "markdown"):
            assert getattr(r, field) == (getattr(full, field) if field in built else "")


def test_views_asked_later_are_added_after_the_result_is_handed_over(extractor):
    """`ready` gets the result with the first views built; the later ones are then added to it, the same as
    asked for at once, and their time is its own stage."""
    snapshot = snapshot_from_html(ARTICLE.read_bytes())
    whole = extractor.extract_snapshot(snapshot, {"html", "markdown"})
    seen = []
    result = extractor.extract_snapshot(
        snapshot, {"html"}, later={"markdown"}, ready=lambda r: seen.append((r.html, r.markdown, dict(r.timings)))
    )
    assert seen == [(whole.html, "", seen[0][2])] and whole.markdown
    assert (result.html, result.markdown, result.text) == (whole.html, whole.markdown, whole.text)
    assert "later views" in result.timings and "later views" not in seen[0][2]
    assert result.timings["total"] >= seen[0][2]["total"]


def test_a_pages_snapshot_is_freed_before_the_collector_comes_back(extractor, monkeypatch):
    """Else the collector's first pass goes over every node of the page, about to be freed anyway."""
    import gc

    from native_host.pipeline import extractor as engine

    freed_with_collector_on = []

    class Snapshot(dict):
        def __del__(self):
            freed_with_collector_on.append(gc.isenabled())

    made = engine.snapshot_from_html
    monkeypatch.setattr(engine, "snapshot_from_html", lambda *a, **k: Snapshot(made(*a, **k)))
    assert gc.isenabled()
    result = extractor.extract_html(ARTICLE.read_bytes(), views=())
    assert "Twice a day" in result.text and freed_with_collector_on == [False] and gc.isenabled()


def test_more_inference_threads_give_the_same_labels(extractor):
    paras = "".join(f"<p>Paragraph {i} tells a long story about tides, harbours and the moon.</p>" for i in range(600))
    page = f"<html><body><nav><a href=/>Home</a></nav><article>{paras}</article><footer>(c)</footer></body></html>"
    one = extractor.extract_html(page)
    two = Extractor(threads=2).extract_html(page)
    assert [b.main for b in one.blocks] == [b.main for b in two.blocks]
    assert max(abs(a.scores["main"] - b.scores["main"]) for a, b in zip(one.blocks, two.blocks)) < 1e-3


def test_bad_snapshot_is_an_error_not_a_crash(extractor):
    with pytest.raises(SnapshotError):
        extractor.extract_snapshot({"format": "pith-snapshot", "version": 1, "source": "live", "nodes": [{"id": 3}]})


def test_empty_and_textless_pages(extractor):
    for html in ("", "<html><body></body></html>", "<img src=x>", "<frameset><frame src=a></frameset>"):
        r = extractor.extract_html(html)
        assert r.text == "" and r.node_ids == []


@pytest.mark.parametrize("n", [1, 511, 512, 513, 529, 640, 641, 896, 897, 1300, 2124, 20_000])
def test_windows_cover_the_page_with_context_and_no_wasted_window(n):
    spans = windows(n)
    assert spans[0][0] == 0 and spans[-1][1] == n
    assert all(0 < stop - start <= WINDOW for start, stop in spans)
    assert all(nxt[0] <= prev[1] - min(OVERLAP, n) for prev, nxt in itertools.pairwise(spans))
    # As few spans as a cover with OVERLAP-block seams allows, and none of them much shorter than the rest.
    assert len(spans) == (1 if n <= WINDOW else -(-(n - OVERLAP) // (WINDOW - OVERLAP)))
    assert max(b - a for a, b in spans) - min(b - a for a, b in spans) <= 1


def test_long_page_runs_in_windows(extractor):
    paras = "".join(f"<p>Paragraph number {i} tells a long story about tides and harbours.</p>" for i in range(1500))
    r = extractor.extract_html(f"<html><body><article>{paras}</article></body></html>")
    assert len(r.blocks) == 1500
    assert "Paragraph number 1499" in r.text and "Paragraph number 0 " in r.text


def test_a_waited_on_page_runs_its_windows_at_once_with_the_same_scores(extractor):
    """Two inference threads (the host's, for one page waited on) run a long page's windows at the same time;
    the scores and the page type are those of the windows run one after the other, exactly."""
    import numpy as np

    from native_host.pipeline.blocks import blocks_from_snapshot
    from native_host.pipeline.inference import windowed

    paras = "".join(f"<p>Paragraph {i} tells a story about tides, {i % 7} harbours and ships.</p>" for i in range(1200))
    snapshot = snapshot_from_html(
        f"<html><body><nav><a href='/'>Home</a></nav><article>{paras}</article></body></html>"
    )
    two = Extractor(threads=2)
    assert two.model._pool is not None and extractor.model._pool is None
    inputs = two.featurize(snapshot, blocks_from_snapshot(snapshot))
    assert len(windows(len(inputs))) > 2
    (scores, types), (alone, alone_types) = two.model.predict(inputs), windowed(inputs, two.model._run)
    assert np.array_equal(scores, alone) and np.array_equal(types, alone_types)


def test_missing_model_dir_says_what_to_do(tmp_path):
    with pytest.raises(ModelError, match="reinstall pith"):
        Extractor(tmp_path)


def test_cli_single_file_formats(capsys):
    assert cli_main(["extract", str(ARTICLE), "-f", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        '---\ntitle: "How Tides Work"\nauthor:\n  - "Marta Lindqvist"\ncreated: '
    )  # the default template
    assert '\ntags:\n  - "clippings"\n---\n\nTwice a day' in out
    assert "| Place | Mean range |\n|---|---|\n| Bay of Fundy | 16 m |\n| Mediterranean | 0.3 m |\n" in out
    assert cli_main(["extract", str(ARTICLE), "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["title"] == "How Tides Work" and data["node_ids"] and data["byline"] == "Marta Lindqvist"
    assert {
        "date",
        "modified",
        "site_name",
        "dir",
        "description",
        "image",
        "canonical_url",
        "page_type",
        "word_count",
        "reading_minutes",
    } <= data.keys()


def test_cli_stdin():
    out = subprocess.run(
        [sys.executable, "-m", "native_host", "extract", "-"],
        input=ARTICLE.read_bytes(),
        capture_output=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert b"Twice a day" in out.stdout


SHELL_PAGE = """<!doctype html><html lang="en"><head><title>Which bike light lasts a winter? - Riders' Board</title>
<meta property="og:description" content="My commute is dark from November to February. Which rechargeable light
has lasted you a whole winter of rain without the switch giving up?"></head>
<body><section id="main"></section><script>window.boot()</script></body></html>"""


def test_cli_says_why_a_page_built_by_script_gives_no_text(tmp_path, capsys):
    page = tmp_path / "shell.html"
    page.write_text(SHELL_PAGE)
    assert cli_main(["extract", str(page), "-f", "json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["text"] == "" and not data["blocks"]
    # Nothing in the body to compare it with: the page's description is the one summary it gives.
    assert data["description"].startswith("My commute is dark from November")
    assert "holds no text in its body" in captured.err and "--snapshot" in captured.err
    assert "description is in -f json" in captured.err

    page.write_text('<html><body><nav><a href="/">Home</a> <a href="/about">About us</a></nav></body></html>')
    assert cli_main(["extract", str(page)]) == 0
    assert "no main content found in" in capsys.readouterr().err


def test_cli_directory_to_jsonl_with_workers(tmp_path):
    pages = tmp_path / "pages"
    pages.mkdir()
    for i in range(5):
        (pages / f"p{i}.html").write_bytes(ARTICLE.read_bytes())
    (pages / "bad.html").write_bytes(b"\xff\xfe\x00<<<")
    (pages / "notes.txt").write_text("not html")
    out = tmp_path / "result.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "native_host", "extract", str(pages), "--out", str(out), "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [Path(r["path"]).name for r in rows] == ["bad.html"] + [f"p{i}.html" for i in range(5)]
    assert all("Twice a day" in r["text"] for r in rows[1:])
    assert "6 pages extracted" in proc.stderr


def test_cli_errors_are_messages(tmp_path, capsys):
    assert cli_main(["extract", str(tmp_path / "missing.html")]) == 1
    assert "no such file" in capsys.readouterr().err
    assert cli_main(["extract", str(ARTICLE), str(ARTICLE)]) == 1
    assert "--out" in capsys.readouterr().err
