"""Speed work must not move the model's inputs: every stage's output on the repository's pages is pinned in
tests/pinned/stages.json (written on purpose by `python -m bench.golden pin`, never by a test).

Snapshot, blocks, tag ids, class levels and the numeric features depend on code only and are always
compared. Token ids, class-word ids and the extraction result also depend on the model's assets, so they
are compared while the assets are the pinned ones; a retrained model is re-pinned with the command above.
"""

import json

import numpy as np
import pytest

from bench.golden import ARRAYS, PINNED, ROOT, asset_digests, outputs
from native_host import Extractor
from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.pipeline.snapshot import snapshot_from_html

ASSET_BOUND = ("text_ids", "class_ids")

with open(PINNED, encoding="utf-8") as f:
    PIN = json.load(f)


@pytest.fixture(scope="module")
def extractor():
    return Extractor()


@pytest.fixture(scope="module")
def current(extractor):
    return {name: outputs(extractor, (ROOT / name).read_bytes(), "https://pages.example/" + name.rsplit("/", 1)[-1])
            for name in PIN["pages"]}


@pytest.fixture(scope="module")
def same_assets(extractor):
    return asset_digests(extractor.model.dir) == PIN["assets"]


@pytest.mark.parametrize("name", sorted(PIN["pages"]))
def test_snapshot_and_blocks_pinned(name, current):
    assert current[name]["snapshot"] == PIN["pages"][name]["snapshot"]
    assert current[name]["blocks"] == PIN["pages"][name]["blocks"]


@pytest.mark.parametrize("name", sorted(PIN["pages"]))
def test_model_inputs_pinned(name, current, same_assets):
    for array in ARRAYS:
        if array in ASSET_BOUND and not same_assets:
            continue
        got, want = current[name]["inputs"][array], np.asarray(PIN["pages"][name]["inputs"][array])
        assert got.shape == want.shape or (got.size == 0 and want.size == 0), array
        if got.dtype.kind == "f":
            np.testing.assert_allclose(got, want.reshape(got.shape), rtol=0, atol=1e-6, err_msg=array)
        else:
            np.testing.assert_array_equal(got, want.reshape(got.shape), err_msg=array)


@pytest.mark.parametrize("name", sorted(PIN["pages"]))
def test_extraction_pinned(name, current, same_assets):
    if not same_assets:
        pytest.skip("model assets differ from the pinned ones: re-pin with `python -m bench.golden pin`")
    assert current[name]["result"] == PIN["pages"][name]["result"]


def _walk(nodes, i):
    """Tag path, class path and tag set of node i by the plain walk to the root: the reference."""
    tags, classes = [], []
    while i >= 0:
        node = nodes[i]
        tags.append(node["tag"])
        if node.get("classes") or node.get("html_id"):
            classes.append(node["tag"] + "".join("." + c for c in node.get("classes", ()))
                           + (f"#{node['html_id']}" if node.get("html_id") else ""))
        i = node["parent"]
    return tags[::-1], classes[::-1]


@pytest.mark.parametrize("depth", [5, 31, 32, 33, 120])
def test_block_paths_match_the_plain_walk_at_any_depth(depth):
    """Owners shallower than blocks.MEMO_DEPTH take memoised paths, deeper ones build theirs: both agree
    with the walk to the root, on either side of the edge."""
    html = "".join(f"<div class='d{k}' id='n{k}'><p>text {k}</p>" if k % 3 else f"<section><b>t{k}</b>"
                   for k in range(depth)) + "<p class='deep'>end</p>"
    snapshot = snapshot_from_html(f"<html><body><ul><li>{html}</li></ul></body></html>")
    blocks = blocks_from_snapshot(snapshot, combine=False)
    assert blocks
    for b in blocks:
        tags, classes = _walk(snapshot["nodes"], b.owner)
        assert (b.tag_path, b.class_path) == (tags, classes)
        assert b.flags["list"] and b.flags["paragraph"] == ("p" in tags)


@pytest.mark.parametrize("text", ["", "Plain ASCII 123, with CAPS.", "Ünïcödé ÄÖÜ ß 42", "x² ½ Ⅻ ٣ ǅ ﬁ", "ΟΔΟΣ οδός",
                                  "漢字かな 123 ＡＢＣ", "\x00\x1f tabs\tand\nnewlines"])
def test_character_counts_are_str_methods(text):
    """The fast counts behind the letter, digit and capital ratios agree with str.isalpha/isdigit/isupper."""
    from native_host.pipeline.features import _char_counts

    assert _char_counts(text) == (sum(c.isalpha() for c in text), sum(c.isdigit() for c in text),
                                  sum(c.isupper() for c in text))
