"""Speed of `Extractor.extract_html` beside its peers, measured in one run on the same pages: tables and
ratios, never pass/fail.

    python -m bench.speed                    # all dev pages, then `pith extract` on 400 of them
    python -m bench.speed --limit 20 --cli-pages 30

1. Per page: every dev page goes through Pith and each peer in turn (interleaved, so a neighbour's load on
   a shared machine falls on all alike), each giving plain text: Pith builds no reader views. Pith's stages come from its own `timings`; lexbor's parse is timed
   alone on the same page just before, so `snapshot` splits into parse and walk.
2. Time against size: the pages in five bands of snapshot nodes; a flat microseconds-per-node column is
   linear growth.
3. Throughput of `pith extract DIR --out F -j W` with 1 and 2 worker processes (process start and model
   load included, as a user meets them), beside trafilatura's own CLI on the same directory.

Each ratio is printed beside its target (bench/targets.py).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import extractors as registry
from . import targets
from .bytecode import compile_pith
from .evaluate import machine

PEERS = ("trafilatura", "readability-lxml", "resiliparse")
STAGES = ("parse", "walk", "snapshot", "blocks", "features", "inference", "decisions", "metadata", "article", "total")
WARMUP = 3


def pct(values: list[float], q: float) -> float:
    """The q-quantile by nearest rank (q=0.5: median, 0.95: p95)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


def load_pages(limit: int | None) -> list[dict]:
    from export.data import iter_records

    return [{"id": r["id"], "html": r["html"], "url": r.get("url")} for r in iter_records(split="dev", limit=limit)]


def per_page(pages: list[dict]) -> tuple[dict[str, list[float]], dict[str, list[float]], list[int]]:
    """(ms per page for Pith and each peer, Pith's ms per stage, snapshot nodes per page)."""
    from selectolax.lexbor import LexborHTMLParser

    from native_host import Extractor, snapshot_from_html
    from native_host.pipeline.snapshot import decode_html

    pith = Extractor()
    peers = []
    for name in PEERS:
        try:
            peers.append(registry.load(name))
        except registry.Unavailable as exc:
            print(f"bench: {name} unavailable: {exc}", file=sys.stderr)
    for page in pages[:WARMUP]:
        pith.extract_html(page["html"], url=page["url"], views=())
        for peer in peers:
            registry.call(peer, page, 0)
    totals: dict[str, list[float]] = {"pith": [], **{p.name: [] for p in peers}}
    stages: dict[str, list[float]] = {s: [] for s in STAGES}
    nodes = []
    for k, page in enumerate(pages):
        html, url = page["html"], page["url"]
        nodes.append(len(snapshot_from_html(html, url=url)["nodes"]))
        t0 = time.perf_counter()
        LexborHTMLParser(decode_html(html))
        parse = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        result = pith.extract_html(html, url=url, views=())
        totals["pith"].append((time.perf_counter() - t0) * 1000)
        for stage in STAGES[2:]:
            stages[stage].append(result.timings.get(stage, 0.0))
        stages["parse"].append(parse)
        stages["walk"].append(max(0.0, result.timings["snapshot"] - parse))
        for peer in peers:
            outcome = registry.call(peer, page, 0)
            totals[peer.name].append(outcome.seconds * 1000)
        if (k + 1) % 50 == 0:
            print(f"bench: {k + 1}/{len(pages)} pages", file=sys.stderr)
    return totals, stages, nodes


def print_per_page(totals: dict[str, list[float]], stages: dict[str, list[float]]) -> None:
    pith_med, pith_p95 = pct(totals["pith"], 0.5), pct(totals["pith"], 0.95)
    print(f"### Per page, {len(totals['pith'])} dev pages\n")
    print("| extractor | median (ms) | p95 (ms) | mean (ms) | Pith ÷ it, median | Pith ÷ it, p95 |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, values in totals.items():
        med, p95 = pct(values, 0.5), pct(values, 0.95)
        print(
            f"| {name} | {med:.1f} | {p95:.1f} | {statistics.fmean(values):.1f} | {pith_med / med:.2f} | "
            f"{pith_p95 / p95:.2f} |"
        )
    print("\n| Pith stage | median (ms) | p95 (ms) | share of mean total |")
    print("|---|---:|---:|---:|")
    mean_total = statistics.fmean(stages["total"])
    for stage in STAGES:
        label = {
            "parse": "parse (lexbor, timed alone)",
            "walk": "snapshot walk (snapshot − parse)",
            "snapshot": "snapshot (parse + walk)",
        }.get(stage, stage)
        share = statistics.fmean(stages[stage]) / mean_total
        print(f"| {label} | {pct(stages[stage], 0.5):.2f} | {pct(stages[stage], 0.95):.2f} | {share:.0%} |")
    if "trafilatura" in totals:
        med = pith_med / pct(totals["trafilatura"], 0.5)
        p95 = pith_p95 / pct(totals["trafilatura"], 0.95)
        print(
            f"\nTargets: median ≤ {targets.PER_PAGE_MEDIAN} × trafilatura's: {med:.2f} × "
            f"({targets.verdict(med, targets.PER_PAGE_MEDIAN)}); p95 ≤ {targets.PER_PAGE_P95} ×: {p95:.2f} × "
            f"({targets.verdict(p95, targets.PER_PAGE_P95)})."
        )


def print_by_size(totals: dict[str, list[float]], nodes: list[int], bands: int = 5) -> None:
    order = sorted(range(len(nodes)), key=nodes.__getitem__)
    names = [n for n in ("pith", "trafilatura") if n in totals]
    print(f"\n### Time against page size ({bands} bands of equal page count)\n")
    print("| nodes (band) | median nodes | " + " | ".join(f"{n} median (ms) | {n} µs/node" for n in names) + " |")
    print("|---|---:|" + "---:|---:|" * len(names))
    for b in range(bands):
        idx = order[b * len(order) // bands : (b + 1) * len(order) // bands]
        if not idx:
            continue
        cells = []
        for name in names:
            cells.append(f"{pct([totals[name][i] for i in idx], 0.5):.1f}")
            cells.append(f"{pct([totals[name][i] * 1000 / max(1, nodes[i]) for i in idx], 0.5):.1f}")
        print(
            f"| {nodes[idx[0]]:,}–{nodes[idx[-1]]:,} | {pct([nodes[i] for i in idx], 0.5):,} | "
            + " | ".join(cells)
            + " |"
        )


def cli_throughput(pages: list[dict], workers: tuple[int, ...] = (1, 2)) -> None:
    """Pages per second of `pith extract DIR` and of trafilatura's CLI, on the same directory."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "pages"
        folder.mkdir()
        for k, page in enumerate(pages):
            (folder / f"{k:04d}.html").write_text(page["html"], encoding="utf-8")
        print(f"\n### `pith extract DIR` throughput, {len(pages)} dev pages (process start and model load included)\n")
        print("| command | workers | wall (s) | pages/s |")
        print("|---|---:|---:|---:|")
        rates: dict[tuple[str, int], float] = {}
        for w in workers:
            runs = {
                "pith extract DIR --out F": [
                    sys.executable,
                    "-m",
                    "native_host",
                    "extract",
                    str(folder),
                    "--out",
                    str(Path(tmp) / f"out{w}.jsonl"),
                    "-j",
                    str(w),
                ],
                "trafilatura --input-dir DIR -o OUT": [
                    "trafilatura",
                    "--input-dir",
                    str(folder),
                    "-o",
                    str(Path(tmp) / f"traf{w}"),
                    "--parallel",
                    str(w),
                ],
            }
            for label, argv in runs.items():
                t0 = time.perf_counter()
                done = subprocess.run(argv, capture_output=True, env={**os.environ, "PITH_NO_PROGRESS": "1"})
                wall = time.perf_counter() - t0
                if done.returncode:
                    print(f"| {label} | {w} | failed ({done.returncode}) | |")
                    continue
                rates[label.split()[0], w] = len(pages) / wall
                print(f"| {label} | {w} | {wall:.1f} | {len(pages) / wall:.1f} |")
        for w in workers:
            if ("pith", w) in rates and ("trafilatura", w) in rates:
                ratio = rates["pith", w] / rates["trafilatura", w]
                target = (
                    f" (target ≥ {targets.BATCH_PAGES_PER_S} ×: "
                    f"{targets.verdict(ratio, targets.BATCH_PAGES_PER_S, at_most=False)})"
                    if w == 2
                    else ""
                )
                print(f"\n{w} worker(s): Pith's pages/s ÷ trafilatura's = {ratio:.2f} ×{target}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.speed", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--limit", type=int, default=None, help="at most N dev pages per dataset (default: all)")
    ap.add_argument("--cli-pages", type=int, default=400, help="pages for the CLI throughput (0: skip)")
    args = ap.parse_args(argv)
    pages = load_pages(args.limit)
    print(f"{machine()}; load average {os.getloadavg()[0]:.2f} at start; {compile_pith()}\n")
    totals, stages, nodes = per_page(pages)
    print_per_page(totals, stages)
    print_by_size(totals, nodes)
    if args.cli_pages:
        cli_throughput(pages[:: max(1, len(pages) // args.cli_pages)][: args.cli_pages])
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
