"""Saved documents and their templates (native_host/render/document.py and its twin extension/template.js):
the cases of tests/template_cases.json run through both, the Python engine's own edges, and the CLI's
`--save` and `--template`, whose files are the extension's for the same article."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from host_support import SENTENCE, article_html, standin_model

from native_host.cli.main import main as pith
from native_host.files import safe_filename
from native_host.pipeline.article import selection_body
from native_host.render import document as D

ROOT = Path(__file__).resolve().parents[1]
CASES = json.loads((ROOT / "tests" / "template_cases.json").read_text(encoding="utf-8"))
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="needs node (Debian's nodejs: scripts/test.sh installs it)")

# Runs in Node: the extension's scripts as the reader loads them, then every case; prints what JS makes.
JS_RUN = """
for (const file of ["limits.js", "template.js", "article_document.js"]) await import(new URL(file, EXT).href);
const T = globalThis.PITH_TEMPLATE, { articleDocument } = globalThis.PITH_DOCUMENT;
const cases = JSON.parse((await import("node:fs")).readFileSync(0, "utf8"));
const documents = cases.documents.map((c) => {
  const article = { ...cases.article, ...(c.article || {}), created: cases.created, selection: c.selection || "" };
  if (c.template) article.template = c.template;
  const md = articleDocument(article, "markdown"), txt = articleDocument(article, "text");
  return { markdown: md.content, text: txt.content, filename: md.filename, txt: txt.filename, mimes: [md.mime, txt.mime] };
});
const D = globalThis.PITH_DOCUMENT, im = cases.images;
const hex = (h) => Uint8Array.from(h.match(/../g) || [], (b) => parseInt(b, 16));
const images = im && { links: D.imageLinks(im.markdown), rewritten: D.withLocalImages(im.markdown, im.local),
  types: im.types.map(([h]) => D.imageType(hex(h))),
  names: await Promise.all(im.names.map(([h]) => D.imageName(hex(h), "png"))) };
process.stdout.write(JSON.stringify({ images,
  documents, invalid: cases.invalid.map((c) => T.templateErrors(c.template)),
  parsed: cases.invalid.map((c) => T.parseTemplate(JSON.stringify(c.template)).errors),
  notJson: T.parseTemplate(cases.not_json.text).errors, defaults: T.DEFAULT_TEMPLATE,
  variables: T.VARIABLES, filters: T.FILTERS, valid: T.parseTemplate(JSON.stringify(T.DEFAULT_TEMPLATE)),
}));
"""


@pytest.fixture(scope="module")
def js():
    if NODE is None:
        pytest.skip("needs node (Debian's nodejs: scripts/test.sh installs it)")
    script = f"const EXT = {json.dumps((ROOT / 'extension').as_uri() + '/')};" + JS_RUN
    done = subprocess.run(
        [NODE, "--experimental-default-type=module", "--input-type=module", "-e", script],
        input=json.dumps(CASES),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("case", CASES["documents"], ids=lambda c: c["case"])
def test_python_makes_the_documents_of_the_cases(case):
    article = {**CASES["article"], **case.get("article", {})}
    for fmt in ("markdown", "text"):
        name, content = D.document(article, fmt, case["template"], CASES["created"], case.get("selection", ""))
        assert content == case[fmt]
        assert safe_filename(name, "md") == case["filename"]


@needs_node
def test_the_extension_makes_the_same_documents_names_and_errors(js):
    for case, made in zip(CASES["documents"], js["documents"]):
        assert (made["markdown"], made["text"], made["filename"]) == (case["markdown"], case["text"], case["filename"])
        assert made["txt"] == case["filename"][: -len(".md")] + ".txt"
        assert made["mimes"] == ["text/markdown", "text/plain"]
    assert js["invalid"] == js["parsed"] == [case["errors"] for case in CASES["invalid"]]
    assert js["notJson"][0].startswith(CASES["not_json"]["error_starts"])
    assert (js["defaults"], js["variables"], js["filters"]) == (D.DEFAULT_TEMPLATE, list(D.VARIABLES), list(D.FILTERS))
    assert js["valid"] == {"template": D.DEFAULT_TEMPLATE}


@pytest.mark.parametrize("case", CASES["invalid"], ids=lambda c: c["errors"][0][:40])
def test_a_bad_template_gets_every_problem_named(case):
    assert D.template_errors(case["template"]) == case["errors"]
    with pytest.raises(D.TemplateError) as raised:
        D.parse_template(json.dumps(case["template"]))
    assert raised.value.errors == case["errors"] and str(raised.value) == "; ".join(case["errors"])


def test_the_cases_cover_every_variable_and_filter_and_each_document_is_the_head_a_blank_line_and_the_body():
    used = json.dumps([c["template"] for c in CASES["documents"]])
    assert all(f"{{{{{v}" in used for v in D.VARIABLES), [v for v in D.VARIABLES if f"{{{{{v}" not in used]
    assert all(f"|{f}" in used for f in D.FILTERS)
    for case in CASES["documents"]:
        head, body = case["markdown"].split("---\n\n", 1)
        assert (
            head.startswith("---\n") and body == "First paragraph.\n\n## Part two\n\nSecond.\n"
        ) or body == "Body.\n"
        assert case["text"].split("\n")[1] == "=" * min(len(case["text"].split("\n")[0]), 80)


def test_images_are_found_typed_named_and_relinked_alike_in_both_engines(js):
    im = CASES["images"]
    assert D.image_links(im["markdown"]) == im["links"] == js["images"]["links"]
    assert D.with_local_images(im["markdown"], im["local"]) == im["rewritten"] == js["images"]["rewritten"]
    assert (
        [D.image_type(bytes.fromhex(h)) for h, _ in im["types"]] == [t for _, t in im["types"]] == js["images"]["types"]
    )
    assert (
        [D.image_name(bytes.fromhex(h), "png") for h, _ in im["names"]]
        == [n for _, n in im["names"]]
        == js["images"]["names"]
    )
    assert im["links"][:3] == ["https://news.example/lens.png", "https://news.example/b c.png", "img/a(1).png"]
    assert "![again](images/0000000000000001.png)" in im["rewritten"] and "[a link](https://" in im["rewritten"]


def test_not_json_and_too_large_are_refused_with_the_reason():
    with pytest.raises(D.TemplateError, match=r"^the template is not JSON \("):
        D.parse_template(CASES["not_json"]["text"])
    with pytest.raises(D.TemplateError, match="larger than"):
        D.parse_template(json.dumps({"name": "x" * D.MAX_TEMPLATE_BYTES, "properties": {}}))


@pytest.mark.parametrize(
    "value, pattern, expected",
    [
        ("2026-03-01", "YYYY-MM-DD", "2026-03-01"),
        ("2026-12-09T07:05:03+05:00", "D MMM YY, H:mm:ss", "9 Dec 26, 7:05:03"),
        ("2026-03-01", "[Week of] MMMM", "Week of March"),
        ("2026-13-01", "YYYY", ""),
        ("yesterday", "YYYY", ""),
        ("٢٠٢٦-03-01", "YYYY", ""),
    ],
)
def test_dates_are_formatted_on_their_own_clock(value, pattern, expected):
    assert D.format_date(value, pattern) == expected


@pytest.fixture(scope="module")
def model_args(tmp_path_factory):
    model_dir = standin_model(tmp_path_factory.mktemp("model"))
    return ["--model-dir", model_dir] if model_dir else []


def test_the_cli_saves_the_documents_the_extension_saves(tmp_path, model_args, capsys, js):
    """`pith extract --save` writes the document the rule says, in both formats, and `--template` shapes its
    name and head as the extension's options do: the same article through both gives the same bytes."""
    page = tmp_path / "page.html"
    page.write_text(article_html(4, title="You're Broke: a story"))
    template = tmp_path / "t.json"
    template.write_text(json.dumps({"name": "{{title|slug}}", "properties": {"title": "{{title}}", "n": "{{words}}"}}))
    out = tmp_path / "out"
    out.mkdir()
    for fmt, extra in (("markdown", []), ("text", []), ("markdown", ["--template", str(template)])):
        assert pith(["extract", str(page), "-f", fmt, "--save", str(out), *extra, *model_args]) == 0
    assert pith(["extract", str(page), "-f", "json", *model_args]) == 0
    result = json.loads(capsys.readouterr().out)
    saved = {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()}
    assert sorted(saved) == ["You're Broke - a story.md", "You're Broke - a story.txt", "you-re-broke-a-story.md"]
    created = saved["You're Broke - a story.md"].split("created: ")[1].split("\n")[0]  # the day it was saved
    cases = {
        "documents": [{"template": None}, {"template": json.loads(template.read_text())}],
        "article": result,
        "created": created + "T12:00:00+00:00",
        "invalid": [],
        "not_json": {"text": "{"},
    }
    script = f"const EXT = {json.dumps((ROOT / 'extension').as_uri() + '/')};" + JS_RUN
    done = subprocess.run(
        [NODE, "--experimental-default-type=module", "--input-type=module", "-e", script],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=60,
    )
    made = json.loads(done.stdout)["documents"]
    assert saved[made[0]["filename"]] == made[0]["markdown"] and saved[made[0]["txt"]] == made[0]["text"]
    body = result["markdown"].strip("\n")
    assert (
        saved[made[1]["filename"]]
        == made[1]["markdown"]
        == f'---\ntitle: "{result["title"]}"\nn: {result["word_count"]}\n---\n\n{body}\n'
    )


def test_the_cli_names_a_bad_template_and_writes_nothing(tmp_path, model_args, capsys):
    page = tmp_path / "page.html"
    page.write_text(article_html(2))
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "{{titel}}", "properties": {}}')
    out = tmp_path / "out"
    out.mkdir()
    assert pith(["extract", str(page), "-f", "markdown", "--save", str(out), "--template", str(bad), *model_args]) == 1
    err = capsys.readouterr().err
    assert f'{bad}: name: unknown variable "titel"' in err and list(out.iterdir()) == []
    assert pith(["extract", str(page), "--template", str(tmp_path / "missing.json"), *model_args]) == 1
    assert "cannot read" in capsys.readouterr().err


SELECTION_PAGE = (
    "<html><body><article><h1>T</h1><p>First <em>para</em>.</p><p>Second para.</p><ul><li>one</li>"
    "<li>two</li></ul></article><aside><p>Side note</p></aside></body></html>"
)


def test_a_selection_is_the_blocks_its_text_touches_rendered_as_the_article_is():
    from native_host import snapshot_from_html

    snapshot = snapshot_from_html(SELECTION_PAGE)
    ids = {n.get("text"): n["id"] for n in snapshot["nodes"] if n.get("text")}
    assert selection_body(snapshot, [ids["para"], ids["Second para."]]) == (
        "First *para*.\n\nSecond para.\n",
        "First para.\n\nSecond para.",
    )
    assert selection_body(snapshot, [ids["Side note"]])[1] == "Side note"  # chosen, main or not
    assert selection_body(snapshot, [0, 1]) is None  # no block holds <html> or <body>: nothing selected


@pytest.mark.parametrize("selection", ["3", [1.5], [-1], [True], [10**9], list(range(200_001))])
def test_a_bad_selection_is_refused_with_what_it_should_be(selection):
    from native_host.browser.protocol import parse_selection
    from native_host.errors import ProtocolError

    with pytest.raises(ProtocolError, match="snapshot node ids"):
        parse_selection({"selection": selection})
    assert parse_selection({}) == [] and parse_selection({"selection": [0, 5]}) == [0, 5]


PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000") + b"\0" * 20


def test_the_cli_copies_a_pages_local_images_beside_the_markdown_and_nothing_else(tmp_path, model_args, capsys):
    """`--images`: relative images under the page's folder are copied to DIR/images/ under their content's name
    and linked there; a file outside the folder (by `..` or by a link), a file that is not an image, a missing
    one and an address on the network stay as the page wrote them, and nothing is read from them."""
    site = tmp_path / "site"
    (site / "img").mkdir(parents=True)
    (site / "img" / "a b.png").write_bytes(PNG)
    (site / "img" / "notes.png").write_text("not an image")
    (tmp_path / "secret.png").write_bytes(PNG + b"secret")
    (site / "img" / "link.png").symlink_to(tmp_path / "secret.png")
    images = [
        "img/a%20b.png",
        "img/a%20b.png?v=2#top",
        "../secret.png",
        "img/link.png",
        "img/notes.png",
        "img/gone.png",
        "https://cdn.example/x.png",
        "/img/a%20b.png",
    ]
    figures = "".join(
        f"<p>Figure {i}. {SENTENCE * 3} <img src='{src}' alt='f{i}'> {SENTENCE} (figure {i})</p>"
        for i, src in enumerate(images)
    )
    (site / "page.html").write_text(article_html(4).replace("</article>", figures + "</article>"))
    out = tmp_path / "out"
    out.mkdir()
    assert (
        pith(["extract", str(site / "page.html"), "-f", "markdown", "--save", str(out), "--images", *model_args]) == 0
    )
    assert "pith: 2 image links now point at copies in" in capsys.readouterr().err  # two links, one file
    name = D.image_name(PNG, "png")
    assert sorted(p.name for p in (out / "images").iterdir()) == [name[len("images/") :]]
    assert (out / name).read_bytes() == PNG
    markdown = next(out.glob("*.md")).read_text(encoding="utf-8")
    for i, src in enumerate(images):
        assert f"![f{i}]({name if i < 2 else src})" in markdown, i
    assert pith(["extract", str(site / "page.html"), "--images", *model_args]) == 1
    assert "--images goes with --save DIR" in capsys.readouterr().err


def test_the_cli_writes_a_pages_data_images_beside_the_markdown(tmp_path, model_args, capsys):
    """`--images`: `data:` images, base64 (entities and line breaks in the attribute read as HTML reads them)
    and percent-encoded, are written to DIR/images/ under their content's name and linked there; a data: URL
    that is not an image (SVG, text) or does not decode stays out, and no placeholder address is left behind."""
    import base64
    from urllib.parse import quote_from_bytes

    gif = b"GIF89a" + bytes(range(40))
    b64 = base64.b64encode(PNG).decode()
    images = [
        f"data:image/png;base64,{b64[:20]}&#10;{b64[20:]}",
        "data:image/gif," + quote_from_bytes(gif),
        "data:image/svg+xml;base64," + base64.b64encode(b"<svg xmlns='http://www.w3.org/2000/svg'/>").decode(),
        "data:image/png;base64,not*base64",
    ]
    figures = "".join(
        f'<p>Figure {i}. {SENTENCE * 3} <img alt="f{i}" src="{src}"> {SENTENCE} (figure {i})</p>'
        for i, src in enumerate(images)
    )
    page = tmp_path / "page.html"
    page.write_text(article_html(4).replace("</article>", figures + "</article>"))
    out = tmp_path / "out"
    out.mkdir()
    assert pith(["extract", str(page), "-f", "markdown", "--save", str(out), "--images", *model_args]) == 0
    assert "pith: 2 image links now point at copies in" in capsys.readouterr().err
    names = [D.image_name(PNG, "png"), D.image_name(gif, "gif")]
    assert sorted(p.name for p in (out / "images").iterdir()) == sorted(n[len("images/") :] for n in names)
    assert (out / names[0]).read_bytes() == PNG and (out / names[1]).read_bytes() == gif
    markdown = next(out.glob("*.md")).read_text(encoding="utf-8")
    assert "![f0](" + names[0] + ")" in markdown and "![f1](" + names[1] + ")" in markdown
    assert "pith.invalid" not in markdown and "![f2]" not in markdown and "![f3]" not in markdown


def test_data_urls_decode_base64_and_percent_encoding_within_the_limit():
    from native_host.cli.images import data_url_bytes

    assert data_url_bytes("data:image/png;base64,iVBORw0K") == PNG[:6]
    assert data_url_bytes("data:image/png;BASE64,iVBO%52w0K") == PNG[:6]
    assert data_url_bytes("data:,%89PNG%0d%0a") == b"\x89PNG\r\n"
    assert data_url_bytes("data:image/png;base64,***") is None and data_url_bytes("image/png,x") is None
