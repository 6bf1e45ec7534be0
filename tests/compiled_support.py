"""What the tests of the compiled modules (native_host/pipeline/*.pyx) share: importing one where it is
built, skipping what needs it where it is not, and asking a fresh interpreter with PITH_PURE_PYTHON=1 what
it uses."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
PURE_PYTHON = os.environ.get("PITH_PURE_PYTHON", "") not in ("", "0")


def compiled_module(name: str) -> ModuleType | None:
    """native_host.pipeline.`name` where it is built, else None."""
    try:
        return importlib.import_module(f"native_host.pipeline.{name}")
    except ImportError:
        return None


def skip_unless_compiled(module: ModuleType | None, what: str):
    """Skip where `module` is not built, or where PITH_PURE_PYTHON keeps it out of use."""
    return pytest.mark.skipif(
        module is None or PURE_PYTHON,
        reason="PITH_PURE_PYTHON is set"
        if PURE_PYTHON
        else f"{what} is not built here (`pip install -e .` with Cython and a C compiler builds it)",
    )


def pure_python_prints(code: str) -> list[str]:
    """The words `code` prints in a fresh interpreter run from this checkout with PITH_PURE_PYTHON=1."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PITH_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT, check=True)
    return out.stdout.split()
