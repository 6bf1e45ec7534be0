"""The trees that read the model's scores again (native_host/pipeline/rescore.py): their arithmetic on trees
written by hand, the features they read, the pages they leave alone, and the shipped file's agreement with
this release's features."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from host_support import write_standin_model

from export.rescore import to_onnx
from native_host import Extractor, snapshot_from_html
from native_host.errors import ModelError
from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.pipeline.inference import default_model_dir
from native_host.pipeline.rescore import FEATURES, MIN_BLOCKS, RESCORE_FILE, Rescorer, features
from native_host.result import PAGE_TYPES

SCORE, SHAPE_MEAN = FEATURES.index("score"), FEATURES.index("shape_mean_score")


def trees(*specs: tuple[int, float, float, float]) -> dict:
    """Flat trees (export.rescore.flatten), one stump per (feature, threshold, value at or below, value above)."""
    nodes: dict[str, list] = {"feature": [], "threshold": [], "left": [], "right": [], "value": []}
    roots = []
    for feature, threshold, below, above in specs:
        root = len(nodes["feature"])
        roots.append(root)
        for f, t, left, right, v in (
            (feature, threshold, root + 1, root + 2, 0.0),
            (-1, 0, 0, 0, below),
            (-1, 0, 0, 0, above),
        ):
            for key, value in zip(nodes, (f, t, left, right, v)):
                nodes[key].append(value)
    return {**nodes, "roots": roots}


def rescorer(folder, *specs: tuple[int, float, float, float]) -> Rescorer:
    """The stumps of `specs` written as rescore.onnx into `folder` and read back."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / RESCORE_FILE).write_bytes(to_onnx(trees(*specs)))
    loaded = Rescorer.load(folder)
    assert loaded is not None
    return loaded


def listing(items: int = 10) -> str:
    rows = "".join(f"<div class='item'><p>Harbour walk {i}, two hours</p></div>" for i in range(items))
    intro = "<p>Every walk leaves from the lifeboat station and keeps to the old sea wall, tide permitting.</p>"
    return f"<main><h1>Walks this month</h1>{intro}<div class='list'>{rows}</div></main>"


def test_the_trees_sum_their_leaves_through_a_sigmoid(tmp_path):
    x = np.zeros((3, len(FEATURES)))
    x[:, SCORE] = [0.1, 0.3, 0.9]
    x[:, SHAPE_MEAN] = [0.5, 0.1, 0.5]
    stumps = rescorer(tmp_path, (SCORE, 0.25, -1.0, 2.0), (SHAPE_MEAN, 0.2, -0.5, 1.0))
    expected = [-1.0 + 1.0, 2.0 - 0.5, 2.0 + 1.0]
    assert np.allclose(stumps.predict(x), [1 / (1 + math.exp(-v)) for v in expected], atol=1e-6)
    assert stumps.predict(np.zeros((0, len(FEATURES)))).shape == (0,)


def test_the_features_read_the_record_shape_and_the_neighbours():
    snapshot = snapshot_from_html(listing())
    blocks = blocks_from_snapshot(snapshot)
    items = [b.index for b in blocks if b.text.startswith("Harbour walk")]
    assert len(items) == 10
    main = np.array([0.8 if b.index in items[:5] else 0.1 for b in blocks])
    types = np.eye(len(PAGE_TYPES))[PAGE_TYPES.index("listing")]
    x = features(blocks, main, types)
    assert x.shape == (len(blocks), len(FEATURES)) and np.isfinite(x).all()
    # every item sees its shape's mean score and the share of it kept, whatever its own score
    assert np.allclose(x[items, SHAPE_MEAN], main[items].mean())
    assert np.allclose(x[items, FEATURES.index("shape_kept")], 0.5)
    assert np.allclose(x[items, FEATURES.index("shape_log_blocks")], math.log1p(10))
    assert np.allclose(x[:, FEATURES.index("type_listing")], 1.0)
    assert x[items[1], FEATURES.index("score_before")] == main[items[0]]
    assert features([], np.zeros(0), None).shape == (0, len(FEATURES))


def test_an_article_is_left_as_the_model_scored_it(tmp_path):
    snapshot = snapshot_from_html(listing())
    blocks = blocks_from_snapshot(snapshot)
    scores = np.full((len(blocks), 2), 0.1)
    keep = rescorer(tmp_path, (SHAPE_MEAN, 0.05, -3.0, 3.0))  # keeps every block of a kept shape
    assert keep(blocks, scores, None, "article", None) is scores
    assert keep(blocks, scores, None, "listing", "article") is scores  # the page's own word
    assert keep(blocks, scores, None, "forum", None) is scores  # a thread reads by its own form
    assert keep(blocks[: MIN_BLOCKS - 1], scores, None, "listing", None) is scores  # too few blocks to read
    out = keep(blocks, scores, None, "listing", None)
    assert np.allclose(out[:, 0], 1 / (1 + math.exp(-3.0)), atol=1e-6) and np.array_equal(out[:, 1], scores[:, 1])


def test_a_model_folder_with_trees_uses_them_and_one_without_does_not(tmp_path):
    """The stand-in model keeps blocks of about 55 characters or more: the listing's short items are left out
    without the trees; trees that keep the blocks of a shape of six or more keep them all."""
    plain = Extractor(write_standin_model(tmp_path / "plain"))
    assert plain.rescorer is None
    url = "https://walks.example/listing"
    before = plain.extract_html(listing(), url=url)
    assert "lifeboat station" in before.text and "Harbour walk" not in before.text
    folder = write_standin_model(tmp_path / "rescored")
    rescorer(folder, (FEATURES.index("shape_log_blocks"), math.log1p(5), 0.0, 3.0), (SCORE, 0.5, -3.0, 3.0))
    rescored = Extractor(folder)
    assert rescored.rescorer is not None
    after = rescored.extract_html(listing(), url=url)
    assert after.page_type is None  # the stand-in has no type head: the trees run on its every page
    assert "lifeboat station" in after.text and all(f"Harbour walk {i}," in after.text for i in range(10))


def test_trees_for_other_features_are_refused(tmp_path):
    import onnx

    graph = onnx.load_from_string(to_onnx(trees((0, 0.5, 0.0, 0.0))))
    for prop in graph.metadata_props:
        if prop.key == "features":
            prop.value = json.dumps(["score", "something else"])
    (tmp_path / RESCORE_FILE).write_bytes(graph.SerializeToString())
    with pytest.raises(ModelError, match="retrain it"):
        Rescorer.load(tmp_path)
    (tmp_path / RESCORE_FILE).write_text("not a graph")
    with pytest.raises(ModelError, match="cannot read"):
        Rescorer.load(tmp_path)


def test_the_shipped_trees_read_this_release_s_features():
    """The shipped trees load beside the shipped model (their features are this release's); what they do to
    the repository's pages is pinned with the model (tests/test_pinned_stages.py)."""
    assert Rescorer.load(default_model_dir()) is not None
    assert Extractor().rescorer is not None
