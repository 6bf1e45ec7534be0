"""Where the host's log goes: a rotating file in the platform's log directory.

A native-messaging host has no terminal and its stdout belongs to the protocol, so the log file is the one
place a user (or `pith doctor`) can read why a session ended. `PITH_LOG_DIR` moves it (tests, sandboxes).
"""

from __future__ import annotations

import logging
import os
import sys
from logging.handlers import RotatingFileHandler
from pathlib import Path

from platformdirs import user_log_dir

from .. import limits

LOG_FILE = "host.log"
FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"


def log_dir() -> Path:
    return Path(os.environ.get("PITH_LOG_DIR") or user_log_dir("pith", appauthor=False))


def log_path() -> Path:
    return log_dir() / LOG_FILE


def setup_logging(level: str = "INFO") -> Path | None:
    """Log to the rotating file (and warnings to stderr, which Firefox shows in its browser console).

    Returns the log file, or None when its directory cannot be written; the host then still serves and
    logs to stderr only, since a read-only home must not cost the user their reader mode."""
    root = logging.getLogger()
    root.setLevel(level.upper())
    for handler in list(root.handlers):
        root.removeHandler(handler)
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setLevel(logging.WARNING)
    stderr.setFormatter(logging.Formatter("pith host: %(levelname)s %(message)s"))
    root.addHandler(stderr)
    path = log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = RotatingFileHandler(
            path, maxBytes=limits.LOG_MAX_BYTES, backupCount=limits.LOG_BACKUPS, encoding="utf-8"
        )
    except OSError as exc:
        root.warning("cannot write the log file %s (%s); logging to stderr only", path, exc)
        return None
    handler.setFormatter(logging.Formatter(FORMAT))
    root.addHandler(handler)
    return path
