"""A saved page's images: `pith extract --save DIR -f markdown --images` writes the images a page shows from its
own folder, and those it holds inline as `data:` URLs, into DIR/images/ and links them there. Nothing is read
from the network: a saved page stays a private, repeatable input (docs/extension.md, Save)."""

from __future__ import annotations

import base64
import binascii
import html as htmlmod
import re
from pathlib import Path
from urllib.parse import unquote, unquote_to_bytes

from ..errors import InputError
from ..files import write_new
from ..limits import MAX_IMAGE_BYTES, MAX_SAVED_IMAGES

# An <img>'s `src` holding a data: URL, quoted as HTML writes attributes. The URL is swapped for an address of
# the reserved .invalid domain (never resolved) before extraction, so that it passes the article's address
# allowlist and survives the snapshot's attribute limit; `local_images` then writes its bytes.
_DATA_SRC = re.compile(rb"""(<img\b[^>]*?\ssrc\s*=\s*)(["'])\s*(data:[^"']*)\2""", re.I)
_DATA_URL = re.compile(r"data:([^,]*),(.*)", re.S | re.I)
INLINE_PREFIX = "https://pith.invalid/data-image/"


def data_url_bytes(url: str) -> bytes | None:
    """The bytes a `data:` URL holds, base64 or percent-encoded; None when it does not read or is over
    MAX_IMAGE_BYTES."""
    found = _DATA_URL.fullmatch(url.strip())
    if not found:
        return None
    body = found.group(2)
    if len(body) > MAX_IMAGE_BYTES * 2:  # no decoding of what cannot come out under the limit
        return None
    if found.group(1).lower().rstrip().endswith(";base64"):
        try:
            data = base64.b64decode(re.sub(r"\s+", "", unquote(body)), validate=True)
        except (binascii.Error, ValueError):
            return None
    else:
        data = unquote_to_bytes(body)
    return data if len(data) <= MAX_IMAGE_BYTES else None


def inline_images(html: bytes) -> tuple[bytes, dict[str, bytes]]:
    """The page (its bytes: a data: URL is ASCII in any encoding a page is read in but UTF-16) with each `<img src="data:...">` whose bytes are an image (document.py's image_type) pointing
    at a placeholder address instead, and those addresses' bytes. Other data: URLs stay as written."""
    from ..render.document import image_type

    found: dict[str, bytes] = {}

    def swap(match: re.Match[bytes]) -> bytes:
        data = data_url_bytes(htmlmod.unescape(match.group(3).decode("latin-1")))
        if data is None or image_type(data) is None or len(found) >= MAX_SAVED_IMAGES:
            return match.group(0)
        address = f"{INLINE_PREFIX}{len(found)}"
        found[address] = data
        return match.group(1) + match.group(2) + address.encode("ascii") + match.group(2)

    return _DATA_SRC.sub(swap, html), found


def local_images(markdown: str, page: Path, directory: Path, inline: dict[str, bytes] | None = None) -> tuple[str, int]:
    """The Markdown with its local images written to `directory`/images/ and linked there, and how many were.
    A local image is a relative address naming a file under the page's own folder (after links are followed),
    or one of `inline`'s placeholders (`inline_images`): nothing is fetched from the network, and a page cannot
    make the copy read a file outside its folder. Only images by their first bytes (render/document.py's
    image_type) and at most MAX_IMAGE_BYTES each; the others stay as the page wrote them."""
    # Imported at need, so that `pith --help` stays quick.
    from ..render.document import image_links, image_name, image_type, with_local_images

    base = page.resolve().parent
    images = directory / "images"
    inline = inline or {}
    local: dict[str, str] = {}
    others = 0  # images not inline, at most MAX_SAVED_IMAGES (inline ones are counted as they are found)
    for link in image_links(markdown):
        if link in inline:
            data = inline[link]
        elif (others := others + 1) > MAX_SAVED_IMAGES or re.match(
            r"[A-Za-z][A-Za-z0-9+.-]*:|[/\\]", link
        ):  # a scheme (http:, file:) or a rooted path
            continue
        else:
            path = (base / unquote(link.split("#")[0].split("?")[0])).resolve()
            if not path.is_relative_to(base) or not path.is_file() or path.stat().st_size > MAX_IMAGE_BYTES:
                continue
            data = path.read_bytes()
        ext = image_type(data)
        if ext is None:
            continue
        if images.is_symlink() or (images.exists() and not images.is_dir()):
            raise InputError(f"{images} is not a directory; move it away to save images beside the Markdown")
        images.mkdir(exist_ok=True)
        name = image_name(data, ext)
        target = directory / name
        if target.is_symlink() or not target.is_file() or target.read_bytes() != data:  # the same bytes: kept
            name = f"images/{write_new(images, target.name, data).name}"
        local[link] = name
    return with_local_images(markdown, local), len(local)
