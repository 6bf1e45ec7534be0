"""axe-core's WCAG 2.2 AA rules over the reader view (toolbar, open settings panel, header, article with a wide
table and a footnote; then the Read aloud panel open and a paragraph marked as read) in each of its themes, and over the popup, in Chromium and Firefox: no violation.

axe-core is a development dependency in package.json (`npm install` puts it in node_modules/); PITH_AXE names
another copy of axe.min.js."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from browser import KINDS, browser_with_host, close, open_popup, show_article
from host_support import write_standin_model
from speech_support import FAKE_SPEECH

ROOT = Path(__file__).resolve().parent.parent
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
ARTICLE = {
    "title": "Tides and crossings at the north pier",
    "byline": "Morag Ellison",
    "date": "2026-03-14",
    "site_name": "Coastline Gazette",
    "reading_minutes": 3,
    "lang": "en",
    "url": "https://news.example/tides",
    "text": "x",
    "html": "<p>The harbour board counts every crossing and every tide, and publishes both in"
    " a table<sup><a href='#n1' id='r1'>1</a></sup> that runs wider than any column of text.</p>"
    "<h2>The readings</h2><table><caption>Readings by station</caption><thead><tr><th>Station</th>"
    + "".join(f"<th>Month {m}</th>" for m in range(1, 13))
    + "</tr></thead><tbody>"
    + "".join(
        f"<tr><th>Pier {r}</th>" + "".join(f"<td>{r}.{m} m</td>" for m in range(1, 13)) + "</tr>" for r in range(1, 4)
    )
    + "</tbody></table><blockquote><p>You can set your watch by her.</p>"
    "</blockquote><pre><code>tide = load('north-pier')</code></pre>"
    "<ol><li id='n1'>Published each spring. <a href='#r1'>Back</a></li></ol>",
}
RUN = """async (root, tags) => {
  const result = await axe.run(root, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
  return result.violations.map((v) => `${v.id}: ${v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join(', ')}`);
}"""


def axe_source() -> str:
    path = Path(os.environ.get("PITH_AXE") or ROOT / "node_modules" / "axe-core" / "axe.min.js")
    assert path.is_file(), f"{path} missing: run `npm install` at the repository root (or set PITH_AXE)"
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module", params=KINDS)
def browser(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"a11y-{request.param}")
    with browser_with_host(request.param, tmp, str(write_standin_model(tmp / "standin-model"))) as b:
        yield b


@pytest.mark.parametrize("theme", ["light", "sepia", "dark"])
def test_the_reader_view_has_no_wcag_violation(browser, theme):
    page = browser.open("reader/news.html")
    reader = show_article(browser, page, ARTICLE)
    # axe's source as the body of the evaluated function: the page's CSP allows no eval
    assert reader.evaluate(f"(root) => {{ {axe_source()}\n; return typeof axe.run; }}") == "function"
    reader.evaluate(
        """(root, theme) => { root.querySelector('.view').dataset.theme = theme;
        root.getElementById('settings').hidden = false; }""",
        theme,
    )
    assert reader.evaluate(RUN, TAGS) == []
    # Read aloud: its panel open (with a voice to show its controls), a paragraph marked as being read
    assert reader.evaluate(FAKE_SPEECH, [["Fiona", "en-GB"]])
    reader.user_click("#narrate-button")
    reader.user_click("#narrate-play")
    reader.evaluate("() => { fakeSpeech.finish(); }")
    reader.wait_for("(root) => root.querySelector('#article .narrating')")
    assert reader.evaluate("(root) => !root.getElementById('narrate-controls').hidden")
    assert reader.evaluate(RUN, TAGS) == []
    close(page)


def test_the_popup_has_no_wcag_violation(browser):
    page = browser.open("reader/news.html")
    popup = open_popup(browser, page)
    assert popup.evaluate(f"() => {{ {axe_source()}\n; return typeof axe.run; }}") == "function"
    assert popup.evaluate(f"(tags) => ({RUN})(document, tags)", TAGS) == []
    close(popup, page)
