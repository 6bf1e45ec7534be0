"""Imports run one way: `lint-imports` keeps the contracts in pyproject.toml ([tool.importlinter];
docs/architecture.md says what they mean), and breaks them when a module imports upwards."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("native_host", "harness", "export", "bench")


def lint_imports(root: Path, *args: str) -> subprocess.CompletedProcess:
    """`lint-imports` run in `root`, with the contracts of its pyproject.toml."""
    command = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    assert command, "lint-imports is missing: pip install -e '.[test]' installs it"
    return subprocess.run([command, "--no-cache", *args], cwd=root, capture_output=True, text=True, timeout=300)


def test_the_repository_keeps_every_import_contract():
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_an_upward_import_breaks_the_rooms_contract(tmp_path):
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("*.so", "assets"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    corpus = tmp_path / "native_host" / "corpus" / "pages.py"
    corpus.write_text(corpus.read_text() + "\nfrom ..cli.main import main  # a corpus job reaching up\n")
    done = lint_imports(tmp_path, "--contract", "rooms")
    assert done.returncode != 0
    assert "native_host.corpus is not allowed to import native_host.cli" in done.stdout
    assert "native_host.corpus.pages -> native_host.cli.main" in done.stdout
