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


def _begin() -> None:
    global _pausers, _was_enabled
    with _lock:
        if _pausers == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pausers += 1


def _end() -> None:
    global _pausers
    with _lock:
        _pausers -= 1
        if _pausers == 0 and _was_enabled:
            gc.enable()


@contextmanager
def gc_paused() -> Iterator[None]:
    _begin()
    try:
        yield
    finally:
        _end()


class GcHold:
    """A pause begun here and ended by `end()`, maybe in another thread: the host's, from a request's decoding
    to its reply sent and the request let go. Between decoding and extracting, the collector came back once to
    pass over the page just decoded (1 to 6 ms, at times a full pass of 20), and once more before the reply's
    rest; now it comes back once the reply is out and the page gone."""

    def __init__(self) -> None:
        self._held = True
        _begin()

    def end(self) -> None:
        """The pause over (again: nothing)."""
        if self._held:
            self._held = False
            _end()
