"""Re-take the reader-by-page-type screenshots: python docs/screenshots/take_shapes.py [--browser firefox]

One reader view per form (article, forum, listing, product, documentation) on the test pages of
tests/pages/extension/reader/, in a 900 x 900 window, written as shape-FORM-BROWSER.png beside this script
(docs/extension.md, Reader by page type). The host runs the shipped model (or --model-dir), whose page type
chooses the form, as for a user; each shot checks that the form is the one named. As for take.py: from a
checkout other than the installed pith, run `PYTHONPATH=<checkout> python docs/screenshots/take_shapes.py`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))  # run as a script from anywhere: the repository's own packages

from harness.browsers import KINDS, ReaderView, extension_browser  # noqa: E402

PAGES = ROOT / "tests" / "pages" / "extension"
SHOTS = {  # form -> the page that shows it
    "article": "reader/news.html",
    "forum": "reader/forum.html",
    "listing": "reader/listing.html",
    "product": "reader/product.html",
    "documentation": "reader/docs.html",
}
WIDTH, HEIGHT = 900, 900


def shot(b, form: str, name: str, path: Path) -> None:
    page = b.open_url(b.base_url + name)
    page.resize(WIDTH, HEIGHT)
    reply = b.run("reader", page)
    assert reply["ok"], reply
    reader = ReaderView(b, page).wait_ready()
    shown = reader.evaluate("(root) => root.getElementById('article').dataset.shape")
    assert shown == form, f"{name} read as {shown}, not {form}"
    reader.click("[data-setting=readerTheme][data-value=light]")
    reader.settle_images()
    reader.screenshot(path)
    reader.click("[data-setting=readerTheme][data-value=auto]")
    page.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--browser", choices=KINDS, default="chromium")
    parser.add_argument("--model-dir", default=None, help="the model the host serves (default: the shipped one)")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as tmp,
        extension_browser(args.browser, Path(tmp), model_dir=args.model_dir, pages=PAGES) as b,
    ):
        for form, name in SHOTS.items():
            shot(b, form, name, HERE / f"shape-{form}-{args.browser}.png")
    print("wrote", ", ".join(f"shape-{form}-{args.browser}.png" for form in SHOTS))


if __name__ == "__main__":
    main()
