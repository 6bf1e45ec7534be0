"""Saving as the options page shapes it, in headless Chromium and Firefox with the real host: the template
written in the options page names the file and makes its head, the folder chosen there is where it lands in
Downloads, the page's selection is a variable, and what lands is what native_host/render/document.py makes
of the same article (tests/test_document.py ties the two engines case by case)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from browser import KINDS, PAGES, browser_with_host, close, open_popup, open_reader, shown_note, wait_for_download

from native_host.render import document as D

TITLE = "The Future of Banking Is Here, and You're Broke: a lighthouse story"
TEMPLATE = {
    "name": "{{published|date:YYYY}} {{title}}",
    "properties": {
        "title": "{{title}}",
        "author": ["{{author}}"],
        "site": "{{site|lower}}",
        "created": "{{created|date:YYYY-MM-DD}}",
        "words": "{{words}}",
        "tags": ["clippings", "{{site|slug}}"],
        "quote": "{{selection}}",
    },
}
OPTIONS = "options/options.html"


@pytest.fixture(scope="module", params=KINDS)
def browser(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"save-{request.param}")
    with browser_with_host(request.param, tmp, None) as b:
        yield b


@pytest.fixture()
def clean(browser):
    yield browser
    browser.call(
        "() => api.storage.local.remove(['saveTemplate', 'saveFolder', 'saveAs', 'saveFormat', 'saveImages',"
        " 'saveImagesAs'])"
    )


def _page(b, name: str):
    html = (PAGES / "article.html").read_text(encoding="utf-8")
    return b.open_markup(name, html.replace("Why the harbour lighthouse still runs on clockwork", TITLE))


def _options(b):
    options = b.open_extension_page(OPTIONS)
    options.wait_for("() => document.documentElement.dataset.ready === 'true'")
    return options


def _type(tab, element_id: str, value: str) -> None:
    tab.evaluate(
        """([id, value]) => { const field = document.getElementById(id); field.value = value;
                    field.dispatchEvent(new Event('input', { bubbles: true })); }""",
        [element_id, value],
    )


def _save_options(tab) -> None:
    before = tab.evaluate("() => Number(document.documentElement.dataset.saved || 0)")
    tab.click("#save")
    tab.wait_for("(n) => Number(document.documentElement.dataset.saved || 0) > n", before)


def test_the_options_template_and_folder_name_and_shape_the_saved_file(clean):
    b = clean
    options = _options(b)
    assert json.loads(options.evaluate("() => document.getElementById('template').value")) == D.DEFAULT_TEMPLATE
    _type(options, "template", json.dumps(TEMPLATE, indent=1))
    _type(options, "folder", "Clippings/Pith")
    preview = options.evaluate(
        "() => [document.getElementById('preview-name').textContent, document.getElementById('preview').textContent]"
    )
    assert preview[0] == "Clippings/Pith/2026 The Future of Banking Is Here, and You're Broke.md"
    assert preview[1].startswith('---\ntitle: "The Future of Banking Is Here, and You\'re Broke"\nauthor:\n')
    _save_options(options)
    close(options)

    page = _page(b, "/banking.html")
    page.evaluate("() => getSelection().selectAllChildren(document.querySelector('article p:nth-of-type(2)'))")
    selection = page.evaluate("() => String(getSelection())")
    reply = b.run("save", page)
    assert reply["ok"], reply
    item = wait_for_download(b, reply["downloadId"])
    assert item["state"] == "complete", item
    saved = Path(item["filename"])
    year = (reply["article"]["date"] or "")[:4]
    name = f"{year} {TITLE.replace(': ', ' - ')}.md".lstrip()
    assert saved == b.downloads / "Clippings" / "Pith" / name and reply["filename"] == f"Clippings/Pith/{name}"
    text = saved.read_text(encoding="utf-8")
    created = text.split("\ncreated: ")[1].split("\n")[0]
    values = D.variables(reply["article"], created + "T00:00:00+00:00", selection)
    head = D.front_matter(D.properties(TEMPLATE, values))
    assert text.startswith(head + "\n") and f'\nquote: "{" ".join(selection.split())}"\n' in head
    assert '  - "coastline-gazette"\n' in head and f"\nwords: {reply['article']['word_count']}\n" in head
    body = text.split("---\n\n", 1)[1]  # the selection alone: its one paragraph
    assert body.startswith("Every evening at dusk") and body.count("\n\n") == 0 and "harbour board" not in body
    assert reply["selection"] is True
    close(page)


def test_save_takes_the_blocks_a_selection_touches_as_markdown_and_the_whole_article_without_one(clean):
    b = clean
    page = _page(b, "/banking-selection.html")
    page.evaluate("""() => { const [h2] = document.querySelectorAll('article h2'); const p = h2.nextElementSibling;
        const range = document.createRange(); range.setStart(h2.firstChild, 4); range.setEnd(p.firstChild, 10);
        getSelection().removeAllRanges(); getSelection().addRange(range); }""")
    reply = b.run("save", page)
    assert reply["ok"] and reply["selection"] is True, reply
    item = wait_for_download(b, reply["downloadId"])
    assert item["state"] == "complete", item
    text = Path(item["filename"]).read_text(encoding="utf-8")
    head, body = text.split("---\n\n", 1)
    assert head.startswith('---\ntitle: "The Future of Banking') and '\ntags:\n  - "clippings"\n' in head
    assert body.startswith("## A weight, a governor and a great deal of patience\n\nThe mechanism is simple")
    assert body.count("\n\n") == 1 and "Every evening" not in body and "Reid learned" not in body
    assert shown_note(b, page)["title"] == "Selection saved"
    page.evaluate("() => getSelection().removeAllRanges()")
    whole = b.run("save", page)
    assert whole["ok"] and whole["selection"] is False
    item = wait_for_download(b, whole["downloadId"])  # beside the first: "... (1).md"
    assert item["state"] == "complete", item
    body = Path(item["filename"]).read_text(encoding="utf-8").split("---\n\n", 1)[1]
    assert body.startswith("Every evening at dusk") and "Reid learned" in body
    close(page)


def test_the_reader_saves_text_by_the_same_template(clean):
    b = clean
    b.call(
        "(t) => api.storage.local.set({ saveTemplate: t, saveFormat: 'text' })",
        json.dumps({"name": "{{title|slug}}", "properties": {"title": "{{title}}", "by": "{{author}}"}}),
    )
    page = _page(b, "/banking-reader.html")
    reply, view = open_reader(b, page)
    view.evaluate(
        "(root) => { const s = root.getElementById('format'); s.value = 'text'; s.dispatchEvent(new Event('change')); }"
    )
    view.user_click("#save")  # Save acts on the user's own click only
    view.wait_for("(root) => root.getElementById('status').textContent.startsWith('Saved ')")
    name = view.text("#status").removeprefix("Saved ")
    assert name == "the-future-of-banking-is-here-and-you-re-broke-a-lighthouse-story.txt"
    item = b.call("(n) => api.downloads.search({}).then((d) => d.filter((x) => x.filename.endsWith(n)))", name)
    assert item and wait_for_download(b, item[-1]["id"])["state"] == "complete"
    saved = b.downloads / name
    text = saved.read_text(encoding="utf-8")
    byline = reply["article"]["byline"]
    assert text.startswith(f"{TITLE}\n{'=' * len(TITLE)}\n\nby: {byline}\n\nEvery evening at dusk")
    close(page)


def test_the_options_page_names_every_problem_and_stores_nothing_until_it_reads(clean):
    b = clean
    options = _options(b)
    _type(options, "template", '{"name": "{{titel}}", "properties": {"a:b": 3}}')
    _type(options, "folder", "Clippings/../CON")
    shown = options.evaluate("""() => ({ errors: [...document.querySelectorAll('#errors li')].map((li) => li.textContent),
        folder: document.getElementById('folder-error').textContent, disabled: document.getElementById('save').disabled,
        invalid: document.getElementById('template').getAttribute('aria-invalid') })""")
    assert shown["errors"] == D.template_errors({"name": "{{titel}}", "properties": {"a:b": 3}})
    assert shown["folder"] == '".." cannot be a folder name on every system: try "article"'
    assert shown["disabled"] is True and shown["invalid"] == "true"
    options.click("#save")
    assert b.call("() => api.storage.local.get(null)").get("saveTemplate") is None
    _type(options, "folder", "Clippings")
    options.click("#reset")
    assert options.evaluate(
        "() => document.getElementById('errors').hidden && !document.getElementById('save').disabled"
    )
    options.evaluate("() => { document.getElementById('save-as').checked = true; }")
    _save_options(options)
    close(options)
    stored = b.call("() => api.storage.local.get(null)")
    assert json.loads(stored["saveTemplate"]) == D.DEFAULT_TEMPLATE
    assert (stored["saveFolder"], stored["saveAs"], stored["saveImages"]) == ("Clippings", True, False)
    again = _options(b)
    assert again.evaluate(
        "() => [document.getElementById('folder').value, document.getElementById('save-as').checked]"
    ) == ["Clippings", True]
    close(again)


def test_the_popup_opens_the_options_page(clean):
    b = clean
    page = b.open("article.html")
    popup = open_popup(b, page)
    popup.click("#options")
    options = b.call("""async () => { for (let i = 0; i < 300; i++) {
        const tabs = await api.tabs.query({});
        const found = tabs.find((t) => (t.url || '').endsWith('/options/options.html'));
        if (found) return found.url;
        await new Promise((r) => setTimeout(r, 100)); } return null; }""")
    assert options == f"{b.origin}/{OPTIONS}"
    close(popup, page)


def _save_with_images(b, settings: str):
    """Save article.html with the image options `settings` (a JavaScript object): (page, reply, saved file)."""
    b.call(f"() => api.storage.local.set({settings})")
    page = b.open("article.html")
    reply = b.run("save", page)
    assert reply["ok"] and reply["images"] == {"saved": 1, "failed": 0}, reply
    item = wait_for_download(b, reply["downloadId"])
    assert item["state"] == "complete", item
    return page, reply, Path(item["filename"])


def test_images_are_saved_beside_the_markdown_and_linked_there(clean):
    """With the option on, the article's image is fetched as the browser has it, saved under its content's
    name in images/ of the save folder, and the Markdown points at it; a second save finds the same file."""
    b = clean
    page, _reply, saved = _save_with_images(b, "{ saveImages: true, saveFolder: 'Clips' }")
    text = saved.read_text(encoding="utf-8")
    lens = (PAGES / "images" / "lens.png").read_bytes()
    name = D.image_name(lens, "png")
    assert f"![The lighthouse lens seen from the lamp room]({name})" in text and "lens.png" not in text
    image = b.downloads / "Clips" / name
    b.call(
        """async (n) => { for (let i = 0; i < 300; i++) {
        const d = await api.downloads.search({ state: 'complete' });
        if (d.some((x) => x.filename.endsWith(n))) return; await new Promise((r) => setTimeout(r, 100)); } }""",
        name[7:],
    )
    assert image.read_bytes() == lens
    again = b.run("save", page)
    assert again["ok"] and again["images"] == {"saved": 1, "failed": 0}
    wait_for_download(b, again["downloadId"])
    assert sorted(p.name for p in (b.downloads / "Clips" / "images").iterdir()) == [name[7:]]
    assert shown_note(b, page)["text"].endswith("1 images saved.")
    close(page)


def test_images_and_the_markdown_go_in_one_zip_whose_links_name_its_files(clean):
    """With "in one .zip", Save downloads one file: a stored zip that Python's zipfile reads (its CRC-32s
    checked), holding the Markdown under the file's name and the image in images/, which the Markdown links."""
    b = clean
    page, reply, path = _save_with_images(b, "{ saveImages: true, saveImagesAs: 'zip', saveFolder: 'Zips' }")
    assert path.parent == b.downloads / "Zips" and path.suffix == ".zip" and reply["filename"].endswith(".zip")
    lens = (PAGES / "images" / "lens.png").read_bytes()
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None  # every entry's CRC-32 as written
        names = z.namelist()
        assert names == [path.stem + ".md", D.image_name(lens, "png")]
        markdown = z.read(names[0]).decode("utf-8")
        links = D.image_links(markdown)
        assert links == [D.image_name(lens, "png")] and all(link in names for link in links)
        assert z.read(links[0]) == lens and all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist())
    assert markdown.startswith('---\ntitle: "') and "Every evening at dusk" in markdown
    assert not (b.downloads / "Zips" / "images").exists()  # nothing beside the zip
    close(page)


def test_the_readers_save_takes_the_images_as_the_options_say(clean):
    """Save in the reader follows the image options as the popup's Save does: here one .zip holding the
    Markdown and the image it links, and the reader says how many images went with it."""
    b = clean
    b.call("() => api.storage.local.set({ saveImages: true, saveImagesAs: 'zip', saveFolder: 'ReaderZips' })")
    page = b.open("article.html")
    _reply, view = open_reader(b, page)
    view.user_click("#save")
    view.wait_for("(root) => root.getElementById('status').textContent.startsWith('Saved ')")
    said = view.text("#status")
    name = said.removeprefix("Saved ").split(" with ")[0]
    assert name.startswith("ReaderZips/") and name.endswith(".zip") and said.endswith(" with 1 images"), said
    item = b.call("(n) => api.downloads.search({}).then((d) => d.filter((x) => x.filename.endsWith(n)))", name)
    path = Path(wait_for_download(b, item[-1]["id"])["filename"])
    assert path.parent == b.downloads / "ReaderZips"
    lens = (PAGES / "images" / "lens.png").read_bytes()
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None and z.namelist() == [path.stem + ".md", D.image_name(lens, "png")]
        markdown = z.read(z.namelist()[0]).decode("utf-8")
        assert D.image_links(markdown) == [D.image_name(lens, "png")] and z.read(D.image_name(lens, "png")) == lens
    assert markdown.startswith('---\ntitle: "')
    close(page)


def _select_heading_and_next(view) -> str:
    """Select from inside the reader's first h2 into the paragraph after it; the selected text."""
    return view.evaluate("""(root) => { const [h2] = root.querySelectorAll('#article h2'); const p = h2.nextElementSibling;
        const range = root.createRange(); range.setStart(h2.firstChild, 4); range.setEnd(p.firstChild, 10);
        const s = root.getSelection(); s.removeAllRanges(); s.addRange(range); return String(s); }""")


def test_the_readers_copy_and_save_take_the_selection_alone_as_markdown_with_the_front_matter(clean):
    b = clean
    page = _page(b, "/banking-reader-selection.html")
    _reply, view = open_reader(b, page)
    view.wait_for("(root) => !root.getElementById('copy').disabled")
    view.evaluate("""() => { globalThis.copied = [];
        const write = navigator.clipboard.writeText.bind(navigator.clipboard);
        navigator.clipboard.writeText = (text) => { globalThis.copied.push(text); return write(text); }; }""")
    selected = _select_heading_and_next(view)
    view.user_click("#copy")
    view.wait_for("(root) => !root.getElementById('status').hidden")
    assert view.text("#status") == "Copied the selection as Markdown"
    copied = view.evaluate("() => globalThis.copied")[0]
    head, body = copied.split("---\n\n", 1)
    assert head.startswith('---\ntitle: "The Future of Banking') and '\ntags:\n  - "clippings"\n' in head
    assert body.startswith("## A weight, a governor and a great deal of patience\n\nThe mechanism is simple")
    assert body.count("\n\n") == 1 and "Every evening" not in body and "Reid learned" not in body
    assert selected.startswith("ight, a governor")

    _select_heading_and_next(view)
    view.user_click("#save")
    view.wait_for("(root) => root.getElementById('status').textContent.startsWith('Saved ')")
    name = view.text("#status").removeprefix("Saved ")
    item = b.call("(n) => api.downloads.search({}).then((d) => d.filter((x) => x.filename.endsWith(n)))", name)
    assert item and wait_for_download(b, item[-1]["id"])["state"] == "complete"
    saved = (b.downloads / name).read_text(encoding="utf-8")
    assert saved.split("---\n\n", 1)[1] == body

    view.evaluate("(root) => root.getSelection().removeAllRanges()")
    view.user_click("#copy")
    view.wait_for("(root) => root.getElementById('status').textContent === 'Copied the article as Markdown'")
    whole = view.evaluate("() => globalThis.copied")[-1].split("---\n\n", 1)[1]
    assert whole.startswith("Every evening at dusk") and "Reid learned" in whole and body.split("\n\n")[0] in whole
    close(page)


def test_a_page_saved_from_the_extension_renders_back_to_the_readers_text(clean):
    """The round trip in the browser: a page with code in three languages, a table, formulas (KaTeX,
    MathJax 3 and 2), footnotes and links whose text has blanks at its ends, saved by the extension; its
    Markdown rendered by CommonMark with GFM tables and footnotes shows the reader view's text, the code
    blocks keep their languages, the table its cells, and the links' text has no blank at its ends."""
    from markdown_support import commonmark_gfm
    from mdit_py_plugins.footnote import footnote_plugin
    from selectolax.lexbor import LexborHTMLParser
    from test_markdown_roundtrip import letters

    b = clean
    html = (PAGES.parent / "docs-roundtrip" / "source.html").read_text(encoding="utf-8")
    extra = (
        '<p>The keeper\'s own notes use MathJax 2, whose script keeps the TeX: a height of <script type="math/tex">'
        "h_{1/3}</script> is the mean of the highest third of the waves in a record, which the station reports.</p>"
    )
    page = b.open_markup("/round-trip.html", html.replace("<h2>Fields</h2>", extra + "<h2>Fields</h2>"))
    reply = b.run("save", page)
    assert reply["ok"], reply
    item = wait_for_download(b, reply["downloadId"])
    assert item["state"] == "complete", item
    markdown = Path(item["filename"]).read_text(encoding="utf-8").split("---\n\n", 1)[1]
    _reply, view = open_reader(b, page)
    shown = LexborHTMLParser(view.evaluate("(root) => root.getElementById('article').innerHTML"))
    for bar in shown.css(".code-bar"):  # the reader's language label and Copy button over each code block
        bar.decompose()
    rendered = LexborHTMLParser(commonmark_gfm().use(footnote_plugin).render(markdown))
    assert letters(rendered) == letters(shown) and "highestthird" in letters(shown)
    assert "$h_{1/3}$" in markdown and "$H^2$" in markdown and "$$E = \\frac{1}{16} \\rho g H^2$$" in markdown
    languages = [c.attributes.get("class") for c in rendered.css("pre > code")]
    assert languages == ["language-python", "language-javascript", "language-haskell"]
    assert [[c.text() for c in tr.css("th, td")] for tr in rendered.css("table tr")][2] == [
        "Period",
        "seconds",
        "8 | 9",
    ]
    assert len(rendered.css("sup.footnote-ref")) == 2 and len(rendered.css("li.footnote-item")) == 2
    links = [a.text() for a in rendered.css("a") if "/guide/" in a.attributes["href"]]
    assert "format guide" in links and "weekly report" in links
    close(page)
