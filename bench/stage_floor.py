"""How much of a page's time is compiled code Pith calls (lexbor's parse, the tokenizer, onnxruntime) and how
much is Pith's own Python, beside trafilatura on the same pages: the case for (or against) compiled code of
our own (docs/performance.md, "Where the time goes").

    python -m bench.stage_floor [--limit N]

Per dev page, in one process, interleaved: `extract_html` (text only) with the tokenizer's and the model's
calls timed inside it, lexbor's parse timed alone just before, and trafilatura. "Python" is the rest of
Pith's time: the snapshot walk, blocks, features, decisions, metadata and the article.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from . import extractors as registry
from .evaluate import machine
from .speed import load_pages, pct


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.stage_floor", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--limit", type=int, default=None, help="at most N dev pages per dataset (default: all)")
    args = ap.parse_args(argv)
    from selectolax.lexbor import LexborHTMLParser

    from native_host import Extractor
    from native_host.pipeline.snapshot import decode_html

    pith = Extractor()
    spent = {"tokenizer": 0.0, "model": 0.0}

    def timed(name, fn):
        def call(*a, **k):
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                spent[name] += time.perf_counter() - t0

        return call

    pith.featurize._encode = timed("tokenizer", pith.featurize._encode)
    if getattr(pith.featurize, "_ascii", None) is not None:  # ASCII texts' own tokenizer, where there is one
        pith.featurize._ascii = timed("tokenizer", pith.featurize._ascii)
    pith.model.session.run = timed("model", pith.model.session.run)
    traf = registry.load("trafilatura")
    pages = load_pages(args.limit)
    rows: dict[str, list[float]] = {
        k: [] for k in ("parse", "tokenizer", "model", "compiled", "python", "pith", "trafilatura")
    }
    print(f"{machine()}; load average {os.getloadavg()[0]:.2f} at start\n", flush=True)
    for k, page in enumerate(pages):
        html, url = page["html"], page["url"]
        t0 = time.perf_counter()
        LexborHTMLParser(decode_html(html))
        parse = (time.perf_counter() - t0) * 1000
        spent.update(tokenizer=0.0, model=0.0)
        t0 = time.perf_counter()
        pith.extract_html(html, url=url, views=())
        total = (time.perf_counter() - t0) * 1000
        tok, model = spent["tokenizer"] * 1000, spent["model"] * 1000
        rows["parse"].append(parse)
        rows["tokenizer"].append(tok)
        rows["model"].append(model)
        rows["compiled"].append(parse + tok + model)
        rows["python"].append(max(0.0, total - parse - tok - model))
        rows["pith"].append(total)
        rows["trafilatura"].append(registry.call(traf, page, 0).seconds * 1000)
        if (k + 1) % 100 == 0:
            print(f"bench: {k + 1}/{len(pages)} pages", file=sys.stderr, flush=True)
    tm, tp = pct(rows["trafilatura"], 0.5), pct(rows["trafilatura"], 0.95)
    print(f"### Where Pith's time goes, {len(pages)} dev pages (text only, one inference thread)\n")
    print("| part | median (ms) | p95 (ms) | ÷ trafilatura's median | ÷ trafilatura's p95 |")
    print("|---|---:|---:|---:|---:|")
    names = {
        "parse": "lexbor parse",
        "tokenizer": "tokenizer (Rust)",
        "model": "model (onnxruntime)",
        "compiled": "compiled code Pith calls, together",
        "python": "Pith's own code (its compiled modules and Python)",
        "pith": "**Pith, all**",
        "trafilatura": "trafilatura",
    }
    for key, label in names.items():
        med, p95 = pct(rows[key], 0.5), pct(rows[key], 0.95)
        print(f"| {label} | {med:.2f} | {p95:.2f} | {med / tm:.2f} | {p95 / tp:.2f} |")
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
