"""Trained torch model -> int8 ONNX in native_host/assets, with the parity check that allows shipping it.

    python -m export.onnx_export --data runs/data --run runs/model --assets native_host/assets

Exports with a dynamic block count, quantizes weights to int8 with onnxruntime's dynamic quantizer (one scale
per output channel: one per tensor cost the 12-epoch model .0052 on a dataset, per channel .0020, at the same
speed), drops the graph's steps that change no value (export/graph.py), then scores the dev pages with fp32
torch and with the int8 ONNX model through the serving code path: the word-F1 drop must stay within
MAX_PARITY_DROP or nothing is written to the assets.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

from native_host.pipeline.features import FILES as FEATURIZER_FILES
from native_host.pipeline.inference import CONFIG_FILE, INPUT_NAMES, MODEL_FILE, PAGE_TYPE_OUTPUT, OnnxModel
from native_host.result import LABELS, PAGE_TYPES

from .graph import simplify_file
from .model import ContentModel
from .prepare import load_pages
from .train import evaluate, load_trained, page_scores, resplit

MAX_PARITY_DROP = 0.005
OPSET = 17


class _Serving(torch.nn.Module):
    """The exported graph: no padding mask (one page per call); label logits, page-type logits and depth out."""

    def __init__(self, model: ContentModel):
        super().__init__()
        self.model = model

    def forward(self, text_ids, tag_ids, class_ids, class_level, numeric):
        return self.model(text_ids, tag_ids, class_ids, class_level, numeric)


def export_fp32(model: ContentModel, example, path: Path) -> None:
    dyn = {name: {1: "blocks"} for name in INPUT_NAMES}
    dyn.update({"labels": {1: "blocks"}, "depth": {1: "blocks"}})
    torch.onnx.export(
        _Serving(model).eval(),
        tuple(example),
        str(path),
        input_names=list(INPUT_NAMES),
        output_names=["labels", PAGE_TYPE_OUTPUT, "depth"],
        dynamic_axes=dyn,
        opset_version=OPSET,
        dynamo=False,
    )


def quantize(src: Path, dst: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(
        str(src), str(dst), weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul", "Gather"], per_channel=True
    )
    simplify_file(dst)  # before the digest below: the shipped file is the one the id names


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("runs/data"))
    ap.add_argument("--run", type=Path, default=Path("runs/model"))
    ap.add_argument("--assets", type=Path, default=Path("native_host/assets"))
    ap.add_argument("--limit-pages", type=int, default=None)
    ap.add_argument(
        "--max-drop",
        type=float,
        default=MAX_PARITY_DROP,
        help="largest dev word-F1 drop int8 may cost (default %(default)s; smoke tests raise it)",
    )
    args = ap.parse_args(argv)

    model, summary = load_trained(args.run)
    threshold = summary["threshold"]
    pages = load_pages(args.data)
    if summary.get("dev_buckets") is not None:  # a run that held out other sites: its parity is on them
        resplit(pages, frozenset(summary["dev_buckets"]))
    dev = [p for p in pages if p.split == "dev"][: args.limit_pages]
    example_page = max(dev, key=lambda p: len(p.texts) if len(p.texts) < 200 else 0)

    with tempfile.TemporaryDirectory() as tmp:
        staging = Path(tmp)
        fp32 = staging / "model.fp32.onnx"
        ex = [torch.from_numpy(getattr(example_page.inputs, n))[None] for n in INPUT_NAMES]
        export_fp32(model, ex, fp32)
        quantize(fp32, staging / MODEL_FILE)
        for name in FEATURIZER_FILES:
            shutil.copy(args.data / name, staging / name)
        digest = hashlib.sha256((staging / MODEL_FILE).read_bytes()).hexdigest()[:12]
        meta = {
            "model_id": f"pith-content-{digest}",
            "threshold": threshold,
            "labels": list(LABELS),
            "page_types": list(PAGE_TYPES),
            "config": summary["config"],
            "parameters": summary["parameters"],
            "trained_epochs": summary["best"]["epoch"],
            "dev_torch": summary["best"],
            "memorisation": summary.get("memorisation"),
        }
        (staging / CONFIG_FILE).write_text(json.dumps(meta, indent=1))

        onnx_model = OnnxModel(staging)
        torch_scores = [page_scores(model, p) for p in dev]
        onnx_scores = [onnx_model.scores(p.inputs) for p in dev]
        f_torch = evaluate(dev, torch_scores, [threshold])["scores"]
        f_onnx = evaluate(dev, onnx_scores, [threshold])["scores"]
        max_diff = max(float(np.abs(a[:, 0] - b[:, 0]).max()) for a, b in zip(torch_scores, onnx_scores) if len(a))
        drops = {k: f_torch[k] - f_onnx[k] for k in f_torch}
        print(f"parity on {len(dev)} dev pages @ threshold {threshold}: max |score diff| {max_diff:.4f}")
        for k in sorted(f_torch):
            print(f"  {k:28s} torch fp32 {f_torch[k]:.4f}  onnx int8 {f_onnx[k]:.4f}  drop {drops[k]:+.4f}")
        worst = max(drops[k] for k in f_torch if "/" not in k)
        meta["dev_onnx_int8"] = f_onnx
        meta["parity"] = {"max_score_diff": max_diff, "worst_dataset_drop": worst}
        (staging / CONFIG_FILE).write_text(json.dumps(meta, indent=1))
        if worst > args.max_drop:
            print(
                f"parity check FAILED: word-F1 drop {worst:.4f} > {args.max_drop}; assets left unchanged",
                file=sys.stderr,
            )
            return 1
        args.assets.mkdir(parents=True, exist_ok=True)
        shipped = (MODEL_FILE, CONFIG_FILE, *FEATURIZER_FILES)
        for name in shipped:
            shutil.copy(staging / name, args.assets / name)
        sizes = {n: (args.assets / n).stat().st_size for n in shipped}
        print(
            f"parity ok (worst drop {worst:+.4f}); wrote {args.assets}: "
            + ", ".join(f"{n} {s / 1e6:.2f} MB" for n, s in sizes.items())
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
