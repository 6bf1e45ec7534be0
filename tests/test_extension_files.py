"""The extension's files without a browser: one manifest for Chromium and Firefox, its key and ids, its CSP,
every file it names, and limits.js, written from native_host/ by native_host/contracts.py."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from native_host import contracts, limits
from native_host.browser.identity import CHROMIUM_EXTENSION_ID, EXTENSION_PUBLIC_KEY, FIREFOX_EXTENSION_ID
from scripts import bundle

EXTENSION = Path(__file__).resolve().parent.parent / "extension"
MANIFEST = json.loads((EXTENSION / "manifest.json").read_text())
NODE = shutil.which("node")


def node_eval(body: str):
    """The JSON value an async function body returns, run by node with EXT the extension folder's URL."""
    assert NODE, "needs node (Debian's nodejs: scripts/test.sh installs it)"
    script = (
        f"const EXT = {json.dumps(EXTENSION.as_uri() + '/')};\n"
        f"process.stdout.write(JSON.stringify(await (async () => {{ {body} }})()));"
    )
    done = subprocess.run(
        [NODE, "--experimental-default-type=module", "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_manifest_key_gives_the_extension_id_the_host_allows():
    import base64
    import hashlib

    assert MANIFEST["key"] == EXTENSION_PUBLIC_KEY
    digest = hashlib.sha256(base64.b64decode(MANIFEST["key"])).hexdigest()[:32]
    assert "".join(chr(ord("a") + int(c, 16)) for c in digest) == CHROMIUM_EXTENSION_ID


def test_one_manifest_serves_chromium_and_firefox():
    background = MANIFEST["background"]
    assert background["service_worker"] == "background/main.js"  # Chromium
    assert background["scripts"] == ["background/main.js"]  # Firefox (event page)
    assert background["type"] == "module"
    assert MANIFEST["browser_specific_settings"]["gecko"]["id"] == FIREFOX_EXTENSION_ID
    assert MANIFEST["manifest_version"] == 3


def test_permissions_are_the_ones_the_extension_uses():
    assert set(MANIFEST["permissions"]) == {
        "nativeMessaging",
        "activeTab",
        "scripting",
        "downloads",
        "contextMenus",
        "storage",
        "offscreen",
    }
    assert "externally_connectable" not in MANIFEST  # no web page or other extension may message it
    # Pages may frame the reader's and the note's pages (content/frames.js lays them over the page), nothing else:
    # a frame without the background's one-time token shows nothing (tests/test_page_attack.py).
    assert MANIFEST["web_accessible_resources"] == [
        {"resources": ["reader/reader.html", "note/note.html"], "matches": ["<all_urls>"]}
    ]
    assert "content_scripts" not in MANIFEST  # scripts enter a page only when the user asks
    assert set(MANIFEST["commands"]) == {"_execute_action", "reader", "highlight", "save"}


def test_extension_pages_run_under_a_strict_csp():
    policy = dict(
        part.strip().split(" ", 1)
        for part in MANIFEST["content_security_policy"]["extension_pages"].split(";")
        if part.strip()
    )
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
        named += [
            str((js.parent / m).resolve().relative_to(EXTENSION)) for m in re.findall(r'import [^"]*"(\.[^"]+)"', text)
        ]
        named += re.findall(r'"((?:content|background|reader|note|popup)/[\w./-]+\.(?:js|css|html))"', text)
        named += re.findall(r'"(\w+\.js)"', text)
    for html in EXTENSION.rglob("*.html"):
        named += [
            str((html.parent / m).resolve().relative_to(EXTENSION))
            for m in re.findall(r'(?:src|href)="([\w./-]+\.(?:js|css))"', html.read_text())
        ]
    missing = sorted({n for n in named if not (EXTENSION / n).is_file()})
    assert not missing and len(set(named)) > 10


def test_the_shared_contracts_file_is_current():
    """limits.js is written from native_host/ (limits, tag sets, allowlists, error codes): a change there
    without regenerating fails here."""
    assert (EXTENSION / "limits.js").read_text(encoding="utf-8") == contracts.render(), (
        f"extension/limits.js is out of date: run {contracts.COMMAND} to regenerate"
    )


def test_a_stale_contracts_file_is_reported_with_the_way_out(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "limits.js"
    stale.write_text(contracts.render().replace("MAX_NODES: 200000", "MAX_NODES: 1"), encoding="utf-8")
    monkeypatch.setattr(contracts, "PATH", stale)
    assert contracts.main(["--check"]) == 1
    assert "run python -m native_host.contracts to regenerate" in capsys.readouterr().err
    assert contracts.main([]) == 0 and contracts.main(["--check"]) == 0


def test_the_contracts_carry_the_hosts_values():
    """What render() writes is read back by a JavaScript engine as the Python values."""
    from native_host import errors
    from native_host.pipeline.article import HTML_TAGS
    from native_host.pipeline.blocks import INLINE
    from native_host.pipeline.snapshot import SKIP_SUBTREE

    got = node_eval(
        "await import(new URL('limits.js', EXT).href);"
        "return { limits: globalThis.PITH_LIMITS, contracts: globalThis.PITH_CONTRACTS,"
        " frozen: Object.isFrozen(globalThis.PITH_CONTRACTS.HTML_TAGS.a),"
        " terminal_controls: [...Array(0x10000).keys()].filter((c) =>"
        " new RegExp(globalThis.PITH_CONTRACTS.TERMINAL_CONTROLS).test(String.fromCharCode(c))) };"
    )
    for name in contracts.SHARED_LIMITS:
        value = getattr(limits, name)
        assert got["limits"][name] == (list(value) if isinstance(value, tuple) else value), name
    assert got["limits"]["HOST_NAME"] == "org.pith.reader"
    assert set(got["contracts"]["SKIP_SUBTREE"]) == SKIP_SUBTREE | {"noscript"}
    assert set(got["contracts"]["INLINE"]) == set(INLINE)
    assert got["contracts"]["HTML_TAGS"] == {tag: list(attrs) for tag, attrs in HTML_TAGS.items()}
    assert (
        got["contracts"]["ERROR_CODES"] == contracts.error_codes()
        and errors.SnapshotError.code in got["contracts"]["ERROR_CODES"]
    )
    assert got["frozen"]
    assert got["terminal_controls"] == list(range(9)) + list(range(11, 32)) + list(range(127, 160))


def test_every_error_code_the_host_sends_has_the_extensions_words():
    """A code errors.js does not know shows the "internal" text: each PithError code needs its entry."""
    missing = node_eval(
        "await import(new URL('limits.js', EXT).href);"
        "const { PROBLEMS } = await import(new URL('background/errors.js', EXT).href);"
        "return globalThis.PITH_CONTRACTS.ERROR_CODES.filter((code) => !Object.hasOwn(PROBLEMS, code));"
    )
    assert missing == []


def test_the_extension_reads_the_shared_lists_from_the_contracts():
    """No copy of a shared list is left in the scripts that use them."""
    snapshot_js = (EXTENSION / "content" / "snapshot.js").read_text()
    for name in ("SKIP_SUBTREE", "LEAF_ONLY", "INLINE", "META_KEYS", "LINK_RELS", "DIRS"):
        assert re.search(rf"const {name} = (new Set\()?C\.{name}\)?;", snapshot_js), name
    assert (
        "const { HTML_TAGS, MATHML_TAGS } = globalThis.PITH_CONTRACTS;"
        in (EXTENSION / "reader" / "sanitize.js").read_text()
    )


def test_the_extension_and_the_package_carry_one_version():
    from native_host import __version__

    assert MANIFEST["version"] == __version__


def test_the_extension_keeps_every_metadata_field_the_host_sends():
    """The reply's article always carries Result's metadata (render/reply.py); the background keeps the same
    fields for the reader's header and the saved file, read from the generated limits.js."""
    from dataclasses import fields

    from native_host.contracts import contracts
    from native_host.render.reply import METADATA_FIELDS
    from native_host.result import Result

    text = (EXTENSION / "background" / "actions.js").read_text()
    assert "export const METADATA_FIELDS = globalThis.PITH_CONTRACTS.METADATA_FIELDS;" in text
    assert contracts()["METADATA_FIELDS"] == list(METADATA_FIELDS)  # limits.js is checked current elsewhere
    assert set(METADATA_FIELDS) <= {f.name for f in fields(Result)}


def _reader_graph() -> set[Path]:
    """reader.js and every module it imports, read from their import lines."""
    graph = {(EXTENSION / "reader" / "reader.js").resolve()}
    todo = list(graph)
    while todo:
        module = todo.pop()
        for target in re.findall(r'^import (?:[^"]* from )?"(\.[^"]+)";', module.read_text(), re.M):
            found = (module.parent / target).resolve()
            if found not in graph:
                graph.add(found)
                todo.append(found)
    return graph


def test_the_reader_page_runs_the_bundle_alone():
    """reader.html runs one script, bundle.js, which carries every module of reader.js's import graph, none
    more, and imports nothing itself: the frame fetches one file on the click's path."""
    page = (EXTENSION / "reader" / "reader.html").read_text()
    assert re.findall(r"<script[^>]*>", page) == ['<script type="module" src="bundle.js">']
    assert "modulepreload" not in page
    text = (EXTENSION / "reader" / "bundle.js").read_text()
    carried = {(EXTENSION / where).resolve() for where in re.findall(r"^// ---- (\S+)$", text, re.M)}
    assert len(carried) > 5 and carried == _reader_graph()
    assert not re.search(r"^\s*(import|export)\b", text, re.M)


def test_the_reader_bundle_is_current():
    """bundle.js is written from reader.js and its imports: a change to any of them without rebuilding fails
    here."""
    assert (EXTENSION / "reader" / "bundle.js").read_text(encoding="utf-8") == bundle.render(), (
        f"extension/reader/bundle.js is out of date: run {bundle.COMMAND} to regenerate"
    )


def test_an_edited_module_makes_the_bundle_stale_with_the_way_out(tmp_path, monkeypatch, capsys):
    """Editing one module of the graph (the deepest, element.js) without rebuilding is caught; rebuilding
    carries the edit."""
    copy = tmp_path / "extension"
    shutil.copytree(EXTENSION, copy)
    monkeypatch.setattr(bundle, "ENTRY", copy / "reader" / "reader.js")
    monkeypatch.setattr(bundle, "PATH", copy / "reader" / "bundle.js")
    assert bundle.main(["--check"]) == 0
    element = copy / "reader" / "element.js"
    element.write_text(element.read_text() + "export const EDITED = 1;\n")
    assert bundle.main(["--check"]) == 1
    assert "run python -m scripts.bundle to regenerate" in capsys.readouterr().err
    assert bundle.main([]) == 0 and bundle.main(["--check"]) == 0
    assert "const EDITED = 1;" in (copy / "reader" / "bundle.js").read_text()


def test_the_bundler_refuses_a_form_it_does_not_know(tmp_path):
    """An import or export form the bundler does not rewrite stops the build, naming the line, instead of
    shipping a module statement inside the bundle."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.js").write_text('import "./dep.js";\n')
    for line in ("export default function f() {}", 'import * as all from "./other.js";', "export { f };"):
        (tmp_path / "src" / "dep.js").write_text(f"function f() {{}}\n{line}\n")
        (tmp_path / "src" / "other.js").write_text("")
        try:
            bundle.render(tmp_path / "src" / "main.js")
        except ValueError as exc:
            assert line in str(exc) and "src/dep.js" in str(exc)
        else:
            raise AssertionError(f"bundled {line!r}")


def test_the_bundle_runs_like_the_modules(tmp_path):
    """Stand-in modules run by node twice, as modules and as their bundle: the same modules run, each once, in
    the same order (an import before its importer), each importer getting the values it names."""
    src = tmp_path / "ext" / "src"
    src.mkdir(parents=True)
    (tmp_path / "ext" / "shared.js").write_text('globalThis.ran.push("shared");\n')
    (src / "a.js").write_text(
        'import "../shared.js";\nglobalThis.ran.push("a");\nexport const { one, two: deux } = { one: 1, two: 2 };\n'
        "export async function later() { return 3; }\n"
    )
    (src / "b.js").write_text(
        'import { one } from "./a.js";\nglobalThis.ran.push(`b${one}`);\nexport class B { get v() { return one; } }\n'
    )
    (src / "main.js").write_text(
        'import "../shared.js";\nimport { B } from "./b.js";\nimport { deux, later } from "./a.js";\n'
        "globalThis.ran.push(`main${new B().v}${deux}`);\nglobalThis.done = later();\n"
    )
    (src / "bundle.js").write_text(bundle.render(src / "main.js"))
    runs = {}
    for name in ("main.js", "bundle.js"):
        body = (
            f"globalThis.ran = []; await import({json.dumps((src / name).as_uri())});"
            "return [...globalThis.ran, await globalThis.done];"
        )
        runs[name] = node_eval(body)
    assert runs["main.js"] == ["shared", "a", "b1", "main12", 3]
    assert runs["bundle.js"] == runs["main.js"]


def test_the_walk_reads_every_attribute_its_switch_keeps():
    """The snapshot's walk reads an attribute's value only where KEPT_ATTRIBUTES names it (or it is a date
    attribute): a name markupFields handles but the set lacks would be skipped, and its field lost."""
    source = (EXTENSION / "content/snapshot.js").read_text()
    body = source[source.index("function markupFields") : source.index("function lets(")]
    cases = set(re.findall(r'case "([^"]+)":', body))
    listed = re.search(r"KEPT_ATTRIBUTES = new Set\(\[(.*?)\]\)", source, re.S)
    assert listed and cases and set(re.findall(r'"([^"]+)"', listed.group(1))) == cases
