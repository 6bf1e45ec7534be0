"""No terminal control from a page reaches stdout: `pith extract` in every format, and `pith snapshot`, print
a page full of ESC, CSI, OSC (52 writes the clipboard), BEL, BS, CR, DEL and C1 controls without any."""

import json
import re
from pathlib import Path

import pytest

from native_host.cli.main import main as cli_main
from native_host.render.formats import FORMATS

PAGE = Path(__file__).parent / "pages" / "hostile" / "terminal" / "source.html"
CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # every C0 but tab and newline, DEL, every C1


@pytest.mark.parametrize("fmt", FORMATS)
def test_extract_prints_no_terminal_control(fmt, capsys):
    assert cli_main(["extract", str(PAGE), "-f", fmt, "-u", "https://e.example/terminal"]) == 0
    out = capsys.readouterr().out
    assert not CONTROLS.search(out), sorted({hex(ord(c)) for c in CONTROLS.findall(out)})
    # The text around the controls is there: the page's paragraphs were extracted, not dropped.
    assert "and the clipboard:" in out
    if fmt == "json":  # data keeps what its format can carry, escaped
        assert json.loads(out)["title"].startswith("Terminal")


def test_snapshot_prints_no_terminal_control(capsys):
    assert cli_main(["snapshot", str(PAGE)]) == 0
    out = capsys.readouterr().out
    assert not CONTROLS.search(out)
    texts = [n.get("text", "") for n in json.loads(out)["nodes"]]
    assert any("\x1b]52;c;" in t for t in texts)  # the snapshot is data: the page's text as it is, escaped
