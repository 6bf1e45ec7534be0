"""Pages -> cached training examples: snapshot, blocks, gold labels, then the tokenizer, class vocabulary,
common words and features. Parsing ~7,300 pages is the slow part, so it runs once (in parallel) and is cached.

    python -m export.prepare --out runs/data          # all datasets, train and dev
    python -m export.prepare --out runs/data-live --snapshots all=FILE    # recorded live snapshots

With --snapshots, each page's snapshot is the one recorded in the browser (export/record.py) instead of the one
built from its HTML; gold text and metadata still come from the data records, labels are aligned the same way,
and pages missing from the corpus are left out (and counted). A corpus is named per split (train=, dev=) or
for both (all=). With --mix as well, those pages keep their HTML snapshot and add the recorded one beside it (a
second Page, source "live"), so one model learns both inputs; the vocabularies come from the HTML pages alone.

Every vocabulary is learnt so that no site can own an entry: class words and common words count the SITES
they occur on, not their occurrences, and the tokenizer sees each distinct block text once per site, so a
site's private class names and its boilerplate repeated on hundreds of pages teach nothing a new site has.
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

from export import recordings
from native_host.pipeline import features as F
from native_host.pipeline.blocks import blocks_from_snapshot
from native_host.pipeline.snapshot import snapshot_from_html
from native_host.progress import progress
from native_host.result import LABELS, PAGE_TYPES

from .data import iter_records
from .labels import label_blocks, labelled_metadata

TEXT_VOCAB = 8192
CLASS_VOCAB = 4096
CLASS_MIN_SITES = 5  # a class word enters the vocabulary only if this many sites use it
COMMON_TOP = 30  # a site's most frequent gold-text words that vote for the common-word list
COMMON_MIN_SITES = 20  # a word is common when it is among the COMMON_TOP of at least this many sites
# Datasets whose pages are all articles (news and blogs): their page type is known without a gold field.
ARTICLE_DATASETS = frozenset({"cleanportaleval", "dragnet", "l3s-gn1", "daniel", "fundus", "msv-big5"})


@dataclass
class Page:
    """One page ready for training or evaluation (features computed, snapshot dropped to keep the cache small)."""

    id: str
    dataset: str
    split: str
    page_type: str | None
    title: str | None
    gold: str  # gold main text, for word-F1
    with_: list[str]
    without: list[str]
    texts: list[str]  # block texts
    labels: np.ndarray  # float32 [N, len(LABELS)]
    depth: np.ndarray  # float32 [N], the auxiliary target
    inputs: F.PageInputs
    source: str = "html"  # "html": built by snapshot_from_html; "live": recorded in the browser
    site: str | None = None  # registered domain: training draws a few pages of a site per epoch
    known: np.ndarray | None = None  # bool [len(LABELS)]: labels the gold tells (byline, date need its fields)
    page_type_id: int = -1  # index in PAGE_TYPES, -1 where the dataset does not say


def site_of(record: dict) -> str:
    """The page's site, or its id where the data found none (a page then counts as a site of its own)."""
    return record.get("site") or record["id"]


def page_type_of(record: dict) -> str | None:
    if record.get("page_type") in PAGE_TYPES:
        return record["page_type"]
    return "article" if record["dataset"] in ARTICLE_DATASETS else None


def page_snapshot(record: dict) -> dict:
    """The page's snapshot: the recorded one when the record points into a corpus ("snapshot_at": (path,
    (start, end))), else the one built from its HTML."""
    if "snapshot_at" in record:
        path, span = record["snapshot_at"]
        return recordings.load_at(Path(path), span)["snapshot"]
    return snapshot_from_html(record["html"], url=record.get("url"))


def attach_snapshots(records: list[dict], corpora: dict[str, Path], mix: bool = False) -> tuple[list[dict], int]:
    """Point each record of a split that has a corpus ("all" names one for both) at its recorded snapshot
    (dropping its HTML); records of that split missing from the corpus are left out. With `mix`, those records
    are kept as they are and the recorded ones added beside them. Returns (records kept, records of a recorded
    split without a recording)."""
    spans = {split: (path, recordings.index(path)) for split, path in corpora.items()}
    kept: list[dict] = []
    missing = 0
    for record in records:
        split = record["split"] if record["split"] in spans else "all"
        if split not in spans:
            kept.append(record)
            continue
        if mix:
            kept.append(record)
        path, index = spans[split]
        if record["id"] in index:
            kept.append(
                {**{k: v for k, v in record.items() if k != "html"}, "snapshot_at": (str(path), index[record["id"]])}
            )
        else:
            missing += 1
    return kept, missing


def _vocab_material(record: dict) -> tuple[str, set[str], set[str], collections.Counter]:
    """(site, distinct block texts, class words, gold-text token counts) of one page, for the vocabularies."""
    snapshot = page_snapshot(record)
    words: set[str] = set()
    for node in snapshot["nodes"]:
        for name in node.get("classes", ()):
            words.update(F.class_words(name))
        if "html_id" in node:
            words.update(F.class_words(node["html_id"]))
    texts = {b.text for b in blocks_from_snapshot(snapshot)}
    return site_of(record), texts, words, collections.Counter(F.word_tokens(record.get("main_text") or ""))


def train_tokenizer(texts, path: Path, vocab_size: int = TEXT_VOCAB) -> None:
    """BPE over whitespace-split words, with a token for each of the 256 bytes as the fallback for any
    character it has not learnt: any script encodes, nothing is dropped. It encodes a page's blocks two to
    three times faster than a byte-level BPE, whose pre-tokenizer and byte mapping cost a third of the
    per-page time, for the same dev F1."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(byte_fallback=True))
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size - len(BYTE_TOKENS), min_frequency=2, special_tokens=["<pad>"], show_progress=False
    )
    tok.train_from_iterator(texts, trainer)
    spec = json.loads(tok.to_str())
    vocab = spec["model"]["vocab"]
    for token in BYTE_TOKENS:  # plain vocabulary entries, so a page's literal "<0x41>" stays text
        vocab.setdefault(token, len(vocab))
    Tokenizer.from_str(json.dumps(spec)).save(str(path))


BYTE_TOKENS = [f"<0x{b:02X}>" for b in range(256)]  # the names BPE's byte_fallback looks up


def write_class_vocab(sites: collections.Counter, path: Path, size: int = CLASS_VOCAB) -> None:
    """The class words most sites use (`sites`: word -> number of sites using it); a word fewer than
    CLASS_MIN_SITES sites use is unknown to the model, so it cannot learn one site's names."""
    # Ties go by the word: the counts come from sets, whose order changes with each run's string hashes, and
    # most_common keeps that order among equals, so the ids (and every model input) changed from run to run.
    ranked = sorted(sites.items(), key=lambda wc: (-wc[1], wc[0]))
    vocab = ["<pad>", "<unk>"] + [w for w, c in ranked[: size - 2] if c >= CLASS_MIN_SITES]
    path.write_text(json.dumps(vocab), "utf-8")


def write_common_words(top_of: dict[str, collections.Counter], path: Path) -> list[str]:
    """Words (CJK: characters) that running text is full of, in any language, without naming languages: a
    word is common when it is among the COMMON_TOP most frequent words of the gold texts of at least
    COMMON_MIN_SITES sites. Function words top every text in their language; a site's own names top only its
    own. `top_of`: site -> word counts of its gold texts."""
    votes = collections.Counter(w for counts in top_of.values() for w, _ in counts.most_common(COMMON_TOP))
    common = sorted(w for w, c in votes.items() if c >= COMMON_MIN_SITES)
    path.write_text(json.dumps(common, ensure_ascii=False), "utf-8")
    return common


_FEATURIZERS: dict = {}


def _featurizer(assets: Path) -> F.Featurizer:
    if assets not in _FEATURIZERS:
        _FEATURIZERS[assets] = F.Featurizer(assets)
    return _FEATURIZERS[assets]


def make_page(record: dict, assets: Path) -> Page | None:
    """Segment, label and featurize one record; None when its gold text is empty, or when it is a recording
    that did not render (`recordings.rendered`): its labels would teach that nothing on the page is content."""
    gold = record.get("main_text") or ""
    if not gold.strip():
        return None
    snapshot = page_snapshot(record)
    blocks = blocks_from_snapshot(snapshot)
    if "snapshot_at" in record and not recordings.rendered(snapshot, gold, blocks):
        return None
    labs = label_blocks(blocks, gold, record.get("title"))
    for lab, meta in zip(labs, labelled_metadata(blocks, record.get("author"), record.get("date"))):
        lab.update(meta)
    labels = np.array([[lab[k] for k in LABELS] for lab in labs], dtype=np.float32).reshape(-1, len(LABELS))
    known = np.array(
        [k not in ("byline", "date") or bool(record.get("author" if k == "byline" else "date")) for k in LABELS]
    )
    depth = np.array([min(b.depth, 64) / 32 for b in blocks], dtype=np.float32)
    page_type = page_type_of(record)
    return Page(
        record["id"],
        record["dataset"],
        record["split"],
        record.get("page_type"),
        record.get("title"),
        gold,
        record.get("with") or [],
        record.get("without") or [],
        [b.text for b in blocks],
        labels,
        depth,
        _featurizer(assets)(snapshot, blocks),
        "live" if "snapshot_at" in record else "html",
        site_of(record),
        known,
        PAGE_TYPES.index(page_type) if page_type else -1,
    )


def _make_page(args):
    return make_page(*args)


def prepare(
    out: Path,
    datasets=None,
    limit: int | None = None,
    workers: int = os.cpu_count() or 1,
    snapshots: dict[str, Path] | None = None,
    mix: bool = False,
) -> list[Page]:
    """Train tokenizer and class vocabulary on the train split, then segment, label and featurize every page.
    `snapshots` (split -> corpus file) takes those splits' snapshots from recorded corpora, or with `mix` adds
    them beside the HTML ones."""
    out.mkdir(parents=True, exist_ok=True)
    records = list(iter_records(datasets=datasets, limit=limit))
    if snapshots:
        records, missing = attach_snapshots(records, snapshots, mix)
        print(f"{missing} pages have no recorded snapshot" + ("" if mix else " and are left out"))
    train = [r for r in records if r["split"] == "train" and not (mix and "snapshot_at" in r)]
    texts_of: dict[str, set[str]] = collections.defaultdict(set)  # site -> its distinct block texts
    class_of: dict[str, set[str]] = collections.defaultdict(set)  # site -> its class words
    tokens_of: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)  # site -> gold words
    with ProcessPoolExecutor(workers) as pool:
        for site, texts, words, tokens in progress(
            pool.map(_vocab_material, train, chunksize=8), total=len(train), desc="vocabulary"
        ):
            texts_of[site] |= texts
            class_of[site] |= words
            tokens_of[site].update(tokens)
    train_tokenizer((t for texts in texts_of.values() for t in sorted(texts)), out / F.TOKENIZER_FILE)
    write_class_vocab(collections.Counter(w for words in class_of.values() for w in words), out / F.CLASS_VOCAB_FILE)
    write_common_words(tokens_of, out / F.COMMON_WORDS_FILE)
    pages: list[Page] = []
    with ProcessPoolExecutor(workers) as pool:
        for page in progress(
            pool.map(_make_page, [(r, out) for r in records], chunksize=8), total=len(records), desc="pages"
        ):
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
    ap.add_argument(
        "--snapshots",
        default=None,
        metavar="SPLIT=FILE,...",
        help="recorded msgpack corpora per split, e.g. train=a.msgpack,dev=b.msgpack, or all=c.msgpack",
    )
    ap.add_argument(
        "--mix",
        action="store_true",
        help="keep the HTML snapshots of the --snapshots splits and add the recorded ones beside them",
    )
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
    pages = prepare(
        args.out, args.datasets.split(",") if args.datasets else None, args.limit, args.workers, corpora, args.mix
    )
    print(f"{len(pages)} pages, {sum(len(p.texts) for p in pages)} blocks -> {args.out}")


if __name__ == "__main__":
    main()
