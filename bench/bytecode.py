"""Pith's modules compiled to bytecode before a benchmark times a process start, as an installed copy has them.

`pip install` writes every module's bytecode at install time, so a user's `pith` (and every peer installed
from PyPI) starts without compiling its sources. A checkout installed editable, run with
PYTHONDONTWRITEBYTECODE=1 (as this project's development machine sets it), compiles Pith's ~40 modules in
every new process instead: 40-50 ms of each start (cold start, `pith extract DIR`, each forkserver) that
no installed copy pays, while the peers' bytecode sits in site-packages (docs/performance.md).
"""

from __future__ import annotations

import compileall
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "native_host"


def compile_pith() -> str:
    """Write native_host's bytecode beside its sources (git ignores __pycache__); a line saying so."""
    ok = compileall.compile_dir(str(PACKAGE), quiet=1)
    return (
        "native_host's bytecode compiled, as an installed copy has it"
        if ok
        else "native_host's bytecode could not all be compiled: its process starts include compiling"
    )
