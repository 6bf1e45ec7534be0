"""`pith host`: the long-lived native-messaging process behind one `connectNative` port.

A reader thread reads and decodes requests while the worker extracts, so a pipelined request's 20 MB
decode overlaps the previous page's inference; the worker alone writes, so a reply's chunks are never
interleaved with another reply. What the reader may hold is bounded (`Inbox`): at most one request beyond
the one in work, and their frames' bytes together within one frame's cap, so the host's memory is bounded
by what one frame can cost, however many frames a writer pipelines (docs/security.md, Memory). stdout
carries protocol frames only: the real descriptor is kept for the protocol and fd 1 is pointed at stderr,
so a stray print (ours or a library's, from C too) cannot corrupt the stream. `--stdio-jsonl` serves the
same requests as JSON lines, for scripts.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO, Protocol

from .. import __version__, limits
from ..errors import PithError, ProtocolError, TooLargeError
from ..gc_pause import GcHold
from .framing import READ_PIECE, OverCountError, StreamClosed, decode_message, encode_message, read_frame, write_frame
from .identity import FIREFOX_EXTENSION_ID, chromium_origin
from .logs import setup_logging
from .protocol import (
    LazyExtractor,
    Request,
    answer,
    error_reply,
    internal_error_reply,
    parse_request,
    reply_payloads,
    request_id,
)

log = logging.getLogger(__name__)


class Transport(Protocol):
    def read(self, on_progress: Callable[[], None], admit: Callable[[int], None]) -> bytes | bytearray:
        """The next request's bytes; TooLargeError as soon as it is known to be over the limit. `admit(size)`
        is called with the request's size once it is known, as early as the transport can know it, and may
        block until the host can hold it."""

    def resume(self, on_progress: Callable[[], None]) -> bool:
        """After a TooLargeError (already answered): skip to the next request; False when where it starts
        cannot be known, which ends the session."""

    def write(self, reply: dict) -> None: ...


class FramedTransport:
    """Native messaging: length-prefixed frames; replies over the frame cap go out as chunks."""

    def __init__(self, inp: BinaryIO, out: BinaryIO, frame_cap: int = limits.MAX_REPLY_FRAME_BYTES):
        self.inp, self.out, self.frame_cap = inp, out, frame_cap

    def read(self, on_progress: Callable[[], None], admit: Callable[[int], None]) -> bytearray:
        """The header says the size, so a frame waits for admission in the pipe, none of it read."""
        return read_frame(self.inp, limits.MAX_REQUEST_BYTES, on_progress, admit)

    def resume(self, on_progress: Callable[[], None]) -> bool:
        """Never: only the length says where the next frame starts, and this one cannot be trusted (a browser
        sends no such frame; a corrupt header does, and skipping its length would swallow real requests)."""
        return False

    def write(self, reply: dict) -> None:
        for payload in reply_payloads(reply, self.frame_cap):
            write_frame(self.out, payload)


class JsonLinesTransport:
    """One JSON request per line in, one JSON reply per line out; no size cap on replies, so no chunks."""

    def __init__(self, inp: BinaryIO, out: BinaryIO):
        self.inp, self.out = inp, out

    def read(self, on_progress: Callable[[], None], admit: Callable[[int], None]) -> bytes:
        """Only the end of a line says its size: a line waits for admission read but not yet decoded."""
        while True:
            line = self.inp.readline(limits.MAX_REQUEST_BYTES + 1)
            if not line:
                raise StreamClosed("input closed", clean=True)
            on_progress()
            if len(line) > limits.MAX_REQUEST_BYTES and not line.endswith(b"\n"):
                raise TooLargeError(
                    f"request line over the limit of {limits.MAX_REQUEST_BYTES} bytes; send a smaller snapshot"
                )
            if line.strip():
                admit(len(line))
                return line

    def resume(self, on_progress: Callable[[], None]) -> bool:
        """The rest of the long line is read and dropped a piece at a time; the next line is the next request."""
        line = b""
        while not line.endswith(b"\n"):
            line = self.inp.readline(READ_PIECE)
            if not line:
                break
            on_progress()
        return True

    def write(self, reply: dict) -> None:
        self.out.write(encode_message(reply) + b"\n")
        self.out.flush()


@dataclass
class Closed:
    """The reader's last word: why the input ended."""

    reason: str
    clean: bool


class Inbox:
    """What the reader hands the worker, and how much of it the host holds.

    A request is in flight from its admission (its size known, none of it yet read: `admit`) until the worker
    has answered it and let it go (`done`). The reader is admitted while fewer than `max_frames` requests are
    in flight and their sizes, its own included, add up to at most `max_bytes`, or when none is; otherwise it
    waits, and so does the frame, unread in the pipe. Replies the reader makes itself (a refused frame) and
    its last word are handed over without admission: they hold no request."""

    def __init__(self, max_frames: int = limits.HOST_FRAMES_IN_FLIGHT, max_bytes: int = limits.HOST_BYTES_IN_FLIGHT):
        self.max_frames, self.max_bytes = max_frames, max_bytes
        self.frames = self.bytes = 0
        self.held = 0  # the size of a request waiting for admission (0: none): it ends a pause after a part
        self._items: deque = deque()
        self._cond = threading.Condition()

    def admit(self, size: int) -> None:
        with self._cond:
            if self._full(size):
                log.debug(
                    "holding a request of %d bytes until %d in flight (%d bytes) are answered",
                    size,
                    self.frames,
                    self.bytes,
                )
                self.held = size
                self._cond.notify_all()
                while self._full(size):
                    self._cond.wait()
                self.held = 0
            self.frames += 1
            self.bytes += size

    def _full(self, size: int) -> bool:
        return self.frames > 0 and (self.frames >= self.max_frames or self.bytes + size > self.max_bytes)

    def put(self, item, size: int | None = None) -> None:
        """Hand `item` to the worker; `size` is its request's admitted size, None when it was not admitted."""
        with self._cond:
            self._items.append((item, size))
            self._cond.notify_all()

    def get(self, timeout: float | None = None):
        """(item, size), or None when `timeout` seconds pass first."""
        with self._cond:
            if not self._cond.wait_for(lambda: self._items, timeout):
                return None
            return self._items.popleft()

    def wait(self, timeout: float) -> bool:
        """Wait until a message is in (handed over, or waiting for admission) or `timeout` seconds have
        passed; whether one is."""
        with self._cond:
            return self._cond.wait_for(lambda: bool(self._items or self.held), timeout)

    def done(self, size: int | None) -> None:
        """The worker has answered a request of `size` bytes and holds nothing of it any more."""
        if size is None:
            return
        with self._cond:
            self.frames -= 1
            self.bytes -= size
            self._cond.notify_all()


class Server:
    """Serves one transport until its input closes or it sits idle for `idle_timeout` seconds (0: never)."""

    def __init__(
        self,
        transport: Transport,
        engine: LazyExtractor,
        idle_timeout: float = limits.HOST_IDLE_TIMEOUT_S,
        log_path: str | None = None,
    ):
        self.transport = transport
        self.engine = engine
        self.idle_timeout = idle_timeout
        self.log_path = log_path
        self.inbox = Inbox()
        self.last_activity = time.monotonic()

    def _touch(self) -> None:
        self.last_activity = time.monotonic()

    def _read_loop(self) -> None:
        while True:
            try:
                try:
                    payload = self.transport.read(self._touch, self.inbox.admit)
                except TooLargeError as exc:
                    # Answered at once: the rest of the message may never come (a corrupt length announces
                    # gigabytes nobody sends), and the caller must not wait on it.
                    log.warning("refused a message: %s", exc.message)
                    self.inbox.put(error_reply(None, exc))
                    if self.transport.resume(self._touch):
                        continue
                    self.inbox.put(
                        Closed(
                            "a frame's length was over the limit, so where the next frame starts cannot be known", False
                        )
                    )
                    return
            except StreamClosed as exc:
                self.inbox.put(Closed(exc.reason, exc.clean))
                return
            except Exception as exc:  # an unreadable stdin ends the session, with the reason logged
                log.exception("reading the input failed")
                self.inbox.put(Closed(f"reading the input failed: {exc}", False))
                return
            self._touch()
            size = len(payload)
            # Handed over in one expression, so the reader keeps nothing of a request (the frame, its decoded
            # message) while it waits for the next: a request's memory is the worker's alone until answered.
            self.inbox.put(self._held(payload), size)
            del payload

    def _held(self, payload: bytes | bytearray):
        """`_decode(payload)`, the collector paused from before decoding: a request keeps the pause (its `hold`)
        until its reply is out (`serve`)."""
        hold = GcHold()
        item = self._decode(payload)
        if isinstance(item, Request):
            item.hold = hold
        else:
            hold.end()
        return item

    def _decode(self, payload: bytes | bytearray):
        """The request in `payload`, or the error reply it gets. A frame (a bytearray) is emptied once its text
        is made: nothing reads it after."""
        received = time.perf_counter()
        size = len(payload)
        try:
            message = decode_message(payload, release=True)
        except OverCountError as exc:  # refused undecoded: answered with the id its first members give
            log.warning("refused a message of %d bytes undecoded: %s", size, exc.message)
            return error_reply(exc.rid, exc)
        except ProtocolError as exc:
            log.warning("undecodable message of %d bytes: %s", size, exc.message)
            return error_reply(None, exc)
        except Exception as exc:  # a bug must cost one reply: a dead reader would leave the worker waiting
            log.exception("decoding a message of %d bytes failed", size)
            return internal_error_reply(None, exc, self.log_path)
        try:
            return parse_request(message, received)
        except PithError as exc:  # a bad envelope, or a snapshot_json that is not JSON
            log.info("refused request %s: %s", request_id(message), exc.message)
            return error_reply(request_id(message), exc)
        except Exception as exc:  # a bug must cost one reply, as above
            log.exception("reading request %s failed", request_id(message))
            return internal_error_reply(request_id(message), exc, self.log_path)

    def _next(self):
        """The next (item, size) from the inbox, or None once the host has been idle for idle_timeout."""
        while True:
            if not self.idle_timeout:
                return self.inbox.get()
            left = self.idle_timeout - (time.monotonic() - self.last_activity)
            if left <= 0:
                return None
            got = self.inbox.get(timeout=left)
            if got is not None:
                return got
            # else a long frame may have been arriving meanwhile: re-check its activity

    def _send_part(self, part: dict) -> None:
        """A reply's part, then a pause before its rest is built (limits.REST_AFTER_PART_S), cut short by the
        next message: on two cores the browser shows the part without the host taking one of them, and a
        request read meanwhile never waits on the pause."""
        self._send(part)
        self.inbox.wait(limits.REST_AFTER_PART_S)

    def _send(self, reply: dict) -> None:
        try:
            self.transport.write(reply)
        except ValueError as exc:  # a reply JSON cannot carry (NaN): answer with the reason instead
            log.exception("reply %s cannot be encoded", reply.get("id"))
            self.transport.write(internal_error_reply(reply.get("id"), exc, self.log_path))

    def serve(self) -> int:
        threading.Thread(target=self._read_loop, name="pith-reader", daemon=True).start()
        while True:
            got = self._next()
            if got is None:
                log.info("idle for %.0f s: exiting", self.idle_timeout)
                return 0
            item, size = got
            del got
            if isinstance(item, Closed):
                (log.info if item.clean else log.warning)("exiting: %s", item.reason)
                return 0 if item.clean else 1
            hold = item.hold if isinstance(item, Request) else None
            if isinstance(item, Request):
                t0 = time.perf_counter()
                reply = answer(item, self.engine, self.log_path, early=self._send_part)
                log.info(
                    "request %s %s -> %s in %.1f ms",
                    item.id,
                    item.type,
                    reply["type"],
                    (time.perf_counter() - t0) * 1000,
                )
            else:
                reply = item
            del item
            try:
                self._send(reply)
            except OSError as exc:  # the browser went away: nobody is left to answer
                log.info("exiting: output closed (%s)", exc)
                return 0
            del reply  # the request and its reply are let go before the reader may read the next
            if hold is not None:
                hold.end()  # the collector back, with the page gone
            self.inbox.done(size)
            self._touch()


def caller_refusal(caller: list[str]) -> str | None:
    """Why the process that started us is not allowed, or None when it is.

    Chromium passes the caller's origin (`chrome-extension://ID/`), Firefox the path of the host manifest
    then the extension id. No argument at all means a person or script started the host by hand."""
    if not caller:
        return None
    if caller[0].startswith("chrome-extension://"):
        return (
            None
            if caller[0] == chromium_origin()
            else f"caller {caller[0]} is not the Pith extension ({chromium_origin()})"
        )
    if len(caller) >= 2:
        return (
            None
            if caller[1] == FIREFOX_EXTENSION_ID
            else f"caller extension {caller[1]!r} is not the Pith extension ({FIREFOX_EXTENSION_ID})"
        )
    return (
        f"unrecognised caller arguments {caller!r}: expected a chrome-extension:// origin or a Firefox "
        "manifest path and extension id"
    )


def _protocol_streams() -> tuple[BinaryIO, BinaryIO]:
    """(input, output) for the protocol; afterwards fd 1 and sys.stdout both lead to stderr."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    return sys.stdin.buffer, out


def run(args: argparse.Namespace) -> int:
    inp, out = _protocol_streams()
    path = setup_logging(args.log_level)
    mode = "jsonl" if args.stdio_jsonl else "native"
    log.info(
        "pith %s host started (pid %d, %s, python %s, caller %r)",
        __version__,
        os.getpid(),
        mode,
        sys.executable,
        args.caller,
    )
    refusal = caller_refusal(args.caller)
    if refusal:
        log.error("refusing to serve: %s; reinstall with `pith install` if this is your extension", refusal)
        return 3
    engine = LazyExtractor(args.model_dir)
    if args.preload:
        try:
            engine.get()
        except Exception as exc:  # requests will get model_unavailable with the same reason
            log.error("preloading the model failed: %s", getattr(exc, "message", exc))
    transport = JsonLinesTransport(inp, out) if args.stdio_jsonl else FramedTransport(inp, out)
    code = Server(transport, engine, args.idle_timeout, str(path) if path else None).serve()
    # The reader thread may sit in a blocking read of stdin (idle exit); a normal interpreter shutdown would
    # abort on its buffer lock, so end the process here once everything is flushed.
    logging.shutdown()
    try:
        out.flush()
    except OSError:
        pass
    os._exit(code)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "host",
        help="serve the browser extension over native messaging (started by the browser)",
        description="Native-messaging host (docs/protocol.md). Browsers start it through the launcher that "
        "`pith install` writes; scripts can drive it with --stdio-jsonl.",
    )
    p.add_argument(
        "caller",
        nargs="*",
        help="what the browser passes: the extension origin (Chromium) or the manifest path and extension id (Firefox)",
    )
    p.add_argument(
        "--stdio-jsonl",
        action="store_true",
        help="one JSON request per line on stdin, one JSON reply per line on stdout",
    )
    p.add_argument(
        "--idle-timeout",
        type=float,
        default=limits.HOST_IDLE_TIMEOUT_S,
        metavar="SECONDS",
        help="exit after this long without a request (0: never; default %(default)s)",
    )
    p.add_argument("--preload", action="store_true", help="load the model at start, not on the first extract")
    p.add_argument(
        "--model-dir",
        default=os.environ.get("PITH_MODEL_DIR") or None,
        help="model directory (default: $PITH_MODEL_DIR, else the shipped model)",
    )
    p.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    p.set_defaults(func=run)
