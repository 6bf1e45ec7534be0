"""How the local engine's workers start (forked where that is safe, from a forkserver elsewhere), and that
however they start, a job's rows are those of one process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PAGES = Path(__file__).resolve().parent / "pages"
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers are forked on Linux only")


def _start_method(preamble: str) -> str:
    """The start method a fresh interpreter picks after running `preamble`."""
    code = (
        f"{preamble}\nfrom native_host.corpus.local import worker_context\nprint(worker_context().get_start_method())"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@linux_only
def test_the_command_line_forks_its_workers():
    assert _start_method("import native_host.cli.main, native_host.cli.extract") == "fork"


@linux_only
def test_a_process_that_loaded_onnxruntime_starts_them_from_a_forkserver():
    assert _start_method("import onnxruntime") == "forkserver"


@linux_only
def test_a_process_with_another_thread_starts_them_from_a_forkserver():
    started = "import threading\nthreading.Thread(target=threading.Event().wait, daemon=True).start()"
    assert _start_method(started) == "forkserver"


def test_two_workers_give_the_rows_of_one_process(tmp_path):
    pages = tmp_path / "pages"
    pages.mkdir()
    for k, page in enumerate(sorted(PAGES.rglob("*.html"))):
        (pages / f"{k:03d}-{page.name}").write_bytes(page.read_bytes())
    rows = {}
    for workers in ("1", "2"):
        out = tmp_path / f"rows-{workers}.jsonl"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "native_host",
                "extract",
                str(pages),
                "--out",
                str(out),
                "-j",
                workers,
                "--fields",
                "+html,+markdown",
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        rows[workers] = out.read_text("utf-8")
    assert len(rows["1"].splitlines()) == len(list(pages.iterdir())) > 8
    assert rows["2"] == rows["1"]
