"""Native-messaging framing: a 32-bit length in native byte order, then that many bytes of UTF-8 JSON.

Both ends of a pipe can misbehave (a browser killed mid-message, a script writing garbage), so reading
never trusts the length blindly: a length over the limit is reported as `too_large` at once, before any of
its bytes are read (the host then ends the session: docs/protocol.md says why), an end of input inside a
frame ends the session with a reason for the log, and a frame that is not UTF-8 JSON becomes a
`bad_request` the host answers. Nothing here ever writes to stdout on its own.
"""

from __future__ import annotations

import json
import re
import struct
import sys
from collections.abc import Callable
from typing import IO

from .. import limits
from ..errors import ProtocolError, TooLargeError
from ..gc_pause import gc_paused

HEADER = struct.Struct("=I")  # native byte order, as Chromium and Firefox write it
READ_PIECE = 1024 * 1024  # a long frame is read in pieces so progress can be reported between them


class StreamClosed(Exception):
    """The input ended; `reason` says whether cleanly (between frames) or inside a frame."""

    def __init__(self, reason: str, clean: bool):
        super().__init__(reason)
        self.reason = reason
        self.clean = clean


def _read_into(stream: IO[bytes], view: memoryview, on_progress: Callable[[], None] | None) -> int:
    """Fill `view` from `stream`; returns how many bytes arrived before the end of input."""
    got = 0
    while got < len(view):
        # typing.IO leaves readinto out, though every binary stream the io module makes (stdin's buffer, a
        # pipe, BytesIO) has it; IO[bytes] is still the type callers hold, so the checker is told here.
        n = stream.readinto(view[got : got + READ_PIECE])  # type: ignore[attr-defined]
        if not n:
            break
        got += n
        if on_progress:
            on_progress()
    return got


def read_frame(
    stream: IO[bytes],
    max_bytes: int,
    on_progress: Callable[[], None] | None = None,
    on_length: Callable[[int], None] | None = None,
) -> bytearray:
    """The next frame's payload. Raises StreamClosed at the end of input, and TooLargeError as soon as a
    header announces more than `max_bytes`: none of those bytes is waited for, so the stream is left just
    after the header, and where the next frame starts is unknown. `on_length` is called with a length within
    the limit before any of its bytes is read or room is made for them: the host waits there until it may
    hold them."""
    header = bytearray(HEADER.size)
    got = _read_into(stream, memoryview(header), None)
    if got == 0:
        raise StreamClosed("input closed", clean=True)
    if got < HEADER.size:
        raise StreamClosed(f"input closed inside a frame header ({got} of {HEADER.size} bytes)", clean=False)
    (length,) = HEADER.unpack(header)
    if length > max_bytes:
        raise TooLargeError(
            f"message of {length} bytes is over the limit of {max_bytes} bytes; "
            "send a smaller snapshot (the extension trims pages to docs/snapshot.md's limits)"
        )
    if on_length:
        on_length(length)
    payload = bytearray(length)
    got = _read_into(stream, memoryview(payload), on_progress)
    if got < length:
        raise StreamClosed(f"input closed inside a frame ({got} of {length} bytes)", clean=False)
    return payload


def _refuse_constant(name: str):
    raise ProtocolError(f"message contains {name}, which JSON does not allow; send numbers or null")


# A lone surrogate escape (\\uD800-\\uDFFF with no partner) in JSON text. An escape is real when the run of
# backslashes that ends in its own holds an odd number. Each match starts at the first backslash of a run
# (a literal first character, so the scan between runs is a fast search) and takes the run possessively
# (`*+`): a long run is walked once and never backtracked into, so matching costs time linear in the text and
# no memory (a plain `*` kept a backtracking entry for every pair: 38 bytes of memory per byte of a run). Every
# match ends with the 6-character escape it replaces; what comes before it is kept.
_HIGH = r"[dD][89abAB][0-9a-fA-F]{2}"
_LOW = r"[dD][c-fC-F][0-9a-fA-F]{2}"
_LONE_SURROGATE = re.compile(
    r"\\(?<!\\\\)(?:"
    rf"(?:\\\\)*+u{_HIGH}(?!\\u{_LOW})"  # a high one with no low one right after it
    rf"|(?:\\\\)++u{_LOW}"  # a low one after escaped backslashes
    rf"|(?<!\\u{_HIGH}\\)u{_LOW}"  # a low one right after anything but a high escape
    rf"|\\(?:\\\\)*+u{_HIGH}\\u{_LOW})"
)  # a low one right after text that only looks like one


_JOIN_BATCH = 4096  # pieces joined at a time: the copy grows in strings of a few KiB, not a list of them all


def _without_lone_surrogates(text: str) -> str:
    """JSON text whose lone surrogate escapes (which a page can put in its DOM, and Firefox's JSON.stringify
    writes as \\udXXX) read as U+FFFD instead; everything else is left byte for byte. Text without them is
    returned as it is, after one scan; text with them costs one copy, built a batch of pieces at a time."""
    if "\\ud" not in text and "\\uD" not in text:
        return text
    parts: list[str] = []
    batch: list[str] = []
    start = 0
    for match in _LONE_SURROGATE.finditer(text):
        end = match.end()
        batch += (text[start : end - 6], "\\ufffd")
        start = end
        if len(batch) >= _JOIN_BATCH:
            parts.append("".join(batch))
            batch.clear()
    if not start:
        return text
    batch.append(text[start:])
    parts.append("".join(batch))
    del batch
    return "".join(parts)


class OverCountError(ProtocolError):
    """JSON text with more objects and arrays, or keys, than a valid request holds, refused before it is
    decoded; `rid` is the request's id where its leading members give it, else None."""

    def __init__(self, message: str, rid: int | None = None):
        super().__init__(message)
        self.rid = rid


# Every byte but these four is dropped from JSON text whose escapes are gone: what is left is its skeleton,
# where each '"' opens or closes a string, so the brackets and colons outside strings are the containers and
# the keys. The skeleton is split at its quotes a window at a time, so the pieces held at once are bounded.
_SKELETON_DROP = bytes(c for c in range(256) if c not in b'"{[:')
_SKELETON_WINDOW = 256 * 1024


def _structure_counts(data: bytes | bytearray) -> tuple[int, int]:
    """(objects and arrays, keys) outside the strings of JSON text `data`: exact for valid JSON. Inside a
    string backslashes pair from the left, so taking out each `\\\\` and then each `\\"` leaves only the
    quotes that delimit strings."""
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    skeleton = data.translate(None, _SKELETON_DROP)
    containers = keys = 0
    inside = False  # whether the window starts inside a string
    for start in range(0, len(skeleton), _SKELETON_WINDOW):
        parts = bytes(skeleton[start : start + _SKELETON_WINDOW]).split(b'"')
        outside = b"".join(parts[1::2] if inside else parts[::2])
        inside ^= len(parts) % 2 == 0  # an odd number of quotes
        containers += outside.count(b"{") + outside.count(b"[")
        keys += outside.count(b":")
    return containers, keys


# The id among the top-level members before any object or array (where a request puts it), read from the
# start of a frame refused before decoding, so its caller, not every request pending on the port, hears why.
_LEADING_ID = re.compile(
    rb'\s*\{(?:\s*"[a-z_]*"\s*:\s*(?:-?[0-9]++|"[^"\\]*+"|true|false|null)\s*,)*?'
    rb'\s*"id"\s*:\s*(-?[0-9]{1,16})\s*[,}]'
)
_LEADING_ID_BYTES = 4096


def _leading_id(data: bytes | bytearray) -> int | None:
    match = _LEADING_ID.match(data, 0, _LEADING_ID_BYTES)
    rid = int(match.group(1)) if match else None
    return rid if rid is not None and abs(rid) <= limits.MAX_REQUEST_ID else None


def check_structure(data: bytes | bytearray | str, what: str = "message") -> None:
    """Refuse JSON text that holds more objects and arrays, or more keys, than a valid request can
    (`limits.MAX_REQUEST_CONTAINERS`, `MAX_REQUEST_KEYS`), before it is decoded: those are what cost the most
    memory per byte to decode (docs/security.md, Memory). Counting every bracket and colon is a bound that
    costs a few scans; only text over it is counted exactly, outside its strings, so a page whose text is
    full of braces (code) passes."""
    # A container takes 2 bytes at least, a key 4 (`"":0`): text too short to pass a limit is not counted.
    count_brackets = len(data) // 2 > limits.MAX_REQUEST_CONTAINERS
    count_colons = len(data) // 4 > limits.MAX_REQUEST_KEYS
    if isinstance(data, str):
        brackets = data.count("{") + data.count("[") if count_brackets else 0
        colons = data.count(":") if count_colons else 0
    else:
        brackets = data.count(b"{") + data.count(b"[") if count_brackets else 0
        colons = data.count(b":") if count_colons else 0
    if brackets <= limits.MAX_REQUEST_CONTAINERS and colons <= limits.MAX_REQUEST_KEYS:
        return
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    containers, keys = _structure_counts(raw)
    if containers > limits.MAX_REQUEST_CONTAINERS or keys > limits.MAX_REQUEST_KEYS:
        raise OverCountError(
            f"{what} holds {containers:,} JSON objects and arrays and {keys:,} keys, more than a valid request "
            f"can ({limits.MAX_REQUEST_CONTAINERS:,} and {limits.MAX_REQUEST_KEYS:,}: a snapshot has at most "
            f"{limits.MAX_NODES:,} nodes, each one object with its classes and box); send the snapshot "
            "docs/snapshot.md describes",
            _leading_id(raw),
        )


# One character past U+FFFF makes a whole str take 4 bytes a character (the frame's text, 4 times the frame).
# Where it saves memory, such characters are written as JSON's escaped surrogate pairs (12 bytes each) before
# the text is made, so it takes 1 or 2 bytes a character; json reads each pair back as the one character.
_WIDE_SIZE = sys.getsizeof("\U00010000") - 4  # a str of 4-byte characters takes this plus 4 bytes each
_ASTRAL = re.compile(rb"[\xf0-\xf4][\x80-\xbf]{3}")
_ESCAPED_ASTRAL = re.compile(rb"(?<!\\)\\(?:\\\\)*+[\xf0-\xf4]")  # a backslash escaping one: never JSON


def is_wide(text: str) -> bool:
    """Whether `text` takes 4 bytes a character (it holds a character past U+FFFF), read from its size."""
    return sys.getsizeof(text) - 4 * len(text) >= _WIDE_SIZE


def _pair(match: re.Match) -> bytes:
    code = ord(match.group().decode()) - 0x10000
    return b"\\u%04x\\u%04x" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF))


def utf8_text(data: bytes | bytearray, what: str = "message") -> str:
    """UTF-8 JSON text -> str, its characters past U+FFFF escaped where that makes the str smaller."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(f"{what} is not UTF-8 (byte {exc.start}); messages are UTF-8 JSON") from None
    if not is_wide(text):
        return text
    astral = sum(data.count(bytes([lead])) for lead in range(0xF0, 0xF5))
    if 2 * (len(text) + 11 * astral) >= 4 * len(text):  # escaped, at 2 bytes a character, it would be larger
        return text
    del text
    if _ESCAPED_ASTRAL.search(data):
        raise ProtocolError(f"{what} is not JSON (a backslash before a character past U+FFFF)")
    return _ASTRAL.sub(_pair, data).decode("utf-8")


def decode_json(text: str | bytes, what: str = "message") -> object:
    """JSON text (a str, or UTF-8 bytes) -> its value, with the protocol's rules (no more containers or keys
    than a request can hold, lone surrogates read as U+FFFD, no NaN, no 4,300-digit numbers, bounded nesting);
    a ProtocolError whose message names `what` says why not."""
    check_structure(text, what)
    return _loads(text if isinstance(text, str) else utf8_text(text, what), what)


def _loads(text: str, what: str) -> object:
    try:
        with gc_paused():
            return json.loads(_without_lone_surrogates(text), parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise ProtocolError(f"{what} is not JSON ({exc.msg}: line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise ProtocolError(f"{what} nests too deeply to decode; flatten it (snapshots are flat node lists)") from None
    except ValueError as exc:  # an integer literal over Python's 4,300-digit conversion limit
        raise ProtocolError(
            f"{what} has a number with too many digits ({exc}); send numbers JavaScript can hold"
        ) from None


def decode_message(payload: bytes | bytearray, release: bool = False) -> dict:
    """UTF-8 JSON object -> dict; anything else is a ProtocolError (bad_request) whose message says why.

    Lone surrogates become U+FFFD, so every string in the message can be encoded again. With `release`, a
    bytearray payload is emptied once its text is made, so its memory is back before decoding's peak."""
    check_structure(payload)
    text = utf8_text(payload)
    if release and isinstance(payload, bytearray):
        payload.clear()
    message = _loads(text, "message")
    if not isinstance(message, dict):
        raise ProtocolError(f"message must be a JSON object, got {type(message).__name__}")
    return message


def encode_message(message: dict) -> bytes:
    """dict -> compact JSON bytes. ASCII-only (escapes for the rest), so a slice of the text is a whole number
    of bytes and a lone surrogate from the input cannot make invalid UTF-8."""
    return json.dumps(message, separators=(",", ":"), allow_nan=False).encode("ascii")


def frame(payload: bytes) -> bytes:
    return HEADER.pack(len(payload)) + payload


def write_frame(stream: IO[bytes], payload: bytes) -> None:
    """One write and one flush per frame, so a reader on the other end never waits on a partial frame."""
    stream.write(frame(payload))
    stream.flush()
