"""The reader by page type in Chromium and Firefox: a thread as posts with their authors, a listing as items
with their links, a product with its specifications table and its questions with their answers, and code
blocks under a bar naming their language with a button that copies the code.

The pages are tests/pages/extension/reader/ (tests/test_shape.py reads them on the host's side). The host
runs the stand-in model of tests/host_support.py, which has no page-type head: each page's type is the one its
structured data states."""

from __future__ import annotations

from browser import close

# The same browsers with the host and the stand-in model, and the same way to the reader, as the reader's tests.
from test_reader_view import browser, reader_for  # noqa: F401


def test_a_thread_shows_its_posts_each_with_its_author_and_date_and_quotes_set_apart(browser):
    page, _, reader = reader_for(browser, "forum.html")
    posts = reader.evaluate("""(root) => [...root.querySelectorAll('#article section.pith-post')].map((s) => ({
        author: s.querySelector('h3').textContent, date: s.querySelector('time').dateTime,
        quotes: [...s.querySelectorAll('blockquote')].map((q) => q.textContent.trim()),
        indented: [...s.querySelectorAll('blockquote')].every((q) => parseFloat(getComputedStyle(q).paddingLeft) > 0),
        text: s.textContent}))""")
    assert [p["author"] for p in posts] == ["kelpie", "skerryman", "kelpie"]
    assert posts[0]["date"] == "2026-02-03T08:12:00Z"
    assert posts[1]["quotes"][0].startswith("kelpie wrote:") and posts[1]["indented"]
    assert "Fit a check valve in the hose" in posts[2]["quotes"][0]
    assert reader.evaluate("(root) => root.getElementById('article').dataset.shape") == "forum"
    shown = reader.text("#article")
    for gone in ("Winter Sailor", "Helpful Hand", "leaks from somewhere new", "never about varnish"):
        assert gone not in shown
    close(reader, page)


def test_a_listing_shows_its_items_each_with_a_linked_title_snippet_and_picture(browser):
    page, _, reader = reader_for(browser, "listing.html")
    items = reader.evaluate("""(root) => [...root.querySelectorAll('#article .pith-items li')].map((li) => ({
        title: li.querySelector('a').textContent, href: li.querySelector('a').href,
        image: li.querySelector('img') && li.querySelector('img').src, text: li.textContent}))""")
    assert len(items) == 4
    assert items[2]["title"] == "Out to the lighthouse at low water"
    assert items[2]["href"] == browser.base_url + "walks/lighthouse"
    assert items[2]["image"] == browser.base_url + "reader/images/lighthouse.svg"
    assert "check the tide table before you go" in items[2]["text"]
    close(reader, page)


def test_a_product_shows_its_price_specifications_table_and_questions_with_answers(browser):
    page, _, reader = reader_for(browser, "product.html")
    assert reader.text("#article .pith-product strong") == "£64.50"
    rows = reader.evaluate("""(root) => [...root.querySelectorAll('#article table tr')].map((tr) =>
        [...tr.children].map((c) => c.localName + ':' + c.textContent))""")
    assert rows[0] == ["th:Height", "td:28 cm with the handle folded down"] and len(rows) == 4
    faq = reader.evaluate("""(root) => [...root.querySelectorAll('#article section.pith-faq')].map((s) =>
        [s.querySelector('h3').textContent, s.querySelector('p').textContent])""")
    assert [q for q, _ in faq] == [
        "Can it burn vegetable oil or diesel instead of lamp paraffin on a long passage?",
        "Is it safe to hang it lit inside the cabin overnight while the crew sleeps?",
    ]
    assert faq[1][1].startswith("Only with a ventilator open")
    close(reader, page)


def test_code_blocks_name_their_language_and_the_copy_button_copies_the_code(browser):
    page, _, reader = reader_for(browser, "docs-languages.html")
    bars = reader.evaluate("""(root) => [...root.querySelectorAll('#article .code-block')].map((b) =>
        [b.querySelector('.code-language').textContent, b.querySelector('.copy-code').getAttribute('aria-label')])""")
    assert bars == [["python", "Copy the python code"], ["js", "Copy the js code"]]
    reader.evaluate("""() => { globalThis.copied = [];
        const write = navigator.clipboard.writeText.bind(navigator.clipboard);
        navigator.clipboard.writeText = (text) => { globalThis.copied.push(text); return write(text); }; }""")
    button = "#article .code-block[data-language=js] .copy-code"
    reader.evaluate("(root, s) => root.querySelector(s).scrollIntoView({block: 'center'})", button)
    reader.user_click(button)  # the clipboard takes text only from a user's gesture
    reader.wait_for("(root) => !root.getElementById('status').hidden")
    assert reader.text("#status") == "Copied the code"
    assert reader.evaluate("() => globalThis.copied") == [
        'import { tideTable } from "seawall";\n\nconst table = await tideTable("stromness-2026.json");\n'
        'console.log(table.nextHigh("2026-03-12T09:00"));'
    ]
    reader.click(button)  # a script's click copies nothing
    assert len(reader.evaluate("() => globalThis.copied")) == 1
    close(reader, page)
