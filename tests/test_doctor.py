"""`pith doctor` against temporary installs: each broken link is found and comes with its fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from host_support import standin_model

from native_host.cli.install import BY_NAME
from native_host.cli.main import main

BROWSERS = sorted(BY_NAME)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return standin_model(tmp_path_factory.mktemp("model"))


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("PITH_LOG_DIR", str(tmp_path / "logs"))
    (tmp_path / "home").mkdir()
    return tmp_path


def pith(tmp_path: Path, *args: str) -> int:
    return main([*args, "--home", str(tmp_path / "home"), "--data-dir", str(tmp_path / "data"), "--platform", "linux"])


def doctor(tmp_path: Path, model_dir: str | None, *args: str) -> int:
    return pith(tmp_path, "doctor", *args, *(["--model-dir", model_dir] if model_dir else []))


def test_a_whole_install_passes_every_check(env, model_dir, capsys):
    assert pith(env, "install", "--browser", "all") == 0
    capsys.readouterr()
    assert doctor(env, model_dir, "--browser", "all") == 0
    out = capsys.readouterr().out
    for browser in BROWSERS:
        assert f"ok    manifest for {browser}" in out
    assert "ok    round trip: hello and extract answered" in out and "all good" in out


def test_one_profile_directory_passes(env, model_dir, capsys):
    profile = env / "profile"
    assert pith(env, "install", "--user-data-dir", str(profile)) == 0
    assert doctor(env, model_dir, "--user-data-dir", str(profile)) == 0
    assert str(profile / "NativeMessagingHosts") in capsys.readouterr().out


@pytest.mark.parametrize("browser", BROWSERS)
def test_a_missing_manifest_is_found_with_the_install_command(env, model_dir, capsys, browser):
    assert doctor(env, model_dir, "--browser", browser) == 1
    out = capsys.readouterr().out
    assert f"FAIL  manifest for {browser}" in out and f"fix: pith install --browser {browser}" in out
    assert "FAIL  launcher" in out
    assert "ok    round trip (without the launcher)" in out  # the host itself still works


def test_a_manifest_for_another_extension_is_found(env, model_dir, capsys):
    assert pith(env, "install", "--browser", "chrome") == 0
    path = env / "home/.config/google-chrome/NativeMessagingHosts/org.pith.reader.json"
    manifest = json.loads(path.read_text())
    manifest["allowed_origins"] = ["chrome-extension://abcdefghijklmnopabcdefghijklmnop/"]
    path.write_text(json.dumps(manifest))
    capsys.readouterr()
    assert doctor(env, model_dir, "--browser", "chrome") == 1
    assert "allowed_origins lacks chrome-extension://" in capsys.readouterr().out


def test_a_launcher_whose_python_is_gone_is_found(env, model_dir, capsys):
    assert pith(env, "install", "--browser", "firefox") == 0
    launcher = env / "data" / "pith-host"
    launcher.write_text('#!/bin/sh\nexec /nonexistent/python3 -m native_host host "$@"\n')
    capsys.readouterr()
    assert doctor(env, model_dir, "--browser", "firefox") == 1
    out = capsys.readouterr().out
    assert "FAIL  launcher" in out and "/nonexistent/python3" in out and "fix: pith install" in out


def test_a_missing_model_fails_the_model_and_the_round_trip(env, capsys):
    assert pith(env, "install", "--browser", "chromium") == 0
    (env / "no-model").mkdir()
    capsys.readouterr()
    assert doctor(env, str(env / "no-model"), "--browser", "chromium") == 1
    out = capsys.readouterr().out
    assert "FAIL  model: model files missing" in out
    assert "FAIL  round trip: hello -> model_unavailable" in out


def test_the_log_check_shows_the_hosts_last_error(env, model_dir, capsys):
    logs = env / "logs"
    logs.mkdir()
    (logs / "host.log").write_text(
        "2026-01-01 10:00:00,000 1 INFO native_host.browser.host: started\n"
        "2026-01-01 10:00:01,000 1 ERROR native_host.browser.host: refusing to serve: caller x\n"
        "2026-01-01 10:00:02,000 1 INFO native_host.browser.host: exiting: input closed\n"
    )
    doctor(env, model_dir, "--browser", "chrome")
    assert (
        "last error: 2026-01-01 10:00:01,000 1 ERROR native_host.browser.host: refusing to serve"
        in capsys.readouterr().out
    )


@pytest.fixture
def xdg_home(env, monkeypatch):
    """The user's own home (no --home) with XDG_CONFIG_HOME elsewhere, and a Chromium profile there."""
    monkeypatch.setenv("HOME", str(env / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(env / "xdg"))
    monkeypatch.delenv("CHROME_CONFIG_HOME", raising=False)
    (env / "xdg" / "chromium").mkdir(parents=True)
    return lambda *args: main([*args, "--data-dir", str(env / "data"), "--platform", "linux"])


def test_the_manifest_checked_is_the_one_chromium_reads_under_xdg_config_home(env, model_dir, xdg_home, capsys):
    assert xdg_home("install") == 0
    capsys.readouterr()
    assert xdg_home("doctor", *(["--model-dir", model_dir] if model_dir else [])) == 0
    out = capsys.readouterr().out
    read = env / "xdg/chromium/NativeMessagingHosts/org.pith.reader.json"
    assert f"ok    manifest for chromium ($XDG_CONFIG_HOME): {read} -> " in out and "all good" in out


def test_a_manifest_where_chromium_does_not_read_is_not_good(env, model_dir, xdg_home, capsys):
    """Registered in ~/.config while Chromium reads $XDG_CONFIG_HOME: reader mode would say the host is not
    found, so the doctor must not say all good."""
    assert pith(env, "install", "--browser", "chromium") == 0  # --home: ~/.config, as if XDG were not set
    capsys.readouterr()
    assert xdg_home("doctor", "--browser", "chromium", *(["--model-dir", model_dir] if model_dir else [])) == 1
    out = capsys.readouterr().out
    missing = env / "xdg/chromium/NativeMessagingHosts/org.pith.reader.json"
    assert f"FAIL  manifest for chromium ($XDG_CONFIG_HOME): {missing} is missing" in out
    assert "fix: pith install --browser chromium" in out
