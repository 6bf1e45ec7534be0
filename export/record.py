"""Record what the browser sees: each data page rendered in headless Chromium, snapshotted by the extension's
own content script, stored as a msgpack corpus (export/recordings.py) for training and measurement.

    python -m export.record --split dev                 # -> <cache dir>/snapshots-dev.msgpack
    python -m export.record --split train --out FILE

Pages are served from 127.0.0.1 and every other request is aborted, so nothing leaves the machine. One browser
runs for the whole corpus (the CPU is shared). A rerun skips ids already recorded; a page that fails to load or
snapshot within --timeout is logged and skipped.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from export import recordings
from harness.browsers import CHROMIUM_ORIGIN, chromium, serve
from native_host.pipeline.page_values import url_host
from native_host.progress import progress

from .data import iter_records

log = logging.getLogger("pith.record")


def _local_only(route) -> None:
    """Let 127.0.0.1 and the extension's own pages through; abort everything else (no outside fetch)."""
    url = route.request.url
    if url.startswith(("chrome-extension://", "data:", "blob:", "about:")) or url_host(url) == recordings.RECORDER_HOST:
        route.continue_()
    else:
        route.abort()


@contextlib.contextmanager
def browser(workdir: Path) -> Iterator[tuple[object, object]]:
    """Chromium with the unpacked extension in a fresh profile; yields (context, an extension page)."""
    env = {"XDG_CONFIG_HOME": str(workdir / "xdg-config"), "XDG_CACHE_HOME": str(workdir / "xdg-cache")}
    with chromium(workdir / "profile", env=env) as (context, _):
        context.route("**/*", _local_only)
        control = context.new_page()
        control.goto(f"{CHROMIUM_ORIGIN}/popup/popup.html")
        yield context, control


def snapshot_page(context, control, url: str, timeout_s: float) -> dict:
    """Load `url` in a new tab and take the live snapshot through the extension (its own content script)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page = context.new_page()
    loaded = True
    try:
        page.goto(url, wait_until="domcontentloaded", timeout=timeout_s * 1000)
        try:
            page.wait_for_load_state("load", timeout=timeout_s * 1000)
        except PlaywrightTimeout:
            loaded = False  # a subresource never settles; the DOM is there, as a user would see it
        tab = control.evaluate("(url) => chrome.tabs.query({url}).then((t) => (t.length ? t[0].id : null))", url)
        if tab is None:  # a redirect or a script sent the tab elsewhere: what it shows is not the page
            raise RuntimeError(f"the page left {url} (a redirect or a script navigated away); nothing to snapshot")
        reply = control.evaluate(
            """([tabId, ms]) => Promise.race([
                   chrome.runtime.sendMessage({type: 'pith.snapshot', tabId}),
                   new Promise((r) => setTimeout(() => r({ok: false, error: 'timed out'}), ms))])""",
            [tab, int(timeout_s * 1000)],
        )
        if not reply.get("ok"):
            raise RuntimeError(f"snapshot failed: {reply.get('error')}")
        return {"snapshot": reply["snapshot"], "ms": reply.get("ms"), "loaded": loaded}
    finally:
        page.close()


def record(
    out: Path,
    split: str | None,
    datasets: list[str] | None = None,
    limit: int | None = None,
    timeout_s: float = 30.0,
    records=None,
) -> dict:
    """Record every page of `split` (or the given `records`) into `out`; returns counts and timing."""
    todo = list(records if records is not None else iter_records(datasets=datasets, split=split, limit=limit))
    started = time.perf_counter()
    stats = {"recorded": 0, "skipped": 0, "failed": 0}
    with (
        recordings.Writer(out) as writer,
        tempfile.TemporaryDirectory(prefix="pith-record-") as tmp,
        serve() as server,
        browser(Path(tmp)) as (context, control),
    ):
        pending = [r for r in todo if r["id"] not in writer.done]
        stats["skipped"] = len(todo) - len(pending)
        for n, rec in enumerate(progress(pending, desc="recording")):
            server.pages.clear()
            url = server.put(f"page/{n}", rec["html"])
            try:
                got = snapshot_page(context, control, url, timeout_s)
            except Exception as error:  # noqa: BLE001 - any page may fail; log it and go on
                log.warning("page %s failed: %s", rec["id"], str(error).splitlines()[0] if str(error) else error)
                stats["failed"] += 1
                continue
            writer.add({"id": rec["id"], **got})
            stats["recorded"] += 1
    stats["seconds"] = round(time.perf_counter() - started, 1)
    stats["bytes"] = out.stat().st_size
    return stats


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--split", choices=("train", "dev", "all"), default="dev", help="all: every page of both splits in one corpus"
    )
    ap.add_argument("--out", type=Path, default=None, help="corpus file (default: the cache dir)")
    ap.add_argument("--datasets", default=None, help="comma-separated; default all")
    ap.add_argument("--limit", type=int, default=None, help="pages per dataset")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per page")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    out = args.out or recordings.default_path(args.split)
    split = None if args.split == "all" else args.split
    stats = record(out, split, args.datasets.split(",") if args.datasets else None, args.limit, args.timeout)
    print(f"{stats} -> {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
