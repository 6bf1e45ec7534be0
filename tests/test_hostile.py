"""Hostile pages through the real host process and framing, at small sizes: the shapes of
bench/hostile.py (which sends the full sizes) each get their documented answer, in bounded time and memory,
and the host answers the next request."""

from __future__ import annotations

import pytest
from host_support import standin_model

from bench.hostile import CASES, run_case
from native_host import limits

SCALE = 0.02  # 20,000 elements, 2,000-deep nesting, a 2 MB text node...
MAX_SECONDS = 30.0  # generous: the machine running the tests may be loaded
MAX_PEAK_MB = 1024.0


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    model_dir = standin_model(tmp_path_factory.mktemp("model"))
    return {
        "PITH_LOG_DIR": str(tmp_path_factory.mktemp("logs")),
        **({"PITH_MODEL_DIR": model_dir} if model_dir else {}),
    }


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_hostile_page_gets_its_answer_in_bounded_time_and_memory(case, env):
    row = run_case(case, SCALE, repeats=1, env=env)
    assert row.got == case.expect(SCALE), row
    assert row.ok, f"{row}: the host did not answer the hello after it"
    assert row.max_s < MAX_SECONDS and row.peak_mb < MAX_PEAK_MB, row


def test_the_small_sizes_still_cross_the_limits_they_are_about():
    """At SCALE the cut-short cases must still be cut short, or the test above would not test truncation."""
    expected = {c.name: c.expect(SCALE) for c in CASES}
    assert expected["million_elements"] == "truncated"
    assert expected["text_100mb"] == "truncated" and expected["million_elements_as_is"] == "bad_snapshot"
    assert limits.MAX_BLOCKS <= 20_000 <= limits.MAX_NODES


def test_text_a_script_put_inside_an_img_is_extracted_without_an_error(env):
    """Found by tests/test_fuzz.py: an <img> with no src, kept as the ancestor of main text (the DOM lets a
    script append children to an <img>), made the article builder fail."""
    from native_host import Extractor

    text = "The old mill by the river still grinds flour for the valley every autumn, as it always has. " * 3
    nodes = [
        {"id": 0, "parent": -1, "depth": 0, "tag": "html"},
        {"id": 1, "parent": 0, "depth": 1, "tag": "body"},
        {"id": 2, "parent": 1, "depth": 2, "tag": "img"},
        {"id": 3, "parent": 2, "depth": 3, "tag": "p"},
        {"id": 4, "parent": 3, "depth": 4, "tag": "#text", "text": text},
    ]
    snapshot = {"format": "pith-snapshot", "version": 1, "source": "live", "nodes": nodes}
    result = Extractor(model_dir=env.get("PITH_MODEL_DIR")).extract_snapshot(snapshot)
    assert result.node_ids and "old mill" in result.text and "<img" not in result.html
