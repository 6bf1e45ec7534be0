"""What opening a tab costs Chromium, whatever the page in it: the CPU the reader view's tab takes from the
host on a machine of few cores.

    python -m bench.tab_cost [--repeats 9] [--window 0.5]

Headless Chromium with the extension; from an extension page, `tabs.create({active: false})` (as the reader
action opens its tab) for the reader page and for the extension's smallest page (offscreen/blob.html, an
empty document and a short script), and, for comparison, nothing at all. For each: the CPU time all of
Chromium's processes spend in the `window` seconds after the call (Linux /proc, clock ticks of 10 ms: each
figure is a median of `repeats`), and the call's own time. The tab is closed after each window.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from export.browsers import CHROMIUM, extension_browser

OPEN = """async (url) => {
  const t0 = performance.now();
  const tab = url ? await api.tabs.create({url: api.runtime.getURL(url), active: false}) : null;
  return {id: tab && tab.id, ms: performance.now() - t0};
}"""
PAGES = {"reader page": "reader/reader.html#article:none", "smallest extension page": "offscreen/blob.html",
         "no tab (idle)": ""}


def chromium_cpu_ms() -> float:
    """CPU time (user + system) of every running Chromium process, in ms."""
    ticks = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if CHROMIUM.encode() not in Path(f"/proc/{pid}/cmdline").read_bytes():
                continue
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        ticks += int(fields[11]) + int(fields[12])
    return ticks * 1000 / os.sysconf("SC_CLK_TCK")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.tab_cost", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--window", type=float, default=0.5, help="seconds of CPU counted after each call")
    args = ap.parse_args(argv)
    cpu: dict[str, list[float]] = {name: [] for name in PAGES}
    call: dict[str, list[float]] = {name: [] for name in PAGES}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        pages = root / "pages"
        pages.mkdir()
        (pages / "page.html").write_text("<!doctype html><title>a page</title><p>A page to open tabs beside.</p>")
        with extension_browser("chromium", root, pages=pages) as browser:
            browser.open("page.html")
            for _ in range(args.repeats):
                for name, url in PAGES.items():  # alternating, so that the machine's drift falls on all alike
                    time.sleep(args.window)
                    before = chromium_cpu_ms()
                    opened = browser.call(OPEN, url)
                    time.sleep(args.window)
                    cpu[name].append(chromium_cpu_ms() - before)
                    call[name].append(opened["ms"])
                    if opened["id"] is not None:
                        browser.call("async (id) => api.tabs.remove(id)", opened["id"])
            version = browser.version
    print(f"Chromium {version}, headless, {os.cpu_count()} cores; {args.repeats} runs each, alternating; "
          f"CPU counted over {args.window:g} s after the call\n")
    print("| opened | Chromium CPU (ms, median) | min–max | `tabs.create` returns after (ms, median) |")
    print("|---|---:|---:|---:|")
    for name in PAGES:
        print(f"| {name} | {statistics.median(cpu[name]):.0f} | {min(cpu[name]):.0f}–{max(cpu[name]):.0f} | "
              f"{statistics.median(call[name]):.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
