"""Real browsers with the Pith extension, and the local server that feeds them pages: the one way recording
(export/record.py), the benchmarks, the screenshots and the browser tests start them.

    with extension_browser("firefox", workdir, host="installed") as b:
        tab = b.open("article.html")
        reply = b.run("reader", tab)

Two drivers behind one interface (`ExtensionBrowser`, `Tab`): Debian's Chromium through Playwright, and
Firefox ESR over WebDriver BiDi spoken directly on a websocket (geckodriver is not in Debian). Everything
starts and stops inside a `with`: the page server, the browser, a fresh profile under `workdir`, and the host
the browser spawns. Pages come only from 127.0.0.1.

JavaScript handed to `Tab.evaluate` is a function of one JSON argument; inside it `api` is the extension API
(`browser` in Firefox, `chrome` in Chromium). Values travel as JSON both ways, so both drivers answer alike.
"""

from __future__ import annotations

import contextlib
import dataclasses
import http.server
import io
import itertools
import json
import os
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from native_host.browser.identity import CHROMIUM_EXTENSION_ID, FIREFOX_EXTENSION_ID, HOST_NAME

ROOT = Path(__file__).resolve().parent.parent
EXTENSION = ROOT / "extension"
CHROMIUM = os.environ.get("PITH_CHROMIUM", "/usr/lib/chromium/chromium")
FIREFOX = os.environ.get("PITH_FIREFOX", "/usr/bin/firefox-esr")
KINDS = ("chromium", "firefox")
CHROMIUM_ORIGIN = f"chrome-extension://{CHROMIUM_EXTENSION_ID}"
# Firefox gives each install a random internal UUID (its moz-extension:// host); a profile preference fixes it,
# so the extension's pages have a known address.
FIREFOX_UUID = "5f1d3c1e-6a0b-4b7e-9c43-7d2f0e8a9b11"
FIREFOX_ORIGIN = f"moz-extension://{FIREFOX_UUID}"
START_TIMEOUT_S = 30.0
WAIT_TIMEOUT_S = 60.0
_API = "const api = globalThis.browser ?? globalThis.chrome;"


# ---------------------------------------------------------------------------------------------------------------
# Pages on 127.0.0.1


class PageServer(http.server.ThreadingHTTPServer):
    """Serves in-memory pages (`pages`: path -> bytes, e.g. a page being recorded or written by a test) and,
    below them, the files of `directory`; anything else is a 404."""

    daemon_threads = True

    def __init__(self, directory: Path | None):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.directory = Path(directory) if directory else None
        self.pages: dict[str, tuple[bytes, str]] = {}
        self.base_url = f"http://127.0.0.1:{self.server_address[1]}/"

    def put(self, path: str, body: str | bytes, content_type: str | None = None) -> str:
        """Serve `body` at /path; returns its URL. Text goes as UTF-8 and says so; bytes go as they are, for the
        page's own <meta charset> or BOM to decide."""
        path = "/" + path.lstrip("/")
        if content_type is None:
            content_type = "text/html; charset=utf-8" if isinstance(body, str) else "text/html"
        data = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
        self.pages[path] = (data, content_type)
        return self.base_url.rstrip("/") + path

    def handle_error(self, request, client_address) -> None:
        """A tab closed while a reply was being written is normal here; the default printed a traceback."""
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css",
    ".js": "text/javascript",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".svg": "image/svg+xml",
    ".json": "application/json",
}


class _Handler(http.server.BaseHTTPRequestHandler):
    server: PageServer

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        path = unquote(urlsplit(self.path).path)
        found = self.server.pages.get(path)
        if found is None and self.server.directory is not None:
            file = (self.server.directory / path.lstrip("/")).resolve()
            if file.is_relative_to(self.server.directory.resolve()) and file.is_file():
                found = (file.read_bytes(), _TYPES.get(file.suffix, "application/octet-stream"))
        body, kind = found if found is not None else (b"not found", "text/plain")
        self.send_response(200 if found is not None else 404)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:  # keep test and progress output readable
        pass


@contextlib.contextmanager
def serve(directory: Path | None = None) -> Iterator[PageServer]:
    """A PageServer on a free port of 127.0.0.1, stopped on exit."""
    server = PageServer(directory)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


# ---------------------------------------------------------------------------------------------------------------
# The user's preferences that pages read as media features


@dataclasses.dataclass(frozen=True)
class Media:
    """`prefers-color-scheme` ("light" or "dark") and `prefers-reduced-motion` ("reduce" or "no-preference"),
    as a user's system would set them: Playwright's emulation in Chromium, the profile's prefs in Firefox."""

    color_scheme: str = "light"
    reduced_motion: str = "no-preference"

    def firefox_prefs(self) -> dict:
        return {
            "layout.css.prefers-color-scheme.content-override": 0 if self.color_scheme == "dark" else 1,
            "ui.prefersReducedMotion": 1 if self.reduced_motion == "reduce" else 0,
        }


# ---------------------------------------------------------------------------------------------------------------
# Chromium, through Playwright

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@contextlib.contextmanager
def chromium(
    profile: Path,
    extension: Path = EXTENSION,
    env: dict | None = None,
    downloads: Path | None = None,
    media: Media | None = None,
) -> Iterator[tuple[Any, Any]]:
    """Headless Chromium with the unpacked `extension` in the profile directory `profile`; yields (Playwright
    context, the extension's service worker). `downloads`: where saved files land, as a user's would; `media`:
    the user's preferences every page sees (its frames included)."""
    from playwright.sync_api import sync_playwright

    profile.mkdir(parents=True, exist_ok=True)
    if downloads is not None:
        (profile / "Default").mkdir(exist_ok=True)
        (profile / "Default" / "Preferences").write_text(
            json.dumps({"download": {"default_directory": str(downloads), "prompt_for_download": False}})
        )
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            headless=True,
            env={**os.environ, **(env or {})},
            accept_downloads=True,
            color_scheme=(media or Media()).color_scheme,
            reduced_motion=(media or Media()).reduced_motion,
            args=[*CHROMIUM_ARGS, f"--load-extension={extension}", f"--disable-extensions-except={extension}"],
        )
        try:
            worker = (
                context.service_workers[0]
                if context.service_workers
                else context.wait_for_event("serviceworker", timeout=START_TIMEOUT_S * 1000)
            )
            yield context, worker
        finally:
            context.close()


# ---------------------------------------------------------------------------------------------------------------
# Firefox, over WebDriver BiDi


class BiDiError(RuntimeError):
    """A BiDi command answered with an error, or a script threw."""


class BiDi:
    """The smallest WebDriver BiDi client that drives the extension: commands paired with their replies by
    id, events kept for whoever asks. One thread reads the socket; callers block on their own reply."""

    def __init__(self, url: str):
        from websockets.sync.client import connect

        self.closing = contextlib.ExitStack()
        self.socket = self.closing.enter_context(connect(url, max_size=None, open_timeout=START_TIMEOUT_S))
        self.ids = itertools.count(1)
        self.waiting: dict[int, queue.Queue] = {}
        self.lock = threading.Lock()
        self.listeners: list[Callable[[dict], None]] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        try:
            for text in self.socket:
                message = json.loads(text)
                if "id" in message and message["id"] is not None:
                    with self.lock:
                        box = self.waiting.pop(message["id"], None)
                    if box is not None:
                        box.put(message)
                elif message.get("type") == "event":
                    for listen in list(self.listeners):
                        listen(message)
        except Exception:  # noqa: BLE001 - the socket closed (the browser ended): wake every waiter
            pass
        with self.lock:
            boxes, self.waiting = list(self.waiting.values()), {}
        for box in boxes:
            box.put({"type": "error", "error": "closed", "message": "the browser closed the connection"})

    def send(self, method: str, params: dict | None = None, timeout: float = WAIT_TIMEOUT_S) -> dict:
        command_id = next(self.ids)
        box: queue.Queue = queue.Queue()
        with self.lock:
            self.waiting[command_id] = box
        self.socket.send(json.dumps({"id": command_id, "method": method, "params": params or {}}))
        try:
            reply = box.get(timeout=timeout)
        except queue.Empty:
            raise BiDiError(f"{method}: no answer within {timeout:.0f} s") from None
        if reply.get("type") == "error":
            raise BiDiError(f"{method}: {reply.get('error')}: {reply.get('message')}")
        return reply["result"]

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.closing.close()


def firefox_prefs(downloads: Path | None, media: Media | None = None) -> dict:
    """The profile's preferences: the extension's fixed internal UUID, downloads without a dialog, and the
    user's `media` preferences where given."""
    prefs: dict[str, Any] = {
        "extensions.webextensions.uuids": json.dumps({FIREFOX_EXTENSION_ID: FIREFOX_UUID}),
        "browser.shell.checkDefaultBrowser": False,
        "app.update.auto": False,
        "extensions.update.enabled": False,
        "browser.aboutwelcome.enabled": False,
    }
    if media is not None:
        prefs.update(media.firefox_prefs())
    if downloads is not None:
        prefs.update(
            {
                "browser.download.folderList": 2,
                "browser.download.dir": str(downloads),
                "browser.download.useDownloadDir": True,
                "browser.download.always_ask_before_handling_new_types": False,
                "browser.download.alwaysOpenPanel": False,
            }
        )
    return prefs


@contextlib.contextmanager
def firefox(
    workdir: Path,
    extension: Path = EXTENSION,
    env: dict | None = None,
    downloads: Path | None = None,
    media: Media | None = None,
) -> Iterator[BiDi]:
    """Headless Firefox with `extension` installed as a temporary add-on, in a fresh profile under `workdir`;
    HOME is `workdir/home` (where Firefox looks for host manifests). Yields a BiDi session."""
    profile = workdir / "firefox-profile"
    profile.mkdir(parents=True)
    (workdir / "home").mkdir(exist_ok=True)
    (profile / "user.js").write_text(
        "".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in firefox_prefs(downloads, media).items())
    )
    log = open(workdir / "firefox.log", "wb")
    process = subprocess.Popen(
        [
            FIREFOX,
            "-headless",
            "-no-remote",
            "-profile",
            str(profile),
            "--remote-debugging-port",
            "0",
            "-remote-allow-system-access",
        ],
        env={**os.environ, "HOME": str(workdir / "home"), "MOZ_CRASHREPORTER_DISABLE": "1", **(env or {})},
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    bidi = None
    try:
        server = profile / "WebDriverBiDiServer.json"  # Firefox writes the port it chose here
        deadline = time.monotonic() + START_TIMEOUT_S
        while not server.is_file() or not server.read_text().strip():
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"Firefox did not start its WebDriver BiDi server; see {workdir / 'firefox.log'}")
            time.sleep(0.1)
        port = json.loads(server.read_text())["ws_port"]
        bidi = BiDi(f"ws://127.0.0.1:{port}/session")
        bidi.send("session.new", {"capabilities": {}})
        kind = "archivePath" if extension.is_file() else "path"  # a packaged .xpi, or an unpacked folder
        bidi.send("webExtension.install", {"extensionData": {"type": kind, "path": str(extension)}})
        yield bidi
    finally:
        if bidi is not None:
            with contextlib.suppress(Exception):
                bidi.send("browser.close", timeout=10)
            bidi.close()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


# ---------------------------------------------------------------------------------------------------------------
# One interface over both

# For wait_for: what a polled function gave, an element counting as true (it cannot cross to the driver).
_AS_VALUE = "v && typeof v === 'object' && typeof v.nodeType === 'number' ? true : v"
# For a real click: the middle of an element's box, in viewport pixels.
_CENTER = """(el) => { const r = el.getBoundingClientRect();
    return [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)]; }"""


def poll(probe: Callable[[], Any], timeout: float, what: str) -> Any:
    """Call `probe` until it gives something truthy; that value. TimeoutError, naming `what`, after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout:.0f} s for {what}")
        time.sleep(0.05)


class Tab:
    """One browser tab: a page, or one of the extension's own pages."""

    def __init__(self, browser: ExtensionBrowser, handle: Any):
        self.browser = browser
        self.handle = handle  # Playwright Page, or a BiDi browsing context id

    @property
    def url(self) -> str:
        return self.browser._url(self)

    def evaluate(self, function: str, arg: Any = None) -> Any:
        """Run `function` (JavaScript, one JSON argument; `api` is the extension API) in the tab; its value."""
        return self.browser._evaluate(self, function, arg)

    def text(self, selector: str) -> str:
        return self.evaluate("(s) => document.querySelector(s).innerText", selector)

    def click(self, selector: str) -> None:
        """The element's activation (a link is followed, a button pressed), as from a click."""
        self.evaluate("(s) => { document.querySelector(s).click(); }", selector)

    def user_click(self, selector: str) -> None:
        """A real pointer click, delivered by the browser (user activation: what the clipboard asks for)."""
        self.browser._user_click(self, selector)

    def click_at(self, x: int, y: int) -> None:
        """A real pointer click at (x, y) of the viewport, delivered by the browser."""
        self.browser._click_at(self, x, y)

    def press(self, key: str) -> None:
        """A real key press ("Escape", "Enter") delivered by the browser to the focused page."""
        self.browser._press(self, key)

    def wait_for(self, function: str, arg: Any = None, timeout: float = WAIT_TIMEOUT_S) -> Any:
        """Poll `function` until it returns something truthy (an element counts as true); returns that."""
        found = f"async (arg) => {{ const v = await ({function})(arg); return {_AS_VALUE}; }}"
        return poll(lambda: self.evaluate(found, arg), timeout, f"{function} in {self.url}")

    def errors(self) -> list[str]:
        """Uncaught script errors in this tab since it opened."""
        return self.browser._errors(self)

    def screenshot(self, path: Path) -> None:
        self.browser._screenshot(self, path)

    def resize(self, width: int, height: int) -> None:
        self.browser._resize(self, width, height)

    def close(self) -> None:
        self.browser._close(self)


# From an extension page: the reader view of `article` over tab `tabId`, shown the way the background shows
# one (background/page.js), without asking the host.
SHOW_ARTICLE = """async ([tabId, article]) => {
  const { injectContentScripts, prepareReader, showReader } = await import('/background/page.js');
  await injectContentScripts(tabId);
  return showReader(tabId, article, await prepareReader(tabId));
}"""


class FrameMissing(LookupError):
    """The tab shows no frame of that extension page (none laid over it, or taken off)."""


READER_PAGE = "reader/reader.html"
NOTE_PAGE = "note/note.html"


class ReaderView:
    """The reader view over `page`, reached where it lives: the extension's page reader/reader.html in the frame
    the content script lays over the page (another origin: the page's own scripts cannot look in)."""

    def __init__(self, b: ExtensionBrowser, page: Tab):
        self.b, self.page = b, page

    def evaluate(self, function: str, arg: Any = None) -> Any:
        """Run `function(root, arg)` (JavaScript; `root` the reader frame's document, `api` the extension API) in
        the reader's frame; its value. FrameMissing when the page shows no reader."""
        return self.b.frame_evaluate(self.page, READER_PAGE, f"(arg) => ({function})(document, arg)", arg)

    def wait_for(self, function: str, arg: Any = None, timeout: float = WAIT_TIMEOUT_S) -> Any:
        """Poll `function(root, arg)` until it returns something truthy (an element counts as true); returns that."""
        found = f"async (root, arg) => {{ const v = await ({function})(root, arg); return {_AS_VALUE}; }}"

        def probe():
            try:
                return self.evaluate(found, arg)
            except FrameMissing:
                return None

        try:
            return poll(probe, timeout, f"{function} in the reader over {self.page.url}")
        except TimeoutError as error:
            raise TimeoutError(f"{error}; {self.describe()}") from None

    def text(self, selector: str) -> str:
        return self.evaluate("(root, s) => root.querySelector(s).innerText", selector)

    def screenshot(self, path: Path) -> None:
        self.page.screenshot(path)

    def click(self, selector: str) -> None:
        """The element's activation, as from a script's click (not trusted: see `user_click`)."""
        self.evaluate("(root, s) => { root.querySelector(s).click(); }", selector)

    def user_click(self, selector: str) -> None:
        """A real pointer click at the element, delivered by the browser (the frame covers the viewport from its
        corner, so its coordinates are the page's)."""
        x, y = self.evaluate(f"(root, s) => ({_CENTER})(root.querySelector(s))", selector)
        self.page.click_at(x, y)

    def press(self, key: str) -> None:
        self.page.press(key)

    def shown(self) -> bool:
        """Whether a reader frame over the page shows an article: one that answers (Playwright may list a frame
        taken off the page a while longer) and has shown one (the spare frame laid for the next click has not)."""
        try:
            return self.evaluate("(root) => root.documentElement.dataset.shown === 'true'") is True
        except Exception:  # noqa: BLE001 - none, or one the driver still lists but that is gone
            return False

    def wait_closed(self) -> None:
        try:
            poll(lambda: not self.shown(), WAIT_TIMEOUT_S, f"the reader over {self.page.url} to close")
        except TimeoutError as error:
            raise TimeoutError(f"{error}; {self.describe()}") from None

    def describe(self) -> str:
        """What a failed wait saw: Pith's frames over the page (inert: a spare) and each frame the driver lists,
        with the state of the reader pages (shown, ready, the view built and hidden, the test's `window.mark`)."""
        state = (
            "() => ({shown: document.documentElement.dataset.shown ?? null, ready: document.documentElement.dataset.ready"
            " ?? null, view: document.querySelector('.view') ? (document.querySelector('.view').hidden ? 'hidden'"
            " : 'shown') : null, mark: window.mark ?? null})"
        )
        try:
            hosts = self.page.evaluate(
                "() => [...document.documentElement.children].filter((e) => e.matches('[popover]'))"
                ".map((e) => (e.inert ? 'inert' : 'live'))"
            )
        except Exception as error:  # noqa: BLE001 - a description, not a check
            hosts = f"unreadable ({error})"
        frames = []
        for frame, url in self.b._frames(self.page):
            if url.startswith(f"{self.b.origin}/{READER_PAGE}"):
                try:
                    url = f"{url} {self.b._evaluate_in(frame, state, None)}"
                except Exception as error:  # noqa: BLE001
                    url = f"{url} (gone: {str(error)[:80]})"
            frames.append(url)
        return f"Pith's frames over the page: {hosts}; frames listed: {frames or 'none'}"

    def wait_ready(self) -> ReaderView:
        """Wait until the whole article is in the view (`data-ready` on the frame's root)."""
        self.wait_for("(root) => root.documentElement.dataset.ready === 'true'")
        return self

    def settle_images(self) -> None:
        """Wait until every image of the view has loaded or failed (lazy ones made eager, so none waits for a
        scroll): an error handler, were one left, has run by then. A condition, not a sleep."""
        self.wait_for(
            "(root) => [...root.querySelectorAll('img')].every((img) => { img.loading = 'eager';"
            " return img.complete; })"
        )


def shown_note(b: ExtensionBrowser, page: Tab, state: str | None = None, timeout: float = WAIT_TIMEOUT_S) -> dict:
    """The note over `page` once it shows one (in `state`, when given): {state, title, text, fix, height}, each
    part null where the note has none."""
    read = """() => { const part = (c) => { const e = document.querySelector(`.note .${c}`); return e ? e.textContent : null; };
        const note = document.querySelector('.note');
        return note && {state: document.documentElement.dataset.state, title: part('title'), text: part('text'),
                        fix: part('fix'), height: note.getBoundingClientRect().height}; }"""

    def probe():
        try:
            note = b.frame_evaluate(page, NOTE_PAGE, read)
            return note if note and state in (None, note["state"]) else None
        except FrameMissing:
            return None

    return poll(probe, timeout, f"a note over {page.url}")


class ExtensionBrowser:
    """A running browser with the Pith extension, the page server, and an extension page (`control`) to send
    the extension's messages from, as the popup does."""

    kind: str
    origin: str  # the extension's own pages: chrome-extension://ID or moz-extension://UUID
    version: str

    def __init__(self, server: PageServer, downloads: Path | None):
        self.server = server
        self.base_url = server.base_url
        self.downloads = downloads
        self.opened = itertools.count(1)
        self.control: Tab = None  # type: ignore[assignment]

    # -- what tests and tools use
    def open(self, name: str) -> Tab:
        """A new tab showing the served page `name`, at an address no other tab has."""
        return self.open_url(f"{self.base_url}{name}{'&' if '?' in name else '?'}tab={next(self.opened)}")

    def open_markup(self, path: str, body: str | bytes) -> Tab:
        """A new tab showing `body` as an HTML page at base_url + path."""
        return self.open_url(self.server.put(path, body))

    def open_extension_page(self, path: str) -> Tab:
        return self.open_url(f"{self.origin}/{path}")

    def call(self, function: str, arg: Any = None) -> Any:
        """`function` evaluated in the extension's control page."""
        return self.control.evaluate(function, arg)

    def tab_id(self, tab: Tab) -> int:
        # Firefox's tabs.query({url}) matches nothing for a pattern with a port: filter here instead.
        url = tab.url
        ids = self.call("(url) => api.tabs.query({}).then((t) => t.filter((x) => x.url === url).map((x) => x.id))", url)
        assert len(ids) == 1, f"expected one tab at {url}, found {len(ids)}"
        return ids[0]

    def run(self, action: str, tab: Tab) -> dict:
        """`pith.run` for `tab`, sent from an extension page as the popup sends it."""
        return self.send({"type": "pith.run", "action": action, "tabId": self.tab_id(tab)})

    def send(self, message: dict) -> Any:
        """runtime.sendMessage from the control page. A background that is still starting (Firefox's event
        page after install) has no listener yet: retried briefly."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                return self.call("(m) => api.runtime.sendMessage(m)", message)
            except Exception as error:  # noqa: BLE001
                if "Receiving end does not exist" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def live_snapshot(self, tab: Tab) -> dict:
        reply = self.send({"type": "pith.snapshot", "tabId": self.tab_id(tab)})
        assert reply["ok"], reply
        return reply

    def in_content_world(self, tab: Tab, path: str) -> Any:
        """A value (dotted path from globalThis, e.g. "__pithToast.last") in the extension's isolated world of
        `tab`, where the content scripts live and the page's own scripts cannot look."""
        return self.call(
            """([tabId, path]) => api.scripting.executeScript({target: {tabId}, args: [path],
                   func: (p) => p.split('.').reduce((o, k) => (o == null ? o : o[k]), globalThis)})
               .then((r) => r[0].result)""",
            [self.tab_id(tab), path],
        )

    def tab_by_id(self, tab_id: int, timeout: float = WAIT_TIMEOUT_S) -> Tab:
        """The driver's handle on the tab the extension knows as `tab_id` (one it opened itself)."""
        deadline = time.monotonic() + timeout
        while True:  # a tab just created may not have its address yet
            url = self.call("(id) => api.tabs.get(id).then((t) => t.url || t.pendingUrl || null)", tab_id)
            found = [t for t in self.tabs() if url and url != "about:blank" and t.url == url]
            if found:
                return found[0]
            if time.monotonic() > deadline:
                raise TimeoutError(f"no tab at {url} (tab {tab_id})")
            time.sleep(0.05)

    def open_unlisted(self, url: str) -> tuple[Tab, int]:
        """Open `url` (a browser page whose address the extension may not see) and find its tab id: the one
        that was not there before."""
        ids = "() => api.tabs.query({}).then((t) => t.map((x) => x.id))"
        before = set(self.call(ids))
        tab = self.open_url(url)
        new = set(self.call(ids)) - before
        assert len(new) == 1, f"expected one new tab, found {new}"
        return tab, new.pop()

    def tab_exists(self, tab_id: int) -> bool:
        return self.call("(id) => api.tabs.get(id).then(() => true, () => false)", tab_id)

    def frames_of(self, tab: Tab, path: str) -> list:
        """The frames in `tab` showing the extension's page `path`, in document order (driver handles)."""
        prefix = f"{self.origin}/{path}"
        return [frame for frame, url in self._frames(tab) if url.startswith(prefix)]

    def frame_evaluate(self, tab: Tab, path: str, function: str, arg: Any = None) -> Any:
        """`function` run in the last frame of `tab` that shows the extension's page `path`."""
        frames = self.frames_of(tab, path)
        if not frames:
            raise FrameMissing(f"no {path} frame in {tab.url}")
        return self._evaluate_in(frames[-1], function, arg)

    # -- what each driver provides
    def _frames(self, tab: Tab) -> list[tuple[Any, str]]:
        raise NotImplementedError

    def _evaluate_in(self, frame: Any, function: str, arg: Any) -> Any:
        raise NotImplementedError

    def open_url(self, url: str) -> Tab:
        raise NotImplementedError

    def tabs(self) -> list[Tab]:
        raise NotImplementedError

    def _url(self, tab: Tab) -> str:
        raise NotImplementedError

    def _evaluate(self, tab: Tab, function: str, arg: Any) -> Any:
        raise NotImplementedError

    def _press(self, tab: Tab, key: str) -> None:
        raise NotImplementedError

    def _user_click(self, tab: Tab, selector: str) -> None:
        x, y = tab.evaluate(f"(s) => ({_CENTER})(document.querySelector(s))", selector)
        self._click_at(tab, x, y)

    def _click_at(self, tab: Tab, x: int, y: int) -> None:
        raise NotImplementedError

    def _errors(self, tab: Tab) -> list[str]:
        raise NotImplementedError

    def _screenshot(self, tab: Tab, path: Path) -> None:
        raise NotImplementedError

    def _resize(self, tab: Tab, width: int, height: int) -> None:
        raise NotImplementedError

    def _close(self, tab: Tab) -> None:
        raise NotImplementedError


class ChromiumBrowser(ExtensionBrowser):
    kind = "chromium"
    origin = CHROMIUM_ORIGIN

    def __init__(self, server: PageServer, downloads: Path | None, context: Any, worker: Any):
        super().__init__(server, downloads)
        self.context = context
        self.worker = worker
        self.version = context.browser.version if context.browser else "?"
        self.page_errors: dict[int, list[str]] = {}
        self.known: dict[int, Tab] = {}
        context.on("page", self._watch)
        for page in context.pages:
            self._watch(page)
        self.control = self.open_extension_page("popup/popup.html")

    def _watch(self, page) -> None:
        errors = self.page_errors.setdefault(id(page), [])
        page.on("pageerror", lambda e: errors.append(str(e)))

    def _tab(self, page) -> Tab:
        if id(page) not in self.known:
            self.known[id(page)] = Tab(self, page)
        return self.known[id(page)]

    def open_url(self, url: str) -> Tab:
        page = self.context.new_page()
        page.goto(url)
        page.wait_for_load_state("load")
        return self._tab(page)

    def tabs(self) -> list[Tab]:
        return [self._tab(p) for p in self.context.pages]

    def _url(self, tab: Tab) -> str:
        return tab.handle.url

    def _evaluate(self, tab: Tab, function: str, arg: Any) -> Any:
        return self._evaluate_in(tab.handle, function, arg)

    def _frames(self, tab: Tab) -> list[tuple[Any, str]]:
        # Playwright's sync client reads the driver's events only while a call is in flight: `page.frames` is the
        # tree as of the last call. A frame laid after it (the spare reader frame, laid once `pith.run` has
        # answered) stays unlisted while `poll` sleeps between probes that make no call. One round trip first.
        tab.handle.wait_for_timeout(0)
        return [
            (frame, frame.url or self._address(frame)) for frame in tab.handle.frames if frame.parent_frame is not None
        ]

    @staticmethod
    def _address(frame: Any) -> str:
        """The address of a frame Playwright lists without one (an out-of-process frame whose navigation it
        missed), asked of the frame itself; "" when it cannot answer."""
        from playwright.sync_api import Error as PlaywrightError

        try:
            return frame.evaluate("() => location.href")
        except PlaywrightError:
            return ""

    def _evaluate_in(self, frame: Any, function: str, arg: Any) -> Any:
        from playwright.sync_api import Error as PlaywrightError

        try:
            return frame.evaluate(f"async (arg) => {{ {_API} return await ({function})(arg); }}", arg)
        except PlaywrightError as error:
            if frame.is_detached():  # taken off between being listed and asked (a reader closed, a spare laid)
                raise FrameMissing(str(error)) from None
            raise

    def _press(self, tab: Tab, key: str) -> None:
        from playwright.sync_api import Error as PlaywrightError

        tab.handle.bring_to_front()
        try:
            tab.handle.keyboard.press(key)
        except PlaywrightError:
            if not tab.handle.is_closed():  # a key may close its own tab (Esc in the reader): that is no error
                raise

    def _click_at(self, tab: Tab, x: int, y: int) -> None:
        tab.handle.bring_to_front()
        tab.handle.mouse.click(x, y)

    def _errors(self, tab: Tab) -> list[str]:
        return list(self.page_errors.get(id(tab.handle), []))

    def _screenshot(self, tab: Tab, path: Path) -> None:
        tab.handle.screenshot(path=str(path))

    def _resize(self, tab: Tab, width: int, height: int) -> None:
        tab.handle.set_viewport_size({"width": width, "height": height})

    def _close(self, tab: Tab) -> None:
        tab.handle.close()


# WebDriver's codes for the keys tests press (the WebDriver specification's key table).
_KEYS = {
    "Escape": "\ue00c",
    "Enter": "\ue007",
    "Tab": "\ue004",
    "PageDown": "\ue00f",
    "Space": " ",
    "ArrowDown": "\ue015",
    "ArrowRight": "\ue014",
}


class FirefoxBrowser(ExtensionBrowser):
    kind = "firefox"
    origin = FIREFOX_ORIGIN

    def __init__(self, server: PageServer, downloads: Path | None, bidi: BiDi):
        super().__init__(server, downloads)
        self.bidi = bidi
        self.script_errors: dict[str, list[str]] = {}
        bidi.listeners.append(self._event)
        bidi.send("session.subscribe", {"events": ["log.entryAdded"]})
        self.version = self._version()
        self.control = self.open_extension_page("popup/popup.html")

    def _version(self) -> str:
        return subprocess.run([FIREFOX, "--version"], capture_output=True, text=True).stdout.strip()

    def _event(self, message: dict) -> None:
        if message.get("method") != "log.entryAdded":
            return
        entry = message["params"]
        if entry.get("type") == "javascript" and entry.get("level") == "error":
            context = (entry.get("source") or {}).get("context")
            self.script_errors.setdefault(context, []).append(entry.get("text", ""))

    def open_url(self, url: str) -> Tab:
        context = self.bidi.send("browsingContext.create", {"type": "tab"})["context"]
        self.bidi.send("browsingContext.navigate", {"context": context, "url": url, "wait": "complete"})
        return Tab(self, context)

    def tabs(self) -> list[Tab]:
        tree = self.bidi.send("browsingContext.getTree", {"maxDepth": 0})["contexts"]
        return [Tab(self, c["context"]) for c in tree]

    def _url(self, tab: Tab) -> str:
        tree = self.bidi.send("browsingContext.getTree", {"root": tab.handle, "maxDepth": 0})["contexts"]
        return tree[0]["url"]

    def _evaluate(self, tab: Tab, function: str, arg: Any) -> Any:
        return self._evaluate_in(tab.handle, function, arg)

    def _frames(self, tab: Tab) -> list[tuple[Any, str]]:
        found: list[tuple[Any, str]] = []

        def below(context: dict) -> None:
            for child in context.get("children") or []:
                found.append((child["context"], child["url"]))
                below(child)

        for context in self.bidi.send("browsingContext.getTree", {"root": tab.handle})["contexts"]:
            below(context)
        return found

    def _evaluate_in(self, frame: Any, function: str, arg: Any) -> Any:
        wrapper = (
            f"async (json) => {{ {_API} const value = await ({function})(JSON.parse(json));"
            " return value === undefined ? 'null' : JSON.stringify(value); }"
        )
        try:
            result = self.bidi.send(
                "script.callFunction",
                {
                    "functionDeclaration": wrapper,
                    "awaitPromise": True,
                    "target": {"context": frame},
                    "arguments": [{"type": "string", "value": json.dumps(arg)}],
                },
            )
        except BiDiError as error:
            if "no such frame" in str(error):  # taken off between being listed and asked
                raise FrameMissing(str(error)) from None
            raise
        if result.get("type") == "exception":
            details = result["exceptionDetails"]
            raise BiDiError(f"{details.get('text')}")
        return json.loads(result["result"]["value"])

    def _press(self, tab: Tab, key: str) -> None:
        code = _KEYS.get(key, key)
        self.bidi.send("browsingContext.activate", {"context": tab.handle})
        try:
            self.bidi.send(
                "input.performActions",
                {
                    "context": tab.handle,
                    "actions": [
                        {
                            "type": "key",
                            "id": "keyboard",
                            "actions": [{"type": "keyDown", "value": code}, {"type": "keyUp", "value": code}],
                        }
                    ],
                },
            )
        except BiDiError:
            if any(t.handle == tab.handle for t in self.tabs()):  # a key may close its own tab: no error
                raise

    def _click_at(self, tab: Tab, x: int, y: int) -> None:
        self.bidi.send("browsingContext.activate", {"context": tab.handle})
        self.bidi.send(
            "input.performActions",
            {
                "context": tab.handle,
                "actions": [
                    {
                        "type": "pointer",
                        "id": "mouse",
                        "actions": [
                            {"type": "pointerMove", "x": x, "y": y},
                            {"type": "pointerDown", "button": 0},
                            {"type": "pointerUp", "button": 0},
                        ],
                    }
                ],
            },
        )

    def _errors(self, tab: Tab) -> list[str]:
        return list(self.script_errors.get(tab.handle, []))

    def _screenshot(self, tab: Tab, path: Path) -> None:
        import base64

        data = self.bidi.send("browsingContext.captureScreenshot", {"context": tab.handle})["data"]
        Path(path).write_bytes(base64.b64decode(data))

    def _resize(self, tab: Tab, width: int, height: int) -> None:
        self.bidi.send(
            "browsingContext.setViewport", {"context": tab.handle, "viewport": {"width": width, "height": height}}
        )

    def _close(self, tab: Tab) -> None:
        self.bidi.send("browsingContext.close", {"context": tab.handle})


# ---------------------------------------------------------------------------------------------------------------
# The host, as the browser finds it


def host_manifest_dir(kind: str, workdir: Path) -> Path:
    """Where the browser started by extension_browser looks for host manifests."""
    if kind == "firefox":
        return workdir / "home" / ".mozilla" / "native-messaging-hosts"
    return workdir / "profile" / "NativeMessagingHosts"


def install_host(kind: str, workdir: Path) -> None:
    """Register the host the way a user does (`pith install`): for the one Chromium profile, or for Firefox
    in the browser's home."""
    from native_host.cli.main import main as pith_main

    where = ["--user-data-dir", str(workdir / "profile")] if kind == "chromium" else ["--browser", "firefox"]
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        status = pith_main(
            ["install", *where, "--home", str(workdir / "home"), "--data-dir", str(workdir / "pith-data")]
        )
    if status != 0:
        raise RuntimeError(f"pith install failed: {said.getvalue()}")


def register_launcher(kind: str, workdir: Path, launcher: Path) -> None:
    """Register an arbitrary program as the host (a host that crashes, hangs or has no model)."""
    from native_host.browser.identity import chromium_origin

    directory = host_manifest_dir(kind, workdir)
    directory.mkdir(parents=True, exist_ok=True)
    allowed = (
        {"allowed_origins": [chromium_origin()]}
        if kind == "chromium"
        else {"allowed_extensions": [FIREFOX_EXTENSION_ID]}
    )
    (directory / f"{HOST_NAME}.json").write_text(
        json.dumps({"name": HOST_NAME, "description": "test host", "path": str(launcher), "type": "stdio", **allowed})
    )


@contextlib.contextmanager
def extension_browser(
    kind: str,
    workdir: Path,
    *,
    host: str = "installed",
    model_dir: str | None = None,
    launcher: Path | None = None,
    downloads: Path | None = None,
    pages: Path | None = None,
    extension: Path = EXTENSION,
    media: Media | None = None,
) -> Iterator[ExtensionBrowser]:
    """`kind` ("chromium" or "firefox") with the Pith extension, in a fresh profile under `workdir`, serving
    `pages` on 127.0.0.1.

    host: "installed" (`pith install`), "missing" (nothing registered) or "launcher" (register `launcher`).
    `extension`: the unpacked extension to load (default extension/; a store package's staged folder).
    `media`: the user's color scheme and motion preferences (default: light, motion allowed)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "profile").mkdir(exist_ok=True)
    if host == "installed":
        install_host(kind, workdir)
    elif host == "launcher":
        register_launcher(kind, workdir, launcher)
    env = {
        "PITH_LOG_DIR": str(workdir / "logs"),
        "XDG_CONFIG_HOME": str(workdir / "xdg-config"),
        "XDG_CACHE_HOME": str(workdir / "xdg-cache"),
    }
    if model_dir:
        env["PITH_MODEL_DIR"] = str(model_dir)
    with serve(pages) as server:
        if kind == "chromium":
            with chromium(workdir / "profile", extension, env, downloads, media) as (context, worker):
                if not worker.url.startswith(CHROMIUM_ORIGIN + "/"):
                    raise RuntimeError(f"the extension's id is not the fixed one: {worker.url}")
                browser = ChromiumBrowser(server, downloads, context, worker)
                if downloads is not None:
                    # Playwright routes downloads to its own folder under random names; give them back to the
                    # browser's normal handling (the profile's Preferences), so a file lands as a user's would.
                    context.new_cdp_session(browser.control.handle).send(
                        "Browser.setDownloadBehavior", {"behavior": "default"}
                    )
                yield browser
        else:
            with firefox(workdir, extension, env, downloads, media) as bidi:
                yield FirefoxBrowser(server, downloads, bidi)
