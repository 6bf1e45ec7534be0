"""Train the content model on the prepared pages; select the epoch and the decision threshold on dev.

    python -m export.prepare --out runs/data
    python -m export.train --data runs/data --out runs/model

Knobs are the ModelConfig fields (`--set layers=3 sequence=bilstm`) and the few below. Seeded: the same
data and knobs give the same model.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as nnf

from native_host.pipeline import features as F
from export.metric import word_prf
from native_host.pipeline.inference import windowed

from .model import ContentModel, ModelConfig
from .prepare import Page, load_pages

EPOCHS = 12             # the full run within an hour on 2 cores (docs/model.md)
BATCH_BLOCKS = 6000      # blocks per batch (pages are packed up to this many, padded)
CROP = 512               # training windows: longer pages are cropped at a random place each epoch
LR = 2e-3
WEIGHT_DECAY = 0.01
STRUCT_WEIGHT = 0.3      # loss weight of the five structural labels
DEPTH_WEIGHT = 0.2       # loss weight of the auxiliary depth task
# WCXB's non-article pages are a sixth of the training pages, and the older datasets (news, blogs) teach the
# opposite of what a forum or a shop needs: these types are seen two or three times an epoch (docs/model.md).
OVERSAMPLE: dict[str, int] = {"wcxb/forum": 3, "wcxb/product": 3, "wcxb/collection": 3, "wcxb/documentation": 3,
                              "wcxb/listing": 3, "wcxb/service": 2}   # "dataset[/page_type]" -> copies per epoch
# Knobs beyond the shipped recipe (docs/model.md says which were tried and what they gave).
TOKEN_DROPOUT = 0.0               # share of text tokens hidden in training
WORD_WEIGHT = False               # weight the main loss by log(1 + words): F1 counts words, not blocks
THRESHOLDS = [round(0.05 * i, 2) for i in range(4, 17)]
SEED = 1234


def _tensors(inputs: F.PageInputs) -> tuple[torch.Tensor, ...]:
    return tuple(torch.from_numpy(a) for a in (inputs.text_ids, inputs.tag_ids, inputs.class_ids,
                                              inputs.class_level, inputs.numeric))


def _batches(pages: list[Page], rng: random.Random):
    """Pages cropped to CROP blocks, grouped by similar length so padding stays small."""
    crops = []
    for p in pages:
        n = len(p.texts)
        if n == 0:
            continue
        start = rng.randrange(0, n - CROP + 1) if n > CROP else 0
        crops.append((p, start, min(n, start + CROP)))
    crops.sort(key=lambda c: c[2] - c[1] + rng.random())
    batches, current = [], []
    for c in crops:
        width = c[2] - c[1]
        if current and width * (len(current) + 1) > BATCH_BLOCKS:
            batches.append(current)
            current = []
        current.append(c)
    if current:
        batches.append(current)
    rng.shuffle(batches)
    return batches


def _collate(batch, rng: np.random.Generator | None = None):
    n = max(stop - start for _, start, stop in batch)
    b = len(batch)
    first = batch[0][0].inputs
    arrays = [np.zeros((b, n) + a.shape[1:], dtype=a.dtype) for a in
              (first.text_ids, first.tag_ids, first.class_ids, first.class_level, first.numeric)]
    labels = np.zeros((b, n, 6), dtype=np.float32)
    weight = np.ones((b, n), dtype=np.float32)
    depth = np.zeros((b, n), dtype=np.float32)
    pad = np.ones((b, n), dtype=bool)
    for i, (p, start, stop) in enumerate(batch):
        w = p.inputs.window(start, stop)
        k = stop - start
        for arr, src in zip(arrays, (w.text_ids, w.tag_ids, w.class_ids, w.class_level, w.numeric)):
            arr[i, :k] = src
        labels[i, :k] = p.labels[start:stop]
        if WORD_WEIGHT:
            weight[i, :k] = _word_weights(p)[start:stop]
        depth[i, :k] = p.depth[start:stop]
        pad[i, :k] = False
    if rng is not None and TOKEN_DROPOUT:
        text = arrays[0]
        text[rng.random(text.shape) < TOKEN_DROPOUT] = 0
    return [torch.from_numpy(a) for a in arrays], torch.from_numpy(labels), torch.from_numpy(weight), \
        torch.from_numpy(depth), torch.from_numpy(pad)


_WORD_WEIGHTS: dict[str, np.ndarray] = {}


def _word_weights(page: Page) -> np.ndarray:
    """log(1 + words) per block, scaled to mean 1 over the page: long blocks weigh more, as they do in F1."""
    w = _WORD_WEIGHTS.get(page.id)
    if w is None:
        w = np.log1p(np.array([len(t.split()) for t in page.texts], dtype=np.float32)) + 0.1
        w = w / w.mean()
        _WORD_WEIGHTS[page.id] = w
    return w


def _copies(page: Page) -> int:
    return OVERSAMPLE.get(f"{page.dataset}/{page.page_type}", OVERSAMPLE.get(page.dataset, 1))


def page_scores(model: ContentModel, page: Page) -> np.ndarray:
    """Sigmoid scores [N, 6] through the same windowing as serving (a page without blocks, which a live
    snapshot of a page that rendered nothing can be, scores nothing, as in serving)."""
    if len(page.inputs) == 0:
        return np.zeros((0, 6), dtype=np.float32)

    def run(inputs: F.PageInputs) -> np.ndarray:
        with torch.no_grad():
            logits, _ = model(*(t[None] for t in _tensors(inputs)))
        return torch.sigmoid(logits[0]).numpy()

    return windowed(page.inputs, run)


def extracted_text(page: Page, main: np.ndarray) -> str:
    return "\n".join(t for t, m in zip(page.texts, main) if m)


LIVE = "@live"  # suffix of the keys scoring recorded (live) pages


def evaluate(pages: list[Page], scores: list[np.ndarray], thresholds=THRESHOLDS) -> dict:
    """Mean word-F1 per dataset at each threshold; `macro` averages the datasets so none dominates. Recorded
    pages score under "<dataset>@live" keys and `macro@live`; `select`, what the epoch and threshold are
    chosen by, is `macro`, or the mean of both macros when there are live pages: one model serves both."""
    by_t = {}
    for t in thresholds:
        per = defaultdict(list)
        for p, s in zip(pages, scores):
            f1 = word_prf(extracted_text(p, s[:, 0] >= t), p.gold)[2]
            suffix = LIVE if p.source == "live" else ""
            per[p.dataset + suffix].append(f1)
            if p.page_type:
                per[f"{p.dataset}/{p.page_type}{suffix}"].append(f1)
        means = {k: statistics.mean(v) for k, v in per.items()}
        datasets = [k for k in means if "/" not in k]
        html = [means[k] for k in datasets if not k.endswith(LIVE)]
        live = [means[k] for k in datasets if k.endswith(LIVE)]
        if html:
            means["macro"] = statistics.mean(html)
        if live:
            means["macro" + LIVE] = statistics.mean(live)
        means["select"] = statistics.mean(v for v in (means.get("macro"), means.get("macro" + LIVE)) if v is not None)
        by_t[t] = means
    best = max(by_t, key=lambda t: by_t[t]["select"])
    return {"threshold": best, "scores": by_t[best], "all": by_t}


def train(data: Path, out: Path, config: ModelConfig, epochs: int = EPOCHS, limit_pages: int | None = None,
          log=print, train_limit: int | None = None) -> dict:
    """Train, keep the best epoch by dev macro word-F1; `train_limit` caps only the training pages."""
    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)
    torch.set_num_threads(max(1, torch.get_num_threads()))
    pages = load_pages(data)
    train_pages = [p for p in pages if p.split == "train"][:limit_pages]
    if train_limit:
        train_pages = random.Random(SEED).sample(train_pages, min(train_limit, len(train_pages)))
    dev_pages = [p for p in pages if p.split == "dev"][:limit_pages]
    vocab = json.loads((data / "class_vocab.json").read_text())
    from tokenizers import Tokenizer

    config.text_vocab = Tokenizer.from_file(str(data / "tokenizer.json")).get_vocab_size()
    config.class_vocab = len(vocab)
    model = ContentModel(config)
    params = sum(p.numel() for p in model.parameters())
    live = sum(p.source == "live" for p in train_pages), sum(p.source == "live" for p in dev_pages)
    log(f"{len(train_pages)} train pages, {len(dev_pages)} dev pages ({live[0]} and {live[1]} of them recorded "
        f"live), {params:,} parameters")
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
    rng = random.Random(SEED)
    np_rng = np.random.default_rng(SEED)
    # A page recorded in the browser has two variants (HTML and live snapshot): each epoch trains on one of
    # them, drawn at random, so mixing inputs costs no more time than one input.
    variants: dict[str, list[Page]] = defaultdict(list)
    for p in train_pages:
        variants[p.id].append(p)
    groups = [g for g in variants.values() for _ in range(_copies(g[0]))]
    steps_per_epoch = len(_batches([g[0] for g in groups], random.Random(0)))
    total = max(1, epochs * steps_per_epoch)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / 50) * 0.5 * (1 + math.cos(math.pi * min(s, total) / total)))
    out.mkdir(parents=True, exist_ok=True)
    best = {"select": -1.0}
    history = []
    for epoch in range(epochs):
        model.train()
        t0 = time.time()
        losses = []
        for batch in _batches([rng.choice(g) for g in groups], rng):
            inputs, labels, weight, depth, pad = _collate(batch, np_rng)
            convention = model.convention_ids([p.dataset for p, _, _ in batch]) if config.conventions else None
            logits, depth_pred = model(*inputs, pad_mask=pad, convention=convention)
            keep = ~pad
            main_loss = nnf.binary_cross_entropy_with_logits(logits[..., 0][keep], labels[..., 0][keep],
                                                             weight=weight[keep])
            struct_loss = nnf.binary_cross_entropy_with_logits(logits[..., 1:][keep], labels[..., 1:][keep])
            loss = main_loss + STRUCT_WEIGHT * struct_loss
            if config.depth_task:
                loss = loss + DEPTH_WEIGHT * nnf.mse_loss(depth_pred[keep], depth[keep])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            losses.append(loss.item())
        model.eval()
        result = evaluate(dev_pages, [page_scores(model, p) for p in dev_pages])
        s = result["scores"]
        row = {"epoch": epoch + 1, "loss": statistics.mean(losses), "threshold": result["threshold"], **s,
               "seconds": time.time() - t0}
        history.append(row)
        log(f"epoch {epoch + 1:2d} loss {row['loss']:.4f} dev F1 {s['select']:.4f} @ {result['threshold']} "
            + " ".join(f"{k} {v:.3f}" for k, v in sorted(s.items()) if "/" not in k and k != "select")
            + f" ({row['seconds']:.0f}s)")
        if s["select"] > best["select"]:
            best = {**s, "epoch": epoch + 1, "threshold": result["threshold"]}
            torch.save(model.state_dict(), out / "model.pt")
        # Written every epoch, so a run stopped early still leaves a usable best checkpoint with its summary.
        summary = {"config": config.to_dict(), "threshold": best["threshold"], "best": best, "history": history,
                   "parameters": params, "train_pages": len(train_pages), "dev_pages": len(dev_pages),
                   "knobs": {"oversample": OVERSAMPLE, "token_dropout": TOKEN_DROPOUT, "word_weight": WORD_WEIGHT}}
        (out / "train.json").write_text(json.dumps(summary, indent=1))
    return summary


def parse_sets(items: list[str]) -> dict:
    """`key=value` pairs for ModelConfig, values read as JSON when they parse (ints, bools), else strings."""
    out = {}
    for item in items:
        key, _, value = item.partition("=")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def main(argv=None) -> None:
    global TOKEN_DROPOUT, WORD_WEIGHT
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("runs/data"))
    ap.add_argument("--out", type=Path, default=Path("runs/model"))
    ap.add_argument("--epochs", type=int, default=EPOCHS)
    ap.add_argument("--limit-pages", type=int, default=None, help="smoke runs: pages per split")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--set", nargs="*", default=[], help="ModelConfig overrides, e.g. layers=3 sequence=bilstm")
    ap.add_argument("--oversample", nargs="*", default=None,
                    help="copies per epoch, replacing the shipped recipe's, e.g. wcxb/forum=3 wcxb=2 "
                         "(given with no pairs: no oversampling)")
    ap.add_argument("--token-dropout", type=float, default=TOKEN_DROPOUT)
    ap.add_argument("--word-weight", action="store_true", help="weight the main loss by log(1 + words)")
    args = ap.parse_args(argv)
    if args.oversample is not None:
        OVERSAMPLE.clear()
        OVERSAMPLE.update(parse_sets(args.oversample))
    TOKEN_DROPOUT, WORD_WEIGHT = args.token_dropout, args.word_weight
    if args.threads:
        torch.set_num_threads(args.threads)
    config = ModelConfig(**parse_sets(args.set))
    summary = train(args.data, args.out, config, args.epochs, args.limit_pages)
    print(json.dumps(summary["best"], indent=1))


if __name__ == "__main__":
    main()
