"""Build the store packages from extension/, each with the manifest its store accepts:

    python -m scripts.package            # -> dist/pith-chrome.zip, dist/pith-firefox.xpi
    python -m scripts.package --lint     # and run Mozilla's `web-ext lint` on the Firefox package

extension/manifest.json serves both browsers unpacked (each ignores, with a warning, the other's keys). A store
checks more strictly: the Chrome Web Store refuses a manifest with `key` (it assigns the id itself), and
addons.mozilla.org's linter flags the Chromium-only service worker and `offscreen` permission. So each package
gets its own manifest and only the files its browser runs; the archives are byte-for-byte reproducible
(sorted entries, fixed timestamps). docs/extension.md says how each is signed and published.
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXTENSION = ROOT / "extension"
DIST = ROOT / "dist"
WEB_EXT = ROOT / "node_modules" / ".bin" / "web-ext"
STORES = {"chrome": "pith-chrome.zip", "firefox": "pith-firefox.xpi"}
# What only one browser runs: Chromium's service worker cannot make blob: URLs, so it saves through an
# offscreen page; Firefox's event page makes them itself.
CHROMIUM_ONLY_DIRS = ("offscreen",)
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def manifest_for(store: str, manifest: dict) -> dict:
    """The source manifest as `store` accepts it."""
    out = copy.deepcopy(manifest)
    out.pop("key", None)  # the Chrome Web Store refuses it; Firefox ignores it
    if store == "chrome":
        out.pop("browser_specific_settings", None)
        out["background"].pop("scripts", None)
    elif store == "firefox":
        out.pop("minimum_chrome_version", None)
        out["background"].pop("service_worker", None)
        out["permissions"] = [p for p in out["permissions"] if p != "offscreen"]
    else:
        raise ValueError(f"store must be one of {list(STORES)}, not {store!r}")
    return out


def files_for(store: str, source: Path = EXTENSION) -> list[Path]:
    """The extension's files `store`'s browser runs, relative to `source`, sorted; never dot files."""
    found = []
    for path in sorted(source.rglob("*")):
        rel = path.relative_to(source)
        if not path.is_file() or any(part.startswith(".") for part in rel.parts) or rel.name == "manifest.json":
            continue
        if store == "firefox" and rel.parts[0] in CHROMIUM_ONLY_DIRS:
            continue
        found.append(rel)
    return found


def stage(store: str, out: Path, source: Path = EXTENSION) -> Path:
    """The package's content as a folder (what a browser loads unpacked, and what the archive holds)."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    manifest = json.loads((source / "manifest.json").read_text("utf-8"))
    (out / "manifest.json").write_text(json.dumps(manifest_for(store, manifest), indent=2) + "\n", "utf-8")
    for rel in files_for(store, source):
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / rel, out / rel)
    return out


def archive(folder: Path, target: Path) -> Path:
    """Zip `folder` (manifest.json at the root) reproducibly."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            info = zipfile.ZipInfo(path.relative_to(folder).as_posix(), ZIP_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, path.read_bytes())
    return target


def build(store: str, dist: Path = DIST, source: Path = EXTENSION) -> Path:
    """dist/<package> for `store`; its staged folder is left beside it (dist/<store>/) for loading unpacked."""
    folder = stage(store, dist / store, source)
    return archive(folder, dist / STORES[store])


def web_ext() -> Path | None:
    """Mozilla's web-ext, installed by `npm install` in the repository (package.json), if it is there."""
    if WEB_EXT.is_file():
        return WEB_EXT
    found = shutil.which("web-ext")
    return Path(found) if found else None


def lint(folder: Path) -> dict:
    """`web-ext lint` on an unpacked Firefox package: its JSON report (summary, errors, warnings, notices)."""
    tool = web_ext()
    if tool is None:
        raise FileNotFoundError("web-ext is not installed: run `npm install` in the repository root")
    done = subprocess.run(
        [str(tool), "lint", "--source-dir", str(folder), "--output", "json", "--no-input"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    start = done.stdout.find("{")
    if start < 0:
        raise RuntimeError(f"web-ext lint gave no report (exit {done.returncode}): {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout[start:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DIST, help="output folder (default: dist/)")
    parser.add_argument(
        "--lint", action="store_true", help="run `web-ext lint` on the Firefox package; fail on any error or warning"
    )
    args = parser.parse_args(argv)
    for store in STORES:
        target = build(store, args.out)
        print(f"{target} ({target.stat().st_size:,} bytes; unpacked in {args.out / store})")
    if args.lint:
        report = lint(args.out / "firefox")
        for kind in ("errors", "warnings", "notices"):
            for message in report.get(kind, []):
                print(f"{kind[:-1]}: {message.get('code')}: {message.get('file', '')}: {message.get('message')}")
        summary = report.get("summary", {})
        print(
            f"web-ext lint: {summary.get('errors', 0)} errors, {summary.get('warnings', 0)} warnings, "
            f"{summary.get('notices', 0)} notices"
        )
        if summary.get("errors") or summary.get("warnings"):
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
