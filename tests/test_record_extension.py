"""The extension's developer option "Record this page" in headless Chromium: the .msgpack download holds the
live snapshot, and `pith extract --snapshot` replays it to the answer the extension got from the host."""

from __future__ import annotations

import contextlib
import io
import json
import time

import msgpack
import pytest

from browser import extension_browser
from host_support import model_dir_for_tests
from export import corpus
from native_host.cli.main import main as pith_main

pytestmark = pytest.mark.browser


def _downloaded(folder, suffix: str, timeout_s: float = 20):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        done = [p for p in folder.iterdir() if p.name.endswith(suffix)]
        if done:
            return done[0]
        time.sleep(0.1)
    raise AssertionError(f"no {suffix} download in {folder}: {list(folder.iterdir())}")


def test_recorded_page_replays_to_the_extensions_answer(tmp_path):
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    model = model_dir_for_tests(tmp_path)
    with extension_browser(tmp_path, model_dir=model, downloads=downloads) as b:
        page = b.open("article.html")
        tab = b.tab_id(page.url)
        saved = b.control.evaluate("(tabId) => chrome.runtime.sendMessage({type: 'pith.record', tabId})", tab)
        assert saved["ok"], saved
        assert saved["filename"].startswith("pith-snapshot Why the harbour lighthouse")
        assert saved["filename"].endswith(".msgpack") and "/" not in saved["filename"]
        answer = b.run("highlight", page)
        assert answer["ok"], answer
        tricky = {"s": "é漢🙂" * 40, "n": [0, 127, 128, 255, 65535, 65536, 2**32 - 1, 2**32, -1, -32, -33,
                                           -2**31, 1.5, -0.25, 1e300], "b": [True, False, None],
                  "long": list(range(70_000)), "map": {str(i): i for i in range(20)}}
        encoded = b.control.evaluate(
            "(v) => import('/background/msgpack.js').then((m) => Array.from(m.encode(v)))", tricky)
        assert msgpack.unpackb(bytes(encoded), strict_map_key=False) == tricky
        # the popup shows the button only once the developer option is on
        popup = b.context.new_page()
        popup.goto(f"{b.control.url}?tab={tab}")
        assert popup.is_hidden("#record")
        popup.click("summary")
        popup.check("#developer")
        assert popup.is_visible("#record")
    path = _downloaded(downloads, ".msgpack")
    record = corpus.read_one(path)
    assert record["snapshot"]["source"] == "live" and record["id"] == page.url
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        assert pith_main(["extract", "--snapshot", str(path), "-f", "json",
                          *(["--model-dir", model] if model else [])]) == 0
    replayed = json.loads(said.getvalue())
    assert replayed["node_ids"] == answer["node_ids"]
    assert replayed["text"] == answer["article"]["text"] and replayed["title"] == answer["article"]["title"]
