"""The ablation table of docs/model.md: what each part of the model is worth, on the dev split.

    python -m export.ablation --data runs/data --out runs/ablation --train-pages 1200 --epochs 5 --jobs 2

Each row trains the same way from the same seed on the same (sub)sample of training pages and reports the
best epoch's dev word-F1. Rows add one input at a time, as the papers' tables do; the last row swaps the
transformer for SemText's BiLSTM.
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROWS = [
    ("text only", dict(use_tags=False, use_classes=False, use_numeric=False, depth_task=False)),
    ("+ tag path", dict(use_classes=False, use_numeric=False, depth_task=False)),
    ("+ class path", dict(use_numeric=False, depth_task=False)),
    ("+ numeric", dict(depth_task=False)),
    ("+ depth task (shipped)", dict()),
    ("BiLSTM instead of transformer", dict(sequence="bilstm")),
]
COLUMNS = ["cleaneval", "cleanportaleval", "dragnet", "l3s-gn1", "wcxb", "macro"]


def _run(args) -> dict:
    import torch

    from .model import ModelConfig
    from .train import train

    name, overrides, data, out, epochs, train_pages, threads = args
    torch.set_num_threads(threads)
    summary = train(data, out, ModelConfig(**overrides), epochs, log=lambda *_: None, train_limit=train_pages)
    return {"row": name, "overrides": overrides, **summary["best"], "parameters": summary["parameters"]}


def table(results: list[dict]) -> str:
    lines = ["| model | " + " | ".join(COLUMNS) + " | params |", "|---|" + "---:|" * (len(COLUMNS) + 1)]
    for r in results:
        lines.append(f"| {r['row']} | " + " | ".join(f"{r[c]:.3f}" for c in COLUMNS) + f" | {r['parameters']:,} |")
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("runs/data"))
    ap.add_argument("--out", type=Path, default=Path("runs/ablation"))
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--train-pages", type=int, default=1200)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    jobs = [(name, ov, args.data, args.out / str(i), args.epochs, args.train_pages, 1)
            for i, (name, ov) in enumerate(ROWS)]
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(_run, jobs))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "ablation.json").write_text(json.dumps(results, indent=1))
    text = table(results)
    (args.out / "ablation.md").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
