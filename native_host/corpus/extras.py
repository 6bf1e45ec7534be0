"""The corpus extra's packages, imported only when a corpus job needs them.

The browser host and the plain CLI (HTML files to JSON lines) run on the runtime packages alone; reading WARC
files, writing Parquet and running on Ray need `pip install 'pith[corpus]'`. Importing them here, on first use,
turns a missing package into an error that names the extra instead of a bare ImportError.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ..errors import MissingExtraError

# what each package of the extra is for, as the error says it
PURPOSE = {"fastwarc": "reading WARC files", "pyarrow": "writing Parquet", "ray": "--engine ray"}


def need(module: str) -> ModuleType:
    """`module` imported, or MissingExtraError saying which extra brings it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        raise MissingExtraError(
            f"{PURPOSE.get(top, top)} needs the {top} package ({exc}); install Pith's corpus "
            "extra: pip install 'pith[corpus]'"
        ) from exc
