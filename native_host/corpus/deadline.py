"""A time limit on one page, in whatever thread extracts it.

Signals (SIGALRM) reach only a process's main thread, and Ray Data calls its workers' functions in other
threads; so a watchdog thread raises `PageTimeoutError` in the extracting thread instead
(PyThreadState_SetAsyncExc). The exception lands at the thread's next Python step: a single call into C (the
HTML parser, onnxruntime) finishes first, and the size limits in native_host/limits.py bound those: the
parser's nesting (MAX_PARSE_DEPTH, cut in Python before the parse: pipeline/html_input.py) and the blocks the
model reads (MAX_BLOCKS).
"""

from __future__ import annotations

import ctypes
import os
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from ..errors import PageTimeoutError

T = TypeVar("T")

_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
_set_async_exc.argtypes = (ctypes.c_ulong, ctypes.c_void_p)  # the exception class's address; None withdraws


class _Expired(BaseException):
    """Raised into the extracting thread. A BaseException, so that no `except Exception` on the way (a
    stage that keeps one bad value from failing its page) swallows it; `time_limit` turns it into
    PageTimeoutError."""


class _Watchdog:
    """One daemon thread per process, watching at most one deadline per thread. The extracting thread takes
    only the plain (C) lock: an exception landing in a Python-level lock method could leave it held."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.wake = threading.Condition(self.lock)
        self.deadlines: dict[int, float] = {}  # thread id -> when its page expires (time.monotonic)
        self.fired: set[int] = set()
        threading.Thread(target=self._watch, name="pith-page-deadline", daemon=True).start()

    def _watch(self) -> None:
        with self.lock:
            while True:
                now = time.monotonic()
                for tid, expires in self.deadlines.items():
                    if expires <= now and tid not in self.fired:
                        self.fired.add(tid)
                        _set_async_exc(tid, id(_Expired))
                pending = [e for t, e in self.deadlines.items() if t not in self.fired]
                self.wake.wait(max(0.0, min(pending) - now) if pending else None)

    def start(self, seconds: float) -> None:
        tid = threading.get_ident()
        with self.lock:
            self.fired.discard(tid)
            self.deadlines[tid] = time.monotonic() + seconds
            self.wake.notify()

    def stop(self) -> bool:
        """Whether the deadline fired; an exception fired but not yet raised is withdrawn."""
        tid = threading.get_ident()
        with self.lock:
            self.deadlines.pop(tid, None)
            fired = tid in self.fired
            self.fired.discard(tid)
            if fired:
                _set_async_exc(tid, None)
        return fired


_watchdog: _Watchdog | None = None
_started = threading.Lock()


def _forked() -> None:
    """A forked child has a copy of the watchdog but not its thread: it starts its own when first needed."""
    global _watchdog, _started
    _watchdog, _started = None, threading.Lock()


os.register_at_fork(after_in_child=_forked)


def within(seconds: float, fn: Callable[..., T], *args) -> T:
    """fn(*args), or PageTimeoutError if it runs past `seconds`. The deadline is armed and disarmed inside the
    one try that catches it, so it can land nowhere else: not after this returns, not in a caller."""
    global _watchdog
    with _started:
        if _watchdog is None:
            _watchdog = _Watchdog()
    fired = False
    try:
        try:
            _watchdog.start(seconds)
            result = fn(*args)
        finally:
            fired = _watchdog.stop()
    except _Expired:
        fired = _watchdog.stop() or True
    if fired:
        raise PageTimeoutError(
            f"the page took over {seconds:g} s (limits.PAGE_TIME_LIMIT_S); it was left out and the job went on"
        )
    return result
