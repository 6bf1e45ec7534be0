"""Serialisation time of the extension's content script (extension/content/snapshot.js) in a headless browser.

    python -m bench.content_script [--browser chromium|firefox] [--sizes 980 4900 19500] [--repeats 9]
                                   [--host [--model-dir DIR]]

Synthetic article pages (the sections of bench/synthetic.py: headings, paragraphs, lists, tables, link
menus) with about 1,000, 5,000 and 20,000 elements are served on 127.0.0.1 and opened in the browser with the
extension loaded (no host needed). Each is snapshotted `repeats` times through the extension's own
`pith.snapshot` message. Reported:
* first: the first snapshot after load, inside the content script (performance.now around the pass);
* median / max: the following snapshots, same clock;
* JSON.stringify: the median time to encode it, in the page, for the trip to the background;
* round trip: median from the extension page's sendMessage to the snapshot back in it (injection and
  transfer between processes included);
* size: the snapshot's JSON, as the host will receive it.

With --host, the host is installed in the browser's profile too (the shipped model, or --model-dir) and each
page also gets `repeats` Highlight runs through `pith.run` (the first one, which starts the host and loads
the model, is left out): the median time from the message to the outlines drawn, and the host's own share.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench.synthetic import section
from harness.browsers import KINDS, extension_browser
from native_host import snapshot_from_html


def sections_page(sections: int) -> str:
    """An article page of `sections` sections of bench/synthetic.py (each about ten blocks, a table among them)."""
    return (
        "<!doctype html><html lang='en'><head><title>Synthetic</title></head><body>"
        "<nav><a href='/'>Home</a> <a href='/a'>About</a></nav><main>"
        + "".join(section(i) for i in range(sections))
        + "</main><footer>Footer</footer></body></html>"
    )


def page_with_elements(target: int, build: Callable[[int], str] = sections_page) -> tuple[str, int]:
    """The page `build(k)` with about `target` elements (k the number of repeated parts), and its exact
    element count (as the snapshot sees it)."""

    def elements(html: str) -> int:
        return sum(n["tag"] != "#text" for n in snapshot_from_html(html)["nodes"])

    ten, twenty = elements(build(10)), elements(build(20))
    per_part = (twenty - ten) / 10
    html = build(max(1, round((target - (ten - 10 * per_part)) / per_part)))
    return html, elements(html)


def measure(browser, name: str, repeats: int) -> dict:
    page = browser.open(name)
    tab = browser.tab_id(page)
    runs = browser.call(
        """async ([tabId, repeats]) => {
        const out = [];
        for (let i = 0; i < repeats; i++) {
          const t0 = performance.now();
          const reply = await api.runtime.sendMessage({type: 'pith.snapshot', tabId});
          const roundTrip = performance.now() - t0;
          if (!reply.ok) throw new Error(JSON.stringify(reply.error));
          out.push({ms: reply.ms, jsonMs: reply.json_ms, roundTrip, nodes: reply.snapshot.nodes.length,
                    bytes: reply.bytes});
        }
        return out;
    }""",
        [tab, repeats + 1],
    )
    page.close()
    warm = [r["ms"] for r in runs[1:]]
    return {
        "first": runs[0]["ms"],
        "median": statistics.median(warm),
        "max": max(warm),
        "json": statistics.median(r["jsonMs"] for r in runs[1:]),
        "round_trip": statistics.median(r["roundTrip"] for r in runs[1:]),
        "nodes": runs[0]["nodes"],
        "mb": runs[0]["bytes"] / 1e6,
    }


def measure_highlight(browser, name: str, repeats: int) -> dict:
    page = browser.open(name)
    tab = browser.tab_id(page)
    runs = browser.call(
        """async ([tabId, repeats]) => {
        const out = [];
        for (let i = 0; i < 2 * repeats + 1; i++) {
          const t0 = performance.now();
          const reply = await api.runtime.sendMessage({type: 'pith.run', action: 'highlight', tabId});
          if (!reply.ok) throw new Error(JSON.stringify(reply.error));
          if (reply.highlighted) out.push({ms: performance.now() - t0, host: reply.timings.host});
        }
        return out;
    }""",
        [tab, repeats],
    )
    page.close()
    warm = runs[1:]
    return {"action": statistics.median(r["ms"] for r in warm), "host": statistics.median(r["host"] for r in warm)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--browser", choices=KINDS, default="chromium")
    parser.add_argument("--sizes", type=int, nargs="+", default=[980, 4900, 19500])
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--host", action="store_true", help="also time Highlight through the installed host")
    parser.add_argument("--model-dir", help="with --host: the model to serve instead of the shipped one")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        pages = root / "pages"
        pages.mkdir()
        counts = {}
        for size in args.sizes:
            html, counts[size] = page_with_elements(size)
            (pages / f"page-{size}.html").write_text(html)
        rows = []
        host = "installed" if args.host else "missing"
        with extension_browser(
            args.browser, root / "browser", host=host, model_dir=args.model_dir, pages=pages
        ) as browser:
            version = f"{args.browser} {browser.version}"
            for size in args.sizes:
                result = measure(browser, f"page-{size}.html", args.repeats)
                if args.host:
                    result.update(measure_highlight(browser, f"page-{size}.html", args.repeats))
                rows.append((counts[size], result))
    print(f"{version}, headless; {args.repeats} warm runs per page after the first\n")
    print(
        "| elements | nodes | first (ms) | median (ms) | max (ms) | JSON.stringify (ms) | round trip (ms) | "
        "snapshot JSON (MB) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for elements, r in rows:
        print(
            f"| {elements:,} | {r['nodes']:,} | {r['first']:.1f} | {r['median']:.1f} | {r['max']:.1f} | "
            f"{r['json']:.1f} | {r['round_trip']:.1f} | {r['mb']:.2f} |"
        )
    if args.host:
        print("\n| elements | Highlight, message to outlines (ms) | of which the host (ms) |\n|---:|---:|---:|")
        for elements, r in rows:
            print(f"| {elements:,} | {r['action']:.0f} | {r['host']:.0f} |")
    print(json.dumps([{"elements": e, **r} for e, r in rows]), file=sys.stderr)


if __name__ == "__main__":
    main()
