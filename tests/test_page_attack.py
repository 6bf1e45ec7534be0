"""The page is the attacker: a page whose script runs before Pith's, defines every custom element name Pith has
used (keeping each one's internals), makes every shadow root open, wraps the DOM's methods and getters,
listens to every event first, frames the extension's reader page itself, and keeps sweeping the DOM for
anything of Pith's to read, edit, click, key or message (tests/pages/extension/attack/). Pith's reader view and
note are opened on it the way a user opens them, in Chromium and Firefox; the page must come away with nothing
of the article, trigger nothing (no download, no setting changed, the view unchanged and still open), and
hear nothing of what the user does in the view, while the user's own click on Save still saves.

The page's own article (#story) is never read by the attacker, so article text in what it kept came from Pith.
The host runs the stand-in model of tests/host_support.py (a block is main from about 55 characters on)."""

from __future__ import annotations

import pytest
from browser import KINDS, READER_PAGE, ReaderView, browser_with_host, close, shown_note, wait_for_download
from host_support import write_standin_model

# Sentences of the page's article, the reader's own words, and what the attacker writes: none may reach it.
ARTICLE = ["kept a ledger of every crossing that winter", "cormorants nesting on the breakwater"]
READER_WORDS = ["Copy as Markdown", "Line spacing", "min read"]
INJECTED = "Injected by the page"
# Polled in the page: the attack has swept the DOM this many times since it was noted.
SWEPT = "(since) => window.__attack.sweeps >= since + 40"


@pytest.fixture(scope="module", params=KINDS)
def browser(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"attack-{request.param}")
    with browser_with_host(request.param, tmp, str(write_standin_model(tmp / "standin-model"))) as b:
        yield b


def attacked_page(b):
    page = b.open(f"attack/page.html?ext={b.origin}")
    page.wait_for("() => window.__attack.sweeps > 0")  # the attack runs
    return page


def let_the_attack_run(page) -> None:
    page.wait_for(SWEPT, page.evaluate("() => window.__attack.sweeps"))


def loot(page) -> str:
    return "\n".join(page.evaluate("() => window.__attack.loot"))


def downloads(b) -> int:
    return len(b.call("() => api.downloads.search({})"))


def test_the_page_can_neither_read_nor_drive_the_reader_view(browser):
    page = attacked_page(browser)
    settings = browser.call("() => api.storage.local.get(null)")
    saved = downloads(browser)
    reply = browser.run("reader", page)
    assert reply["ok"] and reply.get("reader"), reply
    title = reply["article"]["title"]
    assert title == "The quartermaster's winter ledger"
    let_the_attack_run(page)
    found = loot(page)
    assert page.evaluate("() => window.__attack.seen") > 0  # it had the view's element in hand
    # nothing of the article or the view reached the page
    for text in [title, *ARTICLE, *READER_WORDS]:
        assert text not in found, (text, found[:2000])
    # nothing was triggered: no download, no setting written
    assert downloads(browser) == saved
    assert browser.call("() => api.storage.local.get(null)") == settings
    reader = ReaderView(browser, page).wait_ready()
    # the view is as the host made it, still open, and the page's own copy of reader.html shows nothing
    assert reader.shown()
    text = reader.text("#article")
    paragraphs = [line for line in reply["article"]["text"].splitlines() if line.strip()]
    assert INJECTED not in text and ARTICLE[0] in text and all(line in text for line in paragraphs), text
    theme = settings.get("readerTheme", "auto")
    assert reader.evaluate("(root) => root.querySelector('.view').dataset.theme") == theme
    blank = [
        browser._evaluate_in(frame, "() => [document.body.childElementCount, document.body.textContent.trim()]", None)
        for frame in browser.frames_of(page, READER_PAGE)
    ]
    assert sorted(blank)[0] == [0, ""] and len(blank) == 2, blank  # the page's frame, and the reader's
    # the user's own click saves, and the page hears nothing of it
    heard = len(page.evaluate("() => window.__attack.trusted"))
    reader.user_click("#save")
    reader.wait_for("(root) => root.getElementById('status').textContent.startsWith('Saved ')")
    name = reader.text("#status").removeprefix("Saved ")
    items = browser.call("(n) => api.downloads.search({}).then((d) => d.filter((x) => x.filename.endsWith(n)))", name)
    assert len(items) == 1 and wait_for_download(browser, items[0]["id"])["state"] == "complete"
    assert ARTICLE[0] in (browser.downloads / name).read_text(encoding="utf-8")
    assert downloads(browser) == saved + 1
    reader.press("PageDown")
    assert page.evaluate("() => window.__attack.trusted").__len__() == heard  # no click, no key reached the page
    let_the_attack_run(page)
    assert downloads(browser) == saved + 1 and reader.shown()
    close(page)


def test_the_page_can_neither_read_nor_drive_the_note(browser):
    page = attacked_page(browser)
    saved = downloads(browser)
    reply = browser.run("save", page)  # Save from the popup: its note names the article
    assert reply["ok"], reply
    let_the_attack_run(page)
    found = loot(page)
    assert page.evaluate("() => window.__attack.seen") > 0  # it had the note's element in hand
    assert reply["article"]["title"] not in found and "Article saved" not in found, found[:2000]
    assert downloads(browser) == saved + 1  # Save's own file, nothing more
    note = shown_note(browser, page)  # what the user was shown
    assert note["title"] == "Article saved" and reply["article"]["title"] in note["text"], note
    close(page)
