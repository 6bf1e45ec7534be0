"""What the user sees when things go wrong: each failure comes with its message and its fix, in the
`pith.run` reply, the popup and the page. Each test starts its own browser (a missing or broken host), once in
Chromium and once in Firefox."""

from __future__ import annotations

import sys

import pytest
from browser import KINDS, PAGES, ReaderView, extension_browser, open_popup, require, shown_note

# A page no extension may enter, in each browser.
PRIVILEGED_PAGE = {"chromium": "chrome://version/", "firefox": "about:robots"}


@pytest.fixture(params=KINDS)
def kind(request):
    require(request.param)
    return request.param


def test_with_the_host_missing_the_user_sees_the_error_and_the_fix(tmp_path, kind):
    with extension_browser(kind, tmp_path, host="missing", pages=PAGES) as b:
        page = b.open("article.html")
        tabs = len(b.tabs())
        reply = b.run("reader", page)
        assert reply["ok"] is False and reply["error"]["code"] == "host_missing"
        assert "`pith install`" in reply["error"]["message"]
        # no tab opened, no reader view left over the page
        assert len(b.tabs()) == tabs
        assert not ReaderView(b, page).shown()
        popup = open_popup(b, page)
        popup.click("[data-action=reader]")
        popup.wait_for("() => document.querySelector('#status.error')")
        shown = popup.text("#status")
        assert "not installed" in shown and "pith install" in shown
        assert popup.text("#status-fix code") == "pith install"
        note = shown_note(b, page, "error")  # the note shown in the page itself, code as code
        assert note["state"] == "error" and "pith install" in note["fix"] and note["height"] > 0, note


def test_a_host_that_crashes_is_reported_with_pith_doctor(tmp_path, kind):
    launcher = tmp_path / "crashing-host"
    launcher.write_text("#!/bin/sh\necho 'something broke' >&2\nexit 1\n")
    launcher.chmod(0o755)
    with extension_browser(kind, tmp_path / "browser", host="launcher", launcher=launcher, pages=PAGES) as b:
        page = b.open("article.html")
        reply = b.run("highlight", page)
        assert reply["ok"] is False and reply["error"]["code"] == "host_crashed"
        assert "`pith doctor`" in reply["error"]["message"]
        # the next try starts the host again rather than reusing a dead port
        again = b.run("save", page)
        assert again["ok"] is False and again["error"]["code"] == "host_crashed"


def test_a_browser_page_cannot_be_read_and_says_so(tmp_path, kind):
    with extension_browser(kind, tmp_path, host="missing", pages=PAGES) as b:
        _, tab = b.open_unlisted(PRIVILEGED_PAGE[kind])
        reply = b.send({"type": "pith.run", "action": "reader", "tabId": tab})
        assert reply["ok"] is False and reply["error"]["code"] == "page_unreadable"
        unknown = b.send({"type": "pith.run", "action": "print", "tabId": tab})
        assert unknown["ok"] is False and unknown["error"]["code"] == "bad_action"


def test_the_context_menu_and_the_shortcuts_offer_the_actions(tmp_path, kind):
    """The menu items exist with the action names the one action path takes (a headless browser cannot
    click them; their handler is the same runAction the tests drive through pith.run)."""
    with extension_browser(kind, tmp_path, host="missing", pages=PAGES) as b:
        # The background makes the items when it starts, asynchronously: wait for them (up to 10 s) rather
        # than race it, which failed CI once ('Cannot find menu item with id reader').
        made = b.call("""async () => {
            const update = (id) => Promise.resolve(api.contextMenus.update(id, {title: 'Open in Pith reader view'}))
                .then(() => 'ok', (e) => e.message);
            let last = '';
            for (let i = 0; i < 100; i++) {
                last = await update('reader');
                if (last === 'ok') return last;
                await new Promise((r) => setTimeout(r, 100));
            }
            return last;
        }""")
        assert made == "ok"
        missing = b.call(
            "() => Promise.resolve(api.contextMenus.update('print', {title: 'x'})).then(() => 'ok', () => 'missing')"
        )
        assert missing == "missing"
        commands = b.call("() => api.commands.getAll().then((c) => c.map((x) => [x.name, x.shortcut]))")
        assert dict(commands) == {
            "_execute_action": "Alt+Shift+K",
            "reader": "Alt+Shift+E",
            "highlight": "Alt+Shift+H",
            "save": "Alt+Shift+S",
        }


def test_a_host_without_its_model_is_reported_before_any_page_is_sent(tmp_path, kind):
    empty = tmp_path / "no-model"
    empty.mkdir()
    launcher = tmp_path / "host-without-model"
    launcher.write_text(
        f'#!/bin/sh\nPITH_MODEL_DIR={empty} PITH_LOG_DIR={tmp_path} exec {sys.executable} -m native_host host "$@"\n'
    )
    launcher.chmod(0o755)
    with extension_browser(kind, tmp_path / "browser", host="launcher", launcher=launcher, pages=PAGES) as b:
        page = b.open("article.html")
        reply = b.run("reader", page)
        assert reply["ok"] is False and reply["error"]["code"] == "model_unavailable"
        assert "`pith doctor`" in reply["error"]["message"]
        note = shown_note(b, page, "error")
        assert note["state"] == "error" and "pith doctor" in note["fix"], note
