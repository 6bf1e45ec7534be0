"""`pith install` / `pith uninstall` against temporary home and data directories, for every browser."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from native_host.cli.main import main
from native_host.browser.identity import FIREFOX_EXTENSION_ID, HOST_NAME, chromium_origin

# Where each browser reads per-user host manifests (the browsers' documentation), written out independently
# of install.py's table so a typo there fails here.
EXPECTED = {
    ("chrome", "linux"): ".config/google-chrome/NativeMessagingHosts",
    ("chromium", "linux"): ".config/chromium/NativeMessagingHosts",
    ("brave", "linux"): ".config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
    ("edge", "linux"): ".config/microsoft-edge/NativeMessagingHosts",
    ("vivaldi", "linux"): ".config/vivaldi/NativeMessagingHosts",
    ("firefox", "linux"): ".mozilla/native-messaging-hosts",
    ("chrome", "macos"): "Library/Application Support/Google/Chrome/NativeMessagingHosts",
    ("chromium", "macos"): "Library/Application Support/Chromium/NativeMessagingHosts",
    ("brave", "macos"): "Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts",
    ("edge", "macos"): "Library/Application Support/Microsoft Edge/NativeMessagingHosts",
    ("vivaldi", "macos"): "Library/Application Support/Vivaldi/NativeMessagingHosts",
    ("firefox", "macos"): "Library/Application Support/Mozilla/NativeMessagingHosts",
}


def tree(root: Path) -> dict[str, bytes | None]:
    """Every path under root with its content (None for a directory)."""
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


def pith(tmp_path: Path, *args: str) -> int:
    return main([*args, "--home", str(tmp_path / "home"), "--data-dir", str(tmp_path / "data")])


@pytest.fixture
def home(tmp_path):
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


@pytest.mark.parametrize("browser, platform", sorted(EXPECTED))
def test_install_writes_the_manifest_and_uninstall_takes_back_exactly_that(tmp_path, home, browser, platform):
    (home / ".config").mkdir()
    (home / "notes.txt").write_text("the user's own file")
    before = tree(tmp_path)
    assert pith(tmp_path, "install", "--browser", browser, "--platform", platform) == 0
    manifest_path = home / EXPECTED[browser, platform] / f"{HOST_NAME}.json"
    manifest = json.loads(manifest_path.read_text())
    launcher = tmp_path / "data" / "pith-host"
    assert manifest["name"] == HOST_NAME and manifest["type"] == "stdio" and manifest["path"] == str(launcher)
    if browser == "firefox":
        assert manifest["allowed_extensions"] == [FIREFOX_EXTENSION_ID] and "allowed_origins" not in manifest
    else:
        assert manifest["allowed_origins"] == [chromium_origin()] and "allowed_extensions" not in manifest
    assert os.access(launcher, os.X_OK) and sys.executable in launcher.read_text()
    assert pith(tmp_path, "uninstall", "--browser", browser, "--platform", platform) == 0
    assert tree(tmp_path) == before


def test_without_browser_only_browsers_with_a_profile_are_registered(tmp_path, home):
    (home / ".config" / "google-chrome").mkdir(parents=True)
    (home / ".config" / "BraveSoftware" / "Brave-Browser").mkdir(parents=True)
    assert pith(tmp_path, "install", "--platform", "linux") == 0
    found = sorted(str(p.relative_to(home)) for p in home.rglob(f"{HOST_NAME}.json"))
    assert found == [".config/BraveSoftware/Brave-Browser/NativeMessagingHosts/org.pith.reader.json",
                     ".config/google-chrome/NativeMessagingHosts/org.pith.reader.json"]


@pytest.mark.parametrize("platform, profiles", [
    ("linux", ".mozilla/firefox"),                       # where Firefox long kept them
    ("linux", ".config/mozilla/firefox"),                # a fresh home, recent Firefox (XDG)
    ("linux", "snap/firefox/common/.mozilla/firefox"),   # the Snap
    ("macos", "Library/Application Support/Firefox"),
])
def test_firefox_is_found_wherever_it_keeps_its_profiles(tmp_path, home, platform, profiles):
    (home / profiles).mkdir(parents=True)
    assert pith(tmp_path, "install", "--platform", platform) == 0
    found = [p.relative_to(home) for p in home.rglob(f"{HOST_NAME}.json")]
    assert found == [Path(EXPECTED["firefox", platform]) / f"{HOST_NAME}.json"]  # where Firefox reads it
    assert pith(tmp_path, "uninstall", "--platform", platform) == 0
    assert [p.relative_to(home) for p in home.rglob("*") if p.is_file()] == []


def test_no_browser_profile_is_an_error_naming_the_option(tmp_path, home, capsys):
    assert pith(tmp_path, "install", "--platform", "linux") == 1
    assert "--browser chrome" in capsys.readouterr().err
    assert not (tmp_path / "data").exists()


def test_user_data_dir_registers_one_profile(tmp_path, home):
    profile = tmp_path / "profile"
    assert pith(tmp_path, "install", "--user-data-dir", str(profile), "--platform", "linux") == 0
    manifest = json.loads((profile / "NativeMessagingHosts" / f"{HOST_NAME}.json").read_text())
    assert manifest["allowed_origins"] == [chromium_origin()]
    assert not list(home.rglob("*"))
    assert pith(tmp_path, "uninstall", "--user-data-dir", str(profile), "--platform", "linux") == 0
    assert not profile.exists() and not (tmp_path / "data").exists()


def test_user_data_dir_is_refused_for_firefox(tmp_path, home, capsys):
    assert pith(tmp_path, "install", "--user-data-dir", str(tmp_path / "p"), "--browser", "firefox") == 1
    assert "drop --user-data-dir" in capsys.readouterr().err


def test_uninstalling_one_browser_keeps_the_others_and_the_launcher(tmp_path, home):
    assert pith(tmp_path, "install", "--browser", "chrome", "--browser", "firefox", "--platform", "linux") == 0
    assert pith(tmp_path, "uninstall", "--browser", "firefox", "--platform", "linux") == 0
    assert (home / EXPECTED["chrome", "linux"] / f"{HOST_NAME}.json").is_file()
    assert not (home / ".mozilla").exists()
    assert (tmp_path / "data" / "pith-host").is_file()
    assert pith(tmp_path, "uninstall", "--platform", "linux") == 0
    assert not list(home.rglob("*")) and not (tmp_path / "data").exists()


def test_uninstall_leaves_what_it_did_not_write(tmp_path, home, capsys):
    hosts = home / EXPECTED["chrome", "linux"]
    hosts.mkdir(parents=True)
    (hosts / "com.other.app.json").write_text("{}")
    assert pith(tmp_path, "install", "--browser", "chrome", "--browser", "edge", "--platform", "linux") == 0
    edited = home / EXPECTED["edge", "linux"] / f"{HOST_NAME}.json"
    edited.write_text(edited.read_text().replace("stdio", "stdio "))
    assert pith(tmp_path, "uninstall", "--platform", "linux") == 0
    out = capsys.readouterr().out
    assert f"left {edited}" in out
    assert edited.is_file() and (hosts / "com.other.app.json").is_file() and hosts.is_dir()
    assert not (hosts / f"{HOST_NAME}.json").exists()


def test_uninstall_without_an_install_says_so(tmp_path, home, capsys):
    assert pith(tmp_path, "uninstall") == 0
    assert "nothing to uninstall" in capsys.readouterr().out


def test_the_launcher_starts_this_installation_s_host(tmp_path, home):
    assert pith(tmp_path, "install", "--browser", "chromium", "--platform", "linux") == 0
    done = subprocess.run([str(tmp_path / "data" / "pith-host"), "--help"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and "--stdio-jsonl" in done.stdout


PROBE_WORKER = """
// Connects to the host the way the Pith extension does and joins chunked replies (docs/protocol.md).
self.probe = (requests) => new Promise((resolve) => {
  const port = chrome.runtime.connectNative('org.pith.reader');
  const replies = [], parts = {}, frames = [];
  port.onMessage.addListener((m) => {
    frames.push(m.type);
    if (m.type === 'progress') return;
    if (m.type === 'chunk') {
      (parts[m.id] = parts[m.id] || []).push(m.data);
      if (parts[m.id].length < m.count) return;
      m = JSON.parse(parts[m.id].join('')); delete parts[m.id];
    }
    replies.push(m);
    if (replies.length === requests.length) { port.disconnect(); resolve({replies, frames}); }
  });
  port.onDisconnect.addListener(() => resolve({error: chrome.runtime.lastError && chrome.runtime.lastError.message,
                                               replies, frames}));
  for (const r of requests) port.postMessage(r);
});
"""


@pytest.mark.browser
def test_chromium_starts_the_installed_host_and_receives_a_chunked_article(tmp_path, home):
    """Real Chromium, a probe extension with Pith's key, the manifest `pith install --user-data-dir` wrote."""
    from export.browsers import chromium
    from host_support import article_html, standin_model
    from native_host import snapshot_from_html
    from native_host.browser.identity import EXTENSION_PUBLIC_KEY

    extension = tmp_path / "probe"
    extension.mkdir()
    (extension / "manifest.json").write_text(json.dumps({
        "manifest_version": 3, "name": "pith host probe", "version": "0.0.1", "key": EXTENSION_PUBLIC_KEY,
        "permissions": ["nativeMessaging"], "background": {"service_worker": "worker.js"}}))
    (extension / "worker.js").write_text(PROBE_WORKER)
    profile = tmp_path / "profile"
    assert pith(tmp_path, "install", "--user-data-dir", str(profile)) == 0
    model_dir = standin_model(tmp_path)
    env = {"PITH_LOG_DIR": str(tmp_path / "logs"), **({"PITH_MODEL_DIR": model_dir} if model_dir else {})}
    snapshot = snapshot_from_html(article_html(3_000), url="https://news.example/long")
    requests = [{"v": 1, "id": 1, "type": "hello"},
                {"v": 1, "id": 2, "type": "extract", "snapshot": snapshot, "want": ["text"]},
                {"v": 1, "id": 3, "type": "extract", "snapshot": {"nodes": []}}]
    with chromium(profile, extension, env) as (_, worker):
        outcome = worker.evaluate("(requests) => self.probe(requests)", requests)
    assert "error" not in outcome, outcome.get("error")
    hello, result, refused = outcome["replies"]
    assert hello["type"] == "hello" and hello["model_id"]
    assert result["id"] == 2 and len(result["article"]["text"].encode()) > 1_000_000
    from native_host import Extractor

    assert result["article"]["text"] == Extractor(model_dir=model_dir).extract_snapshot(snapshot).text
    assert outcome["frames"].count("chunk") > 1
    assert refused["id"] == 3 and refused["error"]["code"] == "bad_snapshot"


def test_the_allowed_origin_is_the_one_the_extension_key_gives(tmp_path, home):
    import base64
    import hashlib

    from native_host.browser.identity import EXTENSION_PUBLIC_KEY

    digest = hashlib.sha256(base64.b64decode(EXTENSION_PUBLIC_KEY)).hexdigest()[:32]
    extension_id = "".join(chr(ord("a") + int(c, 16)) for c in digest)
    assert pith(tmp_path, "install", "--browser", "brave", "--platform", "linux") == 0
    manifest = json.loads((home / EXPECTED["brave", "linux"] / f"{HOST_NAME}.json").read_text())
    assert manifest["allowed_origins"] == [f"chrome-extension://{extension_id}/"]


@pytest.mark.firefox
def test_firefox_on_a_fresh_home_is_found_and_starts_the_host(tmp_path):
    """Real Firefox makes its profile where it likes on a fresh home; `pith install` with no --browser finds
    it, and the manifest it writes is the one that Firefox reads: the reader view opens."""
    from browser import PAGES, extension_browser, open_reader, require
    from export.browsers import FIREFOX

    require("firefox")
    home = tmp_path / "home"
    home.mkdir()
    subprocess.run([FIREFOX, "-headless", "-CreateProfile", "pith-test"], env={**os.environ, "HOME": str(home)},
                   capture_output=True, timeout=120, check=True)
    assert pith(tmp_path, "install") == 0  # no --browser: found by its profile
    assert (home / EXPECTED["firefox", "linux"] / f"{HOST_NAME}.json").is_file()
    with extension_browser("firefox", tmp_path, host="missing", model_dir=None,
                           pages=PAGES) as b:  # "missing": nothing more registered than `pith install` did
        reply, reader = open_reader(b, b.open("article.html"))
        assert "Every evening at dusk" in reader.text("#article")
