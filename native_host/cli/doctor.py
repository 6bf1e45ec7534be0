"""`pith doctor`: check every link between the browser and the model, and say how to fix each broken one.

When reader mode does nothing, the user sees no error: the browser hides why it could not start the host.
So the doctor walks the chain the browser walks (manifest -> launcher -> Python -> host -> model) and then
does a real round trip through the launcher with the real framing, as the browser would.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import threading
from dataclasses import dataclass
from pathlib import Path

from .. import limits
from ..browser.client import HostProcess, host_command
from ..browser.identity import FIREFOX_EXTENSION_ID, HOST_NAME, chromium_origin
from ..browser.logs import log_path
from ..errors import InstallError, PithError
from .install import BROWSERS, BY_NAME, Places, Target, add_place_arguments, installations, places_from_args, targets

PROBE_HTML = (
    "<html lang='en'><head><title>Doctor</title></head><body><nav><a href='/'>Home</a></nav><article>"
    "<h1>A page for the doctor</h1><p>This paragraph is long enough to be the main content of a page: "
    "it tells how the old mill by the river was rebuilt, stone by stone, over three summers.</p>"
    "</article></body></html>"
)


@dataclass
class Finding:
    """One link of the chain: what was checked, whether it holds, and the command that fixes it."""

    what: str
    ok: bool
    detail: str
    fix: str = ""


def _install_command(places: Places, browser: str) -> str:
    where = f" --user-data-dir {shlex.quote(str(places.user_data_dir))}" if places.user_data_dir else ""
    return f"pith install --browser {browser}{where}"


def manifests_to_check(places: Places) -> list[Target]:
    """The manifests `pith install` would write with the same options: each at the path its browser reads
    (install and doctor share `targets`); without options, also any place holding a manifest of ours."""
    if places.browsers or places.user_data_dir:
        return targets(places)
    return [t for b in BROWSERS for t, in_use in installations(b, places) if in_use or t.manifest.exists()]


def check_manifest(target: Target, places: Places) -> Finding:
    what = f"manifest for {target.browser.name}" + (f" ({target.source})" if target.source else "")
    fix = _install_command(places, target.browser.name)
    path = target.manifest
    if not path.is_file():
        return Finding(what, False, f"{path} is missing", fix)
    try:
        manifest = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        return Finding(what, False, f"{path} is unreadable ({exc})", fix)
    if not isinstance(manifest, dict):
        return Finding(what, False, f"{path} is not a JSON object", fix)
    allowed_key, allowed = (
        ("allowed_origins", chromium_origin())
        if target.browser.family == "chromium"
        else ("allowed_extensions", FIREFOX_EXTENSION_ID)
    )
    problems = []
    if manifest.get("name") != HOST_NAME:
        problems.append(f"name is {manifest.get('name')!r}, not {HOST_NAME!r}")
    if manifest.get("type") != "stdio":
        problems.append('type is not "stdio"')
    if allowed not in (manifest.get(allowed_key) or []):
        problems.append(f"{allowed_key} lacks {allowed}")
    launcher = manifest.get("path")
    if not isinstance(launcher, str) or not os.path.isabs(launcher):
        problems.append("path is not an absolute path")
    elif not os.path.isfile(launcher) or not os.access(launcher, os.X_OK):
        problems.append(f"its launcher {launcher} is missing or not executable")
    if problems:
        return Finding(what, False, f"{path}: " + "; ".join(problems), fix)
    return Finding(what, True, f"{path} -> {launcher}")


def check_launcher(launcher: Path) -> Finding:
    what = "launcher"
    if not launcher.is_file() or not os.access(launcher, os.X_OK):
        return Finding(what, False, f"{launcher} is missing or not executable", "pith install")
    words = next(
        (shlex.split(line) for line in launcher.read_text("utf-8").splitlines() if line.startswith("exec ")), []
    )
    python = words[1] if len(words) > 1 else ""
    if not python or not os.access(python, os.X_OK):
        return Finding(
            what,
            False,
            f"{launcher} runs {python or 'nothing'}, which is not an executable Python "
            "(was its Python removed or its virtual environment moved?)",
            "pith install",
        )
    return Finding(what, True, f"{launcher} runs {python}")


def check_model(model_dir: str | None) -> Finding:
    try:
        from ..pipeline.extractor import Extractor

        info = Extractor(model_dir=model_dir).info
    except PithError as exc:
        return Finding("model", False, exc.message, "reinstall pith (pip install --force-reinstall pith)")
    except ImportError as exc:
        return Finding(
            "model", False, f"the engine cannot be imported ({exc})", "pip install -e . (or pip install pith)"
        )
    return Finding("model", True, f"{info.get('model_id')} loads on {', '.join(info.get('providers', []))}")


def _exchange(process: HostProcess, snapshot: dict, out: dict) -> None:
    try:
        out["hello"] = process.request({"v": 1, "id": 1, "type": "hello"})
        out["extract"] = process.request({"v": 1, "id": 2, "type": "extract", "snapshot": snapshot, "want": ["text"]})
    except Exception as exc:  # reported by the caller with the host's stderr
        out["error"] = exc


def check_round_trip(argv: list[str], model_dir: str | None, timeout: float) -> Finding:
    """hello + extract through `argv` (the launcher, as the browser runs it) with the real framing."""
    from ..pipeline.snapshot import snapshot_from_html

    what = "round trip"
    env = {"PITH_MODEL_DIR": model_dir} if model_dir else {}
    try:
        process = HostProcess(argv, env)
    except OSError as exc:
        return Finding(what, False, f"cannot start {argv[0]}: {exc}", "pith install")
    with process:
        out: dict = {}
        worker = threading.Thread(target=_exchange, args=(process, snapshot_from_html(PROBE_HTML), out), daemon=True)
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            process.proc.kill()
            return Finding(
                what,
                False,
                f"no answer within {timeout:.0f} s; see {log_path()}",
                "pith host --preload --log-level DEBUG, then read the log",
            )
    if "error" in out:
        return Finding(what, False, f"{out['error']}; see {log_path()}", "pith install, then pith doctor again")
    for name in ("hello", "extract"):
        reply = out[name]
        if reply.get("type") == "error" or reply.get("model_error"):
            error = reply.get("error") or reply.get("model_error")
            return Finding(what, False, f"{name} -> {error['code']}: {error['message']}", "see the model check above")
    words = len(out["extract"]["article"].get("text", "").split())
    return Finding(
        what,
        True,
        f"hello and extract answered (pith {out['hello']['version']}, "
        f"{words} words of main text, {out['extract']['timings'].get('host', 0):.0f} ms)",
    )


def caller_arguments(chosen: list[Target]) -> dict[str, list[str]]:
    """The arguments each browser family starts the launcher with (docs/protocol.md), for the families
    checked: Chromium passes the extension's origin, Firefox the manifest's path and the extension's id."""
    callers: dict[str, list[str]] = {}
    for target in chosen:
        if target.browser.family == "firefox":
            callers.setdefault("firefox", [str(target.manifest), FIREFOX_EXTENSION_ID])
        else:
            callers.setdefault("chromium", [chromium_origin()])
    return dict(sorted(callers.items())) or {"chromium": [chromium_origin()]}


def diagnose(
    places: Places, model_dir: str | None, timeout: float = limits.DOCTOR_ROUNDTRIP_TIMEOUT_S
) -> list[Finding]:
    findings: list[Finding] = []
    try:
        chosen = manifests_to_check(places)
    except InstallError as exc:
        chosen = []
        findings.append(Finding("browsers", False, exc.message, "pith install --browser NAME"))
    if not chosen and not findings:
        findings.append(
            Finding(
                "browsers",
                False,
                f"no browser profile under {places.home}",
                "pith install --browser NAME (choices: " + ", ".join(BY_NAME) + ")",
            )
        )
    findings += [check_manifest(t, places) for t in chosen]
    findings.append(check_launcher(places.launcher))
    findings.append(check_model(model_dir))
    callers = caller_arguments(chosen)
    if findings[-2].ok:
        for family, caller in callers.items():
            round_trip = check_round_trip([str(places.launcher), *caller], model_dir, timeout)
            if len(callers) > 1 and family != "chromium":
                round_trip.what += f" ({family}'s way)"
            findings.append(round_trip)
    else:  # still worth knowing whether the host itself works
        round_trip = check_round_trip(host_command(next(iter(callers.values()))), model_dir, timeout)
        round_trip.what += " (without the launcher)"
        findings.append(round_trip)
    findings.append(check_log(log_path()))
    return findings


def check_log(path: Path) -> Finding:
    """Where the host logs, and the last error it logged: often the reason reader mode stopped working."""
    if not path.is_file():
        return Finding("log", True, f"{path} (no host session logged yet)")
    with path.open("rb") as f:
        f.seek(max(0, path.stat().st_size - 64 * 1024))
        tail = f.read().decode("utf-8", "replace").splitlines()
    errors = [line for line in tail if " ERROR " in line]
    return Finding("log", True, f"{path}" + (f"; last error: {errors[-1]}" if errors else "; no recent errors"))


def run(args: argparse.Namespace) -> int:
    findings = diagnose(places_from_args(args), args.model_dir)
    for f in findings:
        print(f"{'ok  ' if f.ok else 'FAIL'}  {f.what}: {f.detail}")
        if not f.ok and f.fix:
            print(f"      fix: {f.fix}")
    failed = [f for f in findings if not f.ok]
    print("all good" if not failed else f"{len(failed)} problem(s) found")
    return 1 if failed else 0


def register(subparsers) -> None:
    p = subparsers.add_parser("doctor", help="check manifests, launcher, model and a round trip; say what to fix")
    add_place_arguments(p)
    p.add_argument(
        "--model-dir",
        default=os.environ.get("PITH_MODEL_DIR") or None,
        help="model directory (default: $PITH_MODEL_DIR, else the shipped model)",
    )
    p.set_defaults(func=run)
