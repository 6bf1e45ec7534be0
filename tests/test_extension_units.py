"""The extension's modules one by one, in Chromium and Firefox (imported from an extension page): the native-port client
against a fake port, file names and saved documents, how highlight kinds are chosen."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from browser import KINDS, extension_browser, require
from filename_cases import FILENAME_CASES
from host_support import rows_text

from native_host import limits

FAKE_PORT = """
  const { HostClient } = await import('/background/host.js');
  const ports = [];
  function connect(name) {
    const port = { name, sent: [], listeners: [], closers: [], disconnected: false,
      onMessage: { addListener: (f) => port.listeners.push(f) },
      onDisconnect: { addListener: (f) => port.closers.push(f) },
      postMessage: (m) => port.sent.push(JSON.parse(JSON.stringify(m))),
      disconnect: () => { port.disconnected = true; },
      emit: (m) => port.listeners.forEach((f) => f(m)),
      drop: (message) => port.closers.forEach((f) => f({ error: { message } })) };
    ports.push(port);
    return port;
  }
  const client = new HostClient(connect);
  const outcome = (promise) => promise.then((value) => ({ value }), (e) => ({ code: e.code, message: e.message }));
"""


@pytest.fixture(scope="module", params=KINDS)
def control(request, tmp_path_factory):
    require(request.param)
    with extension_browser(request.param, tmp_path_factory.mktemp(f"units-{request.param}"), host="missing") as b:
        yield b.control


def test_chunked_reply_is_joined_in_order_with_progress(control):
    result = control.evaluate(
        "async () => {"
        + FAKE_PORT
        + """
      const progress = [];
      const pending = outcome(client.request('extract', { snapshot: {} }, { onProgress: (p) => progress.push(p) }));
      const sent = ports[0].sent[0];
      const text = JSON.stringify({ v: 1, id: sent.id, type: 'result', article: { title: 'T "q"', text: 'x'.repeat(50) } });
      const parts = [text.slice(0, 20), text.slice(20, 41), text.slice(41)];
      ports[0].emit({ v: 1, id: sent.id, type: 'progress', stage: 'inference', done: 1, total: 2 });
      ports[0].emit({ v: 1, id: sent.id, type: 'note_from_the_future' });
      parts.forEach((data, seq) => ports[0].emit({ v: 1, id: sent.id, type: 'chunk', seq, count: 3, data }));
      return { sent, progress, reply: await pending };
    }"""
    )
    assert result["sent"]["v"] == 1 and result["sent"]["type"] == "extract" and isinstance(result["sent"]["id"], int)
    assert result["reply"]["value"]["article"] == {"title": 'T "q"', "text": "x" * 50}
    assert result["progress"] == [
        {"stage": "inference", "done": 1, "total": 2},
        {"stage": "receiving", "done": 1, "total": 3},
        {"stage": "receiving", "done": 2, "total": 3},
        {"stage": "receiving", "done": 3, "total": 3},
    ]


def test_chunks_out_of_order_fail_the_request_and_end_the_port(control):
    result = control.evaluate(
        "async () => {"
        + FAKE_PORT
        + """
      const pending = outcome(client.request('extract', { snapshot: {} }));
      const id = ports[0].sent[0].id;
      ports[0].emit({ v: 1, id, type: 'chunk', seq: 1, count: 2, data: '{}' });
      const failed = await pending;
      const next = client.request('hello');  // a fresh port for the next request
      return { failed, disconnected: ports[0].disconnected, ports: ports.length };
    }"""
    )
    assert result["failed"]["code"] == "host_protocol" and "pith doctor" in result["failed"]["message"]
    assert result["disconnected"] is True and result["ports"] == 2


def test_replies_pair_with_their_requests_by_id(control):
    result = control.evaluate(
        "async () => {"
        + FAKE_PORT
        + """
      const a = outcome(client.request('hello'));
      const b = outcome(client.request('extract', { snapshot: {} }));
      const [ida, idb] = ports[0].sent.map((m) => m.id);
      ports[0].emit({ v: 1, id: idb, type: 'error', error: { code: 'bad_snapshot', message: '$.nodes[0]: bad' } });
      ports[0].emit({ v: 1, id: ida, type: 'hello', model_id: 'm' });
      ports[0].emit({ v: 1, id: 999, type: 'result' });  // nobody asked: ignored
      return { a: await a, b: await b, distinct: ida !== idb };
    }"""
    )
    assert result["distinct"] and result["a"]["value"]["model_id"] == "m"
    assert result["b"]["code"] == "bad_snapshot" and "$.nodes[0]: bad" in result["b"]["message"]


@pytest.mark.parametrize(
    "reason, code, fix",
    [
        ("Specified native messaging host not found.", "host_missing", "`pith install`"),
        ("Access to the specified native messaging host is forbidden.", "host_forbidden", "`pith install`"),
        ("Native host has exited.", "host_crashed", "`pith doctor`"),
        ("Error when communicating with the native messaging host.", "host_crashed", "`pith doctor`"),
        ("No such native application org.pith.reader", "host_missing", "`pith install`"),
    ],
)
def test_a_closed_port_fails_every_pending_request_with_the_fix(control, reason, code, fix):
    result = control.evaluate(
        "async (reason) => {"
        + FAKE_PORT
        + """
      const a = outcome(client.request('hello'));
      const b = outcome(client.request('extract', { snapshot: {} }));
      ports[0].drop(reason);
      return [await a, await b];
    }""",
        reason,
    )
    assert [r["code"] for r in result] == [code, code]
    assert fix in result[0]["message"]


def test_a_silent_host_times_out_and_is_ended(control):
    result = control.evaluate(
        "async () => {"
        + FAKE_PORT
        + """
      const failed = await outcome(client.request('extract', { snapshot: {} }, { timeoutMs: 30 }));
      return { failed, disconnected: ports[0].disconnected };
    }"""
    )
    assert result["failed"]["code"] == "host_timeout" and result["disconnected"] is True
    assert "pith doctor" in result["failed"]["message"]


def test_a_model_that_cannot_load_is_reported_before_any_page_is_sent(control):
    result = control.evaluate(
        "async () => {"
        + FAKE_PORT
        + """
      const pending = outcome(client.extract('{"nodes":[]}', ['text']));
      const hello = ports[0].sent[0];
      ports[0].emit({ v: 1, id: hello.id, type: 'hello', model_id: null,
                      model_error: { code: 'model_unavailable', message: 'model.onnx is missing' } });
      return { failed: await pending, sent: ports[0].sent.map((m) => m.type) };
    }"""
    )
    assert result["failed"]["code"] == "model_unavailable" and "pith doctor" in result["failed"]["message"]
    assert result["sent"] == ["hello"]


@pytest.mark.parametrize("title, name", FILENAME_CASES)
def test_saved_file_names_are_safe(control, title, name):
    assert control.evaluate("async (t) => (await import('/background/save.js')).safeFilename(t, 'md')", title) == name


def test_the_saved_documents_are_the_ones_the_cli_writes(control):
    """The browser's engine (template.js, article_document.js) on the shared cases of tests/template_cases.json
    gives the documents and names of native_host/render/document.py; tests/test_document.py does the same
    under Node."""
    cases = json.loads((Path(__file__).parent / "template_cases.json").read_text(encoding="utf-8"))
    made = control.evaluate(
        """async (cases) => {
      const { articleDocument } = await import('/background/save.js');
      return cases.documents.map((c) => {
        const article = { ...cases.article, ...(c.article || {}), created: cases.created, selection: c.selection || '' };
        if (c.template) article.template = c.template;
        return [articleDocument(article, 'markdown'), articleDocument(article, 'text')];
      });
    }""",
        cases,
    )
    for case, (md, txt) in zip(cases["documents"], made):
        assert (md["content"], md["filename"], md["mime"]) == (case["markdown"], case["filename"], "text/markdown")
        assert (txt["content"], txt["filename"]) == (case["text"], case["filename"][:-3] + ".txt")
    errors = control.evaluate(
        "(cases) => cases.map((c) => globalThis.PITH_TEMPLATE.templateErrors(c.template))", cases["invalid"]
    )
    assert errors == [case["errors"] for case in cases["invalid"]]


def test_the_snapshot_goes_as_its_json_text_and_an_older_host_gets_the_nodes_and_an_outline_made_for_it(control):
    """The page's JSON text, its nodes as rows, crosses untouched to a host whose hello says it reads
    `snapshot_json` and `snapshot_rows`; a host that reads the text but not the rows gets the text of the nodes;
    one from before the text gets the parsed snapshot, and `highlight` in place of the `outline` it does not
    offer. The nodes are the rows' (ids and depths from the order, a text row's text, an element's fields)."""
    nodes = [
        {"id": 0, "parent": -1, "depth": 0, "tag": "html"},
        {"id": 1, "parent": 0, "depth": 1, "tag": "p", "classes": ["a"], "visible": True},
        {"id": 2, "parent": 1, "depth": 2, "tag": "#text", "text": 'say "hi" \\ \u00e9 \U0001f600'},
        {"id": 3, "parent": 0, "depth": 1, "tag": "img", "src": "http://a.b/x.png"},
    ]
    text = rows_text({"format": "pith-snapshot", "version": 2, "nodes": nodes})
    assert json.loads(text)["rows"][2][1] == 0
    result = control.evaluate(
        "async (text) => {"
        + FAKE_PORT
        + """
      const answer = async (hello, reply) => {
        const port = ports[ports.length - 1];
        port.emit({ v: 1, id: port.sent[0].id, type: 'hello', model_id: 'm', ...hello });
        await new Promise((r) => setTimeout(r, 0));
        port.emit({ v: 1, id: port.sent[1].id, type: 'result', ...reply });
      };
      const sent = [];
      for (const hello of [{ snapshot_json: true, snapshot_rows: true }, { snapshot_json: true }]) {
        const pending = client.extract(text, ['outline', 'text']);
        await answer({ ...hello, wants: ['highlight', 'outline', 'text'] }, { outline: [{ node_ids: [0], kind: 'title' }] });
        sent.push({ sent: ports[ports.length - 1].sent[1], reply: await pending });
        client.reset();
      }
      const pending = client.extract(text, ['outline', 'text']);
      await answer({ wants: ['highlight', 'text'] }, { node_ids: [0, 2], blocks: [
        { index: 0, node_ids: [0], main: true, scores: {} }, { index: 1, node_ids: [1], main: false, scores: {} },
        { index: 2, node_ids: [2], main: true, scores: {} }] });
      return { now: sent[0], text: sent[1], older: { sent: ports[2].sent[1], reply: await pending } };
    }""",
        text,
    )
    now, as_text, older = result["now"], result["text"], result["older"]
    assert now["sent"]["snapshot_json"] == text and "snapshot" not in now["sent"]
    assert now["sent"]["want"] == ["outline", "text"] and now["reply"]["outline"] == [
        {"node_ids": [0], "kind": "title"}
    ]
    assert json.loads(as_text["sent"]["snapshot_json"]) == {"format": "pith-snapshot", "version": 2, "nodes": nodes}
    assert older["sent"]["snapshot"] == {"format": "pith-snapshot", "version": 2, "nodes": nodes}
    assert "snapshot_json" not in older["sent"] and older["sent"]["want"] == ["highlight", "text"]
    assert older["reply"]["outline"] == [{"node_ids": [0], "kind": "main"}, {"node_ids": [2], "kind": "main"}]


def test_a_first_part_reaches_its_callback_and_the_promise_gets_the_whole_reply(control):
    """`first` goes only to a host whose hello offers it; the part, chunked or not, is handed over ahead of the
    rest and the promise resolves with both joined; a host without parts answers whole, the callback unused."""
    result = control.evaluate(
        "async () => {"
        + FAKE_PORT
        + """
      const answer = async (hello, frames) => {
        const port = ports[ports.length - 1];
        port.emit({ v: 1, id: port.sent[0].id, type: 'hello', model_id: 'm', snapshot_json: true,
                    wants: ['outline', 'article', 'text'], ...hello });
        await new Promise((r) => setTimeout(r, 0));
        for (const frame of frames(port.sent[1].id)) port.emit(frame);
      };
      const chunks = (id, reply) => {
        const text = JSON.stringify({ v: 1, id, ...reply });
        return [text.slice(0, 25), text.slice(25)].map((data, seq) => ({ v: 1, id, type: 'chunk', seq, count: 2, data }));
      };
      const firsts = [];
      let pending = client.extract('{}', ['outline', 'article', 'text'], { first: ['outline', 'article'],
                                                                          onFirst: (p) => firsts.push(p) });
      await answer({ first: true }, (id) => [
        ...chunks(id, { type: 'part', outline: [{ node_ids: [1], kind: 'main' }], article: { title: 'T', html: '<p>x</p>' } }),
        ...chunks(id, { type: 'result', article: { text: 'x' }, timings: { host: 3 } })]);
      const parted = { sent: ports[0].sent[1], reply: await pending, firsts: firsts.splice(0) };
      client.reset();
      pending = client.extract('{}', ['outline', 'article', 'text'], { first: ['outline', 'article'],
                                                                       onFirst: (p) => firsts.push(p) });
      await answer({}, (id) => [{ v: 1, id, type: 'result', outline: [], article: { title: 'T', html: '', text: '' } }]);
      return { parted, whole: { sent: ports[1].sent[1], reply: await pending, firsts } };
    }"""
    )
    parted, whole = result["parted"], result["whole"]
    assert parted["sent"]["first"] == ["outline", "article"]
    assert [p["type"] for p in parted["firsts"]] == ["part"] and parted["firsts"][0]["article"]["html"] == "<p>x</p>"
    assert parted["reply"]["type"] == "result" and parted["reply"]["outline"] == [{"node_ids": [1], "kind": "main"}]
    assert parted["reply"]["article"] == {"title": "T", "html": "<p>x</p>", "text": "x"}
    assert "first" not in whole["sent"] and whole["firsts"] == []
    assert whole["reply"]["article"] == {"title": "T", "html": "", "text": ""}


def test_the_main_content_node_ids_come_from_the_outline_as_the_host_gives_them(control):
    ids = control.evaluate("""async () => (await import('/background/actions.js')).mainNodeIds([
        {node_ids: [9, 10], kind: 'title'}, {node_ids: [3, 4], kind: 'main'}, {node_ids: [4, 100], kind: 'main'}])""")
    assert ids == [3, 4, 9, 10, 100]


def test_the_size_check_counts_the_request_as_it_crosses_to_the_host(control):
    """The extension's count of an `extract` request carrying the page's JSON text agrees with the request's
    encoded size (each quote and backslash escaped, other characters as UTF-8), so it refuses exactly what
    would cross the host's cap (limits.MAX_REQUEST_BYTES); `bytes` pads the text's size up to the cap."""
    text = '{"nodes":[{"text":"say \\"hi\\" \\\\ é 中 😀"}]}'
    want = ["outline", "text"]
    request = {"v": 1, "id": 2**53 - 1, "type": "extract", "snapshot_json": text, "want": want}
    size = len(json.dumps(request, ensure_ascii=False, separators=(",", ":")).encode())
    pad = limits.MAX_REQUEST_BYTES - size
    over = control.evaluate(
        """async ([text, bytes, want]) => {
        const { requestOverCap } = await import('/background/host.js');
        const utf8 = new TextEncoder().encode(text).length;
        return [requestOverCap(text, utf8 + bytes, want), requestOverCap(text, utf8 + bytes + 1, want),
                requestOverCap(text, utf8, want)];
    }""",
        [text, pad, want],
    )
    assert over == [None, limits.MAX_REQUEST_BYTES + 1, None]


def test_the_reader_sanitiser_drops_only_the_values_no_parser_accepts(control):
    """The reader's allowlist on page values the URL parser refuses: each value goes, its element and text
    stay (and numbers it never keeps)."""
    out = control.evaluate("""async () => {
      await import('/limits.js');
      await import('/reader/sanitize.js');
      const { sanitize, safeUrl } = globalThis.PITH_SANITIZE;
      const web = new Set(['http:', 'https:']);
      const bad = ['http://[ccpa-preferences]', 'http://[::1', '//ex\\u2100mple.com/a', 'https://a\\uff03b/c'];
      const holder = document.createElement('div');
      holder.append(sanitize('<p><a href="http://[ccpa-preferences]">keep me</a> <a href="/ok">ok</a></p>' +
        '<table><tr><td colspan="1e999" rowspan="-1">cell</td><td colspan=" 2 ">two</td></tr></table>' +
        '<img src="http://[::1" alt="gone"><img src="pic.png" width="NaN" alt="kept">' +
        '<p><img src="icon.png" width="16" height="0"><img src="big.png" width="100001" height=" 12"></p>',
        'https://news.example/a/'));
      return { urls: bad.map((u) => safeUrl(u, 'https://news.example/', web)),
               badBase: safeUrl('/x', 'http://[base]/', web), html: holder.innerHTML };
    }""")
    assert out["urls"] == [None] * 4 and out["badBase"] is None
    html = out["html"]
    assert "<a>keep me</a>" in html and 'href="https://news.example/ok"' in html
    assert "<td>cell</td>" in html and "<td>two</td>" in html
    assert "gone" not in html and 'src="https://news.example/a/pic.png"' in html
    # a picture's size only as the host writes it: whole pixels, 1 to limits.MAX_IMAGE_PX
    assert re.findall(r"(width|height)=\"(\d+)\"", html) == [("width", "16")] and html.count("width") == 1


def _whole_page_articles() -> list[str]:
    """The article HTML the host writes for each page of tests/pages/ with every block main: lists, tables, code,
    formulas, figures, escaped text and links, as the reader receives them."""
    from native_host import snapshot_from_html
    from native_host.pipeline.article import build_article
    from native_host.pipeline.blocks import blocks_from_snapshot

    pages = Path(__file__).parent / "pages"
    articles = []
    for source in sorted(pages.glob("*/source.html")) + sorted(pages.glob("*/*/source.html")):
        snapshot = snapshot_from_html(source.read_bytes(), url="https://site.example/page")
        blocks = blocks_from_snapshot(snapshot)
        articles.append(build_article(snapshot, blocks, [True] * len(blocks), {"html"}).html)
    return [a for a in articles if a]


def test_the_reader_parses_its_first_screen_alone_and_the_two_parts_make_the_whole(control):
    """The reader cuts the host's article HTML between two top-level elements after about a screen of text
    (firstScreenEnd), parses the first part before the first paint and the rest after: on every repository
    page, at every size of first part, the two parts' top-level nodes are the whole's, node for node; the
    first part holds at least that much text; markup it cannot follow is not cut."""
    articles = _whole_page_articles()
    assert len(articles) > 10 and any("<table" in a for a in articles) and any("<ul" in a for a in articles)
    out = control.evaluate(
        """async (articles) => {
      await import('/limits.js');
      await import('/reader/sanitize.js');
      const { firstScreenEnd, parseArticle } = globalThis.PITH_SANITIZE;
      const shape = (nodes) => nodes.map((n) => n.nodeType === 1 ? n.outerHTML : `#${n.nodeType}:${n.textContent}`);
      const results = [];
      for (const html of articles) {
        for (const chars of [0, 200, 1000, 4000]) {
          const cut = firstScreenEnd(html, chars);
          const head = parseArticle(html.slice(0, cut));
          const parts = [...shape(head), ...(cut < html.length ? shape(parseArticle(html.slice(cut))) : [])];
          results.push({ same: JSON.stringify(parts) === JSON.stringify(shape(parseArticle(html))),
                         cut, length: html.length, text: head.reduce((n, x) => n + x.textContent.length, 0), chars });
        }
      }
      const odd = ['<p>a</p></div><p>b</p>', '<p>never closed', ''].map((h) => [firstScreenEnd(h, 2), h.length]);
      return { results, odd };
    }""",
        articles,
    )
    assert all(r["same"] for r in out["results"]), [r for r in out["results"] if not r["same"]][:3]
    cuts = [r for r in out["results"] if r["cut"] < r["length"]]
    assert len(cuts) > 10 and all(r["text"] >= r["chars"] * 0.9 for r in cuts)
    assert all(cut == length for cut, length in out["odd"])


def test_a_snapshot_is_measured_in_utf8_bytes_as_the_host_counts_it(control):
    """The extension refuses a snapshot over the host's cap before sending it; the host counts UTF-8 bytes,
    so a CJK page (three bytes a character) must not pass by its length in UTF-16 units."""
    sizes = control.evaluate("""async () => {
      const { utf8Bytes } = await import('/background/page.js');
      return ['abc', 'caf\\u00e9', '\\u65e5\\u672c', '\\ud83d\\ude00', JSON.stringify('\\ud800')].map(utf8Bytes);
    }""")
    assert sizes == [3, 5, 6, 4, 8]


def test_a_save_goes_to_the_options_folder_and_asks_where_when_told(control):
    """download() takes the folder and Save As from the stored options; a stored folder that is no longer a
    safe name is not used."""
    result = control.evaluate("""async () => {
      const { download } = await import('/background/save.js');
      const calls = [];
      const real = api.downloads.download;
      api.downloads.download = async (options) => { calls.push({ filename: options.filename, saveAs: options.saveAs,
                                                                 conflictAction: options.conflictAction }); return 7; };
      const doc = { filename: "You're Broke.md", mime: 'text/markdown', content: 'x' };
      const replies = [];
      try {
        for (const stored of [{}, { saveFolder: 'Clippings/Pith', saveAs: true }, { saveFolder: '../etc', saveAs: 'yes' }]) {
          await api.storage.local.set(stored);
          replies.push(await download(doc));
          await api.storage.local.remove(['saveFolder', 'saveAs']);
        }
      } finally {
        api.downloads.download = real;
      }
      return { calls, replies };
    }""")
    assert result["calls"] == [
        {"filename": "You're Broke.md", "saveAs": False, "conflictAction": "uniquify"},
        {"filename": "Clippings/Pith/You're Broke.md", "saveAs": True, "conflictAction": "uniquify"},
        {"filename": "You're Broke.md", "saveAs": False, "conflictAction": "uniquify"},
    ]
    assert [r["filename"] for r in result["replies"]] == [
        "You're Broke.md",
        "Clippings/Pith/You're Broke.md",
        "You're Broke.md",
    ]


def test_saved_documents_hold_no_terminal_control(control):
    """A page's title and byline reach the saved documents' heads as they are in the article's metadata: their
    ESC, OSC 52, BEL, BS, CR and C1 controls are dropped there, as the host drops them from the article's text."""
    hostile = "T\x1b]52;c;eA==\x07i\x08t\rl\x9b2Je\x7f"
    docs = control.evaluate(
        """async (h) => { const { articleDocument } = await import('/background/save.js');
        const a = { title: h, byline: 'By ' + h, url: 'https://e.example/' + h, text: 'Body ' + h,
                    markdown: 'Body ' + h };
        return [articleDocument(a, 'text').content, articleDocument(a, 'markdown').content]; }""",
        hostile,
    )
    clean = "T]52;c;eA==itl2Je"
    for doc in docs:
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", doc), doc
        assert f"Body {clean}" in doc
