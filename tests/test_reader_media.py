"""The user's system preferences, in Chromium and Firefox: `prefers-color-scheme` picks the reader's theme
while the user has chosen none ("Auto"), and `prefers-reduced-motion` turns the smooth scrolls (Highlight's
scroll to the content, Read aloud's to the paragraph being read) into jumps. Each browser runs twice: dark with
reduced motion, and light with motion (harness/browsers.py's Media: Playwright's emulation in Chromium, the
profile's prefs in Firefox)."""

from __future__ import annotations

import pytest
from browser import KINDS, Media, browser_with_host, close, show_article
from speech_support import FAKE_SPEECH
from test_highlight_regions import FIRST_IN_VIEW

STILL = Media(color_scheme="dark", reduced_motion="reduce")
MOVING = Media(color_scheme="light", reduced_motion="no-preference")
BACKGROUND = {"dark": "rgb(23, 24, 26)", "light": "rgb(251, 250, 247)"}
ARTICLE = {
    "title": "The night ferry",
    "lang": "en",
    "url": "https://news.example/ferry",
    "text": "x",
    "html": "".join(
        f"<p>Crossing {i}: the Saltire left the north pier at a quarter to midnight with the mail.</p>"
        for i in range(60)
    ),
}
VIEW_BACKGROUND = "(root) => getComputedStyle(root.querySelector('.view')).backgroundColor"
# Read aloud moved on to paragraph `n` (the fake ends the one before); whether it is in view at that moment.
READ_TO = """(root, n) => { for (let i = 0; i < n; i++) fakeSpeech.finish();
  const r = root.querySelector('.narrating').getBoundingClientRect();
  return r.top >= 0 && r.bottom <= innerHeight; }"""


@pytest.fixture(scope="module", params=KINDS)
def kind(request):
    return request.param


@pytest.fixture(scope="module", params=[STILL, MOVING], ids=["still", "moving"])
def browser(request, kind, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"media-{kind}")
    with browser_with_host(kind, tmp, None, media=request.param) as b:
        b.media = request.param
        yield b


def test_the_reader_follows_the_system_color_scheme_until_the_user_picks_a_theme(browser):
    page = browser.open("reader/news.html")
    reader = show_article(browser, page, ARTICLE)
    assert reader.evaluate("(root) => root.querySelector('.view').dataset.theme") == "auto"
    assert reader.evaluate(VIEW_BACKGROUND) == BACKGROUND[browser.media.color_scheme]
    other = "light" if browser.media.color_scheme == "dark" else "dark"
    reader.click("#settings-button")
    reader.click(f"[data-setting=readerTheme][data-value={other}]")  # the user's choice wins over the system's
    reader.wait_for(f"(root) => ({VIEW_BACKGROUND})(root) === {BACKGROUND[other]!r}")
    reader.click("[data-setting=readerTheme][data-value=auto]")
    reader.wait_for(f"(root) => ({VIEW_BACKGROUND})(root) === {BACKGROUND[browser.media.color_scheme]!r}")
    close(page)


def test_read_aloud_scrolls_smoothly_unless_reduced_motion_is_asked(browser):
    page = browser.open("reader/news.html")
    reader = show_article(browser, page, ARTICLE)
    assert reader.evaluate(FAKE_SPEECH, [["Fiona", "en-GB"]])
    reader.user_click("#narrate-button")
    reader.user_click("#narrate-play")
    reader.wait_for("() => fakeSpeech.current()")
    at_once = reader.evaluate(READ_TO, 45)  # far below the first screen
    assert at_once is (browser.media.reduced_motion == "reduce")
    reader.wait_for(f"(root) => ({READ_TO})(root, 0)")  # and there once a smooth scroll ends
    close(page)


# Every scroll position the window passes through, from now on.
RECORD_SCROLLS = "() => { window.pithScrolls = []; addEventListener('scroll', () => pithScrolls.push(scrollY)); }"
# The window has scrolled and stood still for two frames since.
AT_REST = """() => new Promise((done) => requestAnimationFrame(() => { const y = scrollY;
  requestAnimationFrame(() => requestAnimationFrame(() => done(pithScrolls.length > 0 && scrollY === y))); }))"""


def test_highlight_scrolls_smoothly_unless_reduced_motion_is_asked(browser):
    """A smooth scroll passes through positions on its way, a jump lands at once. Read from the positions the
    window passed, not from where it is when the reply comes: on a loaded machine a smooth scroll can end
    before the test looks."""
    page = browser.open("highlight/product.html")
    assert page.evaluate("() => scrollY") == 0
    page.evaluate(RECORD_SCROLLS)
    reply = browser.run("highlight", page)
    assert reply["ok"] and reply["highlighted"] is True, reply
    page.wait_for(FIRST_IN_VIEW)
    page.wait_for(AT_REST)
    positions = page.evaluate("() => pithScrolls")
    assert (len(set(positions)) == 1) is (browser.media.reduced_motion == "reduce"), positions
    browser.run("highlight", page)
    close(page)
