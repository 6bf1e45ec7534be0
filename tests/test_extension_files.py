"""The extension's files without a browser: one manifest for Chromium and Firefox, its key and ids, its CSP,
every file it names, and the limits the content script shares with native_host/limits.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from native_host import limits
from native_host.browser.identity import CHROMIUM_EXTENSION_ID, EXTENSION_PUBLIC_KEY, FIREFOX_EXTENSION_ID
from native_host.pipeline.snapshot import LEAF_ONLY, SKIP_SUBTREE

EXTENSION = Path(__file__).resolve().parent.parent / "extension"
MANIFEST = json.loads((EXTENSION / "manifest.json").read_text())


def js_limits() -> dict[str, int | str]:
    text = (EXTENSION / "limits.js").read_text()
    return {k: (int(v) if v.isdigit() else v.strip('"'))
            for k, v in re.findall(r"^\s+([A-Z_]+):\s*([0-9]+|\"[^\"]*\")", text, re.M)}


def test_manifest_key_gives_the_extension_id_the_host_allows():
    import base64
    import hashlib

    assert MANIFEST["key"] == EXTENSION_PUBLIC_KEY
    digest = hashlib.sha256(base64.b64decode(MANIFEST["key"])).hexdigest()[:32]
    assert "".join(chr(ord("a") + int(c, 16)) for c in digest) == CHROMIUM_EXTENSION_ID


def test_one_manifest_serves_chromium_and_firefox():
    background = MANIFEST["background"]
    assert background["service_worker"] == "background/main.js"           # Chromium
    assert background["scripts"] == ["background/main.js"]                 # Firefox (event page)
    assert background["type"] == "module"
    assert MANIFEST["browser_specific_settings"]["gecko"]["id"] == FIREFOX_EXTENSION_ID
    assert MANIFEST["manifest_version"] == 3


def test_permissions_are_the_ones_the_extension_uses():
    assert set(MANIFEST["permissions"]) == {"nativeMessaging", "activeTab", "scripting", "downloads",
                                            "contextMenus", "storage", "offscreen"}
    assert "externally_connectable" not in MANIFEST  # no web page or other extension may message it
    # Pages may frame the reader's and the note's pages (content/frames.js lays them over the page), nothing else:
    # a frame without the background's one-time token shows nothing (tests/test_page_attack.py).
    assert MANIFEST["web_accessible_resources"] == [{"resources": ["reader/reader.html", "note/note.html"],
                                                     "matches": ["<all_urls>"]}]
    assert "content_scripts" not in MANIFEST  # scripts enter a page only when the user asks
    assert set(MANIFEST["commands"]) == {"_execute_action", "reader", "highlight", "save"}


def test_extension_pages_run_under_a_strict_csp():
    policy = dict(part.strip().split(" ", 1) for part in
                  MANIFEST["content_security_policy"]["extension_pages"].split(";") if part.strip())
    assert policy["default-src"] == "'none'"
    assert policy["script-src"] == "'self'"
    assert policy["style-src"] == "'self'"
    assert policy["object-src"] == "'none'" and policy["base-uri"] == "'none'" and policy["form-action"] == "'none'"
    assert policy["connect-src"] == "https: http:"  # the background fetches an article's images, when asked
    assert "unsafe" not in json.dumps(MANIFEST["content_security_policy"])


def test_every_file_the_extension_names_exists():
    named = [MANIFEST["background"]["service_worker"], MANIFEST["action"]["default_popup"]]
    for js in EXTENSION.rglob("*.js"):
        text = js.read_text()
        named += [str((js.parent / m).resolve().relative_to(EXTENSION)) for m in re.findall(r'import [^"]*"(\.[^"]+)"', text)]
        named += re.findall(r'"((?:content|background|reader|note|popup)/[\w./-]+\.(?:js|css|html))"', text)
        named += re.findall(r'"(\w+\.js)"', text)
    for html in EXTENSION.rglob("*.html"):
        named += [str((html.parent / m).resolve().relative_to(EXTENSION))
                  for m in re.findall(r'(?:src|href)="([\w./-]+\.(?:js|css))"', html.read_text())]
    missing = sorted({n for n in named if not (EXTENSION / n).is_file()})
    assert not missing and len(set(named)) > 10


def test_the_content_script_limits_are_the_hosts():
    """JS and limits.py; tests/test_schema.py ties limits.py to the schema."""
    values = js_limits()
    for name in ("MAX_NODES", "MAX_NODE_TEXT", "MAX_TOTAL_TEXT", "MAX_ATTR_CHARS", "MAX_CLASSES", "MAX_REQUEST_BYTES",
                 "MAX_FILENAME_CHARS", "MAX_FILENAME_BYTES", "MAX_TEMPLATE_BYTES", "MAX_TEMPLATE_PROPERTIES", "MAX_SAVED_IMAGES",
                 "MAX_IMAGE_BYTES",
                 "MAX_META", "MAX_LINKS", "MAX_JSON_LD",
                 "MAX_JSON_LD_CHARS", "MAX_TAG_CHARS", "MAX_TITLE_CHARS", "MAX_LANG_CHARS"):
        assert values[name] == getattr(limits, name), name
    assert values["HOST_NAME"] == "org.pith.reader"


def test_the_content_script_reads_the_hosts_date_attributes():
    """The one list of date attributes (limits.DATE_ATTRIBUTES), in the same order: the first an element has wins."""
    text = (EXTENSION / "limits.js").read_text()
    listed = re.search(r"DATE_ATTRIBUTES:\s*Object\.freeze\(\[([^\]]*)\]", text).group(1)
    assert tuple(re.findall(r'"([^"]+)"', listed)) == limits.DATE_ATTRIBUTES


@pytest.mark.parametrize("name, expected", [("SKIP_SUBTREE", SKIP_SUBTREE | {"noscript"}), ("LEAF_ONLY", LEAF_ONLY)])
def test_the_content_script_skips_what_snapshot_py_skips(name, expected):
    """The live path skips <noscript> as well (docs/snapshot.md); otherwise the two lists are the same."""
    text = (EXTENSION / "content" / "snapshot.js").read_text()
    found = re.search(rf"const {name} = new Set\(\[([^\]]*)\]\)", text)
    assert found and set(re.findall(r'"([a-z]+)"', found.group(1))) == set(expected)


def test_the_content_script_knows_the_inline_tags_blocks_py_folds_into_their_block():
    """The content script reads live fields only for the owners of text, found as blocks.py finds them:
    the two inline lists must be the same."""
    from native_host.pipeline.blocks import INLINE

    text = (EXTENSION / "content" / "snapshot.js").read_text()
    found = re.search(r"const INLINE = new Set\(\((.*?)\)\.split", text, re.S)
    assert found and set(" ".join(re.findall(r'"([a-z ]*)"', found.group(1))).split()) == set(INLINE)


def test_every_error_code_the_host_sends_has_the_extensions_words():
    """A code errors.js does not know shows the "internal" text: each PithError code needs its entry."""
    from native_host import errors

    text = (EXTENSION / "background" / "errors.js").read_text()
    body = text[text.index("export const PROBLEMS = {"):text.index("\n};", text.index("export const PROBLEMS"))]
    known = set(re.findall(r"^  (\w+): \{", body, re.M))
    codes = {cls.code for cls in vars(errors).values() if isinstance(cls, type) and issubclass(cls, errors.PithError)}
    assert codes <= known, codes - known


def test_the_extension_and_the_package_carry_one_version():
    from native_host import __version__

    assert MANIFEST["version"] == __version__


def sanitizer_lists() -> dict[str, dict[str, list[str]]]:
    text = (EXTENSION / "reader" / "sanitize.js").read_text()
    return {name: json.loads(re.search(rf"const {name} = (\{{.*?\}});", text, re.S).group(1))
            for name in ("HTML_TAGS", "MATHML_TAGS")}


def test_the_reader_allows_exactly_what_the_host_writes():
    """Every tag and attribute of the host's article HTML survives the reader's sanitiser, and nothing else
    does: the two allowlists are one list written twice."""
    from native_host.pipeline.article import HTML_TAGS, MATHML_TAGS

    lists = sanitizer_lists()
    assert lists["HTML_TAGS"] == {tag: list(attrs) for tag, attrs in HTML_TAGS.items()}
    assert lists["MATHML_TAGS"] == {tag: list(attrs) for tag, attrs in MATHML_TAGS.items()}


def test_the_extension_keeps_every_metadata_field_the_host_sends():
    """The reply's article always carries Result's metadata (protocol.py); the background keeps the same
    fields for the reader's header and the saved file."""
    from dataclasses import fields

    from native_host.browser.protocol import METADATA_FIELDS
    from native_host.result import Result

    text = (EXTENSION / "background" / "actions.js").read_text()
    found = re.search(r"export const METADATA_FIELDS = \[(.*?)\];", text, re.S)
    assert found and re.findall(r'"(\w+)"', found.group(1)) == list(METADATA_FIELDS)
    assert set(METADATA_FIELDS) <= {f.name for f in fields(Result)}


def test_the_content_script_reads_the_page_metadata_snapshot_py_reads():
    """Which meta attributes and link rels make the page's metadata fields: one list on each side."""
    from native_host.pipeline.snapshot import DIRS, LINK_RELS, META_KEYS

    text = (EXTENSION / "content" / "snapshot.js").read_text()
    for name, expected in (("META_KEYS", META_KEYS), ("LINK_RELS", LINK_RELS), ("DIRS", DIRS)):
        found = re.search(rf"const {name} = (?:new Set\()?\[([^\]]*)\]", text)
        assert found and set(re.findall(r'"([a-z]+)"', found.group(1))) == set(expected), name


def test_saved_documents_drop_the_terminal_controls_the_host_strips():
    """One class of terminal controls for the host's article (pipeline/inert.py) and the extension's saved
    documents (article_document.js): the regular expression is written the same in both."""
    from native_host.pipeline.inert import TERMINAL_CONTROLS

    text = (EXTENSION / "article_document.js").read_text()
    assert re.search(r"const TERMINAL_CONTROLS = /(\[[^\]]*\])/g;", text).group(1) == TERMINAL_CONTROLS.pattern
