"""A progress bar on stderr for long loops (evaluation, data preparation, batch extraction).

Dependency-free on purpose: the host ships with few packages. On a terminal one line is redrawn in place;
when stderr is a file or a pipe (CI logs, `2> log`) a fresh line is printed only every tenth of the way, so
logs stay readable instead of filling with carriage returns.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import TextIO, TypeVar

T = TypeVar("T")

BAR_WIDTH = 24  # characters of the bar between [ and ]
REDRAW_EVERY_S = 0.1  # a terminal line is redrawn at most this often
LOG_STEPS = 10  # lines printed over a whole run when stderr is not a terminal
LOG_EVERY_UNKNOWN = 100  # items between lines when the total is unknown and stderr is not a terminal


def render(desc: str, done: int, total: int | None, elapsed: float) -> str:
    """One status line: ``desc  37/427 [##      ] 12.3 p/s`` (count and rate only when total is unknown)."""
    rate = done / elapsed if elapsed > 0 else 0.0
    if not total:
        return f"{desc}  {done} {rate:.1f} p/s"
    filled = min(BAR_WIDTH, BAR_WIDTH * done // total)
    return f"{desc}  {done}/{total} [{'#' * filled}{' ' * (BAR_WIDTH - filled)}] {rate:.1f} p/s"


def progress(
    iterable: Iterable[T], total: int | None = None, desc: str = "", stream: TextIO | None = None
) -> Iterator[T]:
    """Yield from `iterable` unchanged while reporting how far it got on `stream` (stderr by default)."""
    out = stream if stream is not None else sys.stderr
    if total is None and hasattr(iterable, "__len__"):
        total = len(iterable)  # type: ignore[arg-type]
    tty = out.isatty()
    start = last_draw = time.perf_counter()
    step = -(-total // LOG_STEPS) if total else LOG_EVERY_UNKNOWN
    done = 0
    shown = -1

    def show(final: bool = False) -> None:
        nonlocal shown
        line = render(desc, done, total, time.perf_counter() - start)
        if tty:
            out.write("\r" + line + ("\n" if final else ""))
        else:
            out.write(line + "\n")
        out.flush()
        shown = done

    try:
        for item in iterable:
            yield item
            done += 1
            now = time.perf_counter()
            if tty:
                if now - last_draw >= REDRAW_EVERY_S:
                    last_draw = now
                    show()
            elif done % step == 0 and done != total:
                show()
    finally:
        if shown != done or tty:
            show(final=True)
