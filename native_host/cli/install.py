"""`pith install` / `pith uninstall`: register the host with the browsers of this user, and take it back.

Browsers find a native-messaging host through a manifest file in a per-browser directory; the manifest
names an executable and the extensions allowed to start it. We point every manifest at one small launcher
that execs this installation's Python, so the browser runs the pith the user installed whatever its PATH.
Every file and directory is recorded beside the launcher before it is written, so uninstall removes exactly
those, even after an install that failed part-way.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from platformdirs import user_data_dir

from ..browser.identity import FIREFOX_EXTENSION_ID, HOST_NAME, chromium_origin
from ..errors import InstallError

PLATFORMS = ("linux", "macos")
LAUNCHER = "pith-host"
RECORD = "install-record.json"
MANIFEST = f"{HOST_NAME}.json"
CHROMIUM_HOSTS_DIR = "NativeMessagingHosts"  # inside a Chromium-family user data dir (--user-data-dir)


@dataclass(frozen=True)
class Browser:
    """Where one browser reads per-user host manifests and keeps its profiles.

    Linux, Chromium family: the browser reads `<user data dir>/NativeMessagingHosts/`, and its user data dir is
    `<config home>/<linux>`, the config home being $CHROME_CONFIG_HOME, else $XDG_CONFIG_HOME, else ~/.config;
    a Flatpak keeps it in ~/.var/app/<flatpak>/config/<linux>, the Chromium Snap in ~/snap/<snap>/common/<linux>.
    Linux, Firefox: `linux` is the manifest directory under the home, whatever XDG_CONFIG_HOME says (Firefox
    153 resolves it to ~/.mozilla even on a fresh home that keeps profiles in $XDG_CONFIG_HOME/mozilla, and
    the WebExtensions portal, which starts hosts for its Snap and Flatpak, reads the same directory).
    macOS: `macos` is the manifest directory under the home."""

    name: str
    family: str  # "chromium": allowed_origins; "firefox": allowed_extensions
    linux: str
    macos: str
    flatpak: str = ""  # Flatpak app id
    snap: str = ""  # Snap name (Chromium family: its user data dir is in the Snap's common/)
    profiles_linux: tuple[str, ...] = ()  # Firefox: profile folders under the home ($XDG: the config home)
    profiles_macos: tuple[str, ...] = ()


_MAC = "Library/Application Support"
BROWSERS = (
    Browser(
        "chrome", "chromium", "google-chrome", f"{_MAC}/Google/Chrome/NativeMessagingHosts", flatpak="com.google.Chrome"
    ),
    Browser(
        "chromium",
        "chromium",
        "chromium",
        f"{_MAC}/Chromium/NativeMessagingHosts",
        flatpak="org.chromium.Chromium",
        snap="chromium",
    ),
    Browser(
        "brave",
        "chromium",
        "BraveSoftware/Brave-Browser",
        f"{_MAC}/BraveSoftware/Brave-Browser/NativeMessagingHosts",
        flatpak="com.brave.Browser",
    ),
    Browser(
        "edge",
        "chromium",
        "microsoft-edge",
        f"{_MAC}/Microsoft Edge/NativeMessagingHosts",
        flatpak="com.microsoft.Edge",
    ),
    Browser("vivaldi", "chromium", "vivaldi", f"{_MAC}/Vivaldi/NativeMessagingHosts", flatpak="com.vivaldi.Vivaldi"),
    # Profiles: ~/.mozilla/firefox (long-standing), $XDG_CONFIG_HOME/mozilla/firefox (a fresh home since Firefox
    # 147), the Snap's and the Flatpak's own folders. Any of them says Firefox is used; the manifest goes to
    # ~/.mozilla/native-messaging-hosts for all of them.
    Browser(
        "firefox",
        "firefox",
        ".mozilla/native-messaging-hosts",
        f"{_MAC}/Mozilla/NativeMessagingHosts",
        flatpak="org.mozilla.firefox",
        profiles_linux=(
            ".mozilla/firefox",
            "$XDG/mozilla/firefox",
            "snap/firefox/common/.mozilla/firefox",
            ".var/app/org.mozilla.firefox/.mozilla/firefox",
            ".var/app/org.mozilla.firefox/config/mozilla/firefox",
        ),
        profiles_macos=(f"{_MAC}/Firefox",),
    ),
)
BY_NAME = {b.name: b for b in BROWSERS}


@dataclass(frozen=True)
class Target:
    """One manifest to write: for which browser, where, and which of the browser's places it is (shown by
    install and doctor: "" for the usual one)."""

    browser: Browser
    manifest: Path
    source: str = ""
    sandboxed: bool = False  # a Flatpak or Snap Chromium starts hosts inside its sandbox


@dataclass(frozen=True)
class Places:
    """Everything install, uninstall and doctor need to know about where things go."""

    platform: str
    home: Path
    data_dir: Path
    browsers: tuple[str, ...]  # as asked; empty: every browser whose profile directory exists
    user_data_dir: Path | None
    environ: tuple[tuple[str, str], ...] = ()  # CHROME_CONFIG_HOME and XDG_CONFIG_HOME, for your own home only

    @property
    def launcher(self) -> Path:
        return self.data_dir / LAUNCHER

    @property
    def record(self) -> Path:
        return self.data_dir / RECORD

    def config_home(self, *names: str) -> tuple[Path, str]:
        """The first of the variables `names` set to an absolute path (the XDG rule: a relative one is
        ignored), else ~/.config; with the name shown to the user."""
        env = dict(self.environ)
        for name in names:
            if env.get(name) and os.path.isabs(env[name]):
                return Path(env[name]), f"${name}"
        return self.home / ".config", ""


def current_platform() -> str:
    if sys.platform.startswith("linux"):
        return "linux"
    if sys.platform == "darwin":
        return "macos"
    raise InstallError(
        f"pith install supports Linux and macOS, not {sys.platform}; register the host by hand "
        "as docs/protocol.md describes"
    )


def add_place_arguments(p: argparse.ArgumentParser) -> None:
    """The options install, uninstall and doctor share."""
    p.add_argument(
        "--browser",
        action="append",
        choices=[*BY_NAME, "all"],
        default=[],
        help="browser to act on (repeatable; default: every browser with a profile directory)",
    )
    p.add_argument(
        "--user-data-dir",
        type=Path,
        metavar="DIR",
        help="one Chromium-family profile directory (as given to the browser's --user-data-dir)",
    )
    p.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="where the launcher and the install record live (default: $PITH_DATA_DIR, else "
        "the platform's user data directory)",
    )
    p.add_argument(
        "--home",
        type=Path,
        default=None,
        help="home directory whose browsers to act on (default: yours; another home is taken as "
        "its browsers see it without $XDG_CONFIG_HOME and $CHROME_CONFIG_HOME)",
    )
    p.add_argument(
        "--platform",
        choices=PLATFORMS,
        default=None,
        help="manifest locations of this platform (default: this machine's)",
    )


CONFIG_VARIABLES = ("CHROME_CONFIG_HOME", "XDG_CONFIG_HOME")


def places_from_args(args: argparse.Namespace) -> Places:
    data_dir = args.data_dir or os.environ.get("PITH_DATA_DIR") or user_data_dir("pith", appauthor=False)
    browsers = tuple(BY_NAME) if "all" in args.browser else tuple(dict.fromkeys(args.browser))
    environ = () if args.home else tuple((k, os.environ[k]) for k in CONFIG_VARIABLES if k in os.environ)
    return Places(
        platform=args.platform or current_platform(),
        home=(args.home or Path.home()).expanduser(),
        data_dir=Path(data_dir).expanduser().absolute(),
        browsers=browsers,
        user_data_dir=args.user_data_dir.expanduser().absolute() if args.user_data_dir else None,
        environ=environ,
    )


def installations(browser: Browser, places: Places) -> list[tuple[Target, bool]]:
    """Every place `browser` may read our manifest from on this platform, the usual one first, each with
    whether the browser is used there (its profile directory exists)."""
    home = places.home
    if places.platform == "macos":
        profiles = [(home / browser.macos).parent, *(home / p for p in browser.profiles_macos)]
        return [(Target(browser, home / browser.macos / MANIFEST), any(p.is_dir() for p in profiles))]
    if browser.family == "firefox":
        xdg, _ = places.config_home("XDG_CONFIG_HOME")
        profiles = [
            xdg / p.removeprefix("$XDG/") if p.startswith("$XDG/") else home / p for p in browser.profiles_linux
        ]
        return [(Target(browser, home / browser.linux / MANIFEST), any(p.is_dir() for p in profiles))]
    config, source = places.config_home(*CONFIG_VARIABLES)
    found = [
        (
            Target(browser, config / browser.linux / CHROMIUM_HOSTS_DIR / MANIFEST, source),
            (config / browser.linux).is_dir(),
        )
    ]
    # A sandboxed copy keeps its profile under its own folder: (kind, its name, where such folders are, below it).
    sandboxes = (
        ("Flatpak", browser.flatpak, home / ".var/app", "config"),
        ("Snap", browser.snap, home / "snap", "common"),
    )
    for kind, name, parent, below in sandboxes:
        if name:
            root = parent / name
            manifest = root / below / browser.linux / CHROMIUM_HOSTS_DIR / MANIFEST
            found.append((Target(browser, manifest, f"{kind} {name}", sandboxed=True), root.is_dir()))
    return found


def targets(places: Places) -> list[Target]:
    """The manifests `places` asks for: a named browser in every place it is used (its usual place if none);
    without --browser, every browser in every place it is used."""
    if places.user_data_dir:
        names = places.browsers or ("chromium",)
        firefox = [n for n in names if BY_NAME[n].family != "chromium"]
        if firefox:
            raise InstallError(
                "--user-data-dir is a Chromium-family profile; Firefox reads host manifests only "
                "from the user's directory: drop --user-data-dir for --browser firefox"
            )
        hosts = places.user_data_dir / CHROMIUM_HOSTS_DIR
        return [Target(BY_NAME[n], hosts / MANIFEST, "--user-data-dir") for n in names[:1]]
    chosen = []
    for browser in [BY_NAME[n] for n in places.browsers] or BROWSERS:
        found = installations(browser, places)
        used = [t for t, in_use in found if in_use]
        chosen += used or ([found[0][0]] if places.browsers else [])
    if not chosen:
        config, source = places.config_home(*CONFIG_VARIABLES)
        raise InstallError(
            f"no browser profile found under {places.home}"
            + (f" or {source} ({config})" if source else "")
            + "; name the browser, e.g. `pith install --browser chrome` (choices: "
            + ", ".join(BY_NAME)
            + ")"
        )
    return chosen


def manifest_for(browser: Browser, launcher: Path) -> dict:
    manifest: dict[str, str | list[str]] = {
        "name": HOST_NAME,
        "description": "Pith: private, offline reader mode and main-content extraction",
        "path": str(launcher),
        "type": "stdio",
    }
    if browser.family == "chromium":
        manifest["allowed_origins"] = [chromium_origin()]
    else:
        manifest["allowed_extensions"] = [FIREFOX_EXTENSION_ID]
    return manifest


def launcher_script(python: str = sys.executable) -> str:
    return (
        "#!/bin/sh\n"
        "# Pith's native-messaging host, written by `pith install` and removed by `pith uninstall`.\n"
        f'exec {shlex.quote(python)} -m native_host host "$@"\n'
    )


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def load_record(path: Path) -> dict:
    if not path.is_file():
        return {"files": [], "dirs": []}
    try:
        record = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise InstallError(
            f"cannot read the install record {path} ({exc}); remove the manifests by hand "
            "(docs/protocol.md lists them) and delete the record"
        ) from None
    return {"files": list(record.get("files", [])), "dirs": list(record.get("dirs", []))}


def _temporary(path: Path) -> Path:
    """The one name a file is written under before it takes `path`'s place; uninstall removes it too, so a
    write cut short (a full disk, a kill) leaves nothing behind."""
    return path.with_name(f".{path.name}.pith-tmp")


def _write_atomic(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Write `data` to `path` whole or not at all: a reader (the browser) sees the old file or the new one."""
    temporary = _temporary(path)
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)  # left by a write cut short; a link planted there is removed, never followed
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temporary, mode)  # whatever the umask
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


def _save_record(path: Path, record: dict) -> None:
    _write_atomic(path, (json.dumps(record, indent=2) + "\n").encode())


def _missing_dirs(directory: Path) -> list[Path]:
    """The directories `mkdir -p directory` would create, outermost first."""
    missing = []
    for d in (directory, *directory.parents):
        if d.exists() or d.is_symlink():
            break
        missing.append(d)
    return missing[::-1]


@dataclass(frozen=True)
class _File:
    path: Path
    data: bytes
    browser: str | None
    kind: str
    mode: int = 0o644


def _plan(places: Places, chosen: list[Target]) -> tuple[list[tuple[Path, str | None]], list[_File]]:
    """The directories to create (with the browser each is for) and the files to write, in order."""
    files = [_File(places.launcher, launcher_script().encode(), None, "launcher", 0o755)]
    for target in chosen:
        data = (json.dumps(manifest_for(target.browser, places.launcher), indent=2) + "\n").encode()
        files.append(_File(target.manifest, data, target.browser.name, "manifest"))
    dirs: dict[Path, str | None] = {}
    for f in files:
        for d in _missing_dirs(f.path.parent):
            dirs.setdefault(d, f.browser)
    return list(dirs.items()), files


def _add_to_record(record: dict, dirs: list[tuple[Path, str | None]], files: list[_File]) -> dict:
    """`record` with everything about to be written. A file it already lists keeps its earlier digest as
    `was`, so that file is still ours to remove if the new write never happens."""
    known = {d["path"] for d in record["dirs"]}
    record["dirs"] += [{"path": str(d), "browser": b} for d, b in dirs if str(d) not in known]
    for f in files:
        earlier = next((e for e in record["files"] if e["path"] == str(f.path)), None)
        entry = {"path": str(f.path), "sha256": _digest(f.data), "browser": f.browser, "kind": f.kind}
        if earlier and earlier["sha256"] != entry["sha256"]:
            entry["was"] = earlier["sha256"]
        record["files"] = [e for e in record["files"] if e["path"] != str(f.path)] + [entry]
    return record


def _cannot(action: str, path: Path, exc: OSError, way_out: str) -> InstallError:
    reason = exc.strerror or exc.__class__.__name__
    return InstallError(f"cannot {action} {path} ({reason}); {way_out}")


def _way_out(path: Path, places: Places, browser: str | None, started: bool) -> str:
    if browser is None:
        way = "choose a writable place with --data-dir DIR (or PITH_DATA_DIR)"
    else:
        blocker = next((d for d in (path, *path.parents) if d.exists()), path)
        way = (
            f"make {blocker} writable by you, or leave {browser} out (--browser NAME) or name a writable "
            "profile with --user-data-dir DIR"
        )
    if started:
        way += f", then `pith install` again; `pith uninstall` removes what this one wrote ({places.record})"
    return way


def install(places: Places) -> list[Target]:
    """Write the launcher and one manifest per target; returns the targets written.

    The install record goes first, listing every directory and file about to be written, so whatever a
    failure part-way leaves is known to `pith uninstall`; each file is written whole (temporary + rename)."""
    chosen = targets(places)
    record = load_record(places.record)
    dirs, files = _plan(places, chosen)
    data_dirs = [(d, b) for d, b in dirs if places.data_dir.is_relative_to(d)]
    for d, _ in data_dirs:  # the record's own directory; taken back if the record cannot be written
        try:
            d.mkdir()
        except OSError as exc:
            _remove_empty([p for p, _ in data_dirs])
            raise _cannot("create", d, exc, _way_out(d, places, None, started=False)) from None
    try:
        _save_record(places.record, _add_to_record(record, dirs, files))
    except OSError as exc:
        _remove_empty([p for p, _ in data_dirs])
        raise _cannot("write", places.record, exc, _way_out(places.record, places, None, started=False)) from None
    for f in files:
        for d in _missing_dirs(f.path.parent):
            try:
                d.mkdir()
            except OSError as exc:
                raise _cannot("create", d, exc, _way_out(d, places, f.browser, started=True)) from None
        try:
            _write_atomic(f.path, f.data, f.mode)
        except OSError as exc:
            raise _cannot("write", f.path, exc, _way_out(f.path, places, f.browser, started=True)) from None
    return chosen


def _remove_empty(dirs: list[Path]) -> list[str]:
    """rmdir each directory that exists and is empty, innermost first; returns those removed."""
    removed = []
    for path in sorted(dirs, key=lambda d: len(d.parts), reverse=True):
        if path.is_dir() and not path.is_symlink() and not any(path.iterdir()):
            path.rmdir()
            removed.append(str(path))
    return removed


def _selected(entry: dict, places: Places) -> bool:
    if entry.get("kind") == "launcher" or entry.get("browser") is None:
        return False  # the launcher and data directory go only when no manifest is left
    if places.browsers and entry["browser"] not in places.browsers:
        return False
    return not places.user_data_dir or Path(entry["path"]).is_relative_to(places.user_data_dir)


@dataclass
class Removal:
    removed: list[str]
    left: list[str]  # changed since install: not ours to delete any more


def uninstall(places: Places) -> Removal:
    record = load_record(places.record)
    result = Removal([], [])
    if not record["files"] and not record["dirs"]:
        return result
    files = [f for f in record["files"] if _selected(f, places)]
    remaining = [f for f in record["files"] if f not in files]
    if not any(f.get("kind") == "manifest" for f in remaining):
        files += [f for f in remaining if f.get("kind") == "launcher"]
        remaining = [f for f in remaining if f.get("kind") != "launcher"]
    for entry in files:
        path = Path(entry["path"])
        if _temporary(path).is_file():
            _temporary(path).unlink()
            result.removed.append(str(_temporary(path)))
        if not path.is_file():
            continue
        if _digest(path.read_bytes()) not in (entry["sha256"], entry.get("was")):
            result.left.append(str(path))
            continue
        path.unlink()
        result.removed.append(str(path))
    every_manifest_gone = not any(f.get("kind") == "manifest" for f in remaining)
    dirs = [d for d in record["dirs"] if _selected(d, places) or (every_manifest_gone and d.get("browser") is None)]
    record = {"files": remaining, "dirs": [d for d in record["dirs"] if d not in dirs]}
    if record["files"] or record["dirs"]:
        _save_record(places.record, record)
    elif places.record.is_file():
        places.record.unlink()
        result.removed.append(str(places.record))
    result.removed += _remove_empty([Path(d["path"]) for d in dirs])
    return result


def run_install(args: argparse.Namespace) -> int:
    places = places_from_args(args)
    for target in install(places):
        print(
            f"registered {HOST_NAME} for {target.browser.name} in {target.manifest}"
            + (f" ({target.source})" if target.source else "")
        )
        if target.sandboxed:
            print(
                f"  note: the {target.source} starts hosts inside its sandbox, which may not reach "
                f"{places.launcher}; `pith doctor` cannot see inside it (docs/protocol.md#installation)"
            )
    print(f"launcher: {places.launcher} (runs {sys.executable})")
    print("check the whole chain with `pith doctor`")
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    places = places_from_args(args)
    try:
        result = uninstall(places)
    except OSError as exc:
        path = Path(exc.filename or places.record)
        raise _cannot(
            "remove",
            path,
            exc,
            f"make {path.parent} writable by you, then `pith uninstall` again "
            f"(the record, {places.record}, still lists what is left)",
        ) from None
    for removed in result.removed:
        print(f"removed {removed}")
    for left in result.left:
        print(f"left {left}: changed since `pith install` wrote it; delete it yourself if it is not needed")
    if not result.removed and not result.left:
        print(f"nothing to uninstall (no record of an install in {places.record})")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "install",
        help="register the host with your browsers",
        description="Register the native-messaging host for Chrome, Chromium, Brave, Edge, "
        "Vivaldi and Firefox (per user). See docs/protocol.md.",
    )
    add_place_arguments(p)
    p.set_defaults(func=run_install)
    p = subparsers.add_parser("uninstall", help="remove exactly what `pith install` wrote")
    add_place_arguments(p)
    p.set_defaults(func=run_uninstall)
