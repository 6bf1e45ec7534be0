"""Loading an optional compiled module (tree_walk.pyx, segment.pyx, feature_core.pyx, validate_core.pyx): each
does in C what a Python function of the pipeline does, which stays the reference (docs/performance.md).

A module is used only when it was built (`setup.py` builds them where Cython and a C compiler are), when the
environment does not ask for pure Python (PITH_PURE_PYTHON=1), and when it gives the reference's answer on
its probe at import: a build that disagrees is never used, the Python runs instead, at its own speed.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from types import ModuleType


def pure_python() -> bool:
    """PITH_PURE_PYTHON set (to anything but 0): no compiled module is used."""
    return os.environ.get("PITH_PURE_PYTHON", "") not in ("", "0")


def load_compiled(name: str, probe: Callable[[ModuleType], bool]) -> ModuleType | None:
    """native_host.pipeline.`name` when built, allowed and `probe(module)` is true; else None. A probe that
    raises counts as false."""
    if pure_python():
        return None
    try:
        module = importlib.import_module(f"{__package__}.{name}")
    except ImportError:
        return None
    try:
        same = bool(probe(module))
    except Exception:  # noqa: BLE001 - any failure of the probe means the compiled module is not used
        same = False
    return module if same else None
