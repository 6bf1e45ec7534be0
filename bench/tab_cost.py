"""What opening the reader costs Chromium, whatever the page in it: the CPU the reader view's tab takes from
the host on a machine of few cores, and what the same page would cost laid over the page instead.

    python -m bench.tab_cost [--repeats 9] [--window 0.5]

Headless Chromium with the extension, the 1,500-element article of bench.browser_speed open. Opened, in turn:
* the reader page in a tab, by `tabs.create({active: false})` from an extension page, as the reader action
  opens it;
* the extension's smallest page (offscreen/blob.html, an empty document and a short script) the same way;
* the reader page in a frame laid over the article (position: fixed, the whole viewport), the way an in-page
  reader could show it; the shipped extension exposes no page to frames, so this runs on a copy of it whose
  manifest makes the reader's files web-accessible (`web_accessible_resources`);
* nothing, for the idle baseline.
For each: the CPU time all of Chromium's processes spend in the `window` seconds after the call (Linux
/proc, clock ticks of 10 ms: each figure is a median of `repeats`, the cases alternating). What was opened is
closed after each window.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bench.browser_speed import blog_with_elements
from export.browsers import CHROMIUM, CHROMIUM_ORIGIN, EXTENSION, extension_browser

READER = "reader/reader.html#article:none"
OPEN_TAB = """async (url) => {
  const tab = await api.tabs.create({url: api.runtime.getURL(url), active: false});
  return tab.id;
}"""
OPEN_FRAME = """(url) => {
  const frame = document.createElement('iframe');
  frame.src = url;
  frame.style.cssText = 'position:fixed;inset:0;width:100vw;height:100vh;border:0;z-index:2147483647';
  document.documentElement.appendChild(frame);
  window.__benchFrame = frame;
}"""
CASES = ("the reader page, in a tab", "the smallest extension page, in a tab", "the reader page, in a frame over the page",
         "nothing (idle)")


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


def framable_copy(into: Path) -> Path:
    """The extension, its reader's files made web-accessible, so that a page may frame the reader."""
    shutil.copytree(EXTENSION, into)
    manifest = json.loads((into / "manifest.json").read_text("utf-8"))
    manifest["web_accessible_resources"] = [{"resources": ["reader/*", "limits.js", "background/*"],
                                             "matches": ["<all_urls>"]}]
    (into / "manifest.json").write_text(json.dumps(manifest, indent=2), "utf-8")
    return into


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.tab_cost", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--window", type=float, default=0.5, help="seconds of CPU counted after each call")
    args = ap.parse_args(argv)
    cpu: dict[str, list[float]] = {case: [] for case in CASES}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        pages = root / "pages"
        pages.mkdir()
        html, elements = blog_with_elements(1500)
        (pages / "article.html").write_text(html, "utf-8")
        with extension_browser("chromium", root, pages=pages, extension=framable_copy(root / "extension")) as browser:
            page = browser.open("article.html")
            for _ in range(args.repeats):
                for case in CASES:
                    time.sleep(args.window)
                    before = chromium_cpu_ms()
                    tab = None
                    if case.endswith("in a tab"):
                        tab = browser.call(OPEN_TAB, READER if case.startswith("the reader") else "offscreen/blob.html")
                    elif case.endswith("over the page"):
                        page.evaluate(OPEN_FRAME, f"{CHROMIUM_ORIGIN}/{READER}")
                    time.sleep(args.window)
                    cpu[case].append(chromium_cpu_ms() - before)
                    if tab is not None:
                        browser.call("async (id) => api.tabs.remove(id)", tab)
                    elif case.endswith("over the page"):
                        page.evaluate("() => window.__benchFrame.remove()")
            version = browser.version
    print(f"Chromium {version}, headless, {os.cpu_count()} cores, a {elements:,}-element article open; "
          f"{args.repeats} runs each, alternating; CPU counted over {args.window:g} s after the call\n")
    print("| opened | Chromium CPU (ms, median) | min–max |")
    print("|---|---:|---:|")
    for case in CASES:
        print(f"| {case} | {statistics.median(cpu[case]):.0f} | {min(cpu[case]):.0f}–{max(cpu[case]):.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
