"""The errors a user of Pith can meet, each with the way out in its message.

Every error has a stable ``code`` that the native-messaging protocol sends back to the browser.
"""

from .limits import MAX_QUOTED_CHARS


def quoted(value: object) -> str:
    """A value from outside as a message may quote it: at most a line, however long the value (a 60 MB
    "type" must not come back in the reply, nor go into the log)."""
    text = repr(value)
    return text if len(text) <= MAX_QUOTED_CHARS else text[:MAX_QUOTED_CHARS] + "..."


class PithError(Exception):
    """Base class: ``code`` is stable and machine-readable, the message says what to do."""

    code = "internal"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class SnapshotError(PithError):
    """The snapshot does not follow docs/snapshot.md (format v2; v1 still accepted: `snapshot.VERSIONS`)."""

    code = "bad_snapshot"

    def __init__(self, message: str, path: str = "$"):
        super().__init__(f"{path}: {message}")
        self.path = path


class ModelError(PithError):
    """The shipped model files are missing or unreadable."""

    code = "model_unavailable"


class InputError(PithError):
    """A file or argument given to the CLI cannot be used."""

    code = "bad_input"


class ProtocolError(PithError):
    """A native-messaging request the host cannot act on; the reply names what to change."""

    code = "bad_request"


class UnknownTypeError(ProtocolError):
    """A request type this host does not know (an extension newer than the host: update pith)."""

    code = "unknown_type"


class UnsupportedVersionError(ProtocolError):
    """A protocol version this host does not speak."""

    code = "unsupported_version"


class TooLargeError(ProtocolError):
    """A message over limits.MAX_REQUEST_BYTES."""

    code = "too_large"


class PageTimeoutError(PithError):
    """A page ran past limits.PAGE_TIME_LIMIT_S in a corpus job: it becomes a row with this error, the job goes on."""

    code = "timeout"


class NotHtmlError(InputError):
    """A file given as HTML that is a binary file (an image, an archive, an executable): it has no text to read."""

    code = "not_html"


class OutputError(PithError):
    """The output (--out) cannot be written: no permission, no space left. What was written before stays whole."""

    code = "cannot_write"


class MissingExtraError(PithError):
    """A corpus feature (WARC, Parquet, Ray) whose packages come with the `corpus` extra, not installed."""

    code = "missing_extra"


class InstallError(PithError):
    """`pith install`/`uninstall` cannot do what was asked; the message says which option to change."""

    code = "bad_input"
