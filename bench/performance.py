"""Every figure of docs/performance.md, in one command: the speed benchmarks in turn, with the machine's
load before and after each (timings on a shared machine mean little without it).

    python -m bench.performance [--quick]

Runs `bench.speed` (dev pages beside trafilatura, readability-lxml and resiliparse; `pith extract`
throughput), `bench.host_speed` (host round trip at 1k/5k/20k nodes, cold start, peak RSS, model size) and
`bench.content_script` (the content script's serialisation in headless Chromium), `bench.stage_floor` (Pith's
time split into the compiled code it calls and its own Python), `bench.corpus_speed` (the WARC path, local
engine), `bench.browser_speed` (click to painted result in headless Chromium) and `bench.tab_cost` (what a
new tab costs Chromium). `--quick` runs each on a small sample, to check the commands work.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

RUNS = {
    "bench.speed": ([], ["--limit", "10", "--cli-pages", "20"]),
    "bench.host_speed": ([], ["--nodes", "1000", "5000", "--repeats", "3"]),
    "bench.content_script": ([], ["--sizes", "1000", "5000", "--repeats", "3"]),
    "bench.stage_floor": ([], ["--limit", "3"]),
    "bench.corpus_speed": (["--pages", "1500", "--skip", "ray-2"], ["--pages", "60", "--skip", "ray-2"]),
    "bench.browser_speed": (["--repeats", "5", "--rounds", "2"], ["--pages", "article-1500", "--repeats", "1"]),
    "bench.tab_cost": ([], ["--repeats", "2"]),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.performance", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="a small sample of each, to check the commands work")
    args = ap.parse_args(argv)
    failed = 0
    for module, (full, quick) in RUNS.items():
        print(f"\n## python -m {module} {' '.join(quick if args.quick else full)}\n", flush=True)
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n", flush=True)
        code = subprocess.call([sys.executable, "-m", module, *(quick if args.quick else full)])
        print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
        if code:
            print(f"bench: {module} exited with {code}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
