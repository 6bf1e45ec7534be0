"""The reader view in Chromium and Firefox: what it keeps of a page (code, formulas, lazy pictures, tables,
footnotes, figures, right-to-left text), its header, its settings, its keys, Copy as Markdown and Save, and
that it sits over the page without changing it or being changed by it.

The pages are tests/pages/extension/reader/. The host runs the stand-in model of tests/host_support.py, which
calls a block main from about 55 characters on, so what reaches the reader does not depend on the shipped
model: the pages' article text comes in long sentences, their menus and footers in short links."""

from __future__ import annotations

import pytest
from browser import KINDS, READER_PAGE, browser_with_host, close, open_reader, show_article, wait_for_download
from host_support import write_standin_model

MATHML = "http://www.w3.org/1998/Math/MathML"


@pytest.fixture(scope="module", params=KINDS)
def browser(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"reader-{request.param}")
    with browser_with_host(request.param, tmp, str(write_standin_model(tmp / "standin-model"))) as b:
        yield b


def reader_for(b, name: str):
    page = b.open(f"reader/{name}")
    reply, reader = open_reader(b, page)
    return page, reply, reader


def test_code_blocks_keep_their_lines_language_and_monospace_and_scroll_sideways(browser):
    page, _, reader = reader_for(browser, "docs.html")
    blocks = reader.evaluate("""(root) => [...root.querySelectorAll('#article pre')].map((pre) => {
        const style = getComputedStyle(pre), code = pre.querySelector('code');
        return {text: pre.textContent, language: (code || pre).className, font: style.fontFamily,
                whiteSpace: style.whiteSpace, overflow: style.overflowX, direction: style.direction,
                scrolls: pre.scrollWidth > pre.clientWidth};
    })""")
    assert [b["language"] for b in blocks] == ["language-python", "language-toml", "language-shell"]
    python = blocks[0]["text"]
    assert (
        "from tidepool import load_config, Station\n\ndef main(path: str) -> None:\n    config = load_config(path)"
        in python
    )  # blank lines and indentation as written
    assert '        print(f"{gauge.name:<12} every {gauge.interval_s} s")' in python
    assert "interval_s = 60    # one reading a minute" in blocks[1]["text"]
    for b in blocks:
        assert "mono" in b["font"].lower() and b["whiteSpace"] == "pre" and b["overflow"] == "auto"
        assert b["direction"] == "ltr"
    assert blocks[0]["scrolls"]  # the long line is scrolled to, not wrapped
    inline = reader.evaluate("(root) => [...root.querySelectorAll('#article p code')].map((c) => c.textContent)")
    assert inline == ["load_config()", "Config"]
    close(reader, page)


def test_formulas_arrive_as_mathml_with_their_tex_and_without_the_drawn_copy(browser):
    page, _, reader = reader_for(browser, "math.html")
    found = reader.evaluate(
        """(root, ns) => [...root.querySelectorAll('#article math')].map((m) => ({
        ns: m.namespaceURI, display: m.getAttribute('display'),
        tex: m.querySelector('annotation') ? m.querySelector('annotation').textContent : null,
        height: m.getBoundingClientRect().height}))""",
        MATHML,
    )
    assert [f["tex"] for f in found] == [
        "e^{i\\pi}+1=0",
        "\\int_0^\\infty e^{-x^2}\\,dx = \\frac{\\sqrt{\\pi}}{2}",
        None,
        "{\\displaystyle a^{2}+b^{2}=c^{2}}",
        None,
    ]
    assert all(f["ns"] == MATHML and f["height"] > 0 for f in found)  # MathML, laid out by the browser
    assert [f["display"] for f in found] == [None, "block", None, None, None]
    outside = reader.evaluate("""(root) => { const copy = root.getElementById('article').cloneNode(true);
        copy.querySelectorAll('math').forEach((m) => m.remove()); return copy.textContent; }""")
    assert "links five constants" in outside and "iπ" not in outside and "x2dx" not in outside  # no drawn copy
    assert reader.evaluate("(root) => root.querySelectorAll('#article img').length") == 0  # Wikipedia's picture
    close(reader, page)


def test_lazy_pictures_load_from_their_real_address_at_the_pages_size(browser):
    """Each picture from its real address; where the page states a size, at that size (the files are 64 px
    wide): an icon in a sentence stays an icon's size, in its line."""
    page, _, reader = reader_for(browser, "images.html")
    reader.settle_images()  # below the first screen they load as the view scrolls to them: made eager here
    images = reader.evaluate("""(root) => [...root.querySelectorAll('#article img')].map((i) =>
        [i.alt, new URL(i.src).pathname + new URL(i.src).search, i.naturalWidth > 0,
         Math.round(i.getBoundingClientRect().width), getComputedStyle(i).display])""")
    assert images == [
        ["from data-src", "/images/lazy.png?from=data-src", True, 64, "block"],
        ["from srcset", "/images/lazy2.png?from=srcset-large", True, 64, "block"],  # the largest on offer
        ["from picture", "/images/lens.png?from=picture", True, 64, "block"],
        ["from data-lazy-src", "/images/lazy2.png?from=data-lazy-src", True, 64, "block"],
        ["icon", "/images/lens.png?from=icon", True, 16, "inline"],
        ["sized", "/images/lazy.png?from=sized", True, 32, "block"],
    ]
    close(reader, page)


def test_pictures_and_blocks_keep_their_lines(browser):
    """An icon in a sentence shows in its line, an emoji drawn as a picture is its character, and the words after
    a list a script put inside a paragraph stay in a paragraph (a figure or a list inside a <p> would end it)."""
    page, _, reader = reader_for(browser, "lines.html")
    found = reader.evaluate("""(root) => { const a = root.getElementById('article');
        const icon = a.querySelector('img[alt="lens"]'), paragraphs = [...a.querySelectorAll('p')];
        const after = paragraphs.find((p) => p.textContent.includes('and these words come after the list'));
        return {icon: icon && [icon.parentElement.localName, getComputedStyle(icon).display],
                line: icon && icon.parentElement.textContent.includes('just like the  lens that marks'),
                emoji: a.textContent.includes('of its own 🙂 and the sentence'),
                pictures: a.querySelectorAll('img').length, items: a.querySelectorAll('ul > li').length,
                after: Boolean(after), empty: paragraphs.filter((p) => !p.textContent.trim()).length}; }""")
    assert found == {
        "icon": ["p", "inline"],
        "line": True,
        "emoji": True,
        "pictures": 1,
        "items": 2,
        "after": True,
        "empty": 0,
    }
    close(reader, page)


def test_a_table_keeps_its_structure_and_scrolls_when_wide(browser):
    page, _, reader = reader_for(browser, "table.html")
    table = reader.evaluate("""(root) => { const t = root.querySelector('#article table');
        const box = t.parentElement, style = getComputedStyle(box);
        return {caption: t.caption && t.caption.textContent, head: [...t.querySelectorAll('thead th')].length,
                rows: [...t.querySelectorAll('tbody tr')].map((r) => r.cells.length),
                first: [...t.querySelectorAll('tbody tr:first-child td')].map((c) => c.textContent),
                overflow: style.overflowX, scrolls: box.scrollWidth > box.clientWidth}; }""")
    assert table["caption"] == "Tides and crossings at the north pier, winter 2025 to 2026"
    assert table["head"] == 7 and table["rows"] == [7, 7, 7, 7]
    assert table["first"][:4] == ["November 2025", "4.21 m on the 12th", "0.34 m on the 27th", "312 sailings"]
    assert table["overflow"] == "auto" and table["scrolls"]
    close(reader, page)


def test_a_long_article_arrives_whole_and_in_order(browser):
    # The reader paints the first screen before adding the rest; at ~27,000 characters the host's first part
    # holds the first screen alone and the rest comes with the Markdown: once ready, all of it is there, in order.
    words = "the harbour master kept a ledger of every crossing made that winter".split()
    paras = "".join(
        f"<p>Entry {i}: " + " ".join(words[(i + k) % len(words)] for k in range(60)) + ".</p>" for i in range(80)
    )
    page = browser.open_markup(
        "long.html",
        f"<!doctype html><html lang='en'><head><title>Ledger</title></head>"
        f"<body><nav><a href='/'>Home</a></nav><main>{paras}</main></body></html>",
    )
    _, reader = open_reader(browser, page)
    entries = reader.evaluate(
        "(root) => [...root.querySelectorAll('#article p')].map((p) => p.textContent.split(':')[0])"
    )
    assert entries == [f"Entry {i}" for i in range(80)]
    close(reader, page)


def test_footnotes_link_both_ways_inside_the_reader_and_leave_the_page_address_alone(browser):
    page, _, reader = reader_for(browser, "footnotes.html")
    address = page.evaluate("() => location.href")
    links = reader.evaluate("""(root) => [...root.querySelectorAll('#article a')].map((a) => ({
        text: a.textContent.trim(), href: a.getAttribute('href'), target: a.target,
        lands: a.getAttribute('href').startsWith('#')
               && !!root.getElementById(decodeURIComponent(a.getAttribute('href').slice(1)))}))""")
    by_text = {link["text"]: link for link in links}
    for ref in ("1", "2"):
        assert by_text[ref]["href"] == f"#pith-fn{ref}" and by_text[ref]["lands"] and not by_text[ref]["target"]
    backs = [link for link in links if link["href"] in ("#pith-fnref1", "#pith-fnref2")]
    assert len(backs) == 2 and all(link["lands"] for link in backs)
    # a fragment whose target the article does not hold goes to the page itself, outside the reader
    missing = by_text["a section that the page does not have"]
    assert missing["href"] == page.url.split("#")[0] + "#missing" and missing["target"] == "_blank"
    reader.user_click("#article sup a")
    reader.wait_for(
        "(root) => root.querySelector('.target')?.id === 'pith-fn1' && root.querySelector('.target').localName === 'li'"
    )
    reader.wait_for(
        "(root) => { const r = root.querySelector('.target').getBoundingClientRect();"
        " return r.top >= 0 && r.top < innerHeight; }"
    )  # scrolled to, in the view
    reader.user_click("#article li a[href='#pith-fnref1']")
    reader.wait_for("(root) => root.querySelector('.target')?.id === 'pith-fnref1'")
    assert page.evaluate("() => location.href") == address  # the page's address and history are its own
    close(reader, page)


def test_figures_keep_their_captions_and_the_lead_picture(browser):
    page, _, reader = reader_for(browser, "news.html")
    figure = reader.evaluate("""(root) => { const f = root.querySelector('#article figure');
        return f && {src: new URL(f.querySelector('img').src).pathname, alt: f.querySelector('img').alt,
                     caption: f.querySelector('figcaption').textContent}; }""")
    assert figure == {
        "src": "/reader/images/harbour.svg",
        "alt": "The harbour light at dusk, seen from the ferry's deck",
        "caption": "The harbour light at dusk, seen from the Saltire's deck on its last crossing of the day.",
    }
    close(reader, page)


def test_a_right_to_left_page_reads_right_to_left_in_its_language(browser):
    page, _reply, reader = reader_for(browser, "rtl.html")
    found = reader.evaluate("""(root) => ({lang: root.querySelector('.view').lang,
        title: getComputedStyle(root.getElementById('title')).direction,
        paragraphs: [...root.querySelectorAll('#article p')].map((p) => getComputedStyle(p).direction),
        align: getComputedStyle(root.querySelector('#article p')).textAlign})""")
    assert found["lang"] == "ar" and found["title"] == "rtl"
    assert found["paragraphs"] and set(found["paragraphs"]) == {"rtl"}
    assert found["align"] in ("start", "right")
    assert "مكتبة الحيّ" in reader.text("#title")
    close(reader, page)


HEADED = {
    "title": "The night ferry that refuses to retire",
    "byline": "Morag Ellison",
    "date": "2026-03-14",
    "site_name": "Coastline Gazette",
    "reading_minutes": 4,
    "lang": "en",
    "url": "https://news.example/ferry",
    "html": "<p>At a quarter to midnight the Saltire casts off from the north pier.</p>",
    "text": "x",
}


MONTHS = ["Station"] + [f"Month {n}" for n in range(1, 19)]
WIDE = dict(
    HEADED,
    html="<p>The survey's readings, every station and every month, for the harbour board.</p>"
    "<table><caption>Readings by station</caption><thead><tr>"
    + "".join(f"<th>{m}</th>" for m in MONTHS)
    + "</tr></thead><tbody>"
    + "".join(
        f"<tr><th>Pier {r}</th>" + "".join(f"<td>{r}.{c} m</td>" for c in range(1, 19)) + "</tr>" for r in range(1, 6)
    )
    + "</tbody></table>",
)


def test_a_wide_table_scrolls_sideways_in_its_own_labelled_box_keeping_its_labels(browser):
    page = browser.open("reader/news.html")
    reader = show_article(browser, page, WIDE)
    start = reader.evaluate("""(root) => { const box = root.querySelector('#article .table-scroll');
        const cells = [...box.querySelectorAll('th, td')];
        return {label: box.getAttribute('aria-label'), role: box.getAttribute('role'), tab: box.tabIndex,
                head: [...box.querySelectorAll('thead th')].map((c) => c.textContent),
                wide: box.scrollWidth > box.clientWidth, cut: cells.filter((c) => c.scrollWidth > c.clientWidth).length}; }""")
    assert start == {
        "label": "Table: Readings by station",
        "role": "region",
        "tab": 0,
        "head": MONTHS,
        "wide": True,
        "cut": 0,
    }
    reader.evaluate("(root) => root.querySelector('#article .table-scroll').focus()")
    reader.press("ArrowRight")  # the keyboard scrolls the focused box
    reader.wait_for("(root) => root.querySelector('#article .table-scroll').scrollLeft > 0")
    # scrolled to its end, the row labels and the header row are still in the box's sight
    labels = reader.evaluate("""(root) => { const box = root.querySelector('#article .table-scroll');
        box.scrollLeft = box.scrollWidth;
        const edge = box.getBoundingClientRect(), first = box.querySelector('tbody th').getBoundingClientRect();
        const corner = box.querySelector('thead th').getBoundingClientRect();
        return [box.scrollLeft > 0, Math.abs(first.left - edge.left) < 2, Math.abs(corner.left - edge.left) < 2]; }""")
    assert labels == [True, True, True]
    close(page)


def test_the_header_shows_the_metadata_there_is_and_hides_the_rest(browser):
    page = browser.open("reader/news.html")
    reader = show_article(browser, page, HEADED)
    head = reader.evaluate("""(root) => Object.fromEntries(['site', 'title', 'byline', 'date', 'reading-time', 'meta',
        'source-line'].map((id) => { const e = root.getElementById(id);
        return [id, e.hidden || !e.getClientRects().length ? null : e.textContent]; }))""")
    assert (
        head["site"] == "Coastline Gazette" and head["title"] == HEADED["title"] and head["byline"] == "Morag Ellison"
    )
    assert head["date"] == "March 14, 2026" and head["reading-time"] == "4 min read"
    assert reader.evaluate("(root) => root.getElementById('date').dateTime") == "2026-03-14"
    assert head["source-line"] == "https://news.example/ferry"
    bare = show_article(
        browser,
        page,
        {"title": "Bare", "html": "<p>Only a paragraph here.</p>", "url": "https://news.example/bare", "text": "x"},
    )
    hidden = bare.evaluate("""(root) => ['byline', 'date', 'reading-time', 'meta']
        .filter((id) => !root.getElementById(id).hidden)""")
    assert hidden == []
    assert bare.evaluate("(root) => root.getElementById('site').textContent") == "news.example"  # its host
    assert (
        page.evaluate("() => document.querySelectorAll('html > div[popover]').length") == 1
    )  # the second took its place
    close(page)


def test_the_header_is_the_metadata_the_host_read_and_the_body_leaves_it_out(browser):
    """End to end: the page's structured data through the real host to the reader's header; the headline and
    byline appear there once, not again at the top of the article."""
    page, reply, reader = reader_for(browser, "news.html")
    assert reply["article"]["byline"] == "Morag Ellison" and reply["article"]["date"] == "2026-03-14T07:30:00+00:00"
    head = reader.evaluate("""(root) => Object.fromEntries(['site', 'title', 'byline', 'date'].map((id) =>
        [id, root.getElementById(id).textContent]))""")
    assert head == {
        "site": "Coastline Gazette",
        "title": "The night ferry that refuses to retire",
        "byline": "Morag Ellison",
        "date": "March 14, 2026",
    }
    body = reader.text("#article")
    assert "The night ferry that refuses to retire" not in body and "Morag Ellison" not in body
    close(reader, page)


def settings_of(reader) -> dict:
    return reader.evaluate("""(root) => { const view = root.querySelector('.view'), main = root.querySelector('main');
        const style = getComputedStyle(view);
        return {theme: view.dataset.theme, font: view.dataset.font, width: view.dataset.width,
                lineHeight: view.dataset.lineHeight, fontSize: parseFloat(style.fontSize),
                family: style.fontFamily, leading: parseFloat(style.lineHeight) / parseFloat(style.fontSize),
                measure: parseFloat(getComputedStyle(main).maxWidth), background: style.backgroundColor}; }""")


FONT_SIZE = "(root, px) => parseFloat(getComputedStyle(root.querySelector('.view')).fontSize) === px"


def test_settings_change_the_view_and_are_remembered_for_the_next_one(browser):
    page = browser.open("reader/news.html")
    reader = show_article(browser, page, HEADED)
    before = settings_of(reader)
    assert before["theme"] == "auto" and before["font"] == "serif" and before["width"] == "medium"
    reader.click("#settings-button")
    assert reader.evaluate("(root) => !root.getElementById('settings').hidden")
    backgrounds = {}
    for theme in ("light", "sepia", "dark"):
        reader.click(f"[data-setting=readerTheme][data-value={theme}]")
        reader.wait_for("(root, t) => root.querySelector('.view').dataset.theme === t", theme)
        backgrounds[theme] = settings_of(reader)["background"]
    assert len(set(backgrounds.values())) == 3
    reader.click("[data-setting=readerFont][data-value=sans]")
    reader.click("[data-setting=readerWidth][data-value=narrow]")
    reader.click("[data-setting=readerLineHeight][data-value=loose]")
    reader.click("#larger")
    reader.click("#larger")
    reader.wait_for(FONT_SIZE, before["fontSize"] + 2)
    after = settings_of(reader)
    assert after["family"] != before["family"] and "sans" in after["family"].lower()
    assert after["leading"] > before["leading"]
    assert after["measure"] < before["measure"]  # in em: the column is narrower for the same text size
    assert reader.evaluate("(root) => root.querySelector('[data-value=narrow]').getAttribute('aria-pressed')") == "true"
    # the next article, on another page, opens the way the reader left the last one
    other = browser.open("reader/docs.html")
    again = show_article(browser, other, HEADED)
    again.wait_for("(root) => root.querySelector('.view').dataset.theme === 'dark'")
    remembered = settings_of(again)
    assert {k: remembered[k] for k in ("theme", "font", "width", "lineHeight", "fontSize")} == {
        "theme": "dark",
        "font": "sans",
        "width": "narrow",
        "lineHeight": "loose",
        "fontSize": before["fontSize"] + 2,
    }
    again.click("#settings-button")
    for name, value in (
        ("readerTheme", "auto"),
        ("readerFont", "serif"),
        ("readerWidth", "medium"),
        ("readerLineHeight", "normal"),
    ):  # as it was, for the other tests
        again.click(f"[data-setting={name}][data-value={value}]")
    again.click("#smaller")
    again.click("#smaller")
    again.wait_for(FONT_SIZE, before["fontSize"])
    reader.wait_for(FONT_SIZE, before["fontSize"])  # a change in one open reader shows in the other
    assert settings_of(reader)["theme"] == "auto"
    close(page, other)


def test_escape_and_the_reader_shortcut_go_back_to_the_page_as_it_was(browser):
    page = browser.open("reader/news.html")
    page.evaluate(
        "() => { window.scrollTo(0, 300); window.keys = []; document.addEventListener('keydown',"
        " (e) => window.keys.push(e.key)); }"
    )
    scrolled = page.evaluate("() => window.scrollY")
    _, reader = open_reader(browser, page)
    reader.press("PageDown")  # the view scrolls, the page under it does not, and never hears the key
    reader.wait_for("(root) => root.querySelector('.view').scrollTop > 0")
    assert reader.evaluate("(root) => root.hasFocus() && root.activeElement.className") == "view"  # focus moved in
    reader.press("Escape")
    reader.wait_closed()
    assert page.evaluate("() => [window.scrollY, window.keys]") == [scrolled, []]
    assert browser.call("(id) => api.tabs.get(id).then((t) => t.active)", browser.tab_id(page))
    page.press("Enter")  # the keyboard focus is back in the page
    page.wait_for("() => window.keys.includes('Enter')")
    # the reader action again (what the shortcut, the popup and the menu send) toggles it off the same way
    open_reader(browser, page)
    closed = browser.send({"type": "pith.run", "action": "reader", "tabId": browser.tab_id(page)})
    assert closed == {"ok": True, "action": "reader", "closed": True}
    assert not reader.shown()
    # and the back button
    _, reader = open_reader(browser, page)
    reader.click("#close")  # a script's click does nothing: only the user's own
    reader.user_click("#close")
    reader.wait_closed()
    assert page.errors() == []
    close(page)


SCROLL_TOP = "(root) => root.querySelector('.view').scrollTop"
ACTIVE = "(root) => root.hasFocus() && (root.activeElement.id || root.activeElement.className)"


def test_the_keyboard_closes_the_panel_then_the_reader_and_scrolls_the_article_in_between(browser):
    page = browser.open("reader/news.html")
    page.evaluate("() => document.querySelector('.byline a').focus()")
    _, reader = open_reader(browser, page)
    # Tab walks the toolbar in reading order, each control with a ring that shows
    order = []
    for _ in range(5):
        reader.press("Tab")
        order.append(
            reader.evaluate("""(root) => { const el = root.activeElement, style = getComputedStyle(el);
            return [el.id, style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2]; }""")
        )
    assert order == [["close", True], ["copy", True], ["save", True], ["format", True], ["settings-button", True]]
    # a control used in the "Aa" panel, then Esc: the panel closes and the focus is back on its button
    reader.user_click("#settings-button")
    reader.user_click("[data-setting=readerLineHeight][data-value=normal]")  # the default: others see no change
    reader.press("Escape")
    reader.wait_for("(root) => root.getElementById('settings').hidden")
    assert reader.evaluate(ACTIVE) == "settings-button"
    assert reader.evaluate("(root) => root.getElementById('settings-button').getAttribute('aria-expanded')") == "false"
    for key in ("PageDown", "Space", "ArrowDown"):  # each key scrolls the article further
        top = reader.evaluate(SCROLL_TOP)
        if key == "Space":  # Space on a button presses it: from the text it scrolls
            # a paragraph in view once PageDown's scroll has come to rest (it may take the first one out of it)
            reader.wait_for(f"""(root) => {{ const top = ({SCROLL_TOP})(root), still = root.pithLastTop === top;
                root.pithLastTop = top; return still; }}""")
            reader.evaluate("""(root) => [...root.querySelectorAll('#article p')].find((p) => {
                const r = p.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })
                .setAttribute('data-in-view', '')""")
            reader.user_click("#article p[data-in-view]")
        reader.press(key)
        reader.wait_for(f"(root, top) => ({SCROLL_TOP})(root) > top", top)
    reader.press("Escape")  # and Esc again leaves the reader, back to where the focus was in the page
    reader.wait_closed()
    assert page.evaluate("() => document.activeElement.getAttribute('href')") == "/authors/morag-ellison"
    close(page)


def test_escape_leaves_the_reader_wherever_the_focus_fell(browser):
    page, _, reader = reader_for(browser, "news.html")
    reader.user_click("#settings-button")
    reader.user_click("#larger")
    reader.user_click("#smaller")  # as it was for the other tests
    # the focused control goes away under the focus (the panel closed by the mouse): Esc still leaves
    reader.user_click("#settings-button")
    reader.evaluate("(root) => root.activeElement.blur()")
    reader.press("PageDown")
    reader.wait_for(f"(root) => ({SCROLL_TOP})(root) > 0")
    reader.press("Escape")
    reader.wait_closed()
    close(page)


def test_the_frame_covers_the_whole_window_scrollbars_included(browser):
    page = browser.open("reader/news.html")
    page.evaluate("() => { document.body.style.minWidth = '3000px'; }")  # scrollbars both ways
    window = page.evaluate(
        "() => [innerWidth, innerHeight, innerWidth > document.documentElement.clientWidth,"
        " innerHeight > document.documentElement.clientHeight]"
    )
    _, reader = open_reader(browser, page)
    host = page.evaluate("""() => { const r = [...document.documentElement.children].find((e) => e.matches('[popover]'))
        .getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }""")
    inner = reader.evaluate("() => [innerWidth, innerHeight]")
    width, height = window[:2]
    assert host[:2] == [0, 0] and host[2] >= width and host[3] >= height, (host, window)
    assert inner[0] >= width and inner[1] >= height, (inner, window)
    close(page)


def test_copy_as_markdown_and_save_from_the_reader(browser):
    page, _reply, reader = reader_for(browser, "docs.html")
    reader.evaluate("""() => { globalThis.copied = [];
        const write = navigator.clipboard.writeText.bind(navigator.clipboard);
        navigator.clipboard.writeText = (text) => { globalThis.copied.push(text); return write(text); }; }""")
    reader.user_click("#copy")  # the clipboard takes text only from a user's gesture
    reader.wait_for("(root) => !root.getElementById('status').hidden")
    copied = reader.evaluate("() => globalThis.copied")
    assert len(copied) == 1, reader.text("#status")
    markdown = copied[0]
    assert "```python\nfrom tidepool import load_config, Station\n\ndef main(path: str) -> None:" in markdown
    assert "```toml\n# tidepool.toml" in markdown and "`load_config()`" in markdown
    assert reader.text("#status") == "Copied the article as Markdown"
    # Save, as Markdown then as text, lands in the downloads folder
    for fmt, suffix in (("markdown", ".md"), ("text", ".txt")):
        reader.evaluate(
            "(root, v) => { const s = root.getElementById('format'); s.value = v;"
            " s.dispatchEvent(new Event('change')); }",
            fmt,
        )
        reader.user_click("#save")  # the user's own click: a script's does nothing (test_page_attack.py)
        reader.wait_for(
            "(root, s) => root.getElementById('status').textContent.startsWith('Saved ')"
            " && root.getElementById('status').textContent.endsWith(s)",
            suffix,
        )
        name = reader.text("#status").removeprefix("Saved ")
        saved = browser.downloads / name
        item = browser.call(
            "(n) => api.downloads.search({}).then((d) => d.filter((x) => x.filename.endsWith(n)))", name
        )
        assert item and wait_for_download(browser, item[-1]["id"])["state"] == "complete"
        content = saved.read_text(encoding="utf-8")
        assert "def main(path: str) -> None:" in content
        if fmt == "markdown":
            assert content == markdown  # the same document as the copy
        else:
            assert "```" not in content
    browser.call("() => api.storage.local.set({saveFormat: 'markdown'})")
    close(page)


def test_the_background_takes_no_message_from_a_content_script(browser):
    """Nothing that runs in a page's tab, the extension's own content scripts included, can ask the background
    to save, close a frame or run an action: only the extension's pages (the popup, the reader's frame) can."""
    page, _, reader = reader_for(browser, "news.html")
    downloads = len(browser.call("() => api.downloads.search({})"))
    replies = browser.call(
        """([tabId]) => api.scripting.executeScript({target: {tabId}, func: async () => {
        const api = globalThis.browser ?? globalThis.chrome;
        const send = (m) => api.runtime.sendMessage(m).then((r) => r ?? null, (e) => 'refused');
        return Promise.all([
          send({type: 'pith.reader.save', doc: {filename: 'a.md', mime: 'text/markdown', content: 'x'}}),
          send({type: 'pith.frame.close', kind: 'reader'}),
          send({type: 'pith.run', action: 'save'})]); }}).then((r) => r[0].result)""",
        [browser.tab_id(page)],
    )
    assert all(r in (None, "refused") for r in replies), replies
    assert reader.shown() and len(browser.call("() => api.downloads.search({})")) == downloads
    close(page)


STRICT_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Strict</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; style-src 'self'; script-src 'self'">
<link rel="stylesheet" href="/reader/hostile-style.css"></head>
<body><nav><a href="/">Home</a> <a href="/about">About</a></nav><main><h1>A page that restyles everything</h1>
<p>The harbour master kept a ledger of every crossing the ferry made that winter, in a careful hand.</p>
<p>Each entry gave the hour of casting off, the tide, the weather and the number of passengers aboard.</p>
<p>By spring the ledger ran to four volumes, and the council asked for a copy for the town's archive.</p>
</main></body></html>"""
HOSTILE_STYLE = """* { font-family: monospace !important; color: rgb(255, 0, 0) !important; }
div, iframe, [popover] { display: none !important; opacity: 0 !important; }
html > * { visibility: hidden !important; }
p { font-size: 5px !important; }"""


def test_the_page_can_neither_restyle_nor_read_the_view_and_its_csp_does_not_stop_it(browser):
    browser.server.put("/reader/hostile-style.css", HOSTILE_STYLE, "text/css")
    page = browser.open_markup("reader/strict.html", STRICT_PAGE)
    assert page.evaluate("() => getComputedStyle(document.querySelector('p')).color") == "rgb(255, 0, 0)"
    _, reader = open_reader(browser, page)
    found = reader.evaluate("""(root) => { const view = root.querySelector('.view'), p = root.querySelector('#article p');
        return {color: getComputedStyle(p).color, font: getComputedStyle(p).fontFamily,
                size: parseFloat(getComputedStyle(p).fontSize), background: getComputedStyle(view).backgroundColor,
                width: innerWidth, height: innerHeight}; }""")
    assert found["color"] != "rgb(255, 0, 0)" and "monospace" not in found["font"] and found["size"] > 12, found
    assert found["background"] == "rgb(251, 250, 247)", found
    host = page.evaluate("""() => { const host = document.querySelector('html > div[popover]'), r = host.getBoundingClientRect();
        return {covers: r.left === 0 && r.top === 0 && r.width === innerWidth && r.height === innerHeight,
                visible: getComputedStyle(host).visibility, display: getComputedStyle(host).display}; }""")
    assert host == {"covers": True, "visible": "visible", "display": "block"}, host
    assert [found["width"], found["height"]] == page.evaluate("() => [innerWidth, innerHeight]")  # the frame too
    # the page's scripts find the element, never what is in it
    assert page.evaluate(
        "() => { const host = document.querySelector('html > div[popover]');"
        " return [host.shadowRoot, host.textContent, document.body.innerText.includes('Copy as')]; }"
    ) == [None, "", False]
    # and Pith's own elements are never read as the page's content
    nodes = browser.live_snapshot(page)["snapshot"]["nodes"]
    assert not any(n["tag"].startswith("pith-") for n in nodes)
    close(page)


SPARE = (
    "(root) => !root.documentElement.dataset.shown && root.querySelector('.view') && root.querySelector('.view').hidden"
)
# Pith's frames over the page that are inert (a note may be there too, not inert)
INERT = "() => [...document.documentElement.children].filter((e) => e.matches('[popover]') && e.inert).length"


def test_leaving_the_reader_lays_a_spare_frame_that_the_next_reader_takes_and_replaces(browser):
    """Once the user leaves the reader, a reader frame waits over the page for the next click, its page loaded
    and its view built: inert (the page keeps the keyboard and the clicks) and not a reader (the reader action
    opens one rather than closing it). The next Reader view is shown in that very frame, with the settings as
    they are then, and leaving it lays a new spare."""
    page = browser.open("reader/news.html")
    page.evaluate(
        "() => { window.heard = []; for (const type of ['keydown', 'click'])"
        " document.addEventListener(type, (e) => window.heard.push(e.type + ':' + (e.key || ''))); }"
    )
    _, reader = open_reader(browser, page)
    reader.press("Escape")
    reader.wait_closed()
    reader.wait_for(f"(root) => ({SPARE})(root) && (window.mark = 'spare one')")  # the spare, marked
    assert page.evaluate(INERT) == 1 and len(browser.frames_of(page, READER_PAGE)) == 1
    page.press("Enter")  # the keyboard and the mouse still reach the page
    x, y = page.evaluate(
        "() => { const r = document.querySelector('p').getBoundingClientRect(); return [r.x + 5, r.y + 5]; }"
    )
    page.click_at(int(x), int(y))
    page.wait_for("() => window.heard.includes('keydown:Enter') && window.heard.includes('click:')")
    theme = browser.call("() => api.storage.local.get('readerTheme').then((s) => s.readerTheme ?? null)")
    other = "sepia" if theme != "sepia" else "dark"
    browser.call(f"() => api.storage.local.set({{readerTheme: '{other}'}})")  # changed while the spare waits
    try:
        _, reader = open_reader(browser, page)
        assert reader.evaluate("() => window.mark ?? null") == "spare one"  # the spare, not a new frame
        assert reader.evaluate("(root) => root.querySelector('.view').dataset.theme") == other
        assert page.evaluate(INERT) == 0 and len(browser.frames_of(page, READER_PAGE)) == 1
        closed = browser.send({"type": "pith.run", "action": "reader", "tabId": browser.tab_id(page)})
        assert closed == {"ok": True, "action": "reader", "closed": True}
        reader.wait_for(f"(root) => ({SPARE})(root) && !window.mark")  # a new spare, not the one used
        assert page.evaluate(INERT) == 1
    finally:
        restore = f"{{readerTheme: '{theme}'}}" if theme else "'readerTheme'"
        browser.call(f"() => api.storage.local.{'set' if theme else 'remove'}({restore})")
    assert page.errors() == []
    close(page)


def test_a_reader_over_a_page_read_before_walks_it_in_its_own_world_and_a_page_in_the_way_changes_nothing(browser):
    """From the second Reader view on a page, the walk runs in the page's own world (Firefox reads a page's nodes
    from the isolated world through a wrapper, half the walk's time); the reader is the same. A page whose own
    world throws, answers in the wrong shape or leaves the walk undefined gets the isolated walk, and the same
    reader again (docs/security.md, "The reader's walk")."""
    page = browser.open("reader/news.html")
    assert page.evaluate("() => typeof globalThis.__pithSnapshot") == "undefined"
    _, reader = open_reader(browser, page)  # the first: the isolated walk alone
    article = reader.text("#article")
    assert page.evaluate("() => typeof globalThis.__pithSnapshot") == "undefined"
    in_the_way = [
        None,  # the page's world as the walk left it
        "() => { globalThis.__pithSnapshot.take = () => { throw new Error('not today'); }; }",
        "() => { globalThis.__pithSnapshot.take = () => ({ json: 42, nodes: 'many' }); }",
        "() => { Document.prototype.createTreeWalker = () => null; delete globalThis.__pithSnapshot; }",
    ]
    for script in in_the_way:
        reader.press("Escape")
        reader.wait_closed()
        if script:
            page.evaluate(script)
        _, reader = open_reader(browser, page)
        assert reader.text("#article") == article, script
        if script is None:  # the walk ran in the page's world: its entry point is there, and no node map
            assert page.evaluate("() => typeof globalThis.__pithSnapshot.take") == "function"
            assert page.evaluate("() => typeof globalThis.__pith") == "undefined"
    reader.press("Escape")
    reader.wait_closed()
    close(page)


def test_a_spare_frame_the_page_took_off_before_it_loaded_is_laid_again_by_the_next_reader(browser):
    """A page that takes Pith's spare frame off as soon as it is laid (a script that keeps its own children of
    <html>) leaves no fast reader behind, but the next Reader view still shows: its frame is laid afresh."""
    page = browser.open("reader/news.html")
    _, reader = open_reader(browser, page)
    page.evaluate(
        """() => { window.removed = 0; const watch = new MutationObserver((records) => {
        for (const r of records) for (const n of r.addedNodes)
          if (n.nodeType === 1 && n.matches('[popover]') && n.inert) { n.remove(); window.removed++; watch.disconnect(); }
        }); watch.observe(document.documentElement, {childList: true}); }"""
    )
    reader.press("Escape")
    reader.wait_closed()
    page.wait_for("() => window.removed === 1")  # the spare, gone before its frame loaded
    assert page.evaluate(INERT) == 0
    reply, reader = open_reader(browser, page)
    assert reply["reader"] is True and reader.text("h1")
    assert page.evaluate(INERT) == 0 and len(browser.frames_of(page, READER_PAGE)) == 1
    assert page.errors() == []
    close(page)
