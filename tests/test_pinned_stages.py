"""Speed work must not move the model's inputs, and no CPU may move the answers: every stage's output on the
repository's pages is pinned (written on purpose by `python -m bench.golden pin`, never by a test): the model's
side in tests/pinned/stages.json, the answers in each page's expected.md and expected-metadata.json, and
checked here on any machine.

Snapshot, blocks, tag ids, class levels and the numeric features depend on code only and are always compared
exactly (numbers within 1e-6, as math.log may round its last bit differently by platform). The result after
the model (decisions, metadata, article) is rebuilt from the pinned scores, without the model, and its
expected files compared exactly. Token ids, class-word ids and the scores also depend on the model's assets, so they are compared
while the assets are the pinned ones: scores within bench.golden.SCORE_TOLERANCE (int8 kernels round
differently by CPU instruction set), and each block's decision exactly where the pin made one (where its
score sits at least bench.golden.DECISION_MARGIN from the threshold). A retrained model is re-pinned with the
command above.
"""

import json

import numpy as np
import pytest

from bench.golden import (
    ARRAYS,
    DECISION_MARGIN,
    PINNED,
    SCORE_TOLERANCE,
    SERVED,
    SOURCE,
    asset_digests,
    decisions,
    expected,
    outputs,
    repo_page_list,
)
from bench.golden import PAGES as PAGE_DIR
from native_host import Extractor
from native_host.pipeline.blocks import PATH_DEPTH, blocks_from_snapshot
from native_host.pipeline.extractor import result_from_scores
from native_host.pipeline.inference import default_model_dir
from native_host.pipeline.rescore import Rescorer
from native_host.pipeline.snapshot import snapshot_from_html

ASSET_BOUND = ("text_ids", "class_ids")
PAGES = sorted(json.loads(PINNED.read_text("utf-8"))["pages"])
REPO_PAGES = {page.name: page for page in repo_page_list()}


@pytest.fixture(scope="module")
def pin():
    with open(PINNED, encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def extractor():
    return Extractor()


@pytest.fixture(scope="module")
def rescorer():
    """The shipped trees (asset_digests pins them with the model), read once for every page."""
    return Rescorer.load(default_model_dir())


@pytest.fixture(scope="module")
def current(extractor, pin):
    return {name: outputs(extractor, REPO_PAGES[name].source.read_bytes(), REPO_PAGES[name].url) for name in PAGES}


@pytest.fixture(scope="module")
def same_assets(extractor, pin):
    return asset_digests(extractor.model.dir) == pin["assets"]


@pytest.mark.parametrize("name", PAGES)
def test_snapshot_and_blocks_pinned(name, current, pin):
    assert current[name]["snapshot"] == pin["pages"][name]["snapshot"]
    assert current[name]["blocks"] == pin["pages"][name]["blocks"]


@pytest.mark.parametrize("name", PAGES)
def test_model_inputs_pinned(name, current, pin, same_assets):
    for array in ARRAYS:
        if array in ASSET_BOUND and not same_assets:
            continue
        got, want = current[name]["inputs"][array], np.asarray(pin["pages"][name]["inputs"][array])
        assert got.shape == want.shape or (got.size == 0 and want.size == 0), array
        if got.dtype.kind == "f":
            np.testing.assert_allclose(got, want.reshape(got.shape), rtol=0, atol=1e-6, err_msg=array)
        else:
            np.testing.assert_array_equal(got, want.reshape(got.shape), err_msg=array)


def test_every_page_of_the_repository_is_pinned():
    """A page added (a folder with a source.html, or a flat tests/pages/<name>.html) without its pin fails here."""
    flat = [p for p in PAGE_DIR.rglob("*.html") if p.name != SOURCE and SERVED not in p.parents]
    assert not flat and sorted(REPO_PAGES) == PAGES, "new pages: pin them with `python -m bench.golden pin`"


@pytest.mark.parametrize("name", PAGES)
def test_the_expected_files_follow_from_the_pinned_scores(name, pin, rescorer):
    """No model: the decisions, metadata and article from the pinned scores are exactly the page's expected.md
    and expected-metadata.json."""
    page, files = pin["pages"][name], REPO_PAGES[name]
    snapshot = snapshot_from_html(files.source.read_bytes(), url=files.url)
    blocks = blocks_from_snapshot(snapshot)
    scores = np.asarray(page["scores"], dtype=np.float32).reshape(len(blocks), -1)
    result = result_from_scores(
        snapshot,
        blocks,
        scores,
        pin["labels"],
        pin["threshold"],
        type_scores=page["page_type_scores"],
        rescorer=rescorer,
    ).to_dict()
    markdown, metadata = expected(result)
    assert markdown == files.expected_md.read_text(encoding="utf-8")
    assert metadata == files.expected_metadata.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", PAGES)
def test_scores_match_the_pin_within_the_tolerance_and_decisions_exactly(name, current, pin, same_assets):
    if not same_assets:
        pytest.skip("model assets differ from the pinned ones: re-pin with `python -m bench.golden pin`")
    page = pin["pages"][name]
    got = np.asarray(current[name]["scores"])
    want = np.asarray(page["scores"]).reshape(got.shape[0], -1)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=SCORE_TOLERANCE)
    # the model's own decisions, before the trees and the page-level rules, which follow from them
    made = [bool(s >= pin["threshold"]) for s in got[:, 0]]
    assert [m for m, d in zip(made, page["decided"]) if d is not None] == [d for d in page["decided"] if d is not None]
    # the page type: its probabilities within the tolerance, and the chosen type exactly where it leads clearly
    if page["page_type_scores"] is not None:
        got_types, want_types = current[name]["page_type_scores"], np.asarray(page["page_type_scores"])
        np.testing.assert_allclose(got_types, want_types, rtol=0, atol=SCORE_TOLERANCE)
        first, second = np.sort(want_types)[::-1][:2]
        if first - second >= DECISION_MARGIN:
            assert int(np.argmax(got_types)) == int(np.argmax(want_types))


def test_pinned_decisions_sit_clear_of_the_threshold(pin):
    """A decision is pinned only where no CPU's rounding can flip it; the tolerance on scores is inside that
    margin, so a score that passes can never cross the threshold of a pinned decision."""
    assert pin["threshold"] and SCORE_TOLERANCE < DECISION_MARGIN
    for name, page in pin["pages"].items():
        main_scores = [s[0] for s in page["scores"]]
        assert page["decided"] == decisions(main_scores, pin["threshold"]), name
        for score, decided in zip(main_scores, page["decided"]):
            if decided is not None:
                assert abs(score - pin["threshold"]) >= DECISION_MARGIN and decided == (score >= pin["threshold"])


def _walk(nodes, i):
    """Tag path and class path of node i over its nearest PATH_DEPTH ancestors, by the plain walk to the root:
    the reference."""
    tags, classes = [], []
    while i >= 0 and len(tags) < PATH_DEPTH:
        node = nodes[i]
        tags.append(node["tag"])
        if node.get("classes") or node.get("html_id"):
            classes.append(
                node["tag"]
                + "".join("." + c for c in node.get("classes", ()))
                + (f"#{node['html_id']}" if node.get("html_id") else "")
            )
        i = node["parent"]
    return tags[::-1], classes[::-1]


@pytest.mark.parametrize("depth", [5, 31, 32, 33, 62, 63, 64, 120])
def test_block_paths_match_the_plain_walk_at_any_depth(depth):
    """Owners shallower than blocks.MEMO_DEPTH take memoised paths, deeper ones build theirs from their
    nearest PATH_DEPTH ancestors: both agree with the walk to the root, on either side of each edge, and
    the flags still see every ancestor."""
    html = (
        "".join(
            f"<div class='d{k}' id='n{k}'><p>text {k}</p>" if k % 3 else f"<section><b>t{k}</b>" for k in range(depth)
        )
        + "<p class='deep'>end</p>"
    )
    snapshot = snapshot_from_html(f"<html><body><ul><li>{html}</li></ul></body></html>")
    blocks = blocks_from_snapshot(snapshot, combine=False)
    assert blocks
    for b in blocks:
        tags, classes = _walk(snapshot["nodes"], b.owner)
        assert (b.tag_path, b.class_path) == (tags, classes)
        assert b.flags["list"] and b.flags["paragraph"] == ("p" in tags)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Plain ASCII 123, with CAPS.",
        "Ünïcödé ÄÖÜ ß 42",
        "x² ½ Ⅻ ٣ ǅ ﬁ",
        "ΟΔΟΣ οδός",
        "漢字かな 123 ＡＢＣ",
        "\x00\x1f tabs\tand\nnewlines",
    ],
)
def test_character_counts_are_str_methods(text):
    """The fast counts behind the letter, digit and capital ratios agree with str.isalpha/isdigit/isupper."""
    from native_host.pipeline.features import _char_counts

    assert _char_counts(text) == (
        sum(c.isalpha() for c in text),
        sum(c.isdigit() for c in text),
        sum(c.isupper() for c in text),
    )
