"""Click to painted reader view, and to outlines drawn, in headless Chromium or Firefox with the real host.

    python -m bench.browser_speed [--browser chromium|firefox] [--repeats 7]
                                  [--pages article-1500 blog-5000 tables-4900 real-1500 real-4000]
                                  [--actions reader highlight] [--model-dir DIR]
                                  [--rounds 1] [--extension NAME=DIR ...] [--cold N [--pause S]]

The pages are served on 127.0.0.1; `real-N` is the WCXB dev page (the data's site-disjoint dev split, read
through its sidecar) whose element count is nearest N, served as it was saved but under a Content-Security-
Policy that lets nothing load from elsewhere and runs none of its scripts (offline, and the same each run);
the others are built here from bench/synthetic.py:
* `article-N`, `blog-N`: the blog page (posts with headings, bylines, paragraphs with inline links, tag
  lists, a menu and a sidebar; about eight nodes a block, as on real pages) with about N elements; a typical
  article is about 1,500 elements, a long page 5,000;
* `tables-N`: the sections of bench.content_script (headings, paragraphs, menus, tables whose every cell is
  a block): the worst case for the host, about three times the blocks of a blog page of the same size.

An action starts where the popup's click starts it: `runtime.sendMessage({type: "pith.run"})` from an
extension page. It ends when the result is on screen: for Highlight, the frame after the page's first outline
attribute is set; for the reader, the frame after the reader view shows the article's first screen over the
page (`data-shown` on the root of the reader's frame; an older tree's view in the page: `data-pith-reader="shown"`
on its element). An older tree (`--extension old=DIR`) whose reader opens a tab
of its own is timed to the frame after that tab shows the first screen (`data-shown` on its root; a reader
without it: `data-ready`, the whole article rendered).
"The frame after" is a requestAnimationFrame callback's setTimeout, stamped by a script the driver adds to
every page (Playwright's init script), so the extension carries nothing for the end-to-end figure. Clocks are
`performance.timeOrigin + performance.now()` in every process.

Before each run every text of the page is made new (a run tag in front of it) and the page laid out again, so
that no run is helped by the host having read the same texts before (it keeps the token ids of the texts it
has seen: a site's menus come back on every page, but a benchmark's page would come back whole).

Per page and action: the first run on a freshly loaded page (content scripts compiled for the first time;
the host already started by a warm-up page) and the median of `repeats` warm runs after it, each run `--pause`
seconds after the last one ended (a look at the page between two clicks; what the extension does once the
reader is left, such as laying its spare frame, is done by then, as it would be for a person). Before the
pages, the first action of the browser session (starting the host and loading its model) is reported alone.
Each run also takes the CPU time (user and system, from /proc) that the browser's processes and the host
spent from the click to the whole article in (the reader) or the outlines painted: on a busy machine, where the
wall clock of two runs may differ twofold, what a change saves the machine. The extension's own stamps (the
`marks` of the `pith.run` reply; an older tree's reader tab's performance marks) split each run into phases; an extension without them (an older tree, `--extension old=DIR`) gets the end-to-end
figure and the host's own time only. With several `--extension`s, each gets its own browser session in turn,
`--rounds` times, so that the trees are compared on the same machine in the same run.

`--cold N`: the first click of a browser just started, as a user meets it: for each page, N times per
extension (in turn), a fresh browser and profile, the page opened and loaded, `--pause` seconds (default 1: a
reader's look at the page before the click), then Reader view, timed from the click to the painted view. The
host's memory (VmRSS of its process, from /proc) is read before the click. No warm runs in this mode.

`--table`: the figure docs/extension.md shows, in one run: in Chromium and then Firefox, the first click of
`--cold` fresh browsers (default 3) per page, `--pause` s after the page loaded, then a browser session with
`--repeats` warm clicks per page after its first; on `real-1500` and `real-4000` unless `--pages` says
otherwise. Printed as one table with the command that made it and the targets (first click ≤ 250 ms at 1,500
elements; warm ≤ 100 ms at 1,500, ≤ 200 ms at 4,000). With several `--extension`s each gets its own rows, the
trees measured in turn.

`--memory N`: what the reader's frames hold after the reader is left (a spare frame waits for the next click):
per extension, one browser session on each page, N times the proportional memory (PSS, from /proc) of the
browser's processes (not the host's, not the driver's) with the page alone, with the reader shown, and after
the reader is left (the popup's action again), 3 s after each; medians, and their differences.

`--frame N`: the reader's frame alone, without the host: N times per page and extension (a browser session per
extension, `--rounds` times in turn), the article the Python extractor makes of the page shown over it the way
the background shows one (harness/browsers.py's SHOW_ARTICLE: content scripts, frame placed, article sent), timed
from the call to the frame's first contentful paint. What a change to the frame's loading or rendering costs or
saves, without the host's time and its noise.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from bench.bytecode import compile_pith
from bench.content_script import page_with_elements, sections_page
from bench.synthetic import _blog
from bench.tab_cost import reader_article
from harness.browsers import EXTENSION, KINDS, READER_PAGE, SHOW_ARTICLE, extension_browser

# In every page, before its own scripts: stamp the frame after the result appears (see the module docstring).
PAINT_WATCH = """(() => {
  const clock = () => performance.timeOrigin + performance.now();
  const afterFrame = (key) => requestAnimationFrame(() => setTimeout(() => { window[key] = clock(); }));
  const watch = () => {
    const root = document.documentElement;
    if (location.protocol.endsWith('-extension:')) {
      new MutationObserver(() => {  // the article's first screen (data-shown), or all of it (data-ready)
        if ((root.dataset.shown === 'true' || root.dataset.ready === 'true') && !window.__benchShownAt) {
          window.__benchShownAt = clock();
          afterFrame('__benchPaintedAt');
        }
        if (root.dataset.ready === 'true' && !window.__benchReadyAt) window.__benchReadyAt = clock();
      }).observe(root, {attributes: true, attributeFilter: ['data-shown', 'data-ready']});
    } else {  // the first outline, or the reader view over the page (its first screen, then all of it)
      new MutationObserver((records) => {
        for (const r of records) {
          const value = r.target.getAttribute(r.attributeName);
          if (r.attributeName === 'data-pith-reader' && value === 'ready') window.__benchReadyAt ??= clock();
          if (window.__benchMarkedAt || value === null) continue;
          window.__benchMarkedAt = clock();
          afterFrame('__benchPaintedAt');
        }
      }).observe(root, {attributes: true, subtree: true, attributeFilter: ['data-pith-hl', 'data-pith-reader']});
    }
  };
  if (document.documentElement) watch(); else document.addEventListener('readystatechange', watch, {once: true});
})();"""

# From the control page: one `pith.run`, stamped on the same clock.
RUN = """async ([tabId, action]) => {
  const clock = () => performance.timeOrigin + performance.now();
  const clicked = clock();
  const reply = await api.runtime.sendMessage({type: 'pith.run', action, tabId});
  const replied = clock();
  if (!reply.ok) throw new Error(JSON.stringify(reply.error));
  return {clicked, replied, reply: {marks: reply.marks || null, timings: reply.timings, highlighted: reply.highlighted,
                                    reader_tab: reply.reader_tab, reader: reply.reader,
                                    node_ids: reply.node_ids.length}};
}"""

# Before each run: every text of the page made new (a run tag in front), laid out and painted, so that the host
# meets the page as it would a page it has never read (it keeps the token ids of texts it has seen).
RENEW_TEXTS = r"""async (run) => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.data.trim()) n.data = `r${run} ${n.data.replace(/^r\d+ /, '')}`;
  }
  void document.body.offsetHeight;
  await new Promise((done) => requestAnimationFrame(() => setTimeout(done)));
}"""

READER_MARKS = """() => ({origin: performance.timeOrigin, ready: window.__benchReadyAt, painted: window.__benchPaintedAt,
  marks: Object.fromEntries(performance.getEntriesByType('mark').filter((m) => m.name.startsWith('pith:'))
                             .map((m) => [m.name.slice(5), performance.timeOrigin + m.startTime]))})"""


def blog_with_elements(target: int) -> tuple[str, int]:
    return page_with_elements(target, _blog)


def tables_with_elements(target: int) -> tuple[str, int]:
    return page_with_elements(target, sections_page)


BUILDERS: dict[str, Callable[[int], tuple[str, int]]] = {
    "article": blog_with_elements,
    "blog": blog_with_elements,
    "tables": tables_with_elements,
}


def phases(action: str, run: dict, reader: dict | None) -> dict[str, float]:
    """The run split at the extension's stamps, in order, summing to the whole; {} for an extension that
    gives none."""
    m = run["reply"]["marks"]
    if not m:
        return {}
    host = run["reply"]["timings"]["host"]
    page_start = m["page_done"] - m["json_ms"] - m["walk_ms"]
    out = {
        "message to the background": m["received"] - run["clicked"],
        "tab checks, into the page": page_start - m["received"],
        "snapshot walk (page)": m["walk_ms"],
        "JSON.stringify (page)": m["json_ms"],
        "page to background, JSON.parse": m["snapshot_in"] - m["page_done"],
        "progress note, request": m["host_in"] - m["snapshot_in"],
        "native messaging": m["host_out"] - m["host_in"] - host,
        "host (its own clock)": host,
    }
    if action == "highlight":
        out["outlines set"] = m["drawn"] - m["host_out"]
        out["to painted"] = run["painted"] - m["drawn"]
    elif reader is None:  # the reader view over the page
        out["reader view shown (frame ready, first screen)"] = m["drawn"] - m["host_out"]
        out["to painted"] = run["painted"] - m["drawn"]
        out["(after: the rest of the article added)"] = max(0.0, run["ready"] - run["painted"])
    else:
        r = reader["marks"]
        if "shown" in m:  # the reader tab opened while the host worked
            out["article stored"] = m["stored"] - m["host_out"]
            out["tab shown"] = m["shown"] - m["stored"]
            out["reader has the article"] = r["loaded"] - m["shown"]
        else:
            out["store, open tab"] = reader["origin"] - m["host_out"]
            out["reader loads"] = r["script"] - reader["origin"]
            out["reader reads article"] = r["loaded"] - r["script"]
        out["reader renders"] = r["rendered"] - r["loaded"]
        out["to painted"] = reader["painted"] - r["rendered"]
        out["(after: the rest of the article added)"] = max(0.0, reader["ready"] - reader["painted"])
    return out


def wait(tab, expression: str, timeout: float = 30.0):
    """Poll `expression` in `tab` (a Tab, or a Playwright frame) until it is truthy; its value."""
    target = getattr(tab, "handle", tab)
    deadline = time.monotonic() + timeout
    while True:
        value = target.evaluate(expression)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited for {expression} in {tab.url}")
        time.sleep(0.01)


_RUNS = itertools.count()


def front(browser, tab) -> None:
    """`tab` in front, as the tab a user clicks in."""
    if browser.kind == "chromium":
        tab.handle.bring_to_front()
    else:
        browser.bidi.send("browsingContext.activate", {"context": tab.handle})


def watch(tab) -> None:
    """PAINT_WATCH in a loaded page (once): Chromium has it from the init script already, Firefox from here."""
    tab.evaluate("() => { if (window.__benchWatching) return; window.__benchWatching = true;" + PAINT_WATCH + "}")


# In the reader's frame: its first contentful paint (the frame shows nothing before the article's first screen),
# and when the whole article was in (data-ready). The driver's own stamp where it could add one (Chromium's init
# script), for comparison.
FRAME_PAINT = """() => { const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  const ready = document.documentElement.dataset.ready === 'true';
  return fcp && ready && {painted: performance.timeOrigin + fcp.startTime, watched: window.__benchPaintedAt ?? null,
                          ready: window.__benchReadyAt ?? performance.timeOrigin + performance.now()}; }"""


def frame_paint(browser, page, timeout: float = 30.0) -> dict:
    """FRAME_PAINT, polled in the reader's frame over `page` until it answers."""
    deadline = time.monotonic() + timeout
    while True:
        value = browser.frame_evaluate(page, READER_PAGE, FRAME_PAINT)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"no paint in the reader over {page.url}")
        time.sleep(0.01)


def spent(since: tuple[float, float]) -> tuple[float, float]:
    """The browser's and the host's CPU ms since `since` (`cpu_ms()` then)."""
    now = cpu_ms()
    return now[0] - since[0], now[1] - since[1]


def one_run(browser, page, tab_id: int, action: str) -> dict:
    """One action from the control page to the result painted (the reader: its whole article in), with the
    CPU it cost the browser and the host; the highlight is turned off again after."""
    front(browser, page)
    watch(page)
    page.evaluate(
        "() => { delete window.__benchMarkedAt; delete window.__benchPaintedAt; delete window.__benchReadyAt; }"
    )
    page.evaluate(RENEW_TEXTS, next(_RUNS))
    cpu = cpu_ms()
    run = browser.call(RUN, [tab_id, action])
    reader = None
    if action == "highlight":
        assert run["reply"]["highlighted"], run
        run["painted"] = wait(page, "() => window.__benchPaintedAt")
        cpu = spent(cpu)
        off = browser.call(RUN, [tab_id, action])
        assert not off["reply"]["highlighted"], off
    elif run["reply"]["reader"]:  # over the page: shown, then the whole article; turned off again after
        # In the reader's frame (reader/reader.html over the page), else in the page (an older tree's view).
        if browser.frames_of(page, READER_PAGE):
            run.update(frame_paint(browser, page))
        else:
            run["painted"] = wait(page, "() => window.__benchPaintedAt")
            run["ready"] = wait(page, "() => window.__benchReadyAt")
        cpu = spent(cpu)
        off = browser.send({"type": "pith.run", "action": action, "tabId": tab_id})
        assert off.get("closed"), off
    else:
        tab = browser.tab_by_id(run["reply"]["reader_tab"])
        reader = wait(tab, f"() => window.__benchPaintedAt && window.__benchReadyAt && ({READER_MARKS})()")
        run["painted"] = reader["painted"]
        cpu = spent(cpu)
        tab.close()
        front(browser, page)
    return {
        "total": run["painted"] - run["clicked"],
        "host": run["reply"]["timings"]["host"],
        "browser_cpu": cpu[0],
        "host_cpu": cpu[1],
        "phases": phases(action, run, reader),
    }


def summary(rounds: list[list[dict]]) -> dict:
    """Each round's first run and warm runs, pooled over the rounds."""
    firsts = [runs[0] for runs in rounds]
    warm = [run for runs in rounds for run in runs[1:]]
    keys = list(warm[0]["phases"])
    return {
        "first": statistics.median(r["total"] for r in firsts),
        "median": statistics.median(r["total"] for r in warm),
        "min": min(r["total"] for r in warm),
        "max": max(r["total"] for r in warm),
        "host": statistics.median(r["host"] for r in warm),
        "first_host": statistics.median(r["host"] for r in firsts),
        "browser_cpu": statistics.median(r["browser_cpu"] for r in warm),
        "host_cpu": statistics.median(r["host_cpu"] for r in warm),
        "phases": {k: statistics.median(r["phases"][k] for r in warm) for k in keys},
    }


def real_page(target: int) -> tuple[str, int, str]:
    """The WCXB dev page with about `target` elements, made offline (see the module docstring): its HTML,
    element count and id."""
    from export.data import iter_records
    from native_host import snapshot_from_html

    best = None
    for record in iter_records(["wcxb"], split="dev"):
        count = sum(n["tag"] != "#text" for n in snapshot_from_html(record["html"])["nodes"])
        if best is None or abs(count - target) < abs(best[1] - target):
            best = (record["html"], count, record["id"])
    html, count, page_id = best
    return OFFLINE + html, count, page_id


# Put in front of a real page: nothing loads from elsewhere and none of its scripts runs.
OFFLINE = (
    '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
    "style-src 'unsafe-inline'; img-src data:; font-src data:\">"
)


def host_rss_mb(root: Path) -> float | None:
    """The resident memory of the host that the browser under `root` started (its environment names
    root's log folder), in MB; None when none runs."""
    marker = f"PITH_LOG_DIR={root / 'logs'}".encode()
    for pid in (p for p in Path("/proc").iterdir() if p.name.isdigit()):
        try:
            if b"native_host" not in (pid / "cmdline").read_bytes() or marker not in (pid / "environ").read_bytes():
                continue
            for line in (pid / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            continue
    return None


def cold_click(
    kind: str, directory: Path, root: Path, pages: Path, name: str, pause: float, model_dir: str | None
) -> dict:
    """A fresh browser and profile, `name` opened and loaded, `pause` seconds, then the first click."""
    with extension_browser(kind, root, model_dir=model_dir, pages=pages, extension=directory) as b:
        page = b.open(f"{name}.html")
        tab_id = b.tab_id(page)
        watch(page)
        time.sleep(pause)
        rss = host_rss_mb(root)
        run = one_run(b, page, tab_id, "reader")
        return {
            "total": run["total"],
            "host": run["host"],
            "rss_before": rss,
            "rss_after": host_rss_mb(root),
            "version": b.version,
            "phases": run["phases"],
        }


def measure_tree(
    kind: str,
    directory: Path,
    root: Path,
    pages: Path,
    names: list[str],
    actions: list[str],
    repeats: int,
    model_dir: str | None,
    pause: float = 0.0,
) -> tuple[float, dict]:
    """One browser with the extension in `directory`: its first action (starting the host), then each page
    and action in a fresh tab, the first run and `repeats` more, each `pause` s after the last."""
    with extension_browser(kind, root, model_dir=model_dir, pages=pages, extension=directory) as b:
        if kind == "chromium":
            b.context.add_init_script(PAINT_WATCH)
        page = b.open("warm-up.html")
        start = one_run(b, page, b.tab_id(page), "reader")["total"]
        page.close()
        runs = {}
        for name in names:
            for action in actions:
                page = b.open(f"{name}.html")
                tab_id = b.tab_id(page)
                runs[name, action] = []
                for _ in range(repeats + 1):
                    time.sleep(pause)
                    runs[name, action].append(one_run(b, page, tab_id, action))
                page.close()
        return b.version, start, runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--browser", choices=KINDS, default="chromium")
    parser.add_argument(
        "--pages", nargs="+", help="default: article-1500 blog-5000 tables-4900 (--table: real-1500 real-4000)"
    )
    parser.add_argument("--actions", nargs="+", choices=["reader", "highlight"], default=["reader", "highlight"])
    parser.add_argument("--repeats", type=int, default=7, help="warm runs per page, action and round, after the first")
    parser.add_argument("--rounds", type=int, default=1, help="browser sessions per extension, alternating")
    parser.add_argument("--model-dir", help="the model the host serves (default: the shipped one)")
    parser.add_argument(
        "--extension",
        nargs="+",
        default=[f"this={EXTENSION}"],
        metavar="NAME=DIR",
        help="unpacked extensions to compare (default: this tree's extension/)",
    )
    parser.add_argument(
        "--cold",
        type=int,
        default=0,
        metavar="N",
        help="time the first click of N fresh browsers per page and extension instead (--table: 3)",
    )
    parser.add_argument(
        "--frame", type=int, default=0, metavar="N", help="time N reader frames alone (no host) per page instead"
    )
    parser.add_argument(
        "--memory", type=int, default=0, metavar="N", help="the browser's memory N times per page instead"
    )
    parser.add_argument(
        "--pause", type=float, default=1.0, help="seconds before each click (--cold: after the page loaded)"
    )
    parser.add_argument(
        "--table", action="store_true", help="cold and warm, both browsers, one table (docs/extension.md)"
    )
    args = parser.parse_args()
    if not args.pages:
        args.pages = ["real-1500", "real-4000"] if args.table else ["article-1500", "blog-5000", "tables-4900"]
    trees = {name: Path(directory).resolve() for name, directory in (item.split("=", 1) for item in args.extension)}
    starts: dict[str, list[float]] = {tree: [] for tree in trees}
    bytecode = compile_pith()
    runs: dict[tuple, list[list[dict]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        pages = root / "pages"
        pages.mkdir()
        counts = {}
        for name in args.pages:
            kind, size = name.rsplit("-", 1)
            if kind == "real":
                html, counts[name], page_id = real_page(int(size))
                print(f"{name}: {page_id}", file=sys.stderr)
            else:
                html, counts[name] = BUILDERS[kind](int(size))
            (pages / f"{name}.html").write_text(html)
        (pages / "warm-up.html").write_text(blog_with_elements(300)[0])
        if args.cold:
            cold(args, trees, root, pages, counts, bytecode)
            return
        if args.frame:
            frame(args, trees, root, pages, counts)
            return
        if args.memory:
            memory(args, trees, root, pages)
            return
        if args.table:
            table(args, trees, root, pages, counts)
            return
        for round_ in range(args.rounds):
            for tree, directory in trees.items():
                version, start, measured = measure_tree(
                    args.browser,
                    directory,
                    root / f"browser-{tree}-{round_}",
                    pages,
                    args.pages,
                    args.actions,
                    args.repeats,
                    args.model_dir,
                    args.pause,
                )
                starts[tree].append(start)
                for (name, action), r in measured.items():
                    runs.setdefault((name, action, tree), []).append(r)
                    print(
                        f"round {round_ + 1}, {tree}: {name} {action} "
                        f"{statistics.median(x['total'] for x in r[1:]):.0f} ms",
                        file=sys.stderr,
                    )
    rows = [
        (name, action, tree, summary(runs[name, action, tree]))
        for name in args.pages
        for action in args.actions
        for tree in trees
    ]
    print(
        f"{version}, headless; {args.rounds} browser session(s) per extension, in turn; in each, "
        f"{args.repeats} warm runs after the first per page and action; {bytecode}\n"
    )
    print(
        "First action of a session (host start and model load, reader view of a 300-element page), median: "
        + ", ".join(f"{tree} {statistics.median(ms):.0f} ms" for tree, ms in starts.items())
        + "\n"
    )
    print(
        "| page | elements | action | extension | first (ms) | median (ms) | min–max (ms) | host (ms) | "
        "outside the host (ms) | browser CPU (ms) | host CPU (ms) |"
    )
    print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, action, tree, s in rows:
        print(
            f"| {name} | {counts[name]:,} | {action} | {tree} | {s['first']:.0f} | **{s['median']:.0f}** | "
            f"{s['min']:.0f}–{s['max']:.0f} | {s['host']:.0f} | {s['median'] - s['host']:.0f} | "
            f"{s['browser_cpu']:.0f} | {s['host_cpu']:.0f} |"
        )
    for name, action, tree, s in rows:
        if s["phases"]:
            print(f"\n{name}, {action}, {tree}: median of each phase (ms)\n\n| phase | ms |\n|---|---:|")
            for phase, ms in s["phases"].items():
                print(f"| {phase} | {ms:.1f} |")
    print(
        json.dumps([{"page": n, "elements": counts[n], "action": a, "extension": t, **s} for n, a, t, s in rows]),
        file=sys.stderr,
    )


SHOW_TIMED = f"""async ([tabId, article]) => {{
  const clock = () => performance.timeOrigin + performance.now();
  const start = clock();
  const shown = await ({SHOW_ARTICLE})([tabId, article]);
  return {{start, shown: shown.shownAt}};
}}"""
CLOSE_READER = "async (tabId) => (await import('/background/page.js')).closeReader(tabId)"


def frame_only(kind: str, directory: Path, root: Path, pages: Path, names: list[str], n: int) -> dict[str, list]:
    """--frame: per page, `n` reader frames shown over it without the host; [{shown, painted}] in ms."""
    out: dict[str, list] = {}
    with extension_browser(kind, root, host="missing", pages=pages, extension=directory) as b:
        for name in names:
            article = reader_article((pages / f"{name}.html").read_text())
            page = b.open(f"{name}.html")
            tab_id = b.tab_id(page)
            out[name] = []
            for _ in range(n + 1):  # the first: the content scripts' first time in the page, left out
                front(b, page)
                t = b.call(SHOW_TIMED, [tab_id, article])
                painted = frame_paint(b, page)["painted"]
                out[name].append({"shown": t["shown"] - t["start"], "painted": painted - t["start"]})
                b.call(CLOSE_READER, tab_id)
            out[name] = out[name][1:]
            page.close()
    return out


TARGETS = {("first", "real-1500"): 250, ("warm", "real-1500"): 100, ("warm", "real-4000"): 200}


def table(args, trees: dict[str, Path], root: Path, pages: Path, counts: dict[str, int]) -> None:
    """--table: cold and warm Reader view, both browsers, the pages given; one table."""
    cold_runs: dict[tuple, list[float]] = {}
    warm_runs: dict[tuple, list[dict]] = {}
    versions: dict[str, str] = {}
    n = args.cold or 3
    for kind in KINDS:
        for i in range(n):
            for name in args.pages:
                for tree, directory in trees.items():
                    where = root / f"table-{kind}-cold-{tree}-{name}-{i}"
                    r = cold_click(kind, directory, where, pages, name, args.pause, args.model_dir)
                    versions[kind] = r["version"]
                    cold_runs.setdefault((kind, "first", name, tree), []).append(r)
                    print(f"{kind} cold {i + 1}, {tree}: {name} {r['total']:.0f} ms", file=sys.stderr)
        for round_ in range(args.rounds):
            for tree, directory in trees.items():
                where = root / f"table-{kind}-warm-{tree}-{round_}"
                _, _, measured = measure_tree(
                    kind, directory, where, pages, args.pages, ["reader"], args.repeats, args.model_dir, args.pause
                )
                for (name, _), r in measured.items():
                    warm_runs.setdefault((kind, "warm", name, tree), []).extend(r[1:])
                    print(
                        f"{kind} warm, {tree}: {name} {statistics.median(x['total'] for x in r[1:]):.0f} ms",
                        file=sys.stderr,
                    )
    print(f"`python3 -m bench.browser_speed {' '.join(sys.argv[1:])}`\n")
    print(
        f"Headless, the real host and model; {', '.join(versions.values())}. First: a browser just started, the "
        f"page loaded, {args.pause:g} s, then the click ({n} fresh browsers). Warm: {args.repeats} clicks per "
        f"page after its first, {args.pause:g} s apart, in one session"
        f"{f' ({args.rounds} sessions)' if args.rounds > 1 else ''}.\n"
    )
    # With several trees: each one's median against the first tree's, and the same outside the host (the
    # host's own time is the part that a busy machine stretches most, and the extension's changes leave alone).
    first = next(iter(trees))
    runs = {**cold_runs, **warm_runs}
    outside = {key: statistics.median(r["total"] - r["host"] for r in rs) for key, rs in runs.items()}
    median = {key: statistics.median(r["total"] for r in rs) for key, rs in runs.items()}
    print(
        "| browser | click | page | elements | extension | median (ms) | min–max (ms) | host (ms) | outside the host "
        f"(ms) | target (ms) |{f' ÷ {first} | ÷ {first}, outside the host |' if len(trees) > 1 else ''}"
    )
    print(f"|---|---|---|---:|---|---:|---:|---:|---:|---:|{'---:|---:|' if len(trees) > 1 else ''}")
    for (kind, click, name, tree), rs in runs.items():
        totals = [r["total"] for r in rs]
        target = TARGETS.get((click, name))
        base = (kind, click, name, first)
        ratios = f" {median[kind, click, name, tree] / median[base]:.2f} | {outside[kind, click, name, tree] / outside[base]:.2f} |"
        print(
            f"| {kind} | {click} | {name} | {counts[name]:,} | {tree} | **{median[kind, click, name, tree]:.0f}** | "
            f"{min(totals):.0f}–{max(totals):.0f} | {statistics.median(r['host'] for r in rs):.0f} | "
            f"{outside[kind, click, name, tree]:.0f} | {f'≤ {target}' if target else ''} |"
            f"{ratios if len(trees) > 1 else ''}"
        )


def frame(args, trees: dict[str, Path], root: Path, pages: Path, counts: dict[str, int]) -> None:
    """--frame: the reader's frame alone, per page and extension, the extensions' sessions in turn."""
    runs: dict[tuple[str, str], list] = {}
    for round_ in range(args.rounds):
        for tree, directory in trees.items():
            measured = frame_only(
                args.browser, directory, root / f"frame-{tree}-{round_}", pages, args.pages, args.frame
            )
            for name, r in measured.items():
                runs.setdefault((name, tree), []).extend(r)
                print(
                    f"round {round_ + 1}, {tree}: {name} {statistics.median(x['painted'] for x in r):.0f} ms",
                    file=sys.stderr,
                )
    print(
        f"{args.browser}, headless; the reader's frame alone (no host), {args.frame} runs per page, extension and "
        f"session, {args.rounds} session(s) per extension in turn\n"
    )
    print("| page | elements | extension | to shown (ms, median) | to painted (ms, median) | min–max (ms) |")
    print("|---|---:|---|---:|---:|---:|")
    for (name, tree), r in runs.items():
        painted = [x["painted"] for x in r]
        print(
            f"| {name} | {counts[name]:,} | {tree} | {statistics.median(x['shown'] for x in r):.0f} | "
            f"**{statistics.median(painted):.0f}** | {min(painted):.0f}–{max(painted):.0f} |"
        )


def started_processes() -> Iterator[tuple[str, bytes]]:
    """(pid, command line) of every process this one started, and theirs, from /proc."""
    todo = [Path("/proc/self").resolve().name]
    while todo:
        pid = todo.pop()
        try:
            children = [
                c for task in Path(f"/proc/{pid}/task").iterdir() for c in (task / "children").read_text().split()
            ]
        except OSError:
            continue
        for child in children:
            todo.append(child)
            try:
                yield child, Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                continue


def is_browser(command: bytes) -> bool:
    """A process of the browser's: not the host (python), the driver (node) or a shell."""
    program = command.split(b"\0")[0]
    return not any(name in program for name in (b"python", b"node", b"/sh"))


def browser_pss_mb() -> float:
    """The proportional memory of the browser's processes (`is_browser`), in MB."""
    total = 0
    for pid, command in started_processes():
        if not is_browser(command):
            continue
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_ms() -> tuple[float, float]:
    """CPU time (user and system) so far of the browser's processes and of the host's, in ms: what a click
    costs the machine, which a busy machine stretches far less than the wall clock."""
    browser = host = 0.0
    for pid, command in started_processes():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        used = (int(fields[11]) + int(fields[12])) * 1000 / TICKS
        if b"native_host" in command:
            host += used
        elif is_browser(command):
            browser += used
    return browser, host


MEMORY_STATES = ("page alone", "reader shown", "reader left")


def memory(args, trees: dict[str, Path], root: Path, pages: Path) -> None:
    """--memory: per extension and page, the browser's PSS before, during and after the reader, N times."""
    rows = []
    for tree, directory in trees.items():
        with extension_browser(
            args.browser, root / f"memory-{tree}", model_dir=args.model_dir, pages=pages, extension=directory
        ) as b:
            for name in args.pages:
                page = b.open(f"{name}.html")
                tab_id = b.tab_id(page)
                seen: dict[str, list[float]] = {state: [] for state in MEMORY_STATES}
                for _ in range(args.memory):
                    page.evaluate("() => location.reload()")  # no frame of an earlier turn over it
                    time.sleep(3)
                    seen["page alone"].append(browser_pss_mb())
                    assert b.send({"type": "pith.run", "action": "reader", "tabId": tab_id}).get("reader")
                    time.sleep(3)
                    seen["reader shown"].append(browser_pss_mb())
                    assert b.send({"type": "pith.run", "action": "reader", "tabId": tab_id}).get("closed")
                    time.sleep(3)
                    seen["reader left"].append(browser_pss_mb())
                page.close()
                medians = {state: statistics.median(v) for state, v in seen.items()}
                rows.append((name, tree, medians))
                print(f"{tree}: {name} {medians}", file=sys.stderr)
    print(f"`python3 -m bench.browser_speed {' '.join(sys.argv[1:])}`\n")
    print(f"{args.browser}, headless; the browser's PSS (MB), median of {args.memory} turns per page\n")
    print("| page | extension | page alone | reader shown | reader left | left − alone |")
    print("|---|---|---:|---:|---:|---:|")
    for name, tree, m in rows:
        print(
            f"| {name} | {tree} | {m['page alone']:.0f} | {m['reader shown']:.0f} | {m['reader left']:.0f} | "
            f"{m['reader left'] - m['page alone']:+.1f} |"
        )


def cold(args, trees: dict[str, Path], root: Path, pages: Path, counts: dict[str, int], bytecode: str) -> None:
    """--cold: per page and extension, the first click of `args.cold` fresh browsers, in turn."""
    results: dict[tuple[str, str], list[dict]] = {}
    version = "?"
    for i in range(args.cold):
        for name in args.pages:
            for tree, directory in trees.items():
                r = cold_click(
                    args.browser, directory, root / f"cold-{tree}-{name}-{i}", pages, name, args.pause, args.model_dir
                )
                version = r["version"]
                results.setdefault((name, tree), []).append(r)
                print(
                    f"cold {i + 1}, {tree}: {name} {r['total']:.0f} ms (host RSS before the click "
                    f"{r['rss_before'] or 0:.0f} MB)",
                    file=sys.stderr,
                )
    print(
        f"{version}, headless; first click of a browser just started, {args.cold} fresh browser(s) per page "
        f"and extension, in turn; the page loaded, then {args.pause:g} s, then Reader view; {bytecode}\n"
    )
    print(
        "| page | elements | extension | median (ms) | min–max (ms) | host (ms) | host RSS before the click (MB) | "
        "after (MB) |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for (name, tree), rs in results.items():
        totals = [r["total"] for r in rs]
        before = [r["rss_before"] for r in rs if r["rss_before"] is not None]
        after = [r["rss_after"] for r in rs if r["rss_after"] is not None]
        print(
            f"| {name} | {counts[name]:,} | {tree} | **{statistics.median(totals):.0f}** | {min(totals):.0f}–"
            f"{max(totals):.0f} | {statistics.median(r['host'] for r in rs):.0f} | "
            f"{statistics.median(before) if before else 0:.0f} | {statistics.median(after) if after else 0:.0f} |"
        )
    for (name, tree), rs in results.items():
        if all(r["phases"] for r in rs):
            print(f"\n{name}, {tree}: median of each phase of the first click (ms)\n\n| phase | ms |\n|---|---:|")
            for phase in rs[0]["phases"]:
                print(f"| {phase} | {statistics.median(r['phases'][phase] for r in rs):.1f} |")
    print(json.dumps([{"page": n, "extension": t, "runs": rs} for (n, t), rs in results.items()]), file=sys.stderr)


if __name__ == "__main__":
    main()
