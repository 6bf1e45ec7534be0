"""Aggregation and layout of the report, on scores made up by hand."""

import pytest

from bench.report import ALL, PageScore, RunInfo, render, row_order, summarize


def score(id_, dataset, page_type, extractor, f1, snippet=None, seconds=0.5, error=None, words=10):
    return PageScore(
        id_,
        dataset,
        page_type,
        extractor,
        precision=f1,
        recall=1.0,
        f1=f1,
        snippet_accuracy=snippet,
        seconds=seconds,
        error=error,
        chars=words * 5,
        words=words,
    )


SCORES = [
    score("a", "dragnet", None, "x", 0.2, seconds=1.0),
    score("b", "wcxb", "forum", "x", 0.5, snippet=0.5, seconds=2.0),
    score("c", "wcxb", "article", "x", 0.0, snippet=1.0, seconds=3.0, error="timeout after 30 s", words=0),
    score("a", "dragnet", None, "y", 0.9),
    score("b", "wcxb", "forum", "y", 0.8, snippet=0.25),
    score("c", "wcxb", "article", "y", 0.7, snippet=0.75),
]


def test_means_medians_and_counts_by_hand():
    stats = summarize(SCORES)
    x = stats[(ALL, "x")]
    assert x.pages == 3
    assert x.f1_mean == pytest.approx(0.7 / 3) and x.f1_median == 0.2
    assert x.snippet_accuracy == pytest.approx(0.75)  # only the two pages with snippets
    assert x.seconds_per_page == pytest.approx(2.0)
    assert (x.empty, x.errors) == (1, 1)
    assert stats[("dragnet", "x")].snippet_accuracy is None
    assert stats[("wcxb · forum", "y")].f1_mean == pytest.approx(0.8)
    assert stats[("wcxb", "y")].f1_median == pytest.approx(0.75)


def test_rows_follow_dataset_then_page_type_order():
    present = {ALL, "wcxb", "wcxb · service", "wcxb · article", "dragnet", "wcxb · odd", "extra"}
    assert row_order(present) == [ALL, "dragnet", "wcxb", "wcxb · article", "wcxb · service", "wcxb · odd", "extra"]


def test_overview_bolds_the_best_per_row_and_lists_unavailable():
    info = RunInfo(
        "python -m bench.evaluate",
        "today",
        "here",
        "dev",
        {"x": "1", "y": "2"},
        {"pith": "model files missing"},
        pages={ALL: 3, "dragnet": 1, "wcxb": 2, "wcxb · forum": 1, "wcxb · article": 1},
        skipped={ALL: 1, "dragnet": 1},
    )
    md = render(info, summarize(SCORES), ["x", "y", "pith"])
    assert "| all pages | 3 | 1 | 0.233 | **0.800** |" in md
    assert "| dragnet | 1 | 1 | 0.200 | **0.900** |" in md
    assert "- pith: **unavailable**: model files missing" in md
    assert "## x" in md and "## y" in md and "## pith" not in md
    # an extractor's own table leaves out what the overview holds (pages and the mean F1)
    assert md.count("| dataset · page type | F1 median | precision |") == 2 and "F1 mean" not in md
    assert md.count("| empty | errors |") == 2 and "No extractor raised" not in md  # x timed out on a page


def test_a_gold_seeing_ceiling_is_never_the_bold_best():
    info = RunInfo(
        "cmd", "today", "here", "dev", {"x": "1", "y": "2", "oracle": "3"}, {}, pages={ALL: 3}, sees_gold={"oracle"}
    )
    scores = SCORES + [
        score(i, d, t, "oracle", 1.0)
        for i, d, t in (("a", "dragnet", None), ("b", "wcxb", "forum"), ("c", "wcxb", "article"))
    ]
    md = render(info, summarize(scores), ["x", "y", "oracle"])
    assert "| all pages | 3 | 0 | 0.233 | **0.800** | 1.000 |" in md
    assert "leaving out oracle, which sees the gold" in md


def test_a_page_type_holding_its_whole_dataset_gets_no_row_of_its_own():
    scores = SCORES + [score("d", "fundus", "article", e, 0.6) for e in ("x", "y")]
    info = RunInfo(
        "cmd",
        "today",
        "here",
        "dev",
        {"x": "1", "y": "2"},
        {},
        pages={
            ALL: 4,
            "dragnet": 1,
            "wcxb": 2,
            "wcxb · forum": 1,
            "wcxb · article": 1,
            "fundus": 1,
            "fundus · article": 1,
        },
    )
    md = render(info, summarize(scores), ["x", "y"])
    assert "| fundus | 1 | 0 |" in md and "fundus · article" not in md
    assert "| wcxb · forum | 1 | 0 |" in md and "| wcxb · article | 1 | 0 |" in md  # two types: both kept


def test_extractors_left_out_of_the_detail_get_one_row_over_all_pages():
    info = RunInfo("cmd", "today", "here", "dev", {"x": "1", "y": "2"}, {}, pages={ALL: 3, "dragnet": 1, "wcxb": 2})
    md = render(info, summarize(SCORES), ["x", "y"], detail=["x"])
    assert "## x" in md and "## y" not in md
    other = md[md.index("## Other extractors, all pages") :]
    assert "| y | 0.800 | 0.800 | 1.000 | 0.500 | 0.500 | 0 | 0 |" in other and "| x |" not in other
