"""The type check of native_host/: mypy, configured in pyproject.toml ([tool.mypy]), finds nothing.

Run by hand as `python3 -m mypy` from the repository root (the whole package, as configured).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The modules held clean so far. This list is to become the whole package (`python3 -m mypy` with no
# arguments, which checks `files` from pyproject.toml): a module joins it once its errors are fixed, and
# then the list and `--follow-imports=silent` go.
CHECKED = [
    "native_host/browser/client.py",
    "native_host/browser/framing.py",
    "native_host/browser/protocol.py",
    "native_host/cli/install.py",
    "native_host/corpus/columns.py",
    "native_host/corpus/local.py",
    "native_host/corpus/pages.py",
    "native_host/corpus/readers.py",
    "native_host/corpus/writers.py",
    "native_host/pipeline/blocks.py",
    "native_host/pipeline/dates.py",
    "native_host/pipeline/document.py",
    "native_host/pipeline/extractor.py",
    "native_host/pipeline/features.py",
    "native_host/pipeline/html_input.py",
    "native_host/pipeline/inference.py",
    "native_host/pipeline/metadata.py",
    "native_host/pipeline/schema.py",
    "native_host/pipeline/snapshot.py",
]


def _mypy(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """mypy with the repository's configuration, its cache out of the working tree."""
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                           "--cache-dir", str(tmp_path / "cache"), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_checked_modules_are_clean(tmp_path):
    assert all((ROOT / path).is_file() for path in CHECKED), "a checked module was moved: update CHECKED"
    # The imported modules are read for their types, their own errors left to their turn in CHECKED.
    run = _mypy(tmp_path, "--follow-imports=silent", *CHECKED)
    assert run.returncode == 0, f"mypy found errors; fix them (`python3 -m mypy FILE`):\n{run.stdout}{run.stderr}"
    assert "Success" in run.stdout


def test_configuration_checks_bodies_and_ignores(tmp_path):
    """The configuration catches an error in an unannotated function and a needless `type: ignore`: a
    check that passed for want of being run would fail here."""
    bad = tmp_path / "bad.py"
    bad.write_text("def untyped(x):\n    return len(3)\n\n\nok: int = 1  # type: ignore[assignment]\n", "utf-8")
    run = _mypy(tmp_path, str(bad))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "bad.py:2: error" in run.stdout and "[arg-type]" in run.stdout
    assert "bad.py:5: error: Unused \"type: ignore\" comment" in run.stdout
