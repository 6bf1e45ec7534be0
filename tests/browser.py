"""The browser tests' side of export/browsers.py: which browsers to run each scenario in, and small helpers
the scenarios share. One test body drives Chromium (marker `browser`) and Firefox (marker `firefox`)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Iterator

import pytest

from export.browsers import CHROMIUM, FIREFOX, ExtensionBrowser, Tab, extension_browser  # noqa: F401 (re-exported)

PAGES = Path(__file__).resolve().parent / "pages" / "extension"
BINARIES = {"chromium": CHROMIUM, "firefox": FIREFOX}
MARKERS = {"chromium": "browser", "firefox": "firefox"}


class Kind(str):
    """A browser's name as a test parameter: tests/conftest.py gives each test so parametrized its browser's
    marker, so that `-m browser` (Chromium) or `-m firefox` picks one browser's run of every scenario."""


# Each scenario runs once per browser.
KINDS = [pytest.param(Kind(name), id=name) for name in MARKERS]


def require(kind: str) -> None:
    """Skip, saying how to get it, when the browser is not installed (scripts/test.sh installs both)."""
    if not os.access(BINARIES[kind], os.X_OK):
        package = "chromium" if kind == "chromium" else "firefox-esr"
        pytest.skip(f"{BINARIES[kind]} is not installed: `apt-get install {package}` (scripts/test.sh does)")


@contextlib.contextmanager
def browser_with_host(kind: str, tmp: Path, model_dir: str | None) -> Iterator[ExtensionBrowser]:
    """`kind` with the host installed, serving tests/pages/extension/, its downloads in tmp/downloads."""
    require(kind)
    downloads = tmp / "downloads"
    downloads.mkdir()
    with extension_browser(kind, tmp / "browser", model_dir=model_dir, downloads=downloads, pages=PAGES) as b:
        yield b


def open_reader(b: ExtensionBrowser, page: Tab) -> tuple[dict, Tab]:
    """Reader view for `page`: the `pith.run` reply and the reader's tab, once it has rendered."""
    reply = b.run("reader", page)
    assert reply["ok"], reply
    reader = b.tab_by_id(reply["reader_tab"])
    # The tab opens while the host works, hidden: it may still be between documents when it is found.
    reader.wait_for("() => document.documentElement?.dataset.ready === 'true'")
    return reply, reader


def open_popup(b: ExtensionBrowser, page: Tab) -> Tab:
    """The popup for `page`, opened as a tab, once its buttons are wired (they are disabled until then)."""
    popup = b.open_extension_page(f"popup/popup.html?tab={b.tab_id(page)}")
    popup.wait_for("() => document.documentElement.dataset.ready === 'true'")
    return popup


def wait_for_download(b: ExtensionBrowser, download_id: int) -> dict:
    """The downloads API's item once it is no longer in progress (a state saying so after 30 s)."""
    return b.call("""async (id) => {
        for (const deadline = Date.now() + 30000; Date.now() < deadline;) {
          const [d] = await api.downloads.search({id});
          if (d && d.state !== 'in_progress') return d;
          await new Promise((r) => setTimeout(r, 100));
        }
        return {state: 'still in progress after 30 s'};
      }""", download_id)


def settle_images(tab: Tab) -> None:
    """Wait until every image of `tab` has loaded or failed (lazy ones are made eager, so none waits for a
    scroll): an error handler, were one left, has run by then. A condition, not a sleep."""
    tab.wait_for("() => [...document.images].every((img) => { img.loading = 'eager'; return img.complete; })")


def close(*tabs: Tab) -> None:
    for tab in tabs:
        tab.close()
