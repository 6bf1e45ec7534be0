"""The browser's side of the protocol, in Python: start a host process and talk to it through the real framing.

`pith doctor`, the benchmark and the tests all need to be "the browser"; this is the one implementation,
and its chunk reassembly is the reference the extension's JavaScript follows (docs/protocol.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from typing import IO

from .framing import StreamClosed, encode_message, frame, read_frame

FRAME_LIMIT = 64 * 1024 * 1024  # what the client accepts per frame; a frame above the host's cap is a host bug


class ChunkError(Exception):
    """Chunk frames that do not form one whole reply."""


def host_command(caller: Iterable[str] = (), *options: str) -> list[str]:
    """This installation's host, as the launcher runs it."""
    return [sys.executable, "-m", "native_host", "host", *options, *caller]


class Reassembler:
    """Joins chunk frames back into replies and drops progress notes, checking what the extension's twin
    (extension/background/host.js) checks: chunks in order, one `count` for all of a reply's chunks, text
    data."""

    def __init__(self) -> None:
        self._parts: dict = {}
        self._counts: dict = {}

    def feed(self, message: dict) -> dict | None:
        """The whole reply once `message` completes one, else None."""
        kind = message.get("type")
        if kind == "progress":
            return None
        if kind != "chunk":
            return message
        rid, seq, count, data = message.get("id"), message.get("seq"), message.get("count"), message.get("data")
        parts = self._parts.setdefault(rid, [])
        expected = self._counts.setdefault(rid, count)
        if seq != len(parts) or not isinstance(count, int) or seq >= count:
            raise ChunkError(f"chunk {seq} of {count} for id {rid} out of order (have {len(parts)})")
        if count != expected:
            raise ChunkError(f"chunk {seq} of id {rid} says {count} chunks, its first said {expected}")
        if not isinstance(data, str):
            raise ChunkError(f"chunk {seq} of id {rid} carries no text data")
        parts.append(data)
        if len(parts) < count:
            return None
        del self._parts[rid], self._counts[rid]
        return json.loads("".join(parts))


class HostProcess:
    """A running `pith host` with pipes on both ends; use as a context manager so it is always stopped."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None):
        self.argv = argv
        self._stderr = tempfile.TemporaryFile()  # a file, not a pipe: a chatty host can never block on it
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, env={**os.environ, **(env or {})}
        )
        # Popen sets both pipes when asked for them (PIPE above); this only tells the checker so.
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._stdin: IO[bytes] = self.proc.stdin
        self._stdout: IO[bytes] = self.proc.stdout
        self.reassembler = Reassembler()
        self.frame_sizes: list[int] = []  # payload size of every frame received, for tests of the cap

    def __enter__(self) -> HostProcess:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def send_raw(self, data: bytes) -> None:
        self._stdin.write(data)
        self._stdin.flush()

    def send(self, message: dict) -> None:
        self.send_raw(frame(encode_message(message)))

    def receive_message(self) -> dict:
        """The next frame as a message (a chunk stays a chunk)."""
        try:
            payload = read_frame(self._stdout, FRAME_LIMIT)
        except StreamClosed as exc:
            raise EOFError(f"host closed its output ({exc.reason}); stderr: {self.stderr_text()}") from None
        self.frame_sizes.append(len(payload))
        return json.loads(payload.decode("utf-8"))

    def receive(self) -> dict:
        """The next whole reply, chunks joined."""
        while True:
            reply = self.reassembler.feed(self.receive_message())
            if reply is not None:
                return reply

    def request(self, message: dict) -> dict:
        self.send(message)
        return self.receive()

    def close_input(self) -> None:
        if not self._stdin.closed:
            self._stdin.close()

    def wait(self, timeout: float) -> int:
        return self.proc.wait(timeout=timeout)

    def peak_rss_mb(self) -> float | None:
        """The host's resident-memory high-water mark (VmHWM) in MB, model included; None where /proc has
        no such line (not Linux, or the process is gone)."""
        try:
            with open(f"/proc/{self.proc.pid}/status") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        return None

    def stderr_text(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")

    def close(self) -> None:
        try:
            self.close_input()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._stdout.close()
        self._stderr.close()
