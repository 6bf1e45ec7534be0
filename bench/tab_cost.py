"""What a new tab costs Chromium against the reader view laid over the page: why the reader has no tab.

    python -m bench.tab_cost [--repeats 9] [--window 0.5]

Headless Chromium with the extension, the 1,500-element article of bench.browser_speed open. Done, in turn:
* a tab of the extension's smallest page (offscreen/blob.html, an empty document and a short script) opened
  by `tabs.create({active: false})` from an extension page, as the reader view once opened its own tab;
* the reader view of the article laid over the page, as the reader action shows it (background/page.js's
  content scripts, `prepareReader` and `showReader`: harness/browsers.py's SHOW_ARTICLE; the article made by
  the Python extractor from the same page);
* nothing, for the idle baseline.
For each: the CPU time all of Chromium's processes spend in the `window` seconds after the call (Linux
/proc, clock ticks of 10 ms: each figure is a median of `repeats`, the cases alternating). What was opened is
closed after each window.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench.content_script import page_with_elements
from bench.synthetic import _blog
from harness.browsers import CHROMIUM, SHOW_ARTICLE, extension_browser

OPEN_TAB = """async (url) => {
  const tab = await api.tabs.create({url: api.runtime.getURL(url), active: false});
  return tab.id;
}"""
CLOSE_READER = "async (tabId) => (await import('/background/page.js')).closeReader(tabId)"
CASES = ("a tab (the extension's smallest page)", "the reader view over the page", "nothing (idle)")


def reader_article(html: str) -> dict:
    """The article the host would send the reader for `html`."""
    from native_host import Extractor

    r = Extractor().extract_html(html, url="http://127.0.0.1/article.html")
    article = {
        field: getattr(r, field)
        for field in (
            "title",
            "byline",
            "lang",
            "url",
            "date",
            "site_name",
            "dir",
            "reading_minutes",
            "text",
            "html",
            "markdown",
        )
    }
    return article


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
    ap = argparse.ArgumentParser(
        prog="python -m bench.tab_cost", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--window", type=float, default=0.5, help="seconds of CPU counted after each call")
    args = ap.parse_args(argv)
    cpu: dict[str, list[float]] = {case: [] for case in CASES}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        pages = root / "pages"
        pages.mkdir()
        html, elements = page_with_elements(1500, _blog)
        (pages / "article.html").write_text(html, "utf-8")
        article = reader_article(html)
        with extension_browser("chromium", root, pages=pages) as browser:
            page = browser.open("article.html")
            tab_id = browser.tab_id(page)
            for _ in range(args.repeats):
                for case in CASES:
                    time.sleep(args.window)
                    before = chromium_cpu_ms()
                    tab = None
                    if case.startswith("a tab"):
                        tab = browser.call(OPEN_TAB, "offscreen/blob.html")
                    elif case.startswith("the reader view"):
                        browser.call(SHOW_ARTICLE, [tab_id, article])
                    time.sleep(args.window)
                    cpu[case].append(chromium_cpu_ms() - before)
                    if tab is not None:
                        browser.call("async (id) => api.tabs.remove(id)", tab)
                    elif case.startswith("the reader view"):
                        browser.call(CLOSE_READER, tab_id)
            version = browser.version
    print(
        f"Chromium {version}, headless, {os.cpu_count()} cores, a {elements:,}-element article open; "
        f"{args.repeats} runs each, alternating; CPU counted over {args.window:g} s after the call\n"
    )
    print("| opened | Chromium CPU (ms, median) | min–max |")
    print("|---|---:|---:|")
    for case in CASES:
        print(f"| {case} | {statistics.median(cpu[case]):.0f} | {min(cpu[case]):.0f}–{max(cpu[case]):.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
