"""Values a page controls, read without ever raising: one guarded helper per kind of conversion.

A page writes whatever it likes into its attributes, and one value that a library call refuses (Python's
`urljoin` raises on `http://[ccpa-preferences]`, `bytes.decode` on `<meta charset=rot13>`) must cost that
value alone, never the page. Every place that turns a page's value into a URL or picks a codec from it goes
through here, and each helper falls back the way a browser does: the value as written, or no codec (the
caller then reads the bytes as a browser does without a label). docs/security.md lists the call sites.
"""

from __future__ import annotations

import codecs
from urllib.parse import urljoin, urlsplit


def join_url(base: str | None, ref: str) -> str | None:
    """`ref` made absolute against `base` (`ref` itself without a base), or None when either cannot be
    parsed: a bracketed host that is not an IP address, a host that NFKC-normalises to a separator. The
    caller falls back as a browser does: a link keeps its href as written (what `a.href` gives for a URL it
    cannot parse), and so do all links under a `<base>` that cannot be parsed (Chromium's answer)."""
    if not base or _plain_absolute(ref):
        return ref
    try:
        return urljoin(base, ref)
    except ValueError:
        return None


_ABSOLUTE = ("https://", "http://")


def _plain_absolute(ref: str) -> bool:
    """Whether `urljoin(base, ref)` is `ref` itself for any base that parses: an ASCII http(s) address with a
    host, nothing `urlsplit` strips (tabs, newlines) and no empty query, fragment or parameters that
    rejoining drops. Half
    of a page's links are such, and `urljoin` took ~5 µs on each (tests/test_page_values.py holds the two
    equal)."""
    if not ref.startswith(_ABSOLUTE) or not ref.isascii() or "[" in ref or "]" in ref:
        return False  # non-ASCII and bracketed hosts are what urlsplit checks, and may refuse
    host = 8 if ref[4] == "s" else 7
    return (
        len(ref) > host
        and ref[host] not in "/?#\\"
        and not ref.endswith(("?", "#", ";"))
        and "?#" not in ref
        and ";?" not in ref
        and ";#" not in ref
        and "\t" not in ref
        and "\n" not in ref
        and "\r" not in ref
    )


def _url_part(url: str | None, part: str) -> str | None:
    """One part of `url` as urlsplit reads it, or None when it is empty or `url` cannot be parsed."""
    if not url:
        return None
    try:
        return getattr(urlsplit(url), part) or None
    except ValueError:
        return None


def url_host(url: str | None) -> str | None:
    """The host name of `url` (lower case), or None when it has none or cannot be parsed."""
    return _url_part(url, "hostname")


def url_path(url: str | None) -> str | None:
    """The path of `url`, or None when it has none or cannot be parsed."""
    return _url_part(url, "path")


def url_query(url: str | None) -> str | None:
    """The query of `url` (after "?"), or None when it has none or cannot be parsed."""
    return _url_part(url, "query")


def url_scheme(url: str | None) -> str | None:
    """The scheme of `url` (lower case), or None when it has none or cannot be parsed."""
    return _url_part(url, "scheme")


# The encodings of the WHATWG Encoding Standard (what browsers decode), as Python codec names, with the
# labels browsers read as a superset: latin-1 and ascii are windows-1252, iso-8859-9 is windows-1254,
# tis-620 and iso-8859-11 are windows-874, gb2312 is gbk, big5 is big5-hkscs, shift_jis is windows-31j and
# euc-kr is windows-949; the label utf-16 is UTF-16LE. Any other codec Python knows (rot13, base64, undefined, idna, unicode_escape, utf-7, utf-32...) is no
# label a browser honours, and several raise on any input.
_BROWSER_CODECS = {
    "utf-8": "utf-8",
    "utf-16-le": "utf-16-le",
    "utf-16-be": "utf-16-be",
    "utf-16": "utf-16-le",
    "cp866": "cp866",
    "koi8-r": "koi8-r",
    "koi8-u": "koi8-u",
    "mac-roman": "mac-roman",
    "mac-cyrillic": "mac-cyrillic",
    "cp874": "cp874",
    "tis-620": "cp874",
    "iso8859-11": "cp874",
    "latin-1": "cp1252",
    "iso8859-1": "cp1252",
    "ascii": "cp1252",
    "iso8859-9": "cp1254",
    "gbk": "gbk",
    "gb2312": "gbk",
    "gb18030": "gb18030",
    "big5": "big5hkscs",
    "big5hkscs": "big5hkscs",
    "euc_jp": "euc_jp",
    "iso2022_jp": "iso2022_jp",
    "shift_jis": "cp932",
    "cp932": "cp932",
    "euc_kr": "cp949",
    "cp949": "cp949",
    **{f"cp{n}": f"cp{n}" for n in range(1250, 1259)},
    **{f"iso8859-{n}": f"iso8859-{n}" for n in (2, 3, 4, 5, 6, 7, 8, 10, 13, 14, 15, 16)},
}
# Labels browsers know and Python's codec registry does not, as a label Python knows.
_LABELS = {
    "unicode-1-1-utf-8": "utf-8",
    "unicode": "utf-16-le",
    "ucs-2": "utf-16-le",
    "koi8-ru": "koi8-u",
    "mac": "mac-roman",
    "x-mac-roman": "mac-roman",
    "x-mac-cyrillic": "mac-cyrillic",
    "x-mac-ukrainian": "mac-cyrillic",
    "windows-874": "cp874",
    "dos-874": "cp874",
    "x-gbk": "gbk",
    "x-x-big5": "big5hkscs",
    "cn-big5": "big5hkscs",
    "x-euc-jp": "euc_jp",
    "x-sjis": "cp932",
    "windows-31j": "cp932",
    "windows-949": "cp949",
    "iso-8859-8-i": "iso8859-8",
    "logical": "iso8859-8",
}


def text_codec(label: str | None) -> str | None:
    """The Python codec a browser would decode a page with, for a charset label the page declares; None
    for a label no browser honours (the caller falls back as a browser does). Every codec it returns
    decodes any bytes with errors="replace" without raising (tests/test_page_values.py)."""
    if not label:
        return None
    try:
        label = label.strip().lower()
        name = codecs.lookup(_LABELS.get(label, label)).name
    except (LookupError, ValueError):  # ValueError: a label with a NUL
        return None
    return _BROWSER_CODECS.get(name)
