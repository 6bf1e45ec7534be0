"""How training picks its epoch and threshold when some dev pages were recorded live: both inputs count."""

from __future__ import annotations

import numpy as np

from export.prepare import Page
from native_host.pipeline import features as F


def page(id_: str, source: str, texts: list[str], gold: str) -> Page:
    n = len(texts)
    inputs = F.PageInputs(*(np.zeros((n, 1), dtype=np.int64) for _ in range(4)), np.zeros((n, 1), np.float32))
    return Page(id_, "wcxb", "dev", "forum", None, gold, [], [], texts, np.zeros((n, 6), np.float32),
                np.zeros(n, np.float32), inputs, source)


def test_live_pages_score_apart_and_the_choice_weighs_both_inputs():
    from export.train import evaluate

    html = page("a", "html", ["kept words here", "menu"], "kept words here")
    live = page("a", "live", ["kept words here", "menu"], "kept words here")
    # the HTML page is right at any threshold up to .6; the live page only at .3 or below
    scores = [np.array([[0.9] + [0] * 5, [0.1] + [0] * 5]), np.array([[0.3] + [0] * 5, [0.1] + [0] * 5])]
    result = evaluate([html, live], scores, thresholds=[0.3, 0.5])
    assert result["threshold"] == 0.3
    s = result["scores"]
    assert s["wcxb"] == 1.0 and s["wcxb@live"] == 1.0 and s["wcxb/forum@live"] == 1.0
    assert s["select"] == (s["macro"] + s["macro@live"]) / 2
    only_html = evaluate([html], scores[:1], thresholds=[0.3, 0.5])["scores"]
    assert only_html["select"] == only_html["macro"] and "macro@live" not in only_html


def test_a_page_without_blocks_scores_nothing_instead_of_failing():
    """A live snapshot of a page that rendered nothing has no blocks; the first mixed training run died on
    one in its dev evaluation."""
    from export.model import ContentModel, ModelConfig
    from export.train import page_scores

    empty = page("blank", "live", [], "some gold words")
    assert page_scores(ContentModel(ModelConfig()).eval(), empty).shape == (0, 6)
