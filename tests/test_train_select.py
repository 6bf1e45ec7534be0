"""How training picks its epoch and threshold when some dev pages were recorded live: both inputs count."""

from __future__ import annotations

import numpy as np

from export.prepare import Page
from native_host.pipeline import features as F
from native_host.result import LABELS


def page(id_: str, source: str, texts: list[str], gold: str) -> Page:
    n = len(texts)
    inputs = F.PageInputs(*(np.zeros((n, 1), dtype=np.int64) for _ in range(4)), np.zeros((n, 1), np.float32))
    return Page(
        id_,
        "wcxb",
        "dev",
        "forum",
        None,
        gold,
        [],
        [],
        texts,
        np.zeros((n, len(LABELS)), np.float32),
        np.zeros(n, np.float32),
        inputs,
        source,
    )


def test_live_pages_score_apart_and_the_choice_weighs_both_inputs():
    from export.train import evaluate

    html = page("a", "html", ["kept words here", "menu"], "kept words here")
    live = page("a", "live", ["kept words here", "menu"], "kept words here")
    # the HTML page is right at any threshold up to .6; the live page only at .3 or below
    rest = [0] * (len(LABELS) - 1)
    scores = [np.array([[0.9] + rest, [0.1] + rest]), np.array([[0.3] + rest, [0.1] + rest])]
    result = evaluate([html, live], scores, thresholds=[0.3, 0.5])
    assert result["threshold"] == 0.3
    s = result["scores"]
    assert s["wcxb"] == 1.0 and s["wcxb@live"] == 1.0 and s["wcxb/forum@live"] == 1.0
    assert s["select"] == ((s["all"] + s["macro"]) / 2 + (s["all@live"] + s["macro@live"]) / 2) / 2
    only_html = evaluate([html], scores[:1], thresholds=[0.3, 0.5])["scores"]
    assert only_html["select"] == (only_html["all"] + only_html["macro"]) / 2 and "macro@live" not in only_html


def test_f1_at_thresholds_is_the_metric_at_each_threshold():
    """The one-pass F1 over thresholds training selects by agrees with export.metric.word_prf."""
    from export.metric import word_prf
    from export.train import extracted_text, f1_at

    texts = ["The bridge opened on Saturday", "Home News About", "the bridge the river", "Share this"]
    p = page("b", "html", texts, "The bridge opened on Saturday after work on the river bridge")
    main = np.array([0.9, 0.2, 0.6, 0.45])
    thresholds = [0.1, 0.3, 0.5, 0.7, 0.95]
    assert f1_at(p, main, thresholds) == [word_prf(extracted_text(p, main >= t), p.gold)[2] for t in thresholds]


def test_a_page_without_blocks_scores_nothing_instead_of_failing():
    """A live snapshot of a page that rendered nothing has no blocks; the first mixed training run died on
    one in its dev evaluation."""
    from export.model import ContentModel, ModelConfig
    from export.train import page_scores

    empty = page("blank", "live", [], "some gold words")
    assert page_scores(ContentModel(ModelConfig()).eval(), empty).shape == (0, len(LABELS))
