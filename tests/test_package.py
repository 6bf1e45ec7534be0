"""The store packages (`python -m scripts.package`): each holds the manifest its store accepts and the files its
browser runs, the archives are reproducible, Mozilla's `web-ext lint` passes the Firefox one, and each browser
loads its own package."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from scripts.package import EXTENSION, STORES, build, files_for, lint, manifest_for, web_ext

SOURCE = json.loads((EXTENSION / "manifest.json").read_text())


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    for store in STORES:
        build(store, out)
    return out


def read_manifest(archive: Path) -> dict:
    with zipfile.ZipFile(archive) as zf:
        return json.loads(zf.read("manifest.json"))


def test_the_chrome_package_has_no_key_and_no_firefox_keys(dist):
    manifest = read_manifest(dist / "pith-chrome.zip")
    assert "key" not in manifest  # the Chrome Web Store refuses it and assigns the id
    assert "browser_specific_settings" not in manifest
    assert manifest["background"] == {"service_worker": "background/main.js", "type": "module"}
    assert "offscreen" in manifest["permissions"]
    with zipfile.ZipFile(dist / "pith-chrome.zip") as zf:
        names = set(zf.namelist())
    assert "offscreen/blob.html" in names and "reader/sanitize.js" in names


def test_the_firefox_package_has_no_chromium_only_keys_or_files(dist):
    manifest = read_manifest(dist / "pith-firefox.xpi")
    assert "key" not in manifest and "minimum_chrome_version" not in manifest
    assert manifest["background"] == {"scripts": ["background/main.js"], "type": "module"}
    assert "offscreen" not in manifest["permissions"]
    gecko = manifest["browser_specific_settings"]["gecko"]
    assert gecko["id"] == SOURCE["browser_specific_settings"]["gecko"]["id"]
    assert gecko["data_collection_permissions"] == {"required": ["none"]}  # Pith sends nothing anywhere
    with zipfile.ZipFile(dist / "pith-firefox.xpi") as zf:
        names = set(zf.namelist())
    assert not any(n.startswith("offscreen/") for n in names) and "background/save.js" in names


def test_each_package_holds_every_other_file_and_the_same_manifest_otherwise(dist):
    for store, archive in STORES.items():
        with zipfile.ZipFile(dist / archive) as zf:
            names = sorted(n for n in zf.namelist() if n != "manifest.json")
            for name in names:
                assert zf.read(name) == (EXTENSION / name).read_bytes(), name
        assert names == [str(p) for p in files_for(store)]
        manifest = read_manifest(dist / archive)
        for key in (
            "name",
            "version",
            "description",
            "commands",
            "content_security_policy",
            "host_permissions",
            "action",
            "icons",
        ):
            assert manifest[key] == SOURCE[key], (store, key)
    assert not any(".." in str(p) or str(p).startswith(".") for store in STORES for p in files_for(store))


def test_the_archives_are_reproducible(dist, tmp_path):
    for store, archive in STORES.items():
        again = build(store, tmp_path)
        assert again.read_bytes() == (dist / archive).read_bytes(), store


def test_the_manifest_changes_are_the_only_differences_between_the_stores():
    chrome, firefox = manifest_for("chrome", SOURCE), manifest_for("firefox", SOURCE)
    assert set(SOURCE) - set(chrome) == {"key", "browser_specific_settings"}
    assert set(SOURCE) - set(firefox) == {"key", "minimum_chrome_version"}
    with pytest.raises(ValueError):
        manifest_for("safari", SOURCE)


def test_web_ext_lint_passes_the_firefox_package(dist):
    if web_ext() is None:
        pytest.skip("web-ext is not installed: run `npm install` in the repository root (scripts/test.sh does)")
    if shutil.which("node") is None:
        pytest.skip("node is not installed (web-ext runs on it): `apt-get install nodejs npm`")
    report = lint(dist / "firefox")
    problems = [
        (m["code"], m.get("file"), m["message"])
        for kind in ("errors", "warnings", "notices")
        for m in report.get(kind, [])
    ]
    assert problems == [], problems
    assert report["summary"] == {"errors": 0, "notices": 0, "warnings": 0}


@pytest.mark.firefox
def test_firefox_installs_the_xpi_and_runs_it(dist, tmp_path):
    """The packaged add-on itself, installed from the .xpi as a user's browser would: the reader opens."""
    from browser import PAGES, extension_browser, open_reader, require

    require("firefox")
    with extension_browser(
        "firefox", tmp_path / "browser", model_dir=None, pages=PAGES, extension=dist / "pith-firefox.xpi"
    ) as b:
        _, reader = open_reader(b, b.open("article.html"))
        assert "Every evening at dusk" in reader.text("#article")
        manifest = b.call("() => api.runtime.getManifest()")
        assert "offscreen" not in manifest["permissions"] and "key" not in manifest


@pytest.mark.browser
def test_chromium_loads_the_chrome_package(dist, tmp_path):
    """Unpacked, as developer mode loads it: the worker starts and the popup renders. (Without the key the
    id is another one, which `pith install` does not allow, so no host here.)"""
    from browser import require

    from harness.browsers import chromium

    require("chromium")
    with chromium(tmp_path / "profile", dist / "chrome") as (context, worker):
        origin = worker.url.split("/background/")[0]
        page = context.new_page()
        page.goto(f"{origin}/popup/popup.html")
        assert page.locator("[data-action=reader]").inner_text() == "Reader view"
        assert "key" not in worker.evaluate("chrome.runtime.getManifest()")
