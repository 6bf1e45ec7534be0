"""Re-take the extension screenshots in this folder: python docs/screenshots/take.py [--browser firefox]

Headless Chromium (or Firefox) with the extension and the installed host, on the pages the browser tests
use: the reader view of a news page (light and dark), of a documentation page with code, of a right-to-left
page and of a page with a table (tests/pages/extension/reader/); the fixture article in highlight mode; and
the popup's message when the host is not installed. The host runs the shipped model (or --model-dir). The
browser starts the host with this script's environment: from a checkout other than the installed pith, run
`PYTHONPATH=<checkout> python docs/screenshots/take.py`, or the host is the installed code.
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
from native_host.render.document import DEFAULT_TEMPLATE  # noqa: E402

PAGES = ROOT / "tests" / "pages" / "extension"
READER_SHOTS = [  # (page, file, theme)
    ("reader/news.html", "reader.png", "light"),
    ("reader/news.html", "reader-dark.png", "dark"),
    ("reader/docs.html", "reader-code.png", "light"),
    ("reader/rtl.html", "reader-rtl.png", "sepia"),
    ("reader/table.html", "reader-table.png", "light"),
]


def reader_shot(b, name: str, path: Path, theme: str) -> None:
    page = b.open_url(b.base_url + name)  # its plain address, shown in the header
    page.resize(1000, 1100)
    reply = b.run("reader", page)
    assert reply["ok"], reply
    reader = ReaderView(b, page).wait_ready()
    reader.click(f"[data-setting=readerTheme][data-value={theme}]")
    reader.settle_images()
    reader.screenshot(path)
    reader.click("[data-setting=readerTheme][data-value=auto]")
    page.close()


# The options page as a user might leave it: a folder in Downloads and a template of their own.
OPTIONS_TEMPLATE = {
    "name": "{{published|date:YYYY-MM-DD}} {{title}}",
    "properties": {
        **{k: v for k, v in DEFAULT_TEMPLATE["properties"].items() if k != "description"},
        "tags": ["clippings", "{{site|slug}}"],
        "reading time": "{{reading_time}} min",
    },
}


def options_shot(b, path: Path) -> None:
    options = b.open_extension_page("options/options.html")
    options.wait_for("() => document.documentElement.dataset.ready === 'true'")
    options.resize(900, 1240)
    options.evaluate(
        """(t) => { t = globalThis.PITH_TEMPLATE.formatTemplate(t);
      for (const [id, v] of [['template', t], ['folder', 'Clippings/Pith']]) {
        const f = document.getElementById(id); f.value = v; f.dispatchEvent(new Event('input')); } }""",
        OPTIONS_TEMPLATE,
    )
    options.screenshot(path)
    options.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--browser", choices=KINDS, default="chromium")
    parser.add_argument("--model-dir", default=None, help="the model the host serves (default: the shipped one)")
    parser.add_argument("--only", choices=("all", "options"), default="all", help="options: the options page alone")
    args = parser.parse_args()
    if args.only == "options":
        with (
            tempfile.TemporaryDirectory() as tmp,
            extension_browser(args.browser, Path(tmp), host="missing", pages=PAGES) as b,
        ):
            options_shot(b, HERE / "options.png")
        print("wrote options.png")
        return
    with (
        tempfile.TemporaryDirectory() as tmp,
        extension_browser(args.browser, Path(tmp), model_dir=args.model_dir, pages=PAGES) as b,
    ):
        for name, file, theme in READER_SHOTS:
            reader_shot(b, name, HERE / file, theme)
        page = b.open("article.html")
        page.resize(1100, 900)
        assert b.run("highlight", page)["ok"]
        page.screenshot(HERE / "highlight.png")
    with (
        tempfile.TemporaryDirectory() as tmp,
        extension_browser(args.browser, Path(tmp), host="missing", pages=PAGES) as b,
    ):
        page = b.open("article.html")
        popup = b.open_extension_page(f"popup/popup.html?tab={b.tab_id(page)}")
        popup.resize(340, 330)
        popup.click("[data-action=reader]")
        popup.wait_for("() => document.querySelector('#status.error')")
        popup.screenshot(HERE / "popup-host-missing.png")
        options_shot(b, HERE / "options.png")
    print("wrote", ", ".join(p.name for p in sorted(HERE.glob("*.png"))))


if __name__ == "__main__":
    main()
