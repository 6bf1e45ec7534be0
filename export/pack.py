"""Prepared pages, packed small enough to move to a training machine: the model's inputs and labels of every
page, with the texts and golds only of the datasets that will be scored there.

    python -m export.pack --data runs/data --out runs/data.pack            # inputs of all, texts of WCXB
    python -m export.pack --unpack runs/data.pack --data /tmp/data         # pages.pkl and vocabularies again

`pages.pkl` holds block texts, golds and int64 inputs: 1.2 GB for the 7,313 HTML pages. Training reads only
the inputs (ids fit 16 bits, the 46 numbers stay float32, exact), labels, depth and a few page fields; a
fold's held-out pages also need their texts and gold to be scored. Packed with lzma that is about 45 MB.
Unpacked pages without texts get empty block texts and an empty gold: they train, but score nothing, so
tools that score every dev page (`export.onnx_export`'s parity, a run that chooses its epoch on dev) need the
full `pages.pkl`.
"""

from __future__ import annotations

import argparse
import lzma
import pickle
import sys
from pathlib import Path

import msgpack
import numpy as np

from native_host.pipeline import features as F

from .prepare import Page, load_pages

VERSION = 1
INPUTS = ("text_ids", "tag_ids", "class_ids", "class_level", "numeric")
# Column -> dtype in the pack; every id is below 65,536 (TEXT_VOCAB, CLASS_VOCAB, the tag list), levels < 256.
DTYPES = {
    "text_ids": np.uint16,
    "tag_ids": np.uint8,
    "class_ids": np.uint16,
    "class_level": np.uint8,
    "numeric": np.float32,
    "labels": np.uint8,
    "depth": np.float32,
}
FIELDS = ("id", "dataset", "split", "page_type", "title", "source", "site", "page_type_id")
VOCABULARIES = (F.TOKENIZER_FILE, F.CLASS_VOCAB_FILE, F.COMMON_WORDS_FILE)


def _column(pages: list[Page], name: str) -> np.ndarray:
    parts = [getattr(p.inputs, name) if name in INPUTS else getattr(p, name) for p in pages]
    a = np.concatenate(parts)
    wanted = DTYPES[name]
    if np.issubdtype(wanted, np.integer) and a.size and (a.min() < 0 or a.max() > np.iinfo(wanted).max):
        raise ValueError(f"{name} holds values outside {np.dtype(wanted).name}: repack with a wider type")
    if name == "labels" and a.size and not np.isin(a, (0.0, 1.0)).all():
        raise ValueError("labels are not all 0 or 1: the pack stores them as bytes")
    return np.ascontiguousarray(a.astype(wanted))


def pack(data: Path, out: Path, texts_for: frozenset[str]) -> dict:
    """Write `out` from `data` (a prepared folder); returns the pack's counts."""
    pages = load_pages(data)
    columns = {}
    for name in DTYPES:
        a = _column(pages, name)
        columns[name] = {"dtype": a.dtype.str, "shape": list(a.shape), "data": lzma.compress(a.tobytes())}
    meta = [
        {
            **{f: getattr(p, f) for f in FIELDS},
            "blocks": len(p.inputs),
            "known": p.known.tolist(),
            "text": (
                {"texts": p.texts, "gold": p.gold, "with": p.with_, "without": p.without}
                if p.dataset in texts_for
                else None
            ),
        }
        for p in pages
    ]
    body = {
        "version": VERSION,
        "meta": lzma.compress(msgpack.packb(meta)),
        "columns": columns,
        "vocabularies": {name: (data / name).read_bytes() for name in VOCABULARIES},
    }
    out.write_bytes(msgpack.packb(body))
    return {"pages": len(pages), "with_texts": sum(m["text"] is not None for m in meta), "bytes": out.stat().st_size}


def unpack(src: Path, data: Path) -> int:
    """Write `data`/pages.pkl and the vocabularies from a pack; returns the number of pages."""
    body = msgpack.unpackb(src.read_bytes())
    if body.get("version") != VERSION:
        raise ValueError(f"{src} is pack version {body.get('version')}, this code reads {VERSION}: pack it again")
    cols = {
        name: np.frombuffer(lzma.decompress(c["data"]), dtype=np.dtype(c["dtype"])).reshape(c["shape"])
        for name, c in body["columns"].items()
    }
    meta = msgpack.unpackb(lzma.decompress(body["meta"]))
    pages, at = [], 0
    for m in meta:
        n = m["blocks"]
        cut = {name: a[at : at + n] for name, a in cols.items()}
        at += n
        text = m["text"] or {"texts": [""] * n, "gold": "", "with": [], "without": []}
        pages.append(
            Page(
                m["id"],
                m["dataset"],
                m["split"],
                m["page_type"],
                m["title"],
                text["gold"],
                text["with"],
                text["without"],
                text["texts"],
                cut["labels"].astype(np.float32),
                cut["depth"].copy(),
                F.PageInputs(*(cut[name].astype(np.float32 if name == "numeric" else np.int64) for name in INPUTS)),
                m["source"],
                m["site"],
                np.array(m["known"], dtype=bool),
                m["page_type_id"],
            )
        )
    data.mkdir(parents=True, exist_ok=True)
    for name, raw in body["vocabularies"].items():
        (data / name).write_bytes(raw)
    with open(data / "pages.pkl", "wb") as f:
        pickle.dump(pages, f, protocol=pickle.HIGHEST_PROTOCOL)
    return len(pages)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("runs/data"), help="the prepared folder (read, or written)")
    ap.add_argument("--out", type=Path, default=Path("runs/data.pack"))
    ap.add_argument("--texts-for", default="wcxb", help="datasets whose texts and golds travel (comma-separated)")
    ap.add_argument("--unpack", type=Path, default=None, metavar="PACK", help="unpack PACK into --data")
    args = ap.parse_args(argv)
    if args.unpack:
        if not args.unpack.is_file():
            ap.error(f"{args.unpack} not found; make it with python -m export.pack --data DIR --out FILE")
        print(f"{unpack(args.unpack, args.data)} pages into {args.data / 'pages.pkl'}")
        return 0
    if not (args.data / "pages.pkl").is_file():
        ap.error(f"{args.data / 'pages.pkl'} not found; prepare it first: python -m export.prepare --out {args.data}")
    counts = pack(args.data, args.out, frozenset(filter(None, args.texts_for.split(","))))
    print(f"{counts['pages']} pages ({counts['with_texts']} with texts) in {args.out}: {counts['bytes'] / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
