"""The extension's developer option "Record this page" in headless Chromium and Firefox: the .msgpack download holds the
live snapshot, and `pith extract --snapshot` replays it to the answer the extension got from the host."""

from __future__ import annotations

import contextlib
import io
import json
import time

import msgpack
import pytest
from browser import KINDS, PAGES, extension_browser, require
from host_support import standin_model

from export import recordings
from native_host.cli.main import main as pith_main


def _downloaded(folder, suffix: str, timeout_s: float = 20):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        done = [p for p in folder.iterdir() if p.name.endswith(suffix)]
        if done:
            return done[0]
        time.sleep(0.1)
    raise AssertionError(f"no {suffix} download in {folder}: {list(folder.iterdir())}")


@pytest.mark.parametrize("kind", KINDS)
def test_recorded_page_replays_to_the_extensions_answer(tmp_path, kind):
    require(kind)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    model = standin_model(tmp_path)
    with extension_browser(kind, tmp_path / "browser", model_dir=model, downloads=downloads, pages=PAGES) as b:
        page = b.open("article.html")
        url = page.url
        tab = b.tab_id(page)
        saved = b.send({"type": "pith.record", "tabId": tab})
        assert saved["ok"], saved
        assert saved["filename"].startswith("pith-snapshot Why the harbour lighthouse")
        assert saved["filename"].endswith(".msgpack") and "/" not in saved["filename"]
        answer = b.run("highlight", page)
        assert answer["ok"], answer
        tricky = {
            "s": "é漢🙂" * 40,
            "n": [0, 127, 128, 255, 65535, 65536, 2**32 - 1, 2**32, -1, -32, -33, -(2**31), 1.5, -0.25, 1e300],
            "b": [True, False, None],
            "long": list(range(70_000)),
            "map": {str(i): i for i in range(20)},
        }
        encoded = b.call("(v) => import('/background/msgpack.js').then((m) => Array.from(m.encode(v)))", tricky)
        assert msgpack.unpackb(bytes(encoded), strict_map_key=False) == tricky
        # the popup shows the button only once the developer option is on
        popup = b.open_extension_page(f"popup/popup.html?tab={tab}")
        popup.wait_for("() => document.documentElement.dataset.ready === 'true'")
        shown = "() => document.querySelector('#record').getClientRects().length > 0"
        assert popup.evaluate(shown) is False
        popup.click("summary")
        popup.click("#developer")
        assert popup.wait_for(shown)
    path = _downloaded(downloads, ".msgpack")
    record = recordings.read_one(path)
    assert record["snapshot"]["source"] == "live" and record["id"] == url
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        assert (
            pith_main(["extract", "--snapshot", str(path), "-f", "json", *(["--model-dir", model] if model else [])])
            == 0
        )
    replayed = json.loads(said.getvalue())
    assert replayed["node_ids"] == answer["node_ids"]
    assert replayed["text"] == answer["article"]["text"] and replayed["title"] == answer["article"]["title"]
