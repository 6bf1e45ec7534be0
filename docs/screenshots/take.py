"""Re-take the extension screenshots in this folder: python docs/screenshots/take.py

The fixture article (tests/pages/extension/article.html) in headless Chromium with the extension and the
installed host: the reader view (light and dark) and the page in highlight mode; and the popup's message
when the host is not installed.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "tests"))

from browser import EXTENSION_ORIGIN, extension_browser  # noqa: E402
from host_support import model_dir_for_tests  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, extension_browser(Path(tmp), model_dir=model_dir_for_tests(Path(tmp))) as b:
        page = b.open("article.html")
        page.set_viewport_size({"width": 1100, "height": 900})
        reply = b.run("highlight", page)
        assert reply["ok"], reply
        page.wait_for_timeout(300)
        page.screenshot(path=str(HERE / "highlight.png"))
        with b.context.expect_page() as opened:
            assert b.run("reader", page)["ok"]
        reader = opened.value
        reader.set_viewport_size({"width": 900, "height": 1000})
        reader.wait_for_selector("html[data-ready='true']")
        reader.screenshot(path=str(HERE / "reader.png"))
        reader.click("#theme")  # auto -> light
        reader.click("#theme")  # light -> dark
        reader.screenshot(path=str(HERE / "reader-dark.png"))
        reader.click("#theme")  # back to auto
    with tempfile.TemporaryDirectory() as tmp, extension_browser(Path(tmp), host="missing") as b:
        page = b.open("article.html")
        popup = b.context.new_page()
        popup.set_viewport_size({"width": 340, "height": 330})
        popup.goto(f"{EXTENSION_ORIGIN}/popup/popup.html?tab={b.tab_id(page.url)}")
        popup.click("text=Reader view")
        popup.wait_for_selector("#status.error")
        popup.screenshot(path=str(HERE / "popup-host-missing.png"))
    print("wrote", ", ".join(p.name for p in sorted(HERE.glob("*.png"))))


if __name__ == "__main__":
    main()
