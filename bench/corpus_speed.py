"""Corpus throughput: pages per CPU-second of `pith extract` on WARC files, local (-j 1, -j 2) and on Ray with
2 CPUs, beside trafilatura and resiliparse on the same pages in the same run. Figures, never pass/fail; the
ratios are what carries over to another machine.

    python -m bench.corpus_speed                    # 3,000 pages in 4 WARC files
    python -m bench.corpus_speed --pages 500 --skip ray

The pages come from bench/warc_build.py (every dataset, each page with its URL). They are written as several
WARC files because Ray's unit of work is a file (docs/corpus.md); the local engine streams pages across files,
so the split does not matter to it. Each engine writes the default columns to Parquet (text only: no html or
markdown is built). Per engine: wall seconds (for the local engines and Ray, model loading and for Ray the
cluster's start included), pages/s on the wall clock, and pages per CPU-second of extraction (all workers
together, model loading left out): the per-core figure, and the one a cluster's size follows from. The peers
run one page at a time in this process on the pages as read from the same WARC files (FastWARC, decoded as
Pith decodes them), with their default settings.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from native_host.corpus.pages import input_files
from native_host.corpus.readers import file_pages
from native_host.render.columns import DEFAULT_FIELDS

from . import extractors as registry
from . import targets
from .bytecode import compile_pith
from .evaluate import machine
from .warc_build import bench_pages, write_warcs

PEERS = ("trafilatura", "resiliparse")
CC_SEGMENT_PAGES = 90_000 * 30_000  # a Common Crawl segment: ~90,000 WARC files of ~30,000 pages


def run_pith(engine: str, workers: int, warc_dir: Path, out: Path) -> dict:
    files = input_files([str(warc_dir)], (".warc.gz",))
    t0 = time.perf_counter()
    if engine == "local":
        from native_host.corpus.local import run_local

        tally = run_local(files, out / f"local-{workers}.parquet", DEFAULT_FIELDS, workers)
        started = t0
    else:
        import ray

        from native_host.corpus.ray_engine import run_ray

        ray.init(num_cpus=workers, include_dashboard=False, _node_ip_address="127.0.0.1", logging_level="WARNING")
        started = time.perf_counter()
        try:
            tally = run_ray(files, out / "ray", DEFAULT_FIELDS, workers)
        finally:
            ray.shutdown()
    end = time.perf_counter()
    return {
        "pages": tally.pages,
        "failed": sum(tally.failed.values()),
        "wall": end - t0,
        "start": started - t0,
        "cpu": tally.cpu_s,
    }


def run_peer(name: str, warc_dir: Path) -> dict:
    from native_host.pipeline.snapshot import decode_html

    peer = registry.load(name)
    pages = failed = 0
    t0, cpu0 = time.perf_counter(), time.process_time()
    for path, _ in input_files([str(warc_dir)], (".warc.gz",)):
        for page in file_pages(path):
            if page.html is None:
                continue
            pages += 1
            try:
                peer.fn(decode_html(page.html, page.charset), page.url)
            except Exception:
                failed += 1
    return {
        "pages": pages,
        "failed": failed,
        "wall": time.perf_counter() - t0,
        "start": 0.0,
        "cpu": time.process_time() - cpu0,
        "version": peer.version,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=3000)
    ap.add_argument("--files", type=int, default=4)
    ap.add_argument("--skip", nargs="*", default=[], choices=["local-1", "local-2", "ray-2", *PEERS])
    args = ap.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    print(compile_pith())
    with tempfile.TemporaryDirectory() as tmp:
        warc_dir, out = Path(tmp) / "warc", Path(tmp) / "out"
        warc_dir.mkdir()
        out.mkdir()
        paths = write_warcs(bench_pages(args.pages), warc_dir / "bench.warc.gz", args.files)
        size = sum(p.stat().st_size for p in paths) / 1e6
        runs: dict[str, dict] = {}
        for name in ("local-1", "local-2", "ray-2", *PEERS):
            if name in args.skip:
                continue
            print(f"bench: {name} ...", file=sys.stderr, flush=True)
            if name in PEERS:
                runs[name] = run_peer(name, warc_dir)
            else:
                engine, workers = name.split("-")
                runs[name] = run_pith(engine, int(workers), warc_dir, out)
    print(f"## Corpus throughput: {args.pages} pages in {args.files} WARC files ({size:.0f} MB gzipped)\n")
    print(f"{machine()}; load average {os.getloadavg()[0]:.1f} at the end (the machine is shared: read the ratios)\n")
    print(
        "| run | pages | failed | wall s | of it starting | pages/s (wall) | pages per CPU-s | per CPU-s vs "
        "trafilatura | core-hours for a CC segment |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    base = runs.get("trafilatura")
    for name, r in runs.items():
        per_cpu = r["pages"] / r["cpu"] if r["cpu"] else float("nan")
        ratio = f"{per_cpu / (base['pages'] / base['cpu']):.2f}" if base else "-"
        label = f"{name} {r['version']}" if "version" in r else f"pith {name}"
        print(
            f"| {label} | {r['pages']} | {r['failed']} | {r['wall']:.1f} | {r['start']:.1f} | "
            f"{r['pages'] / r['wall']:.1f} | {per_cpu:.1f} | {ratio} | {CC_SEGMENT_PAGES / per_cpu / 3600:,.0f} |"
        )
    if base and "local-2" in runs:
        # trafilatura runs one page at a time here: on two cores it would do at best twice its one-core rate.
        pith2 = runs["local-2"]["pages"] / runs["local-2"]["wall"]
        ratio = pith2 / (2 * base["pages"] / base["wall"])
        print(
            f"\npith local-2 pages/s (wall, start included) ÷ trafilatura's on two cores (twice its one-core "
            f"rate) = {ratio:.2f} × (target ≥ {targets.BATCH_PAGES_PER_S} ×: "
            f"{targets.verdict(ratio, targets.BATCH_PAGES_PER_S, at_most=False)})"
        )


if __name__ == "__main__":
    main()
