"""Pages -> cached training examples: snapshot, blocks, gold labels, then the tokenizer, class vocabulary
and features. Parsing ~4,300 pages is the slow part, so it runs once (in parallel) and is cached.

    python -m export.prepare --out runs/data          # all datasets, train and dev
    python -m export.prepare --out runs/data-live --snapshots train=FILE,dev=FILE   # recorded live snapshots

With --snapshots, each page's snapshot is the one recorded in the browser (export/record.py) instead of the one
built from its HTML; gold text and metadata still come from the data records, labels are aligned the same way,
and pages missing from the corpus are left out (and counted). With --mix as well, those splits keep every
page's HTML snapshot and add its recorded one beside it (a second Page, source "live"), so one model learns
both inputs; the tokenizer and class vocabulary are still learnt from the HTML pages alone.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pickle
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from export import corpus
from native_host.pipeline import features as F
from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.cli.progress import progress
from native_host.pipeline.snapshot import snapshot_from_html

from .data import iter_records
from .labels import LABELS, label_blocks

TEXT_VOCAB = 8192
CLASS_VOCAB = 4096
CLASS_MIN_COUNT = 3


@dataclass
class Page:
    """One page ready for training or evaluation (features computed, snapshot dropped to keep the cache small)."""

    id: str
    dataset: str
    split: str
    page_type: str | None
    title: str | None
    gold: str                  # gold main text, for word-F1
    with_: list[str]
    without: list[str]
    texts: list[str]           # block texts
    labels: np.ndarray         # float32 [N, 6] in LABELS order
    depth: np.ndarray          # float32 [N], the auxiliary target
    inputs: F.PageInputs
    source: str = "html"       # "html": built by snapshot_from_html; "live": recorded in the browser


def page_snapshot(record: dict) -> dict:
    """The page's snapshot: the recorded one when the record points into a corpus ("snapshot_at": (path,
    (start, end))), else the one built from its HTML."""
    if "snapshot_at" in record:
        path, span = record["snapshot_at"]
        return corpus.load_at(Path(path), span)["snapshot"]
    return snapshot_from_html(record["html"], url=record.get("url"))


def attach_snapshots(records: list[dict], corpora: dict[str, Path], mix: bool = False) -> tuple[list[dict], int]:
    """Point each record of a split that has a corpus at its recorded snapshot (dropping its HTML); records of
    that split missing from the corpus are left out. With `mix`, those records are kept as they are and the
    recorded ones added beside them. Returns (records kept, records of a recorded split without a recording)."""
    spans = {split: (path, corpus.index(path)) for split, path in corpora.items()}
    kept: list[dict] = []
    missing = 0
    for record in records:
        if record["split"] not in spans:
            kept.append(record)
            continue
        if mix:
            kept.append(record)
        path, index = spans[record["split"]]
        if record["id"] in index:
            kept.append({**{k: v for k, v in record.items() if k != "html"},
                         "snapshot_at": (str(path), index[record["id"]])})
        else:
            missing += 1
    return kept, missing


def _vocab_material(record: dict) -> tuple[list[str], collections.Counter]:
    """Block texts and class words of one page, for the tokenizer and the class vocabulary."""
    snapshot = page_snapshot(record)
    counts: collections.Counter = collections.Counter()
    for node in snapshot["nodes"]:
        for name in node.get("classes", ()):
            counts.update(F.class_words(name))
        if "html_id" in node:
            counts.update(F.class_words(node["html_id"]))
    return [b.text for b in blocks_from_snapshot(snapshot)], counts


def train_tokenizer(texts, path: Path, vocab_size: int = TEXT_VOCAB) -> None:
    """BPE over whitespace-split words, with a token for each of the 256 bytes as the fallback for any
    character it has not learnt: any script encodes, nothing is dropped. It encodes a page's blocks two to
    three times faster than the byte-level BPE of the first model, whose pre-tokenizer and byte mapping were
    a third of the per-page time (docs/performance.md), for the same dev F1 (docs/model.md)."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(byte_fallback=True))
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size - len(BYTE_TOKENS), min_frequency=2,
                                  special_tokens=["<pad>"], show_progress=False)
    tok.train_from_iterator(texts, trainer)
    spec = json.loads(tok.to_str())
    vocab = spec["model"]["vocab"]
    for token in BYTE_TOKENS:  # plain vocabulary entries, so a page's literal "<0x41>" stays text
        vocab.setdefault(token, len(vocab))
    Tokenizer.from_str(json.dumps(spec)).save(str(path))


BYTE_TOKENS = [f"<0x{b:02X}>" for b in range(256)]  # the names BPE's byte_fallback looks up


def write_class_vocab(counts: collections.Counter, path: Path, size: int = CLASS_VOCAB) -> None:
    vocab = ["<pad>", "<unk>"] + [w for w, c in counts.most_common(size - 2) if c >= CLASS_MIN_COUNT]
    path.write_text(json.dumps(vocab), "utf-8")


_FEATURIZERS: dict = {}


def _featurizer(assets: Path) -> F.Featurizer:
    if assets not in _FEATURIZERS:
        _FEATURIZERS[assets] = F.Featurizer(assets / "tokenizer.json", assets / "class_vocab.json")
    return _FEATURIZERS[assets]


def make_page(record: dict, assets: Path) -> Page | None:
    """Segment, label and featurize one record; None when its gold text is empty."""
    gold = record.get("main_text") or ""
    if not gold.strip():
        return None
    snapshot = page_snapshot(record)
    blocks = blocks_from_snapshot(snapshot)
    labs = label_blocks(blocks, gold, record.get("title"))
    labels = np.array([[lab[k] for k in LABELS] for lab in labs], dtype=np.float32).reshape(-1, len(LABELS))
    depth = np.array([min(b.depth, 64) / 32 for b in blocks], dtype=np.float32)
    return Page(record["id"], record["dataset"], record["split"], record.get("page_type"), record.get("title"),
                gold, record.get("with") or [], record.get("without") or [], [b.text for b in blocks], labels,
                depth, _featurizer(assets)(snapshot, blocks), "live" if "snapshot_at" in record else "html")


def _make_page(args):
    return make_page(*args)


def prepare(out: Path, datasets=None, limit: int | None = None, workers: int = os.cpu_count() or 1,
            snapshots: dict[str, Path] | None = None, mix: bool = False) -> list[Page]:
    """Train tokenizer and class vocabulary on the train split, then segment, label and featurize every page.
    `snapshots` (split -> corpus file) takes those splits' snapshots from recorded corpora, or with `mix` adds
    them beside the HTML ones."""
    out.mkdir(parents=True, exist_ok=True)
    records = list(iter_records(datasets=datasets, limit=limit))
    if snapshots:
        records, missing = attach_snapshots(records, snapshots, mix)
        print(f"{missing} pages have no recorded snapshot" + ("" if mix else " and are left out"))
    train = [r for r in records if r["split"] == "train" and not (mix and "snapshot_at" in r)]
    texts: list[str] = []
    counts: collections.Counter = collections.Counter()
    with ProcessPoolExecutor(workers) as pool:
        for page_texts, page_counts in progress(pool.map(_vocab_material, train, chunksize=8), total=len(train),
                                                desc="vocabulary"):
            texts.extend(page_texts)
            counts.update(page_counts)
    train_tokenizer(texts, out / "tokenizer.json")
    write_class_vocab(counts, out / "class_vocab.json")
    pages: list[Page] = []
    with ProcessPoolExecutor(workers) as pool:
        for page in progress(pool.map(_make_page, [(r, out) for r in records], chunksize=8), total=len(records),
                             desc="pages"):
            if page is not None:
                pages.append(page)
    with open(out / "pages.pkl", "wb") as f:
        pickle.dump(pages, f, protocol=pickle.HIGHEST_PROTOCOL)
    return pages


def load_pages(out: Path) -> list[Page]:
    with open(out / "pages.pkl", "rb") as f:
        return pickle.load(f)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("runs/data"))
    ap.add_argument("--datasets", default=None, help="comma-separated; default all")
    ap.add_argument("--limit", type=int, default=None, help="pages per dataset (smoke runs)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--snapshots", default=None, metavar="SPLIT=FILE,...",
                    help="recorded msgpack corpora per split, e.g. train=a.msgpack,dev=b.msgpack")
    ap.add_argument("--mix", action="store_true",
                    help="keep the HTML snapshots of the --snapshots splits and add the recorded ones beside them")
    args = ap.parse_args(argv)
    corpora = None
    if args.snapshots:
        try:
            corpora = {split: Path(file) for split, file in (item.split("=", 1) for item in args.snapshots.split(","))}
        except ValueError:
            ap.error("--snapshots takes SPLIT=FILE pairs separated by commas, e.g. dev=snapshots-dev.msgpack")
        for file in corpora.values():
            if not file.is_file():
                ap.error(f"{file} not found; record it first with python -m export.record --split SPLIT --out {file}")
    # Through the module's own name, so pickled pages refer to export.prepare.Page, not __main__.Page.
    from export.prepare import prepare

    if args.mix and not corpora:
        ap.error("--mix adds recorded snapshots beside the HTML ones: name them with --snapshots SPLIT=FILE")
    pages = prepare(args.out, args.datasets.split(",") if args.datasets else None, args.limit, args.workers, corpora,
                    args.mix)
    print(f"{len(pages)} pages, {sum(len(p.texts) for p in pages)} blocks -> {args.out}")


if __name__ == "__main__":
    main()
