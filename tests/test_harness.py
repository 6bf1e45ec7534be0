"""The evaluation command end to end on a tiny data folder, with two real peers."""

import json
import re

import pytest
from tiny_data import write_jsonl_gz, write_tiny_data

from bench import evaluate, extractors

SCORE_COLUMNS = ("F1 median", "precision", "recall", "snippet acc.")


@pytest.fixture
def data(tmp_path, monkeypatch):
    folder = write_tiny_data(tmp_path / "data")
    monkeypatch.setenv("PITH_DATA", str(folder))
    return folder


def tables(markdown: str) -> dict[str, list[dict[str, str]]]:
    """Section title -> rows of its table, each a dict from column header to cell."""
    out, section, header = {}, None, None
    for line in markdown.splitlines():
        if line.startswith("## "):
            section, header = line[3:], None
            out[section] = []
        elif line.startswith("|") and section:
            cells = [c.strip() for c in line.strip("|").split("|")]
            if header is None:
                header = cells
            elif not set(line) <= set("|-: "):
                out[section].append(dict(zip(header, cells)))
    return out


def run(tmp_path, *extra):
    out = tmp_path / "report.md"
    jsonl = tmp_path / "pages.jsonl"
    rc = evaluate.main(
        ["--extractors", "trafilatura,resiliparse", "--split", "dev", "--out", str(out), "--jsonl", str(jsonl), *extra]
    )
    return rc, out, jsonl


def test_report_scores_peers_per_dataset_and_page_type(data, tmp_path, capsys):
    rc, out, _jsonl = run(tmp_path)
    assert rc == 0
    report = out.read_text()
    assert report.strip() in capsys.readouterr().out
    t = tables(report)
    assert set(t) == {"Mean F1", "trafilatura", "resiliparse"}
    assert "No extractor raised or ran past the timeout on any page." in report
    overview = {r["dataset · page type"]: r for r in t["Mean F1"]}
    assert list(overview) == ["all pages", "cleaneval", "wcxb", "wcxb · article", "wcxb · forum"]
    assert overview["all pages"]["scored"] == "3" and overview["all pages"]["skipped"] == "1"
    assert overview["cleaneval"]["skipped"] == "1" and overview["wcxb"]["scored"] == "2"
    for name in ("trafilatura", "resiliparse"):
        for row in t[name]:
            for col in SCORE_COLUMNS:
                if row[col] != "–":
                    assert 0.0 <= float(row[col]) <= 1.0, (name, row)
            assert float(row["s/page"]) >= 0 and row["empty"] == "0" and "errors" not in row
        by_group = {r["dataset · page type"]: r for r in t[name]}
        assert by_group["cleaneval"]["snippet acc."] == "–"  # no snippets outside WCXB
        assert by_group["wcxb"]["snippet acc."] != "–"
        # the pages are plain articles: any working extractor gets most words right
        assert float(overview["all pages"][name].strip("*")) > 0.5


def test_per_page_lines_match_the_pages(data, tmp_path):
    rc, _, jsonl = run(tmp_path)
    rows = [json.loads(line) for line in jsonl.read_text().splitlines()]
    assert rc == 0
    assert sorted((r["id"], r["extractor"]) for r in rows) == sorted(
        (i, e) for i in ("cleaneval/dev-1", "wcxb/dev-1", "wcxb/dev-2") for e in ("trafilatura", "resiliparse")
    )
    for r in rows:
        assert 0.0 <= r["f1"] <= 1.0 and r["error"] is None and r["chars"] > 0 and r["words"] > 0
        assert (r["snippet_accuracy"] is None) == (r["dataset"] != "wcxb")


def test_limit_and_dataset_choice(data, tmp_path):
    rc, out, jsonl = run(tmp_path, "--datasets", "wcxb", "--limit", "1")
    assert rc == 0
    assert {json.loads(line)["id"] for line in jsonl.read_text().splitlines()} == {"wcxb/dev-1"}
    assert "pages scored: 1;" in out.read_text()


def test_failing_extractor_counts_as_empty_and_an_error(data, tmp_path, monkeypatch):
    def load(arg):
        def boom(html, url):
            raise RuntimeError("parser exploded")

        return boom, "0"

    monkeypatch.setitem(extractors.REGISTRY, "boom", extractors.Spec("boom", load))
    out = tmp_path / "r.md"
    assert evaluate.main(["--extractors", "boom,resiliparse", "--out", str(out)]) == 0
    t = tables(out.read_text())
    rows = {r["dataset · page type"]: r for r in t["boom"]}
    assert rows["all pages"]["errors"] == "3" and rows["all pages"]["empty"] == "3"
    assert {r["dataset · page type"]: r for r in t["Mean F1"]}["all pages"]["boom"] == "0.000"


def test_unavailable_extractor_is_reported_and_the_rest_run(data, tmp_path):
    rc, out, _ = run(tmp_path, "--extractors", "pith:/nonexistent/model,resiliparse")
    report = out.read_text()
    assert rc == 0
    assert re.search(r"pith:/nonexistent/model: \*\*unavailable\*\*: .*model files missing", report)
    assert "## resiliparse" in report and "## pith" not in report


def test_nothing_available_fails(data, tmp_path, capsys):
    rc, _, _ = run(tmp_path, "--extractors", "no-such-extractor")
    assert rc == 1
    assert "unknown extractor 'no-such-extractor'" in capsys.readouterr().err


def test_missing_data_says_what_to_set(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PITH_DATA", str(tmp_path / "nowhere"))
    rc, out, _ = run(tmp_path)
    assert rc == 1
    assert "set PITH_DATA" in capsys.readouterr().err
    assert not out.exists()


def test_timeout_stops_a_stuck_extractor():
    import time

    def stuck(html, url):
        try:
            time.sleep(30)
        except Exception:  # a library that catches everything must not swallow the timeout
            return "swallowed"

    outcome = extractors.call(
        extractors.Loaded("stuck", stuck, "0", False), {"html": "<p>x</p>", "url": None}, timeout_s=0.2
    )
    assert outcome.text == "" and outcome.error == "timeout after 0.2 s"


def test_readability_text_keeps_blocks_apart_and_words_whole():
    text = extractors.html_to_text(
        "<div><p>end</p><p>Start <b>bo</b>ld<!-- note -->er</p><table><tr><td>a</td><td>b</td></tr></table>after</div>"
    )
    assert text.splitlines() == ["end", "Start bolder", "a b", "after"]


def test_readability_text_copes_with_control_characters():
    # lxml refuses such characters when text is set on an element; real pages carry them
    assert extractors.html_to_text("<div><p>one</p>odd\x01tail<p>next</p></div>") == "one\nodd\x01tail\nnext"


def test_no_page_to_score_fails(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "empty"
    folder.mkdir()
    from export.data import FILES, SIDECARS

    for name in [*FILES.values(), *SIDECARS.values()]:
        write_jsonl_gz(folder / name, [])
    monkeypatch.setenv("PITH_DATA", str(folder))
    rc, _, _ = run(tmp_path)
    assert rc == 1
    assert "no page to score" in capsys.readouterr().err


def test_pith_through_the_harness(data, tmp_path):
    from host_support import standin_model

    model_dir = standin_model(tmp_path)
    name = f"pith:{model_dir}" if model_dir else "pith"
    rc, out, _jsonl = run(tmp_path, "--extractors", name)
    report = out.read_text()
    assert rc == 0 and "unavailable" not in report
    t = tables(report)
    overview = {r["dataset · page type"]: r for r in t["Mean F1"]}
    assert overview["all pages"]["scored"] == "3" and "No extractor raised" in report
    assert 0.0 <= float(overview["all pages"][name]) <= 1.0


def test_a_model_failing_on_every_page_is_counted_not_fatal(data, tmp_path):
    from host_support import write_failing_model

    name = f"pith:{write_failing_model(tmp_path / 'failing')}"
    rc, out, _ = run(tmp_path, "--extractors", f"{name},resiliparse")
    t = tables(out.read_text())
    assert rc == 0
    assert {r["dataset · page type"]: r for r in t[name]}["all pages"]["errors"] == "3"
    assert {r["dataset · page type"]: r for r in t["resiliparse"]}["all pages"]["errors"] == "0"


def test_oracle_is_called_with_the_record_and_marked_as_seeing_the_gold(data, tmp_path):
    rc, out, jsonl = run(tmp_path, "--extractors", "oracle,resiliparse")
    report = out.read_text()
    assert rc == 0 and "leaving out oracle, which sees the gold" in report
    oracle = [json.loads(line) for line in jsonl.read_text().splitlines() if '"oracle"' in line]
    assert len(oracle) == 3 and all(r["error"] is None and r["f1"] > 0.5 for r in oracle)


def test_detail_names_the_extractors_with_a_table_per_dataset(data, tmp_path):
    rc, out, _ = run(tmp_path, "--detail", "resiliparse")
    t = tables(out.read_text())
    assert (
        rc == 0
        and "trafilatura" not in t
        and [r["extractor"] for r in t["Other extractors, all pages"]] == ["trafilatura"]
    )
    assert {r["dataset · page type"] for r in t["resiliparse"]} >= {"all pages", "cleaneval", "wcxb"}
    assert run(tmp_path, "--detail", "readability-lxml")[0] == 2  # not among --extractors
