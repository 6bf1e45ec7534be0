"""A saved page's local images: `pith extract --save DIR -f markdown` copies the images a page shows from its
own folder into DIR/images/ and links them there."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

from ..errors import InputError
from ..files import write_new
from ..limits import MAX_IMAGE_BYTES, MAX_SAVED_IMAGES


def local_images(markdown: str, page: Path, directory: Path) -> tuple[str, int]:
    """The Markdown with its local images copied to `directory`/images/ and linked there, and how many were.
    A local image is a relative address naming a file under the page's own folder (after links are followed):
    nothing is fetched from the network, and a page cannot make the copy read a file outside its folder.
    Only images by their first bytes (render/document.py's image_type) and at most MAX_IMAGE_BYTES each;
    the others stay as the page wrote them."""
    # Imported at need, so that `pith --help` stays quick.
    from ..render.document import image_links, image_name, image_type, with_local_images

    base = page.resolve().parent
    images = directory / "images"
    local: dict[str, str] = {}
    for link in image_links(markdown)[:MAX_SAVED_IMAGES]:
        if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:|[/\\]", link):  # a scheme (http:, data:, file:) or a rooted path
            continue
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
