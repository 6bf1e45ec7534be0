"""Pith: private, offline main-content extraction.

The few names most users need::

    from native_host import Extractor, snapshot_from_html
    result = Extractor().extract_html(open("page.html", "rb").read(), url="https://example.com/")
    print(result.title, result.text)
"""

from .errors import InputError, ModelError, PithError, SnapshotError
from .pipeline.schema import validate_snapshot
from .pipeline.snapshot import snapshot_from_html
from .version import __version__

__all__ = [
    "Extractor",
    "InputError",
    "ModelError",
    "PithError",
    "Result",
    "SnapshotError",
    "__version__",
    "snapshot_from_html",
    "validate_snapshot",
]


def __getattr__(name):
    # The extractor pulls in onnxruntime; load it only when asked for, so `pith --help` stays instant.
    if name in ("Extractor", "Result"):
        from .pipeline import extractor

        return getattr(extractor, name)
    raise AttributeError(name)
