"""The linters find nothing: ruff (lint, and the formatter's check) over the Python, ESLint over extension/.

Run by hand from the repository root: `ruff check . && ruff format --check . && npx eslint .`
(configured in pyproject.toml's [tool.ruff] and eslint.config.js; `npm install` brings ESLint).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ESLINT = ROOT / "node_modules" / ".bin" / "eslint"


def _run(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=300)


def _ruff(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return _run(sys.executable, "-m", "ruff", *args, "--no-cache", stdin=stdin)


def _eslint(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    assert ESLINT.is_file(), "ESLint is missing: run `npm install` in the repository root (package.json)"
    return _run(str(ESLINT), *args, stdin=stdin)


def test_ruff_check_is_clean():
    result = _ruff("check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_leaves_every_file_as_it_is():
    result = _ruff("format", "--check", ".")
    assert result.returncode == 0, "run `ruff format .`:\n" + result.stdout + result.stderr


def test_eslint_is_clean():
    result = _eslint(".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_linters_read_the_repository_configuration():
    """A planted fault is found by each, so a clean run above means the configured rules ran."""
    ruff = _ruff("check", "--stdin-filename", "native_host/planted.py", "-", stdin="import os\n")
    assert ruff.returncode == 1 and "F401" in ruff.stdout
    long_line = "x = " + " + ".join(["1"] * 40) + "\n"  # 159 columns: over the 120 the formatter keeps
    fmt = _ruff("format", "--check", "--stdin-filename", "native_host/planted.py", "-", stdin=long_line)
    assert fmt.returncode == 1
    assert (
        _ruff(
            "format",
            "--check",
            "--stdin-filename",
            "native_host/planted.py",
            "-",
            stdin="x = " + " + ".join(["1"] * 28) + "\n",
        ).returncode
        == 0
    )  # 115 columns: kept
    planted = "try { f(); } catch (error) { g(); }\n"
    eslint = _eslint("--stdin", "--stdin-filename", "extension/content/planted.js", stdin=planted)
    assert eslint.returncode == 1 and "no-unused-vars" in eslint.stdout
    module = _eslint(
        "--stdin",
        "--stdin-filename",
        "extension/background/planted.js",
        stdin='import { f } from "./host.js";\nf(browser, chrome);\n',
    )
    assert module.returncode == 0, module.stdout  # the background is parsed as a module, with the extension's globals
