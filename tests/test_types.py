"""The type check of native_host/: mypy, configured in pyproject.toml ([tool.mypy]), finds nothing.

Run by hand as `python3 -m mypy` from the repository root (the whole package, as configured).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _mypy(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """mypy with the repository's configuration, its cache out of the working tree."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / "cache"),
            *args,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_package_is_clean(tmp_path):
    """Every module of native_host/ (`files` in [tool.mypy]), as `python3 -m mypy` checks it by hand."""
    run = _mypy(tmp_path)
    assert run.returncode == 0, f"mypy found errors; fix them (`python3 -m mypy`):\n{run.stdout}{run.stderr}"
    assert "Success" in run.stdout and " source files" in run.stdout


def test_configuration_checks_bodies_and_ignores(tmp_path):
    """The configuration catches an error in an unannotated function and a needless `type: ignore`: a
    check that passed for want of being run would fail here."""
    bad = tmp_path / "bad.py"
    bad.write_text("def untyped(x):\n    return len(3)\n\n\nok: int = 1  # type: ignore[assignment]\n", "utf-8")
    run = _mypy(tmp_path, str(bad))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "bad.py:2: error" in run.stdout and "[arg-type]" in run.stdout
    assert 'bad.py:5: error: Unused "type: ignore" comment' in run.stdout
