"""The ablation table of docs/model.md: what each part of the recipe is worth on sites the model never saw.

    python -m export.ablation --data runs/data --out runs/ablation --train-pages 2000 --epochs 6 --jobs 2

Each row trains the same way from the same seed on the same (sub)sample of training pages and reports the
best epoch's word-F1 on the site-disjoint dev split, and the memorisation gap (F1 on training pages like the
dev pages minus dev F1). The first row is the shipped recipe; each other row takes one part away.
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

NEW_NUMBERS = ["common_words", "text_share", "char_position"] + [
    f"a{level}_{what}" for level in (1, 2, 3) for what in ("log_chars", "link_density", "log_blocks", "text_share")
]
# (row, ModelConfig overrides, train.py knobs): the shipped recipe, then one part taken away per row
ROWS = [
    ("shipped recipe", dict(), dict()),
    ("- site cap (every page of a site each epoch)", dict(), dict(SITE_PAGES=0)),
    ("- feature-group dropout", dict(), dict(CLASS_DROP=0.0, TEXT_DROP=0.0)),
    ("- surroundings and common words (new numbers)", dict(numeric_off=NEW_NUMBERS), dict()),
    ("- class path", dict(use_classes=False), dict()),
    ("- text", dict(use_text=False), dict()),
]
COLUMNS = ["all", "macro", "cleaneval", "dragnet", "l3s-gn1", "wcxb", "daniel", "fundus"]


def _run(args) -> dict:
    import torch

    from . import train as T
    from .model import ModelConfig

    name, overrides, knobs, data, out, epochs, train_pages, threads = args
    torch.set_num_threads(threads)
    for knob, value in knobs.items():
        setattr(T, knob, value)
    summary = T.train(data, out, ModelConfig(**overrides), epochs, log=lambda *_: None, train_limit=train_pages)
    gap = summary["memorisation"]["f1"].get("all", {}).get("gap")
    return {
        "row": name,
        "overrides": overrides,
        "knobs": knobs,
        **summary["best"],
        "memorisation_gap": gap,
        "parameters": summary["parameters"],
    }


def _from_run(row: int, run: Path, epochs: int) -> dict | None:
    """A row rebuilt from its run folder's train.json (written after every epoch), for runs that were cut
    short: None when it never finished an epoch; `epochs_done` says how far it got."""
    try:
        summary = json.loads((run / "train.json").read_text())
    except (OSError, ValueError):
        return None
    gap = summary.get("memorisation", {}).get("f1", {}).get("all", {}).get("gap")
    return {
        "row": ROWS[row][0],
        "overrides": ROWS[row][1],
        "knobs": ROWS[row][2],
        **summary["best"],
        "memorisation_gap": gap,
        "parameters": summary["parameters"],
        "epochs_done": len(summary["history"]),
        "epochs": epochs,
    }


def table(results: list[dict]) -> str:
    lines = ["| recipe | " + " | ".join(COLUMNS) + " | memorisation gap |", "|---|" + "---:|" * (len(COLUMNS) + 1)]
    for r in results:
        gap = r.get("memorisation_gap")
        cells = [f"{r[c]:.3f}" if c in r else "–" for c in COLUMNS] + ["–" if gap is None else f"{gap:+.3f}"]
        name = r["row"]
        if r.get("epochs_done", r.get("epochs")) != r.get("epochs"):
            name += f" (stopped after {r['epochs_done']} of {r['epochs']} epochs)"
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("runs/data"))
    ap.add_argument("--out", type=Path, default=Path("runs/ablation"))
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--train-pages", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rows", default=None, help="comma-separated row numbers to run (default: all)")
    ap.add_argument(
        "--report",
        action="store_true",
        help="only rebuild the table from the rows' train.json in --out (runs cut short included)",
    )
    args = ap.parse_args(argv)
    chosen = [int(i) for i in args.rows.split(",")] if args.rows else range(len(ROWS))
    if args.report:
        found = [_from_run(i, args.out / str(i), args.epochs) for i in chosen]
        results = [r for r in found if r is not None]
        text = table(results)
        (args.out / "ablation.md").write_text(text + "\n")
        print(text)
        return
    jobs = [
        (ROWS[i][0], ROWS[i][1], ROWS[i][2], args.data, args.out / str(i), args.epochs, args.train_pages, 1)
        for i in chosen
    ]
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(_run, jobs))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "ablation.json").write_text(json.dumps(results, indent=1))
    text = table(results)
    (args.out / "ablation.md").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
