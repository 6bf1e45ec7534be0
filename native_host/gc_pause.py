"""The cycle collector paused while a page's objects are made.

Decoding a snapshot and extracting a page allocate tens of thousands of small objects, none of them in
cycles; the collector's passes over them were a third of the time of a large page, and made decoding a
5,000-node request take 9 to 27 ms instead of 9. The host decodes in one thread while it extracts in
another, so pauses are counted: the collector comes back when the last one ends, and only if it was on.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pausers = 0
_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    global _pausers, _was_enabled
    with _lock:
        if _pausers == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pausers += 1
    try:
        yield
    finally:
        with _lock:
            _pausers -= 1
            if _pausers == 0 and _was_enabled:
                gc.enable()
