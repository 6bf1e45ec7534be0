"""Whether a file given as an HTML page is a binary file instead (`binary_reason`, asked by the command line and
corpus jobs, which read files): decoded as the page would be, before the parser sees it."""

from __future__ import annotations

import re

from .snapshot import decode_html

# The HTML standard's "binary data bytes" (MIME Sniffing, 7.1): control characters that text never holds.
BINARY_CHARS = re.compile("[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]")
SNIFF_CHARS = 4096  # characters of the decoded page looked at for binary data
BINARY_SHARE = 0.05  # a page whose first SNIFF_CHARS hold more binary characters than this is no page
# The signatures of the binary files a crawl or a directory holds most (images, archives, executables, PDF).
MAGIC_NUMBERS = {
    b"\x89PNG\r\n\x1a\n": "a PNG image",
    b"GIF87a": "a GIF image",
    b"GIF89a": "a GIF image",
    b"\xff\xd8\xff": "a JPEG image",
    b"RIFF": "a RIFF file (WebP, WAV, AVI)",
    b"%PDF-": "a PDF file",
    b"PK\x03\x04": "a ZIP archive",
    b"\x1f\x8b": "gzip data",
    b"\x7fELF": "an ELF executable",
    b"MZ": "a Windows executable",
    b"\x00asm": "a WebAssembly module",
    b"\xca\xfe\xba\xbe": "a Mach-O or Java class file",
    b"\xcf\xfa\xed\xfe": "a Mach-O executable",
    b"\x28\xb5\x2f\xfd": "zstd data",
    b"BZh": "bzip2 data",
    b"\xfd7zXZ\x00": "xz data",
    b"OggS": "an Ogg file",
    b"\x00\x00\x01\x00": "an icon",
    b"wOFF": "a WOFF font",
    b"wOF2": "a WOFF2 font",
}


def binary_reason(data: bytes | str, charset: str | None = None) -> str | None:
    """Why `data`, given as an HTML page, is a binary file, or None: a binary file's signature at its start,
    or binary characters over BINARY_SHARE of its first SNIFF_CHARS, decoded as the page would be."""
    if isinstance(data, bytes):
        for magic, what in MAGIC_NUMBERS.items():
            if data.startswith(magic) and (magic != b"MZ" or b"<" not in data[:64]):
                return f"it starts as {what} does"
    head = decode_html(data[:SNIFF_CHARS], charset)
    binary = len(BINARY_CHARS.findall(head))
    if head and binary > BINARY_SHARE * len(head):
        return f"{binary} of its first {len(head)} characters are control characters, which text never holds"
    return None
