"""Read aloud in the reader view, in Chromium and Firefox: the paragraphs spoken in order, each marked and
kept in view, play and pause, the previous and next paragraph, the speed and the voice, Esc, and the note
where the browser has no voice or no speech at all.

Headless browsers have no voices, and a real voice's timing is not the test's to wait on: the reader's frame
gets a stand-in for `speechSynthesis` (speech_support.py, installed in the frame once the article is shown, before
the panel is opened: the reader looks the browser's speech up at each use). The stand-in records every call
and ends an utterance only when the test says so."""

from __future__ import annotations

import pytest
from browser import KINDS, browser_with_host, close, show_article
from host_support import write_standin_model
from speech_support import FAKE_SPEECH

NO_SPEECH = """() => { Object.defineProperty(window, 'speechSynthesis', {value: undefined, configurable: true});
  window.SpeechSynthesisUtterance = undefined; return true; }"""
VOICES = [["Fiona", "en-GB"], ["Sam", "en-US"], ["Amélie", "fr-FR"]]
PARAGRAPHS = [
    f"Crossing {i}: the Saltire left the north pier at a quarter to midnight with {i + 3} passengers and the mail."
    for i in range(1, 31)
]
ARTICLE = {
    "title": "The night ferry that refuses to retire",
    "lang": "en",
    "url": "https://news.example/ferry",
    "text": "x",
    "html": "".join(f"<p>{p}</p>" for p in PARAGRAPHS[:3])
    + "<ul><li><p>A list item's own paragraph, read once.</p></li></ul>"
    + "".join(f"<p>{p}</p>" for p in PARAGRAPHS[3:]),
}
READ_ORDER = [ARTICLE["title"], *PARAGRAPHS[:3], "A list item's own paragraph, read once.", *PARAGRAPHS[3:]]
SPOKEN = "() => fakeSpeech.log.filter((e) => e[0] === 'speak').map((e) => e[1])"
MARKED = """(root) => { const marked = [...root.querySelectorAll('.narrating')];
  if (marked.length !== 1) return null;
  const r = marked[0].getBoundingClientRect();
  return {text: marked[0].textContent, current: marked[0].getAttribute('aria-current'),
          inView: r.top >= 0 && r.bottom <= innerHeight}; }"""
ACTIVE = "(root) => root.hasFocus() && root.activeElement.id"


@pytest.fixture(scope="module", params=KINDS)
def browser(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"narrate-{request.param}")
    with browser_with_host(request.param, tmp, str(write_standin_model(tmp / "standin-model"))) as b:
        yield b


def spoken_reader(b, voices=VOICES):
    """A reader of ARTICLE whose frame has the stand-in speech with `voices`: (page, reader)."""
    page = b.open("reader/news.html")
    reader = show_article(b, page, ARTICLE)
    assert reader.evaluate(FAKE_SPEECH, voices)
    return page, reader


def test_read_aloud_speaks_each_paragraph_in_turn_marked_and_in_view(browser):
    page, reader = spoken_reader(browser)
    reader.user_click("#narrate-button")
    reader.wait_for("(root) => !root.getElementById('narrate').hidden")
    panel = reader.evaluate("""(root) => ({expanded: root.getElementById('narrate-button').getAttribute('aria-expanded'),
        controls: !root.getElementById('narrate-controls').hidden, note: root.getElementById('narrate-note').hidden,
        voices: [...root.querySelectorAll('#narrate-voice option')].map((o) => o.textContent),
        labels: ['narrate-back', 'narrate-play', 'narrate-forward', 'narrate-rate']
          .map((id) => root.getElementById(id).getAttribute('aria-label'))})""")
    assert panel == {
        "expanded": "true",
        "controls": True,
        "note": True,
        "voices": ["Default", "Fiona (en-GB)", "Sam (en-US)"],  # the article's language first
        "labels": ["Previous paragraph", "Play", "Next paragraph", "Speed"],
    }
    reader.user_click("#narrate-play")
    reader.wait_for(f"() => ({SPOKEN})().length === 1")
    assert reader.evaluate(MARKED)["text"] == ARTICLE["title"]
    assert reader.evaluate("(root) => root.getElementById('narrate-play').getAttribute('aria-label')") == "Pause"
    # each paragraph in turn, once the one before has been said; each marked in its turn
    for n in range(1, 21):
        reader.evaluate("() => fakeSpeech.finish()")
        reader.wait_for(f"() => ({SPOKEN})().length === {n + 1}")
        marked = reader.evaluate(MARKED)
        assert marked["text"] == READ_ORDER[n] and marked["current"] == "true"
    assert reader.evaluate(SPOKEN) == READ_ORDER[:21]
    # the paragraph being read, far below the first screen, is scrolled into view
    reader.wait_for(f"(root) => ({MARKED})(root).inView")
    assert reader.evaluate("(root) => root.querySelector('.view').scrollTop") > 0
    # pause and resume
    reader.user_click("#narrate-play")
    reader.wait_for("() => fakeSpeech.log.at(-1)[0] === 'pause'")
    assert reader.evaluate("(root) => root.getElementById('narrate-play').getAttribute('aria-label')") == "Play"
    reader.user_click("#narrate-play")
    reader.wait_for("() => fakeSpeech.log.at(-1)[0] === 'resume'")
    # a new speed goes on from the last word reached, at that speed
    reader.evaluate("() => fakeSpeech.boundary(9)")
    reader.evaluate(
        "(root) => { const s = root.getElementById('narrate-rate'); s.value = '1.5';"
        " s.dispatchEvent(new Event('change')); }"
    )
    last = reader.evaluate("() => fakeSpeech.log.slice(-2)")
    assert last[0] == ["cancel"] and last[1][1] == READ_ORDER[20][9:] and last[1][2] == 1.5
    # a voice, from the same word, and the next paragraph, at the speed chosen
    reader.evaluate(
        "(root) => { const s = root.getElementById('narrate-voice'); s.value = 'fake:Sam';"
        " s.dispatchEvent(new Event('change')); }"
    )
    assert reader.evaluate("() => fakeSpeech.log.at(-1)") == ["speak", READ_ORDER[20][9:], 1.5, "Sam"]
    reader.user_click("#narrate-forward")
    reader.wait_for(f"() => fakeSpeech.current() === {READ_ORDER[21]!r}")
    assert reader.evaluate("() => fakeSpeech.log.at(-1)") == ["speak", READ_ORDER[21], 1.5, "Sam"]
    reader.user_click("#narrate-back")
    reader.wait_for(f"() => fakeSpeech.current() === {READ_ORDER[20]!r}")
    assert reader.evaluate(MARKED)["text"] == READ_ORDER[20]
    # the speed is remembered for the next reader
    assert browser.call("() => api.storage.local.get('narrateRate').then((s) => s.narrateRate)") == 1.5
    # Esc closes the panel, the focus back on its button, the reader still open; then Esc leaves it
    reader.press("Escape")
    reader.wait_for("(root) => root.getElementById('narrate').hidden")
    assert reader.evaluate(ACTIVE) == "narrate-button"
    assert reader.shown()
    reader.press("Escape")
    reader.wait_closed()
    browser.call("() => api.storage.local.remove(['narrateRate', 'narrateVoice'])")
    close(page)


def test_the_keyboard_reaches_every_control_of_read_aloud(browser):
    page, reader = spoken_reader(browser)
    reader.evaluate("(root) => root.getElementById('settings-button').focus()")
    reader.press("Tab")
    assert reader.evaluate(ACTIVE) == "narrate-button"
    reader.press("Enter")
    reader.wait_for("(root) => !root.getElementById('narrate').hidden")
    order = []
    for _ in range(5):
        reader.press("Tab")
        order.append(reader.evaluate(ACTIVE))
    assert order == ["narrate-back", "narrate-play", "narrate-forward", "narrate-rate", "narrate-voice"]
    reader.evaluate("(root) => root.getElementById('narrate-play').focus()")
    reader.press("Enter")
    reader.wait_for(f"() => ({SPOKEN})().length === 1")
    # the settings panel and this one share a place: opening one closes the other
    reader.user_click("#settings-button")
    assert reader.evaluate(
        "(root) => [root.getElementById('narrate').hidden, root.getElementById('settings').hidden]"
    ) == [
        True,
        False,
    ]
    close(page)


def test_without_a_voice_or_speech_the_panel_says_so_instead_of_showing_controls(browser):
    page, reader = spoken_reader(browser, [])
    state = """(root) => ({controls: !root.getElementById('narrate-controls').hidden,
        note: root.getElementById('narrate-note').hidden ? null : root.getElementById('narrate-note').textContent})"""
    reader.user_click("#narrate-button")
    found = reader.wait_for(f"(root) => !root.getElementById('narrate').hidden && ({state})(root)")
    assert found["controls"] is False and found["note"].startswith("Read aloud needs a voice")
    # a voice that comes later (Chromium lists them after a while) brings the controls
    reader.evaluate(
        "() => { speechSynthesis.voices = [{name: 'Fiona', lang: 'en-GB', voiceURI: 'fake:Fiona'}];"
        " speechSynthesis.dispatchEvent(new Event('voiceschanged')); }"
    )
    reader.wait_for(f"(root) => ({state})(root).controls")
    assert reader.evaluate(state)["note"] is None
    # no speech synthesis at all
    reader.user_click("#narrate-button")
    assert reader.evaluate(NO_SPEECH)
    reader.user_click("#narrate-button")
    found = reader.wait_for(f"(root) => !root.getElementById('narrate').hidden && ({state})(root)")
    assert found == {"controls": False, "note": "This browser cannot read aloud (it has no speech synthesis)."}
    close(page)
