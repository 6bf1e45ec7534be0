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
import uuid
from typing import Iterator

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
    the file inside it) or without its HTTP head becomes an error page; a stream that cannot be read further
    ends the file with one."""
    warc = need("fastwarc.warc")
    read = 0
    try:
        with open(path, "rb") as stream:
            for record in warc.ArchiveIterator(stream, record_types=warc.WarcRecordType.response, parse_http=True):
                read += 1
                url, record_id = record.headers.get("WARC-Target-URI"), record.record_id or None
                http = record.http_headers
                if http is None or url is None:
                    yield Page(path, None, url, record_id, problem=f"response record {read} (at byte "
                               f"{record.stream_pos}) has no target URI or HTTP head: the file is damaged there")
                    continue
                content_type = http.get("Content-Type")
                if (content_type or "").split(";")[0].strip().lower() not in HTML_TYPES:
                    continue
                body = record.reader.read()
                if len(body) < record.content_length:
                    yield Page(path, None, url, record_id, status=http.status_code,
                               problem=f"the record is cut short ({len(body)} of {record.content_length} bytes): "
                                       "the file is truncated")
                    continue
                yield Page(path, body, url, record_id, http_charset(content_type), http.status_code)
    except Exception as exc:  # a reader's error costs the rest of this file, never the job
        yield Page(path, None, problem=f"the WARC file cannot be read past response record {read}: "
                                       f"{type(exc).__name__}: {exc}")


def response_record(url: str, body: bytes, content_type: str = "text/html; charset=utf-8", status: int = 200,
                    date: str = "2024-01-01T00:00:00Z") -> bytes:
    """One WARC/1.0 response record, gzipped as its own member the way crawlers write .warc.gz; its record id is
    derived from the url, so a file built twice is the same file."""
    http = (f"HTTP/1.1 {status} OK\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n"
            ).encode("latin-1") + body
    head = (f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, url)}>\r\n"
            f"WARC-Date: {date}\r\nWARC-Target-URI: {url}\r\nContent-Type: application/http; msgtype=response\r\n"
            f"Content-Length: {len(http)}\r\n\r\n").encode("utf-8")
    return gzip.compress(head + http + b"\r\n\r\n", mtime=0)
