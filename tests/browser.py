"""The browser tests' side of harness/browsers.py: which browsers to run each scenario in, and small helpers
the scenarios share. One test body drives Chromium (marker `browser`) and Firefox (marker `firefox`)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.browsers import (  # noqa: F401
    CHROMIUM,
    FIREFOX,
    NOTE_PAGE,
    READER_PAGE,
    SHOW_ARTICLE,
    ExtensionBrowser,
    FrameMissing,
    Media,
    ReaderView,
    Tab,
    extension_browser,
    shown_note,
)

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
def browser_with_host(
    kind: str, tmp: Path, model_dir: str | None, media: Media | None = None
) -> Iterator[ExtensionBrowser]:
    """`kind` with the host installed, serving tests/pages/extension/, its downloads in tmp/downloads; `media`:
    the user's color scheme and motion preferences."""
    require(kind)
    downloads = tmp / "downloads"
    downloads.mkdir()
    with extension_browser(
        kind, tmp / "browser", model_dir=model_dir, downloads=downloads, pages=PAGES, media=media
    ) as b:
        yield b


def open_reader(b: ExtensionBrowser, page: Tab) -> tuple[dict, ReaderView]:
    """Reader view for `page`: the `pith.run` reply and the view, once the whole article is in it."""
    reply = b.run("reader", page)
    assert reply["ok"] and reply.get("reader"), reply
    return reply, ReaderView(b, page).wait_ready()


def show_article(b: ExtensionBrowser, page: Tab, article: dict) -> ReaderView:
    """The reader view of `article` (as the host would send it) over `page`, shown the way the background
    shows one (background/page.js), without asking the host."""
    b.call(SHOW_ARTICLE, [b.tab_id(page), article])
    return ReaderView(b, page).wait_ready()


def open_popup(b: ExtensionBrowser, page: Tab) -> Tab:
    """The popup for `page`, opened as a tab, once its buttons are wired (they are disabled until then)."""
    popup = b.open_extension_page(f"popup/popup.html?tab={b.tab_id(page)}")
    popup.wait_for("() => document.documentElement.dataset.ready === 'true'")
    return popup


def wait_for_download(b: ExtensionBrowser, download_id: int) -> dict:
    """The downloads API's item once it is no longer in progress (a state saying so after 30 s)."""
    return b.call(
        """async (id) => {
        for (const deadline = Date.now() + 30000; Date.now() < deadline;) {
          const [d] = await api.downloads.search({id});
          if (d && d.state !== 'in_progress') return d;
          await new Promise((r) => setTimeout(r, 100));
        }
        return {state: 'still in progress after 30 s'};
      }""",
        download_id,
    )


def close(*tabs: Tab) -> None:
    for tab in tabs:
        if isinstance(tab, ReaderView):  # the reader's view closes with its page
            continue
        tab.close()
