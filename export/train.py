"""Train the content model on the prepared pages; select the epoch and the decision threshold on dev.

    python -m export.prepare --out runs/data
    python -m export.train --data runs/data --out runs/model

Knobs are the ModelConfig fields (`--set layers=3 sequence=bilstm`) and the few below. Seeded: the same
data and knobs give the same model.

Dev is drawn by site (no site has pages on both sides), so every dev figure is a new site's. To keep the model
from learning sites rather than pages, an epoch draws at most SITE_PAGES pages of a site, and whole feature
groups (a page's class names, its text tokens) are hidden at random. At the end the best epoch is scored on
training pages like the dev pages (same datasets and page types): a train figure far above dev is
memorisation, reported beside the dev figures in train.json.

Cross-validation (`--folds 5 --fold K`, docs/model.md): the sites of fold K's hash buckets are dev, every other
page trains, and the recipe is fixed in advance (`--epochs`, the shipped threshold, the last epoch kept): the
fold's dev pages choose nothing (the recipe itself was chosen on bucket 0, which fold 0 holds). At the end the
held-out pages are scored once, block selection alone (`held_out` in train.json); the table comes from the
exported model through the serving code (scripts/cv.sh).

`--device cuda` trains on a GPU (the default takes one when torch sees it); the prepared data can travel there
as a pack (export/pack.py).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as nnf

from native_host.errors import PithError
from native_host.pipeline import features as F
from native_host.pipeline.inference import CONFIG_FILE, default_model_dir, windowed
from native_host.result import LABELS

from .data import bucket_of, fold_buckets
from .metric import words
from .model import ContentModel, ModelConfig
from .prepare import Page, load_pages

EPOCHS = 12  # the shipped run: its time on 2 cores is in docs/model.md
BATCH_BLOCKS = 6000  # blocks per batch (pages are packed up to this many, padded)
CROP = 512  # training windows: longer pages are cropped at a random place each epoch
LR = 2e-3
WEIGHT_DECAY = 0.01
STRUCT_WEIGHT = 0.3  # loss weight of the other labels (structure, byline, date)
PAGE_TYPE_WEIGHT = 0.2  # loss weight of the page type
DEPTH_WEIGHT = 0.2  # loss weight of the auxiliary depth task
SITE_PAGES = 4  # pages of one site drawn per epoch (a different few each epoch)
CLASS_DROP = 0.15  # share of pages trained without their class names
TEXT_DROP = 0.05  # share of pages trained without their text tokens
# WCXB's non-article pages are a sixth of the training pages, and the older datasets (news, blogs) teach the
# opposite of what a forum or a shop needs: these types are seen two or three times an epoch (docs/model.md).
OVERSAMPLE: dict[str, int] = {
    "wcxb/forum": 3,
    "wcxb/product": 3,
    "wcxb/collection": 3,
    "wcxb/documentation": 3,
    "wcxb/listing": 3,
    "wcxb/service": 2,
}  # "dataset[/page_type]" -> copies per epoch
# Knobs beyond the shipped recipe (docs/model.md says which were tried and what they gave).
TOKEN_DROPOUT = 0.0  # share of text tokens hidden in training
WORD_WEIGHT = False  # weight the main loss by log(1 + words): F1 counts words, not blocks
PAGE_WEIGHT = False  # every page's window weighs the same in the main loss: F1 is a mean over pages, not blocks
THRESHOLDS = [round(0.05 * i, 2) for i in range(4, 17)]
MEMO_PAGES = 300  # training pages scored at the end, like the dev pages, for memorisation
SEED = 1234
PACE_STEPS = 20  # steps timed before the run's length is estimated in the log


def _tensors(inputs: F.PageInputs) -> tuple[torch.Tensor, ...]:
    return tuple(
        torch.from_numpy(a)
        for a in (inputs.text_ids, inputs.tag_ids, inputs.class_ids, inputs.class_level, inputs.numeric)
    )


def _batches(pages: list[Page], rng: random.Random):
    """Pages cropped to CROP blocks, grouped by similar length so padding stays small."""
    crops = []
    for p in pages:
        n = len(p.inputs)
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


def _collate(batch, rng: np.random.Generator | None = None, device: str = "cpu"):
    n = max(stop - start for _, start, stop in batch)
    b = len(batch)
    first = batch[0][0].inputs
    arrays = [
        np.zeros((b, n) + a.shape[1:], dtype=a.dtype)
        for a in (first.text_ids, first.tag_ids, first.class_ids, first.class_level, first.numeric)
    ]
    labels = np.zeros((b, n, len(LABELS)), dtype=np.float32)
    known = np.ones((b, len(LABELS)), dtype=bool)
    page_type = np.full(b, -1, dtype=np.int64)
    weight = np.ones((b, n), dtype=np.float32)
    depth = np.zeros((b, n), dtype=np.float32)
    pad = np.ones((b, n), dtype=bool)
    for i, (p, start, stop) in enumerate(batch):
        w = p.inputs.window(start, stop)
        k = stop - start
        for arr, src in zip(arrays, (w.text_ids, w.tag_ids, w.class_ids, w.class_level, w.numeric)):
            arr[i, :k] = src
        labels[i, :k] = p.labels[start:stop]
        soft = TEACHER.get(p.id) if TEACHER is not None and p.source == "html" else None
        if soft is not None and len(soft) == len(p.labels):  # distillation: the teacher's score mixed in
            labels[i, :k, 0] = TEACHER_WEIGHT * soft[start:stop] + (1 - TEACHER_WEIGHT) * labels[i, :k, 0]
        known[i] = p.known
        page_type[i] = p.page_type_id
        if WORD_WEIGHT:
            weight[i, :k] = _word_weights(p)[start:stop]
        depth[i, :k] = p.depth[start:stop]
        pad[i, :k] = False
    if PAGE_WEIGHT:  # a window of k blocks weighs mean_k / k a block, so each page counts once
        sizes = np.array([stop - start for _, start, stop in batch], dtype=np.float32)
        weight *= (sizes.mean() / sizes)[:, None]
    if rng is not None:
        text, _, class_ids, _, _ = arrays
        if TOKEN_DROPOUT:
            text[rng.random(text.shape) < TOKEN_DROPOUT] = 0
        class_ids[rng.random(b) < CLASS_DROP] = 0
        text[rng.random(b) < TEXT_DROP] = 0

    def put(a: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(a).to(device, non_blocking=True)

    return Batch([put(a) for a in arrays], put(labels), put(known), put(page_type), put(weight), put(depth), put(pad))


@dataclass
class Batch:
    inputs: list[torch.Tensor]
    labels: torch.Tensor  # [B, N, len(LABELS)]
    known: torch.Tensor  # [B, len(LABELS)]: labels the page's gold tells
    page_type: torch.Tensor  # [B], -1 unknown
    weight: torch.Tensor  # [B, N] of the main loss
    depth: torch.Tensor  # [B, N]
    pad: torch.Tensor  # [B, N]


_WORD_WEIGHTS: dict[tuple[str, str], np.ndarray] = {}
TEACHER: dict[str, np.ndarray] | None = None  # page id -> a teacher's main score per block (--teacher)
TEACHER_WEIGHT = 0.5  # the teacher's share of the main target


def _word_weights(page: Page) -> np.ndarray:
    """log(1 + words) per block, scaled to mean 1 over the page: long blocks weigh more, as they do in F1.
    Cached per page and source: a page's HTML and live snapshots have different blocks."""
    key = (page.id, page.source)
    w = _WORD_WEIGHTS.get(key)
    if w is None:
        w = np.log1p(np.array([len(t.split()) for t in page.texts], dtype=np.float32)) + 0.1
        w = w / w.mean()
        _WORD_WEIGHTS[key] = w
    return w


def _copies(page: Page) -> int:
    return OVERSAMPLE.get(f"{page.dataset}/{page.page_type}", OVERSAMPLE.get(page.dataset, 1))


def page_scores(model: ContentModel, page: Page) -> np.ndarray:
    """Sigmoid scores [N, len(LABELS)] through the same windowing as serving (a page without blocks, which a
    live snapshot of a page that rendered nothing can be, scores nothing, as in serving)."""
    return page_predictions(model, page)[0]


def page_predictions(model: ContentModel, page: Page) -> tuple[np.ndarray, np.ndarray | None]:
    """Block scores and page-type probabilities, windowed as in serving."""
    if len(page.inputs) == 0:
        return np.zeros((0, len(LABELS)), dtype=np.float32), None

    device = next(model.parameters()).device

    def run(inputs: F.PageInputs) -> tuple[np.ndarray, np.ndarray]:
        with torch.no_grad():
            logits, types, _ = model(*(t[None].to(device) for t in _tensors(inputs)))
        return torch.sigmoid(logits[0]).cpu().numpy(), torch.softmax(types[0], -1).cpu().numpy()

    return windowed(page.inputs, run)


def extracted_text(page: Page, main: np.ndarray) -> str:
    return "\n".join(t for t, m in zip(page.texts, main) if m)


_BAGS: dict[tuple[str, str], tuple[Counter, list[Counter]]] = {}


def _bags(page: Page) -> tuple[Counter, list[Counter]]:
    key = (page.id, page.source)
    if key not in _BAGS:
        _BAGS[key] = Counter(words(page.gold)), [Counter(words(t)) for t in page.texts]
    return _BAGS[key]


def f1_at(page: Page, main: np.ndarray, thresholds: list[float]) -> list[float]:
    """Word-F1 (export.metric.word_prf of `extracted_text`) of the page at each threshold, in one pass: blocks
    are added in falling score order and the overlap with the gold bag kept up to date, instead of rebuilding
    the bag once per threshold (13 thresholds x 1,600 dev snapshots an epoch)."""
    gold, blocks = _bags(page)
    gold_total = sum(gold.values())
    order = np.argsort(-main, kind="stable")
    pred: Counter = Counter()
    pred_total = common = 0
    k = 0
    out = {}
    for t in sorted(thresholds, reverse=True):
        while k < len(order) and main[order[k]] >= t:
            for w, c in blocks[order[k]].items():
                before = min(pred[w], gold[w])
                pred[w] += c
                common += min(pred[w], gold[w]) - before
                pred_total += c
            k += 1
        if not pred_total and not gold_total:
            out[t] = 1.0
        elif not common:
            out[t] = 0.0
        else:
            precision, recall = common / pred_total, common / gold_total
            out[t] = 2 * precision * recall / (precision + recall)
    return [out[t] for t in thresholds]


LIVE = "@live"  # suffix of the keys scoring recorded (live) pages


def evaluate(pages: list[Page], scores: list[np.ndarray], thresholds=THRESHOLDS) -> dict:
    """Mean word-F1 per dataset (and WCXB page type) at each threshold, over all pages (`all`), and averaged
    over the datasets (`macro`, so a small dataset counts as much as a large one). Recorded pages score under
    "...@live" keys. `select`, what the epoch and threshold are chosen by, is the mean of `all` and `macro`,
    averaged over the two inputs when there are live pages: one model serves the CLI and the browser."""
    per: dict[float, dict[str, list[float]]] = {t: defaultdict(list) for t in thresholds}
    for p, s in zip(pages, scores):
        suffix = LIVE if p.source == "live" else ""
        keys = ["all" + suffix, p.dataset + suffix] + ([f"{p.dataset}/{p.page_type}{suffix}"] if p.page_type else [])
        for t, f1 in zip(thresholds, f1_at(p, s[:, 0], thresholds)):
            for k in keys:
                per[t][k].append(f1)
    by_t = {}
    for t in thresholds:
        means = {k: statistics.mean(v) for k, v in per[t].items()}
        picks = []
        for suffix in ("", LIVE):
            datasets = [
                v
                for k, v in means.items()
                if "/" not in k and k.endswith(suffix) and (suffix or not k.endswith(LIVE)) and not k.startswith("all")
            ]
            if datasets:
                means["macro" + suffix] = statistics.mean(datasets)
                picks.append((means["all" + suffix] + means["macro" + suffix]) / 2)
        means["select"] = statistics.mean(picks)
        by_t[t] = means
    best = max(by_t, key=lambda t: by_t[t]["select"])
    return {"threshold": best, "scores": by_t[best], "all": by_t}


def page_type_accuracy(pages: list[Page], types: list[np.ndarray | None]) -> float | None:
    """Share of the pages whose type the data gives that the model types right."""
    scored = [
        int(np.argmax(t)) == p.page_type_id for p, t in zip(pages, types) if p.page_type_id >= 0 and t is not None
    ]
    return statistics.mean(scored) if scored else None


def epoch_groups(variants: dict[str, list[Page]], rng: random.Random) -> list[Page]:
    """One epoch's pages: at most SITE_PAGES of each site (a different few each epoch, so a site with
    hundreds of pages weighs no more than a few new sites), each as one of its snapshots (HTML or live), and
    WCXB's rarer page types repeated (OVERSAMPLE)."""
    by_site: dict[str, list[list[Page]]] = defaultdict(list)
    for group in variants.values():
        by_site[group[0].site or group[0].id].append(group)
    chosen = []
    for site in sorted(by_site):
        groups = by_site[site]
        for group in rng.sample(groups, min(SITE_PAGES, len(groups))) if SITE_PAGES else groups:
            chosen += [rng.choice(group) for _ in range(_copies(group[0]))]
    return chosen


def memorisation(
    model: ContentModel, dev: list[Page], train_pages: list[Page], threshold: float, rng: random.Random
) -> dict:
    """Word-F1 of the model on training pages drawn like the dev pages (same dataset and page type mix, HTML
    snapshots, at most MEMO_PAGES) beside its dev F1: the gap is what it learnt of the pages themselves."""
    pool: dict[tuple[str, str | None], list[Page]] = defaultdict(list)
    for p in train_pages:
        if p.source == "html":
            pool[(p.dataset, p.page_type)].append(p)
    dev_html = [p for p in dev if p.source == "html"]
    share = min(1.0, MEMO_PAGES / max(1, len(dev_html)))
    wanted = defaultdict(int)
    for p in dev_html:
        wanted[(p.dataset, p.page_type)] += 1
    sample = []
    for key, count in sorted(wanted.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        have = pool.get(key, [])
        sample += rng.sample(have, min(len(have), max(1, round(count * share))))
    result = {}
    for name, pages in (("train", sample), ("dev", dev_html)):
        scores = [page_scores(model, p) for p in pages]
        result[name] = evaluate(pages, scores, [threshold])["scores"]
    keys = sorted(k for k in result["train"] if k in result["dev"] and k != "select")
    return {
        "pages": {"train": len(sample), "dev": len(dev_html)},
        "f1": {
            k: {"train": result["train"][k], "dev": result["dev"][k], "gap": result["train"][k] - result["dev"][k]}
            for k in keys
        },
    }


def resplit(pages: list[Page], buckets: frozenset[int]) -> None:
    """Hold out other sites: dev becomes the sites whose hash falls in `buckets` (the data's own split is
    bucket 0), and every other page trains. Another estimate of a new site's figures, from sites the first dev
    set does not hold (the data README's rule, `export.data.bucket_of`)."""
    for p in pages:
        p.split = "dev" if bucket_of(p.site or p.id) in buckets else "train"


def _save(model: ContentModel, path: Path) -> None:
    """The weights as CPU tensors, so a model trained on a GPU loads anywhere."""
    torch.save({k: v.detach().cpu() for k, v in model.state_dict().items()}, path)


def load_trained(run: Path) -> tuple[ContentModel, dict]:
    """A trained run's model on the CPU, ready to score, and its train.json; weights saved in half precision
    (to carry them from another machine) are read as float."""
    summary = json.loads((run / "train.json").read_text())
    model = ContentModel(ModelConfig(**summary["config"]))
    state = torch.load(run / "model.pt", weights_only=True)
    model.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in state.items()})
    model.eval()
    return model, summary


def held_out_scores(model: ContentModel, pages: list[Page], threshold: float) -> dict:
    """Word-F1 of the block selection alone (no article builder) on the held-out pages that carry texts (a
    pack may hold texts of some datasets only), at every threshold of THRESHOLDS, page by page: a fold's quick
    figure where the serving path cannot run; the table itself comes from `bench.evaluate` on the exported
    model."""
    model.eval()
    scored = [p for p in pages if p.gold]
    scores = [page_scores(model, p) for p in scored]
    rows = {
        f"{p.id}@{p.source}": {
            "dataset": p.dataset,
            "page_type": p.page_type,
            "f1": [round(f, 5) for f in f1_at(p, s[:, 0], THRESHOLDS)],
        }
        for p, s in zip(scored, scores)
    }
    means = evaluate(scored, scores, [threshold])["scores"] if scored else {}
    return {"threshold": threshold, "thresholds": THRESHOLDS, "means": means, "pages": rows}


def shipped_threshold() -> float:
    """The decision threshold of the shipped model: the fixed recipe's, so no fold chooses its own."""
    return float(json.loads((default_model_dir() / CONFIG_FILE).read_text())["threshold"])


def train(
    data: Path,
    out: Path,
    config: ModelConfig,
    epochs: int = EPOCHS,
    limit_pages: int | None = None,
    log=print,
    train_limit: int | None = None,
    dev_buckets: frozenset[int] | None = None,
    fixed_threshold: float | None = None,
    device: str = "cpu",
) -> dict:
    """Train, keep the best epoch by dev word-F1 (`select`); `train_limit` caps only the training pages;
    `dev_buckets` holds out those hash buckets' sites as dev instead of the data's split (`resplit`).
    With `fixed_threshold`, nothing is chosen on dev: every epoch trains without scoring, the last is kept
    and the threshold is the one given (cross-validation); the held-out pages that carry texts are then scored
    once (`held_out`). `device`: where the model trains ("cpu", "cuda")."""
    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)
    torch.set_num_threads(max(1, torch.get_num_threads()))
    pages = load_pages(data)
    if dev_buckets is not None:
        resplit(pages, dev_buckets)
    train_pages = [p for p in pages if p.split == "train"][:limit_pages]
    if train_limit:
        ids = sorted({p.id for p in train_pages})
        keep = set(random.Random(SEED).sample(ids, min(train_limit, len(ids))))
        train_pages = [p for p in train_pages if p.id in keep]
    dev_pages = [p for p in pages if p.split == "dev"][:limit_pages]
    vocab = json.loads((data / F.CLASS_VOCAB_FILE).read_text())
    from tokenizers import Tokenizer

    config.text_vocab = Tokenizer.from_file(str(data / F.TOKENIZER_FILE)).get_vocab_size()
    config.class_vocab = len(vocab)
    model = ContentModel(config).to(device)
    params = sum(p.numel() for p in model.parameters())
    live = sum(p.source == "live" for p in train_pages), sum(p.source == "live" for p in dev_pages)
    log(
        f"{len(train_pages)} train pages, {len(dev_pages)} dev pages ({live[0]} and {live[1]} of them recorded "
        f"live), {params:,} parameters"
    )
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
    rng = random.Random(SEED)
    np_rng = np.random.default_rng(SEED)
    # A page recorded in the browser has two variants (HTML and live snapshot): each epoch trains on one of
    # them, drawn at random, so mixing inputs costs no more time than one input.
    variants: dict[str, list[Page]] = defaultdict(list)
    for p in train_pages:
        variants[p.id].append(p)
    steps_per_epoch = len(_batches(epoch_groups(variants, random.Random(0)), random.Random(0)))
    total = max(1, epochs * steps_per_epoch)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / 50) * 0.5 * (1 + math.cos(math.pi * min(s, total) / total))
    )
    out.mkdir(parents=True, exist_ok=True)
    best = {"select": -1.0}
    history = []
    struct = torch.tensor([k != "main" for k in LABELS], device=device)
    for epoch in range(epochs):
        model.train()
        t0 = time.time()
        losses = []
        epoch_pages = epoch_groups(variants, rng)
        for step, batch in enumerate(_batches(epoch_pages, rng)):
            if epoch == 0 and step == PACE_STEPS:  # how long a run will take, while there is time to stop it
                pace = (time.time() - t0) / step
                log(f"{steps_per_epoch} steps an epoch at {pace:.2f}s a step: about {pace * total / 60:.0f} min")
            b = _collate(batch, np_rng, device)
            logits, type_logits, depth_pred = model(*b.inputs, pad_mask=b.pad)
            keep = ~b.pad
            main_loss = nnf.binary_cross_entropy_with_logits(
                logits[..., 0][keep], b.labels[..., 0][keep], weight=b.weight[keep]
            )
            other = (keep[..., None] & b.known[:, None, :] & struct).float()
            struct_loss = (
                nnf.binary_cross_entropy_with_logits(logits, b.labels, reduction="none") * other
            ).sum() / other.sum().clamp(min=1.0)
            loss = main_loss + STRUCT_WEIGHT * struct_loss
            if (b.page_type >= 0).any():
                loss = loss + PAGE_TYPE_WEIGHT * nnf.cross_entropy(type_logits, b.page_type, ignore_index=-1)
            if config.depth_task:
                loss = loss + DEPTH_WEIGHT * nnf.mse_loss(depth_pred[keep], b.depth[keep])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            losses.append(loss.item())
        model.eval()
        if fixed_threshold is not None:
            row = {"epoch": epoch + 1, "loss": statistics.mean(losses), "seconds": time.time() - t0}
            history.append(row)
            log(f"epoch {epoch + 1:2d} loss {row['loss']:.4f} ({row['seconds']:.0f}s)")
            best = {"epoch": epoch + 1, "threshold": fixed_threshold}
            _save(model, out / "model.pt")
            summary = _summary(config, best, history, params, train_pages, dev_pages, dev_buckets)
            (out / "train.json").write_text(json.dumps(summary, indent=1))
            continue
        predictions = [page_predictions(model, p) for p in dev_pages]
        result = evaluate(dev_pages, [s for s, _ in predictions])
        s = result["scores"]
        type_acc = page_type_accuracy(dev_pages, [t for _, t in predictions])
        row = {
            "epoch": epoch + 1,
            "loss": statistics.mean(losses),
            "threshold": result["threshold"],
            **s,
            "page_type_accuracy": type_acc,
            "pages": len(epoch_pages),
            "seconds": time.time() - t0,
        }
        history.append(row)
        log(
            f"epoch {epoch + 1:2d} loss {row['loss']:.4f} dev {s['select']:.4f} @ {result['threshold']} "
            + " ".join(f"{k} {v:.3f}" for k, v in sorted(s.items()) if "/" not in k and k != "select")
            + (f" type {type_acc:.3f}" if type_acc is not None else "")
            + f" ({row['seconds']:.0f}s)"
        )
        if s["select"] > best["select"]:
            best = {**s, "epoch": epoch + 1, "threshold": result["threshold"], "page_type_accuracy": type_acc}
            _save(model, out / "model.pt")
        # Written every epoch, so a run stopped early still leaves a usable best checkpoint with its summary.
        summary = _summary(config, best, history, params, train_pages, dev_pages, dev_buckets)
        (out / "train.json").write_text(json.dumps(summary, indent=1))
    if fixed_threshold is not None:
        summary["held_out"] = held_out_scores(model, dev_pages, fixed_threshold)
        (out / "train.json").write_text(json.dumps(summary, indent=1))
        return summary
    model.load_state_dict(torch.load(out / "model.pt"))
    model.eval()
    summary["memorisation"] = memorisation(model, dev_pages, train_pages, best["threshold"], random.Random(SEED))
    (out / "train.json").write_text(json.dumps(summary, indent=1))
    gaps = summary["memorisation"]["f1"]
    log(
        "memorisation (train F1 - dev F1 on like pages): "
        + " ".join(f"{k} {v['gap']:+.3f}" for k, v in gaps.items() if "/" not in k)
    )
    return summary


def _summary(config, best, history, params, train_pages, dev_pages, dev_buckets) -> dict:
    return {
        "config": config.to_dict(),
        "threshold": best["threshold"],
        "best": best,
        "history": history,
        "parameters": params,
        "train_pages": len(train_pages),
        "dev_pages": len(dev_pages),
        # the hash buckets held out as dev (null: the data's own split); export.onnx_export scores these
        "dev_buckets": sorted(dev_buckets) if dev_buckets is not None else None,
        "knobs": {
            "oversample": OVERSAMPLE,
            "site_pages": SITE_PAGES,
            "class_drop": CLASS_DROP,
            "text_drop": TEXT_DROP,
            "token_dropout": TOKEN_DROPOUT,
            "word_weight": WORD_WEIGHT,
            "page_weight": PAGE_WEIGHT,
        },
    }


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
    global TOKEN_DROPOUT, WORD_WEIGHT, PAGE_WEIGHT, SITE_PAGES, CLASS_DROP, TEXT_DROP, SEED, TEACHER, TEACHER_WEIGHT
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("runs/data"))
    ap.add_argument("--out", type=Path, default=Path("runs/model"))
    ap.add_argument("--epochs", type=int, default=EPOCHS)
    ap.add_argument("--limit-pages", type=int, default=None, help="smoke runs: pages per split")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--set", nargs="*", default=[], help="ModelConfig overrides, e.g. layers=3 sequence=bilstm")
    ap.add_argument(
        "--oversample",
        nargs="*",
        default=None,
        help="copies per epoch, replacing the shipped recipe's, e.g. wcxb/forum=3 wcxb=2 "
        "(given with no pairs: no oversampling)",
    )
    ap.add_argument("--token-dropout", type=float, default=TOKEN_DROPOUT)
    ap.add_argument(
        "--holdout",
        type=int,
        default=0,
        choices=range(10),
        help="hold out the sites of this hash bucket as dev instead of the data's split (0)",
    )
    ap.add_argument(
        "--folds",
        type=int,
        default=None,
        help="cross-validation: the number of site-grouped folds (2, 5 or 10); with --fold, trains the fixed "
        "recipe (--epochs, the shipped threshold, last epoch kept) and scores nothing on the fold's dev",
    )
    ap.add_argument("--fold", type=int, default=None, help="cross-validation: the fold held out (0 to --folds - 1)")
    ap.add_argument("--site-pages", type=int, default=SITE_PAGES, help="pages of a site per epoch (0: all)")
    ap.add_argument("--class-drop", type=float, default=CLASS_DROP, help="share of pages without class names")
    ap.add_argument("--text-drop", type=float, default=TEXT_DROP, help="share of pages without text tokens")
    ap.add_argument("--word-weight", action="store_true", help="weight the main loss by log(1 + words)")
    ap.add_argument("--page-weight", action="store_true", help="weigh every page the same in the main loss")
    ap.add_argument("--teacher", type=Path, default=None, help="distil: a pickle of {fold: {page id: main scores}}")
    ap.add_argument("--teacher-weight", type=float, default=TEACHER_WEIGHT, help="the teacher's share of the target")
    ap.add_argument("--seed", type=int, default=SEED, help="another seed: what a recipe's figures owe to chance")
    ap.add_argument(
        "--device", default="auto", help="where to train: cpu, cuda, cuda:1 ... (auto: cuda when torch sees one)"
    )
    args = ap.parse_args(argv)
    if (args.folds is None) != (args.fold is None):
        ap.error("--folds and --fold go together, e.g. --folds 5 --fold 0")
    if args.folds is not None and args.holdout:
        ap.error("--holdout and --fold both choose the dev sites; give one")
    if args.folds is not None:
        try:
            buckets: frozenset[int] | None = fold_buckets(args.fold, args.folds)
        except PithError as exc:
            ap.error(exc.message)
    else:
        buckets = frozenset({args.holdout}) if args.holdout else None
    if args.oversample is not None:
        OVERSAMPLE.clear()
        OVERSAMPLE.update(parse_sets(args.oversample))
    TOKEN_DROPOUT, WORD_WEIGHT, PAGE_WEIGHT = args.token_dropout, args.word_weight, args.page_weight
    SITE_PAGES, CLASS_DROP, TEXT_DROP, SEED = args.site_pages, args.class_drop, args.text_drop, args.seed
    if args.teacher is not None:
        import pickle

        if args.fold is None:
            ap.error("--teacher holds scores per fold (export.ensemble teacher): give --folds and --fold with it")
        try:
            with open(args.teacher, "rb") as f:
                TEACHER = pickle.load(f)[args.fold]
        except (OSError, pickle.UnpicklingError, EOFError, KeyError, TypeError) as exc:
            ap.error(
                f"no teacher scores for fold {args.fold} in {args.teacher} ({exc!r}): write them with "
                "`python -m export.ensemble teacher RECIPES --folds N --out FILE`"
            )
        TEACHER_WEIGHT = args.teacher_weight
    if args.threads:
        torch.set_num_threads(args.threads)
    config = ModelConfig(**parse_sets(args.set))
    fixed = shipped_threshold() if args.folds is not None else None
    device = ("cuda" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device
    summary = train(
        args.data,
        args.out,
        config,
        args.epochs,
        args.limit_pages,
        dev_buckets=buckets,
        fixed_threshold=fixed,
        device=device,
    )
    print(json.dumps(summary["best"], indent=1))


if __name__ == "__main__":
    main()
