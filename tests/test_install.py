"""`pith install` / `pith uninstall` against temporary home and data directories, for every browser."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from native_host.browser.identity import FIREFOX_EXTENSION_ID, HOST_NAME, chromium_origin
from native_host.cli.main import main

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
    assert found == [
        ".config/BraveSoftware/Brave-Browser/NativeMessagingHosts/org.pith.reader.json",
        ".config/google-chrome/NativeMessagingHosts/org.pith.reader.json",
    ]


@pytest.mark.parametrize(
    "platform, profiles",
    [
        ("linux", ".mozilla/firefox"),  # where Firefox long kept them
        ("linux", ".config/mozilla/firefox"),  # a fresh home, recent Firefox (XDG)
        ("linux", "snap/firefox/common/.mozilla/firefox"),  # the Snap
        ("macos", "Library/Application Support/Firefox"),
    ],
)
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
    done = subprocess.run([str(tmp_path / "data" / "pith-host"), "--help"], capture_output=True, text=True, timeout=60)
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


def probe_extension(tmp_path: Path) -> Path:
    """An unpacked extension with Pith's key (so Pith's id, which the manifests allow) running PROBE_WORKER."""
    from native_host.browser.identity import EXTENSION_PUBLIC_KEY

    extension = tmp_path / "probe"
    extension.mkdir()
    (extension / "manifest.json").write_text(
        json.dumps(
            {
                "manifest_version": 3,
                "name": "pith host probe",
                "version": "0.0.1",
                "key": EXTENSION_PUBLIC_KEY,
                "permissions": ["nativeMessaging"],
                "background": {"service_worker": "worker.js"},
            }
        )
    )
    (extension / "worker.js").write_text(PROBE_WORKER)
    return extension


@pytest.mark.browser
def test_chromium_starts_the_installed_host_and_receives_a_chunked_article(tmp_path, home):
    """Real Chromium, a probe extension with Pith's key, the manifest `pith install --user-data-dir` wrote."""
    from host_support import article_html, standin_model

    from harness.browsers import chromium
    from native_host import snapshot_from_html

    extension = probe_extension(tmp_path)
    profile = tmp_path / "profile"
    assert pith(tmp_path, "install", "--user-data-dir", str(profile)) == 0
    model_dir = standin_model(tmp_path)
    env = {"PITH_LOG_DIR": str(tmp_path / "logs"), **({"PITH_MODEL_DIR": model_dir} if model_dir else {})}
    snapshot = snapshot_from_html(article_html(3_000), url="https://news.example/long")
    requests = [
        {"v": 1, "id": 1, "type": "hello"},
        {"v": 1, "id": 2, "type": "extract", "snapshot": snapshot, "want": ["text"]},
        {"v": 1, "id": 3, "type": "extract", "snapshot": {"nodes": []}},
    ]
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

    from harness.browsers import FIREFOX

    require("firefox")
    home = tmp_path / "home"
    home.mkdir()
    subprocess.run(
        [FIREFOX, "-headless", "-CreateProfile", "pith-test"],
        env={**os.environ, "HOME": str(home)},
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert pith(tmp_path, "install") == 0  # no --browser: found by its profile
    assert (home / EXPECTED["firefox", "linux"] / f"{HOST_NAME}.json").is_file()
    with extension_browser(
        "firefox", tmp_path, host="missing", model_dir=None, pages=PAGES
    ) as b:  # "missing": nothing more registered than `pith install` did
        _reply, reader = open_reader(b, b.open("article.html"))
        assert "Every evening at dusk" in reader.text("#article")


# ---------------------------------------------------------------------------------------------------------------
# Where each browser reads, as the user's environment says (issue 32, item 3)

CHROMIUM_FAMILY = sorted(b for b, platform in EXPECTED if platform == "linux" and b != "firefox")


@pytest.fixture
def own_home(tmp_path, monkeypatch):
    """HOME is tmp/home, as if it were the user's own (no --home): the config variables apply. Returns a
    `pith` that runs with it."""
    (tmp_path / "home").mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in ("XDG_CONFIG_HOME", "CHROME_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    return lambda *args: main([*args, "--data-dir", str(tmp_path / "data"), "--platform", "linux"])


def in_xdg(browser: str) -> str:
    """A Chromium-family browser's manifest directory relative to its config home (EXPECTED less `.config/`)."""
    return EXPECTED[browser, "linux"].removeprefix(".config/")


def manifests(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob(f"{HOST_NAME}.json"))


@pytest.mark.parametrize("browser", CHROMIUM_FAMILY)
def test_xdg_config_home_is_where_chromium_family_profiles_are_found_and_registered(
    tmp_path, own_home, monkeypatch, browser
):
    xdg = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    (xdg / in_xdg(browser)).parent.mkdir(parents=True)  # the browser has run: its profile directory exists
    before = tree(tmp_path)
    assert own_home("install") == 0
    assert manifests(tmp_path) == [f"xdg/{in_xdg(browser)}/{HOST_NAME}.json"]
    assert own_home("uninstall") == 0
    assert tree(tmp_path) == before


@pytest.mark.parametrize("browser", CHROMIUM_FAMILY)
def test_a_named_browser_is_registered_in_xdg_config_home_even_before_its_first_run(
    tmp_path, own_home, monkeypatch, browser
):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert own_home("install", "--browser", browser) == 0
    assert manifests(tmp_path) == [f"xdg/{in_xdg(browser)}/{HOST_NAME}.json"]


def test_chrome_config_home_comes_before_xdg_config_home(tmp_path, own_home, monkeypatch):
    """Chromium's rule on Linux (the Snap sets CHROME_CONFIG_HOME to its common folder)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("CHROME_CONFIG_HOME", str(tmp_path / "cch"))
    assert own_home("install", "--browser", "chromium", "--browser", "brave") == 0
    assert manifests(tmp_path) == [
        f"cch/{in_xdg('brave')}/{HOST_NAME}.json",
        f"cch/{in_xdg('chromium')}/{HOST_NAME}.json",
    ]


def test_a_relative_xdg_config_home_is_ignored_as_the_spec_says(tmp_path, own_home, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/config")
    assert own_home("install", "--browser", "vivaldi") == 0
    assert manifests(tmp_path) == [f"home/{EXPECTED['vivaldi', 'linux']}/{HOST_NAME}.json"]


def test_another_home_is_not_moved_by_your_xdg_config_home(tmp_path, home, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert pith(tmp_path, "install", "--browser", "chromium", "--platform", "linux") == 0
    assert manifests(tmp_path) == [f"home/{EXPECTED['chromium', 'linux']}/{HOST_NAME}.json"]


@pytest.mark.parametrize("profiles", ["xdg/mozilla/firefox", "home/.mozilla/firefox"])
def test_firefox_reads_from_dot_mozilla_whatever_xdg_config_home_says(tmp_path, own_home, monkeypatch, profiles):
    """Firefox keeps a fresh home's profiles in $XDG_CONFIG_HOME/mozilla/firefox but reads host manifests
    from ~/.mozilla/native-messaging-hosts (test_firefox_reads_host_manifests_from_dot_mozilla asks Firefox)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    (tmp_path / profiles).mkdir(parents=True)
    assert own_home("install") == 0
    assert manifests(tmp_path) == [f"home/{EXPECTED['firefox', 'linux']}/{HOST_NAME}.json"]


@pytest.mark.parametrize(
    "browser, used, written",
    [
        (
            "chrome",
            ".var/app/com.google.Chrome",
            ".var/app/com.google.Chrome/config/google-chrome/NativeMessagingHosts",
        ),
        (
            "chromium",
            ".var/app/org.chromium.Chromium",
            ".var/app/org.chromium.Chromium/config/chromium/NativeMessagingHosts",
        ),
        (
            "brave",
            ".var/app/com.brave.Browser",
            ".var/app/com.brave.Browser/config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
        ),
        (
            "edge",
            ".var/app/com.microsoft.Edge",
            ".var/app/com.microsoft.Edge/config/microsoft-edge/NativeMessagingHosts",
        ),
        ("vivaldi", ".var/app/com.vivaldi.Vivaldi", ".var/app/com.vivaldi.Vivaldi/config/vivaldi/NativeMessagingHosts"),
        ("chromium", "snap/chromium", "snap/chromium/common/chromium/NativeMessagingHosts"),
        ("firefox", ".var/app/org.mozilla.firefox/.mozilla/firefox", ".mozilla/native-messaging-hosts"),  # the portal
    ],
)
def test_flatpak_and_snap_browsers_are_registered_where_their_sandbox_reads(
    tmp_path, own_home, capsys, browser, used, written
):
    home = tmp_path / "home"
    (home / used).mkdir(parents=True)
    before = tree(tmp_path)
    assert own_home("install") == 0
    assert manifests(home) == [f"{written}/{HOST_NAME}.json"]
    assert (browser == "firefox") != ("sandbox" in capsys.readouterr().out)  # a Chromium sandbox gets a note
    assert own_home("install", "--browser", browser) == 0  # a named browser: every place it is used
    assert manifests(home) == [f"{written}/{HOST_NAME}.json"]
    assert own_home("uninstall") == 0
    assert tree(tmp_path) == before


# ---------------------------------------------------------------------------------------------------------------
# A failed install (issue 32, item 6)


def one_line_error(capsys, *words: str) -> str:
    err = capsys.readouterr().err
    assert err.startswith("pith: cannot ") and err.count("\n") == 1 and "Traceback" not in err, err
    for word in words:
        assert word in err, err
    return err


def test_a_failure_part_way_is_undone_by_uninstall(tmp_path, home, capsys):
    """The second manifest's place is taken by a directory: the launcher and the first manifest are written
    by then, and the record written first lists them."""
    in_the_way = home / EXPECTED["edge", "linux"] / f"{HOST_NAME}.json"
    in_the_way.mkdir(parents=True)
    before = tree(tmp_path)
    assert pith(tmp_path, "install", "--browser", "chrome", "--browser", "edge", "--platform", "linux") == 1
    one_line_error(capsys, str(in_the_way), "pith uninstall")
    assert (home / EXPECTED["chrome", "linux"] / f"{HOST_NAME}.json").is_file()  # written before the failure
    assert pith(tmp_path, "uninstall", "--platform", "linux") == 0
    assert tree(tmp_path) == before


def test_an_injected_failure_on_any_write_leaves_nothing_uninstall_cannot_remove(tmp_path, home, capsys, monkeypatch):
    """A full disk at each rename in turn (the launcher, each manifest): uninstall removes all."""
    from native_host.cli import install as installer

    (home / ".config").mkdir()
    before = tree(tmp_path)
    replace = os.replace
    for failing in range(4):  # launcher, chrome, firefox: the fourth write is beyond the last one
        calls = []

        def full_disk(src, dst, calls=calls, failing=failing):  # bound now: each pass patches its own
            calls.append(dst)
            if len(calls) == failing + 2:  # the record is the first rename
                raise OSError(28, "No space left on device", str(dst))
            return replace(src, dst)

        monkeypatch.setattr(installer.os, "replace", full_disk)
        status = pith(tmp_path, "install", "--browser", "chrome", "--browser", "firefox", "--platform", "linux")
        monkeypatch.setattr(installer.os, "replace", replace)
        if failing < 3:
            assert status == 1
            one_line_error(capsys, "No space left on device", "pith uninstall")
        else:
            assert status == 0
        assert not list(tmp_path.rglob("*.pith-tmp"))
        assert pith(tmp_path, "uninstall", "--platform", "linux") == 0
        assert tree(tmp_path) == before, failing


def test_a_reinstall_that_fails_leaves_the_earlier_files_still_uninstallable(tmp_path, home, monkeypatch, capsys):
    """The earlier launcher stays when its replacement cannot be written; uninstall still knows it."""
    from native_host.cli import install as installer

    before = tree(tmp_path)
    assert pith(tmp_path, "install", "--browser", "chrome", "--platform", "linux") == 0
    monkeypatch.setattr(installer, "launcher_script", lambda: "#!/bin/sh\nexec /another/python3 -m native_host\n")
    monkeypatch.setattr(installer.os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(5, "Input/output error")))
    assert pith(tmp_path, "install", "--browser", "chrome", "--platform", "linux") == 1
    one_line_error(capsys, "Input/output error")
    monkeypatch.undo()
    assert pith(tmp_path, "uninstall", "--platform", "linux") == 0
    assert tree(tmp_path) == before


def read_only(monkeypatch, directory: Path) -> None:
    """Make `directory` read-only. Root passes mode bits, so for root the test refuses writes inside it as
    the kernel refuses them to everyone else."""
    directory.chmod(0o555)
    if os.geteuid() != 0:
        return

    def inside(path) -> bool:
        return Path(os.fspath(path)).absolute().parent == directory

    def refuse(real, *paths_at):
        def call(*args, **kwargs):
            for i in paths_at:
                if inside(args[i]):
                    raise PermissionError(13, "Permission denied", os.fspath(args[i]))
            return real(*args, **kwargs)

        return call

    real_open = os.open
    monkeypatch.setattr(os, "mkdir", refuse(os.mkdir, 0))
    monkeypatch.setattr(os, "unlink", refuse(os.unlink, 0))
    monkeypatch.setattr(os, "rmdir", refuse(os.rmdir, 0))
    monkeypatch.setattr(os, "replace", refuse(os.replace, 0, 1))
    monkeypatch.setattr(
        os,
        "open",
        lambda path, flags, *a, **k: (
            refuse(real_open, 0)(path, flags, *a, **k)
            if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT)
            else real_open(path, flags, *a, **k)
        ),
    )


@pytest.fixture
def restore_modes(tmp_path):
    yield
    for p in [tmp_path, *tmp_path.rglob("*")]:
        if p.is_dir() and not p.is_symlink():
            p.chmod(0o755)


def test_a_read_only_profile_directory_is_one_line_with_the_way_out(tmp_path, home, monkeypatch, capsys, restore_modes):
    profile = home / ".config" / "google-chrome"
    profile.mkdir(parents=True)
    before = tree(tmp_path)
    read_only(monkeypatch, profile)
    assert pith(tmp_path, "install", "--platform", "linux") == 1
    one_line_error(capsys, str(profile / "NativeMessagingHosts"), f"make {profile} writable", "--user-data-dir")
    assert pith(tmp_path, "uninstall", "--platform", "linux") == 0
    assert tree(tmp_path) == before


def test_a_read_only_home_for_the_launcher_is_one_line_and_writes_nothing(
    tmp_path, home, monkeypatch, capsys, restore_modes
):
    (home / ".config" / "chromium").mkdir(parents=True)
    before = tree(tmp_path)
    read_only(monkeypatch, tmp_path)  # where --data-dir would go
    assert pith(tmp_path, "install", "--platform", "linux") == 1
    one_line_error(capsys, str(tmp_path / "data"), "--data-dir")
    assert tree(tmp_path) == before


def test_a_file_where_a_directory_must_go_is_one_line(tmp_path, home, capsys):
    (home / ".config").write_text("not a directory")
    assert pith(tmp_path, "install", "--browser", "edge", "--platform", "linux") == 1
    one_line_error(capsys, str(home / ".config"))
    assert pith(tmp_path, "uninstall", "--platform", "linux") == 0
    assert sorted(p.name for p in tmp_path.rglob("*")) == [".config", "home"]


def test_uninstall_in_a_read_only_place_is_one_line(tmp_path, home, monkeypatch, capsys, restore_modes):
    assert pith(tmp_path, "install", "--browser", "chrome", "--platform", "linux") == 0
    hosts = home / EXPECTED["chrome", "linux"]
    read_only(monkeypatch, hosts)
    capsys.readouterr()
    assert pith(tmp_path, "uninstall", "--platform", "linux") == 1
    one_line_error(capsys, str(hosts / f"{HOST_NAME}.json"), "writable")


@pytest.mark.browser
def test_chromium_with_xdg_config_home_starts_the_host_pith_install_registered(tmp_path, own_home, monkeypatch):
    """Chromium in its default profile under $XDG_CONFIG_HOME (named to it, as Playwright must name one),
    `pith install` told nothing but the environment: the probe extension reaches the host."""
    from harness.browsers import chromium

    xdg = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    extension = probe_extension(tmp_path)
    assert own_home("install", "--browser", "chromium") == 0
    env = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(xdg), "PITH_LOG_DIR": str(tmp_path / "logs")}
    with chromium(xdg / "chromium", extension, env) as (_, worker):
        outcome = worker.evaluate("(requests) => self.probe(requests)", [{"v": 1, "id": 1, "type": "hello"}])
    assert "error" not in outcome, outcome.get("error")
    assert outcome["replies"][0]["type"] == "hello"


@pytest.mark.firefox
def test_firefox_reads_host_manifests_from_dot_mozilla_whatever_xdg_config_home_says(tmp_path, own_home, monkeypatch):
    """Asks Firefox itself (its directory service, from the browser's chrome scope) where it reads per-user
    host manifests on a fresh home with XDG_CONFIG_HOME set, and checks `pith install` writes there."""
    from browser import require

    from harness.browsers import firefox

    require("firefox")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    (tmp_path / "xdg" / "mozilla" / "firefox").mkdir(parents=True)  # where a fresh home's profiles go
    assert own_home("install") == 0
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    with firefox(tmp_path, env=env) as bidi:  # HOME: tmp/home, as `pith install` saw it
        chrome = bidi.send("browsingContext.getTree", {"moz:scope": "chrome"})["contexts"][0]["context"]
        reply = bidi.send(
            "script.evaluate",
            {
                "expression": "Services.dirsvc.get('XREUserNativeManifests', Ci.nsIFile).path",
                "target": {"context": chrome},
                "awaitPromise": False,
            },
        )
    reads = Path(reply["result"]["value"]) / "native-messaging-hosts"  # the folder Firefox adds on Linux
    assert (reads / f"{HOST_NAME}.json").is_file()
    assert reads == tmp_path / "home" / EXPECTED["firefox", "linux"]


def test_a_link_planted_at_the_temporary_name_is_not_written_through(tmp_path, home):
    hosts = home / EXPECTED["chrome", "linux"]
    hosts.mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's own file")
    (hosts / f".{HOST_NAME}.json.pith-tmp").symlink_to(victim)
    assert pith(tmp_path, "install", "--browser", "chrome", "--platform", "linux") == 0
    assert victim.read_text() == "the user's own file"
    assert json.loads((hosts / f"{HOST_NAME}.json").read_text())["name"] == HOST_NAME
