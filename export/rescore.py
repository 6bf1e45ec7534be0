"""Train the trees that read the model's scores again (native_host/pipeline/rescore.py) on the cross-validation
folds' scores: every page is scored by the fold model that never saw its site, so the trees learn how the model
errs on new sites, which is what they will meet.

    python -m export.rescore --folds runs/cv --out native_host/assets          # the shipped trees
    python -m export.rescore --folds runs/cv --per-fold                        # fold K's trees without fold K
    DATASETS=wcxb bash scripts/cv.sh rules NAME                                # then the folds through the rules

`--folds` is scripts/cv.sh's OUT (fold-K/assets, five folds). With `--per-fold` each fold's trees are trained
on the other folds' pages and written beside that fold's model (fold-K/assets/rescore.onnx), so `cv.sh rules`
scores every page with trees that never saw its site either. With `--out` the trees learn from every page
outside the data's dev split, as the shipped model did, so dev figures stay a new site's. `--datasets` chooses
the pages the trees learn from (default: WCXB's, the only dataset with page types other than articles;
docs/model.md). Needs lightgbm (the `train` extra); the runtime reads the trees as ONNX, with onnxruntime alone.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from export.data import fold_buckets, iter_records
from export.labels import label_blocks
from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.pipeline.features import Featurizer
from native_host.pipeline.inference import OnnxModel
from native_host.pipeline.rescore import FEATURES, RESCORE_FILE, Rescorer, features
from native_host.pipeline.snapshot import snapshot_from_html
from native_host.progress import progress

FOLDS = 5
# The trees: few leaves, many blocks a leaf and every page weighing the same (its blocks by log words), so a
# site with many pages or one long page does not set them. Fixed before the folds were scored, not tuned on them.
PARAMS = {
    "objective": "binary",
    "learning_rate": 0.05,
    "num_leaves": 7,
    "min_data_in_leaf": 200,
    "bagging_fraction": 0.8,
    "bagging_freq": 1,
    "feature_fraction": 0.8,
    "seed": 1,
    "deterministic": True,
    "verbose": -1,
}
ROUNDS = 200
PAGE_WEIGHT = 100.0  # each page's blocks weigh this much together
PARITY = 1e-6  # between the ONNX trees' probabilities and lightgbm's (onnxruntime sums the leaves in float32)


@dataclass
class Page:
    fold: int
    dev: bool
    x: np.ndarray
    y: np.ndarray
    w: np.ndarray


def collect(
    folds: Path, datasets: list[str] | None, threads: int, snapshots: Path | None = None, fold_count: int = FOLDS
) -> list[Page]:
    """Every page with a gold of `datasets`, scored by the model of the fold that held its site out; with
    `snapshots` (the recorded corpus), each page's rendered snapshot too, as a page of its own: the model reads
    a live page's DOM differently, and the trees must know both."""
    from export import recordings

    spans = recordings.index(snapshots) if snapshots else {}
    pages = []
    for k in range(fold_count):
        assets = folds / f"fold-{k}" / "assets"
        model, featurize = OnnxModel(assets, threads=threads), Featurizer(assets, threads)
        records = [
            r for r in iter_records(datasets, buckets=fold_buckets(k, fold_count)) if (r.get("main_text") or "").strip()
        ]
        for r in progress(records, desc=f"fold {k}"):
            html = snapshot_from_html(r["html"], url=r.get("url"))
            inputs = [(html, blocks_from_snapshot(html))]
            if r["id"] in spans:
                live = recordings.load_at(snapshots, spans[r["id"]])["snapshot"]  # type: ignore[arg-type]
                live_blocks = blocks_from_snapshot(live)
                if recordings.rendered(live, r["main_text"], live_blocks):
                    inputs.append((live, live_blocks))
            for snapshot, blocks in inputs:
                if not blocks:
                    continue
                scores, types = model.predict(featurize(snapshot, blocks))
                labels = label_blocks(blocks, r["main_text"], r.get("title"))
                weight = np.log1p([len(b.text.split()) for b in blocks])
                pages.append(
                    Page(
                        k,
                        r.get("split") == "dev",
                        features(blocks, scores[:, 0], types),
                        np.array([lab["main"] for lab in labels], dtype=np.float64),
                        weight / max(float(weight.sum()), 1e-9) * PAGE_WEIGHT,
                    )
                )
    return pages


def train(pages: list[Page]) -> bytes:
    """The trees on `pages`, as the ONNX graph rescore.onnx holds."""
    import lightgbm as lgb

    data = lgb.Dataset(
        np.concatenate([p.x for p in pages]),
        np.concatenate([p.y for p in pages]),
        weight=np.concatenate([p.w for p in pages]),
        feature_name=list(FEATURES),
    )
    booster = lgb.train({**PARAMS, "num_threads": 2}, data, ROUNDS)
    about = {"pages": len(pages), "rounds": ROUNDS, "params": PARAMS}
    graph = to_onnx(flatten(booster.dump_model()), about)
    # the same probabilities as lightgbm's, to rounding, on a sample of the pages
    sample = np.concatenate([p.x for p in pages[:: max(1, len(pages) // 200)]])
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / RESCORE_FILE).write_bytes(graph)
        rescorer = Rescorer.load(Path(tmp))
        assert rescorer is not None
        gap = float(np.max(np.abs(rescorer.predict(sample) - booster.predict(sample))))
    if gap > PARITY:
        raise SystemExit(f"rescore: the ONNX trees differ from lightgbm's by {gap} (more than {PARITY})")
    return graph


def flatten(dump: dict) -> dict:
    """lightgbm's nested trees as flat node arrays: node i splits on `feature[i]` at `threshold[i]` (a value at
    or below goes to node `left[i]`, else `right[i]`) or, where `feature[i]` is -1, is a leaf worth `value[i]`;
    each tree's nodes follow its root (`roots`), depth first."""
    nodes: dict[str, list] = {"feature": [], "threshold": [], "left": [], "right": [], "value": []}
    roots = []

    def add(node: dict) -> int:
        i = len(nodes["feature"])
        for key in nodes:
            nodes[key].append(0)
        if "leaf_value" in node or "split_feature" not in node:
            nodes["feature"][i], nodes["value"][i] = -1, float(node.get("leaf_value", 0.0))
            return i
        if node.get("decision_type", "<=") != "<=":
            raise SystemExit(f"rescore: a split of kind {node['decision_type']} cannot be flattened")
        nodes["feature"][i], nodes["threshold"][i] = int(node["split_feature"]), float(node["threshold"])
        nodes["left"][i] = add(node["left_child"])
        nodes["right"][i] = add(node["right_child"])
        return i

    for tree in dump["tree_info"]:
        roots.append(add(tree["tree_structure"]))
    return {**nodes, "roots": roots}


def to_onnx(trees: dict, about: dict | None = None) -> bytes:
    """Flat trees (`flatten`) as an ONNX graph: onnxruntime's tree ensemble summing the leaves, then a sigmoid;
    FEATURES and `about` in the graph's metadata."""
    import onnx
    from onnx import TensorProto, helper

    ends = [*trees["roots"][1:], len(trees["feature"])]
    attrs: dict[str, list] = {
        name: []
        for name in (
            "nodes_treeids nodes_nodeids nodes_featureids nodes_modes nodes_values nodes_truenodeids "
            "nodes_falsenodeids target_treeids target_nodeids target_ids target_weights"
        ).split()
    }
    for tree, (root, end) in enumerate(zip(trees["roots"], ends)):
        for i in range(root, end):
            leaf = trees["feature"][i] < 0
            row = {
                "nodes_treeids": tree,
                "nodes_nodeids": i - root,
                "nodes_featureids": 0 if leaf else trees["feature"][i],
                "nodes_modes": "LEAF" if leaf else "BRANCH_LEQ",
                "nodes_values": 0.0 if leaf else trees["threshold"][i],
                "nodes_truenodeids": 0 if leaf else trees["left"][i] - root,
                "nodes_falsenodeids": 0 if leaf else trees["right"][i] - root,
            }
            for name, value in row.items():
                attrs[name].append(value)
            if leaf:
                for name, value in zip(
                    ("target_treeids", "target_nodeids", "target_ids", "target_weights"),
                    (tree, i - root, 0, trees["value"][i]),
                ):
                    attrs[name].append(value)
    # Thresholds and leaves in double, the features too: float32 would round a threshold onto a feature's value
    # and send that block the other way (onnxruntime still sums the leaves in float32).
    doubles = {
        "nodes_values_as_tensor": helper.make_tensor(
            "v", TensorProto.DOUBLE, [len(attrs["nodes_values"])], attrs.pop("nodes_values")
        ),
        "target_weights_as_tensor": helper.make_tensor(
            "w", TensorProto.DOUBLE, [len(attrs["target_weights"])], attrs.pop("target_weights")
        ),
    }
    ensemble = helper.make_node(
        "TreeEnsembleRegressor",
        ["features"],
        ["raw"],
        domain="ai.onnx.ml",
        n_targets=1,
        aggregate_function="SUM",
        post_transform="NONE",
        **attrs,
        **doubles,
    )
    graph = helper.make_graph(
        [ensemble, helper.make_node("Sigmoid", ["raw"], ["main"])],
        "rescore",
        [helper.make_tensor_value_info("features", TensorProto.DOUBLE, ["blocks", len(FEATURES)])],
        [helper.make_tensor_value_info("main", TensorProto.FLOAT, ["blocks", 1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 3)])
    model.ir_version = 8
    helper.set_model_props(
        model, {"features": json.dumps(list(FEATURES)), **{k: json.dumps(v) for k, v in (about or {}).items()}}
    )
    onnx.checker.check_model(model)
    return model.SerializeToString()


def write(graph: bytes, folder: Path, pages: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / RESCORE_FILE).write_bytes(graph)
    print(f"rescore: {folder / RESCORE_FILE} ({pages} pages)", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folds", type=Path, required=True, help="scripts/cv.sh's OUT: fold-K/assets for each fold K")
    ap.add_argument("--fold-count", type=int, default=FOLDS, help="how many folds it holds (cv.sh's FOLDS; default 5)")
    ap.add_argument("--out", type=Path, help="write the trees trained on the pages outside dev into this model folder")
    ap.add_argument("--per-fold", action="store_true", help="write fold K's trees, without fold K, beside its model")
    ap.add_argument("--datasets", default="wcxb", help="comma-separated datasets the trees learn from (all: every one)")
    ap.add_argument("--snapshots", type=Path, help="the recorded corpus (msgpack): each page's live snapshot too")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    if not args.out and not args.per_fold:
        ap.error("give --out DIR, --per-fold or both")
    datasets = None if args.datasets == "all" else args.datasets.split(",")
    pages = collect(args.folds, datasets, args.threads, args.snapshots, args.fold_count)
    if args.per_fold:
        for k in range(args.fold_count):
            chosen = [p for p in pages if p.fold != k]
            write(train(chosen), args.folds / f"fold-{k}" / "assets", len(chosen))
    if args.out:
        chosen = [p for p in pages if not p.dev]
        write(train(chosen), args.out, len(chosen))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
