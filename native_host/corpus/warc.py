"""WARC files -> pages: every HTTP response record with an HTML content type, with its target URI, HTTP charset
and record id.

Read with FastWARC (docs/corpus.md has the measurements against warcio that chose it). A file that breaks part
way (a truncated gzip member, a garbled record) yields the pages before the break and then one `Page` carrying
the reader's error, so a damaged file costs the rest of that file, counted and logged, never the job.
`response_record` writes the format's other half: the tests and bench/corpus_speed.py build their WARC files
with it.
"""

from __future__ import annotations

import gzip
import re
import uuid
import zlib
from collections.abc import Iterator

from .extras import need
from .pages import Page

WARC_SUFFIXES = (".warc", ".warc.gz")
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})


def is_warc(path: str) -> bool:
    return path.lower().endswith(WARC_SUFFIXES)


def http_charset(content_type: str | None) -> str | None:
    """The charset parameter of an HTTP Content-Type as sent, unvalidated: decode_html judges the name."""
    for param in (content_type or "").split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset":
            return value.strip().strip("\"'") or None
    return None


def warc_pages(path: str) -> Iterator[Page]:
    """The HTML response pages of one WARC file, in file order. A record cut short (a truncated gzip member ends
    the file inside it) or without its HTTP head becomes an error page; a stream that cannot be read further,
    or a file that goes on past the last record read (cut inside a later gzip member, or bytes that are no
    record), ends the file with one."""
    warc = need("fastwarc.warc")
    read, responses, last_pos, cut_short = 0, 0, None, None
    try:
        with open(path, "rb") as stream:
            for record in warc.ArchiveIterator(stream, parse_http=True):
                read, last_pos = read + 1, record.stream_pos
                if record.record_type != warc.WarcRecordType.response:
                    continue
                responses += 1
                url, record_id = record.headers.get("WARC-Target-URI"), record.record_id or None
                http = record.http_headers
                if http is None or http.status_code is None or url is None:
                    yield Page(
                        path,
                        None,
                        url,
                        record_id,
                        problem=f"response record {responses} (at byte "
                        f"{record.stream_pos}) has no target URI or HTTP head: the file is damaged there",
                    )
                    continue
                content_type = http.get("Content-Type")
                if (content_type or "").split(";")[0].strip().lower() not in HTML_TYPES:
                    continue
                body = record.reader.read()
                if len(body) < record.content_length:
                    cut_short = record.stream_pos
                    yield Page(
                        path,
                        None,
                        url,
                        record_id,
                        status=http.status_code,
                        problem=f"the record is cut short ({len(body)} of {record.content_length} bytes): "
                        "the file is truncated",
                    )
                    continue
                yield Page(path, body, url, record_id, http_charset(content_type), http.status_code)
        # a record cut short has said that the file ends inside it
        problem = None if cut_short is not None and cut_short == last_pos else _tail_problem(path, last_pos)
    except Exception as exc:  # a reader's error costs the rest of this file, never the job
        problem = f"{type(exc).__name__}: {exc}"
    if problem is not None:
        yield Page(
            path,
            None,
            problem=f"the WARC file cannot be read past record {read}"
            f"{'' if last_pos is None else f' (at byte {last_pos})'}: {problem}",
        )


GZIP_MAGIC = b"\x1f\x8b"
_CONTENT_LENGTH = re.compile(rb"(?im)^content-length[ \t]*:[ \t]*([0-9]+)")
MAX_HEAD_BYTES = 1 << 20  # a record head longer than this is no head: the file is damaged there


class _Broken(Exception):
    """Why the rest of a WARC file cannot be read, found by `_tail_problem`."""


def _tail_problem(path: str, last_pos: int | None) -> str | None:
    """Why the file does not end where its last record does, or None. FastWARC ends quietly where a gzip
    member is cut short or where what follows is no record; so the file is read again from the last record
    read (from the gzip member that holds it, where members start there, the crawlers' way; a file gzipped
    as one stream is read whole) and must go on only in whole records to its end, blank lines aside. Memory
    stays at a record head: bodies are skipped as they stream by."""
    try:
        with open(path, "rb") as f:
            gzipped = f.read(2) == GZIP_MAGIC
            start = last_pos or 0
            f.seek(start)
            if gzipped and f.read(2) != GZIP_MAGIC:
                start = 0  # one gzip stream: its offsets are not the file's
            f.seek(start)
            _whole_records(_gunzipped(f, start) if gzipped else iter(lambda: f.read(1 << 20), b""))
    except _Broken as why:
        return str(why)
    return None


def _whole_records(chunks: Iterator[bytes]) -> None:
    """Raise _Broken unless `chunks` are WARC records end to end (each head, then its Content-Length of body)."""
    buffer, skip, heads = b"", 0, 0
    for chunk in chunks:
        buffer += chunk
        while buffer:
            if skip:
                dropped = min(skip, len(buffer))
                buffer, skip = buffer[dropped:], skip - dropped
                continue
            buffer = buffer.lstrip(b"\r\n\t \x00")
            if not buffer:
                break
            if not b"WARC/".startswith(buffer[:5]):
                raise _Broken(
                    f"bytes follow record {heads} of those read again that are no WARC record: the file "
                    "is damaged there"
                )
            end = buffer.find(b"\r\n\r\n", 0, MAX_HEAD_BYTES)
            if end < 0:
                if len(buffer) >= MAX_HEAD_BYTES:
                    raise _Broken("a record head runs past 1 MiB: the file is damaged there")
                break  # the head goes on in the next chunk
            length = _CONTENT_LENGTH.search(buffer, 0, end)
            if length is None:
                raise _Broken("a record head has no Content-Length: the file is damaged there")
            buffer, skip, heads = buffer[end + 4 :], int(length.group(1)), heads + 1
    if skip:
        raise _Broken(f"the file ends {skip} bytes short of its last record's end: it is truncated there")
    if buffer:
        raise _Broken("the file ends inside the head of its last record: it is truncated there")


def _gunzipped(f, start: int) -> Iterator[bytes]:
    """The gzip members from `start` to the end, decompressed as they stream; _Broken where one is damaged or
    the file ends inside one."""
    decompressor, member, at, fed = zlib.decompressobj(31), start, start, False
    while chunk := f.read(1 << 20):
        while chunk:
            fed = True
            try:
                yield decompressor.decompress(chunk)
            except zlib.error as exc:
                raise _Broken(f"the gzip member at byte {member} is damaged ({exc})") from exc
            if not decompressor.eof:
                at += len(chunk)
                break
            at += len(chunk) - len(decompressor.unused_data)
            chunk, member = decompressor.unused_data, at
            decompressor, fed = zlib.decompressobj(31), False
            if not chunk.strip(b"\x00") and not f.peek(1):
                chunk = b""
    if fed and not decompressor.eof:
        raise _Broken(f"the file ends inside the gzip member at byte {member}: it is truncated there")


def response_record(
    url: str,
    body: bytes,
    content_type: str = "text/html; charset=utf-8",
    status: int = 200,
    date: str = "2024-01-01T00:00:00Z",
) -> bytes:
    """One WARC/1.0 response record, gzipped as its own member the way crawlers write .warc.gz; its record id is
    derived from the url, so a file built twice is the same file."""
    http = (f"HTTP/1.1 {status} OK\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n").encode(
        "latin-1"
    ) + body
    head = (
        f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, url)}>\r\n"
        f"WARC-Date: {date}\r\nWARC-Target-URI: {url}\r\nContent-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(http)}\r\n\r\n"
    ).encode()
    return gzip.compress(head + http + b"\r\n\r\n", mtime=0)
