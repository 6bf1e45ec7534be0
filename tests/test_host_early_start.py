"""The host started ahead of the first click (docs/extension.md, "Instant from the first click"): a web page
that finishes loading starts the host and its model without any action, in Chromium and Firefox; with the
popup's option off, nothing starts until the user acts; the option is shown in the popup, on by default."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import KINDS, browser_with_host, close, open_popup

from harness.browsers import poll

LOADED = "model "  # the host's log line once the model is loaded: "model ID loaded in N ms"
WAIT_S = 60.0


def host_log(tmp: Path) -> str:
    log = tmp / "browser" / "logs" / "host.log"
    return log.read_text(encoding="utf-8") if log.exists() else ""


def wait_for_model(tmp: Path, times: int = 1) -> str:
    """The host's log once its model has been loaded `times` times (by as many host processes)."""

    def loaded() -> str:
        text = host_log(tmp)
        return text if sum(LOADED in line and " loaded in " in line for line in text.splitlines()) >= times else ""

    return poll(
        loaded, WAIT_S, f"the host to load its model {times} time(s) after the page loaded ({tmp}/browser/logs)"
    )


@pytest.mark.parametrize("kind", KINDS)
def test_a_loaded_page_starts_the_host_and_the_option_turns_it_off(kind, tmp_path):
    with browser_with_host(kind, tmp_path, None) as b:
        popup = open_popup(b, b.open("article.html?first"))
        # on by default, where the user sees it
        assert popup.evaluate("() => document.getElementById('start-host').checked") is True
        log = wait_for_model(tmp_path)
        assert "request 1 hello" in log  # started by the page's load alone: no action ran
        # turned off: the host started ahead is ended, and the next page loads start nothing
        popup.click("#start-host")
        assert b.call("() => api.storage.local.get('startHost')") == {"startHost": False}
        poll(lambda: "exiting" in host_log(tmp_path), WAIT_S, "the host started ahead to exit once turned off")
        before = host_log(tmp_path)
        assert "exiting" in before, before
        page = b.open("article.html?second")
        b.live_snapshot(page)  # the background has handled the page's load by the time it answers this
        # turned on again: the next load starts it, and the page in between had started nothing
        popup.click("#start-host")
        again = b.open("article.html?third")
        wait_for_model(tmp_path, 2)
        after = host_log(tmp_path)
        assert after.count("host started") == 2, after
        assert b.run("reader", again)["ok"]
        close(page, again, popup)
