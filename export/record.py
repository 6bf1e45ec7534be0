"""Record what the browser sees: each data page rendered in headless Chromium, snapshotted by the extension's
own content script, stored as a msgpack corpus (export/corpus.py) for training and measurement.

    python -m export.record --split dev                 # -> <cache dir>/snapshots-dev.msgpack
    python -m export.record --split train --out FILE

Pages are served from 127.0.0.1 and every other request is aborted, so nothing leaves the machine. One browser
runs for the whole corpus (the CPU is shared). A rerun skips ids already recorded; a page that fails to load or
snapshot within --timeout is logged and skipped.
"""

from __future__ import annotations

import argparse
import contextlib
import http.server
import logging
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Iterator
from urllib.parse import urlsplit

from export import corpus
from native_host.browser.identity import CHROMIUM_EXTENSION_ID
from native_host.cli.progress import progress

from .data import iter_records

ROOT = Path(__file__).resolve().parent.parent
EXTENSION = ROOT / "extension"
CHROMIUM = os.environ.get("PITH_CHROMIUM", "/usr/lib/chromium/chromium")
EXTENSION_ORIGIN = f"chrome-extension://{CHROMIUM_EXTENSION_ID}"
log = logging.getLogger("pith.record")


class _PageServer(http.server.ThreadingHTTPServer):
    """Serves the one page being recorded (bytes in memory) at /page/<n>; anything else is a 404."""

    pages: dict[str, bytes] = {}

    def handle_error(self, request, client_address) -> None:
        """A tab closed while a reply was being written (the next page is on its way) is normal here; the
        default handler printed a traceback on stderr for each, burying the progress bar."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        body = self.server.pages.get(self.path.split("?")[0])  # type: ignore[attr-defined]
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body or b"")))
        self.end_headers()
        self.wfile.write(body or b"")

    def log_message(self, *args) -> None:
        pass


@contextlib.contextmanager
def _serve() -> Iterator[tuple[_PageServer, str]]:
    server = _PageServer(("127.0.0.1", 0), _Handler)
    server.pages = {}
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _local_only(route) -> None:
    """Let 127.0.0.1 and the extension's own pages through; abort everything else (no outside fetch)."""
    url = route.request.url
    if url.startswith(("chrome-extension://", "data:", "blob:", "about:")) or urlsplit(url).hostname == "127.0.0.1":
        route.continue_()
    else:
        route.abort()


@contextlib.contextmanager
def browser(workdir: Path) -> Iterator[tuple[object, object]]:
    """Chromium with the unpacked extension in a fresh profile; yields (context, an extension page)."""
    from playwright.sync_api import sync_playwright

    env = {**os.environ, "XDG_CONFIG_HOME": str(workdir / "xdg-config"), "XDG_CACHE_HOME": str(workdir / "xdg-cache")}
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(workdir / "profile"), executable_path=CHROMIUM, headless=True, env=env,
            args=["--no-sandbox", f"--load-extension={EXTENSION}", f"--disable-extensions-except={EXTENSION}",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--no-first-run"])
        try:
            context.route("**/*", _local_only)
            if not context.service_workers:
                context.wait_for_event("serviceworker", timeout=30_000)
            control = context.new_page()
            control.goto(f"{EXTENSION_ORIGIN}/popup/popup.html")
            yield context, control
        finally:
            context.close()


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
            [tab, int(timeout_s * 1000)])
        if not reply.get("ok"):
            raise RuntimeError(f"snapshot failed: {reply.get('error')}")
        return {"snapshot": reply["snapshot"], "ms": reply.get("ms"), "loaded": loaded}
    finally:
        page.close()


def record(out: Path, split: str | None, datasets: list[str] | None = None, limit: int | None = None,
           timeout_s: float = 30.0, records=None) -> dict:
    """Record every page of `split` (or the given `records`) into `out`; returns counts and timing."""
    todo = list(records if records is not None else iter_records(datasets=datasets, split=split, limit=limit))
    started = time.perf_counter()
    stats = {"recorded": 0, "skipped": 0, "failed": 0}
    with corpus.Writer(out) as writer, tempfile.TemporaryDirectory(prefix="pith-record-") as tmp, \
            _serve() as (server, base), browser(Path(tmp)) as (context, control):
        pending = [r for r in todo if r["id"] not in writer.done]
        stats["skipped"] = len(todo) - len(pending)
        for n, rec in enumerate(progress(pending, desc="recording")):
            path = f"/page/{n}"
            server.pages.clear()
            server.pages[path] = rec["html"].encode("utf-8", "surrogatepass")
            try:
                got = snapshot_page(context, control, f"{base}{path}", timeout_s)
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
    ap.add_argument("--split", choices=("train", "dev", "all"), default="dev",
                    help="all: every page of both splits in one corpus")
    ap.add_argument("--out", type=Path, default=None, help="corpus file (default: the cache dir)")
    ap.add_argument("--datasets", default=None, help="comma-separated; default all")
    ap.add_argument("--limit", type=int, default=None, help="pages per dataset")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per page")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    out = args.out or corpus.default_path(args.split)
    split = None if args.split == "all" else args.split
    stats = record(out, split, args.datasets.split(",") if args.datasets else None, args.limit, args.timeout)
    print(f"{stats} -> {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
