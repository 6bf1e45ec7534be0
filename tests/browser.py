"""Driving the real extension in headless Debian Chromium: fixture pages on 127.0.0.1, a fresh profile with
the host registered by `pith install --user-data-dir` (or not at all), and the one `pith.run` message.

Everything starts and stops inside a `with`: the page server, the browser and the host it spawns.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import io
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from native_host.cli.main import main as pith_main
from native_host.browser.identity import CHROMIUM_EXTENSION_ID

ROOT = Path(__file__).resolve().parent.parent
EXTENSION = ROOT / "extension"
PAGES = Path(__file__).resolve().parent / "pages" / "extension"
CHROMIUM = "/usr/lib/chromium/chromium"
EXTENSION_ORIGIN = f"chrome-extension://{CHROMIUM_EXTENSION_ID}"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep test output readable
        pass


@contextlib.contextmanager
def serve(directory: Path = PAGES) -> Iterator[str]:
    """Serve `directory` on 127.0.0.1 (a free port); yields the base URL, ending in '/'."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def install_host(tmp_path: Path, profile: Path) -> None:
    """Register the host for this one Chromium profile, the way a user does (`pith install`)."""
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        status = pith_main(["install", "--user-data-dir", str(profile), "--home", str(tmp_path / "home"),
                            "--data-dir", str(tmp_path / "pith-data")])
    assert status == 0, f"pith install failed: {said.getvalue()}"


def register_launcher(profile: Path, launcher: Path) -> None:
    """Register an arbitrary program as the host (for a host that crashes or hangs)."""
    import json

    from native_host.browser.identity import HOST_NAME, chromium_origin

    directory = profile / "NativeMessagingHosts"
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{HOST_NAME}.json").write_text(json.dumps({
        "name": HOST_NAME, "description": "test host", "path": str(launcher), "type": "stdio",
        "allowed_origins": [chromium_origin()]}))


@dataclass
class Browser:
    """A running Chromium with the extension, and an extension page to send messages from."""

    context: object
    control: object  # an extension page (the popup, opened in a tab)
    base_url: str
    opened: int = 0

    def open(self, name: str):
        """A new tab showing the fixture page `name`, at an address no other tab has."""
        self.opened += 1
        page = self.context.new_page()
        page.goto(f"{self.base_url}{name}{'&' if '?' in name else '?'}tab={self.opened}")
        page.wait_for_load_state("load")
        return page

    def open_markup(self, path: str, body: str | bytes):
        """A new tab showing `body` as an HTML page at base_url + path (served by the browser's router). Text
        is sent as UTF-8 and says so; bytes go as they are, for the page's own <meta charset> or BOM to decide."""
        url = self.base_url + path
        kind = "text/html; charset=utf-8" if isinstance(body, str) else "text/html"
        self.context.route(url, lambda route: route.fulfill(body=body, content_type=kind))
        page = self.context.new_page()
        page.goto(url)
        return page

    def tab_id(self, url: str) -> int:
        tabs = self.control.evaluate("(url) => chrome.tabs.query({url}).then((t) => t.map((x) => x.id))", url)
        assert len(tabs) == 1, f"expected one tab at {url}, found {len(tabs)}"
        return tabs[0]

    def run(self, action: str, page) -> dict:
        """`pith.run` for the tab showing `page`, sent from an extension page, as the popup sends it."""
        tab = self.tab_id(page.url)
        return self.control.evaluate(
            "([action, tabId]) => chrome.runtime.sendMessage({type: 'pith.run', action, tabId})", [action, tab])

    def live_snapshot(self, page) -> dict:
        reply = self.control.evaluate(
            "(tabId) => chrome.runtime.sendMessage({type: 'pith.snapshot', tabId})", self.tab_id(page.url))
        assert reply["ok"], reply
        return reply

    def in_content_world(self, page, path: str):
        """A value (dotted path from globalThis, e.g. "__pithToast.last") in the extension's isolated world of
        `page`, where the content scripts live and the page's own scripts cannot look."""
        return self.control.evaluate(
            """([tabId, path]) => chrome.scripting.executeScript({target: {tabId}, args: [path],
                   func: (p) => p.split('.').reduce((o, k) => (o == null ? o : o[k]), globalThis)})
               .then((r) => r[0].result)""", [self.tab_id(page.url), path])


@contextlib.contextmanager
def extension_browser(tmp_path: Path, *, host: str = "installed", model_dir: str | None = None,
                      launcher: Path | None = None, downloads: Path | None = None,
                      pages: Path = PAGES) -> Iterator[Browser]:
    """Chromium with the Pith extension in a fresh profile under tmp_path.

    host: "installed" (pith install), "missing" (nothing registered) or "launcher" (register `launcher`)."""
    from playwright.sync_api import sync_playwright

    profile = tmp_path / "profile"
    profile.mkdir()
    if host == "installed":
        install_host(tmp_path, profile)
    elif host == "launcher":
        register_launcher(profile, launcher)
    if downloads is not None:
        import json

        (profile / "Default").mkdir()
        (profile / "Default" / "Preferences").write_text(json.dumps({
            "download": {"default_directory": str(downloads), "prompt_for_download": False}}))
    env = {**os.environ, "PITH_LOG_DIR": str(tmp_path / "logs"), "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
           "XDG_CACHE_HOME": str(tmp_path / "xdg-cache")}
    if model_dir:
        env["PITH_MODEL_DIR"] = model_dir
    with serve(pages) as base_url, sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, env=env, accept_downloads=True,
            args=["--no-sandbox", f"--load-extension={EXTENSION}", f"--disable-extensions-except={EXTENSION}",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--no-first-run"])
        try:
            worker = context.service_workers[0] if context.service_workers else \
                context.wait_for_event("serviceworker", timeout=30_000)
            assert worker.url.startswith(EXTENSION_ORIGIN + "/"), f"extension id is not the fixed one: {worker.url}"
            control = context.new_page()
            control.goto(f"{EXTENSION_ORIGIN}/popup/popup.html")
            if downloads is not None:
                # Playwright routes downloads to its own folder under random names; give them back to the
                # browser's normal handling (the profile's Preferences), so the file lands as a user's would.
                context.new_cdp_session(control).send("Browser.setDownloadBehavior", {"behavior": "default"})
            yield Browser(context, control, base_url)
        finally:
            context.close()
