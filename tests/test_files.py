"""Files named or filled by a page: whatever the title, the file lands where the user chose,
under a safe name, and nothing outside is written or overwritten. The Python rule (native_host/files.py)
and the extension's (extension/background/save.js, run here under Node) are checked on the same titles."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest
from filename_cases import FILENAME_CASES
from host_support import article_html, standin_model
from hypothesis import given, settings
from hypothesis import strategies as st

from native_host import limits
from native_host.cli.main import main as pith
from native_host.errors import InputError
from native_host.files import WINDOWS_RESERVED, replaced_atomically, safe_filename, write_new

SAVE_JS = Path(__file__).resolve().parents[1] / "extension" / "background" / "save.js"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="needs node (Debian's nodejs: scripts/test.sh installs it)")


@pytest.mark.parametrize("title, name", FILENAME_CASES)
def test_titles_become_safe_names(title, name):
    assert safe_filename(title, "md") == name


def _js_names(titles: list[str | None]) -> list[str]:
    script = (
        f"const m = await import({json.dumps(SAVE_JS.as_uri())});"
        "const titles = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(titles.map((t) => m.safeFilename(t, 'md'))));"
    )
    script = script.replace("require('fs')", "(await import('node:fs'))")
    done = subprocess.run(
        [NODE, "--experimental-default-type=module", "--input-type=module", "-e", script],
        input=json.dumps(titles),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@needs_node
def test_the_extension_gives_the_same_names():
    titles = [t for t, _ in FILENAME_CASES]
    assert _js_names(titles) == [name for _, name in FILENAME_CASES]


# Characters both Unicode databases agree on (Python's may be older than Node's): assigned, not surrogates.
_titles = st.lists(
    st.text(st.characters(blacklist_categories=("Cs", "Cn", "Co")), max_size=400), min_size=40, max_size=40
)


def _is_safe(name: str) -> bool:
    stem = name[: -len(".md")]
    return (
        name.endswith(".md")
        and stem
        and not stem.startswith((".", " "))
        and not stem.endswith((".", " "))
        and "/" not in stem
        and "\\" not in stem
        and len(stem) <= limits.MAX_FILENAME_CHARS
        and len(stem.encode()) <= limits.MAX_FILENAME_BYTES
        and not WINDOWS_RESERVED.match(stem)
        and not any(c in '<>:"/\\|?*' or (c.isspace() and c != " ") for c in stem)
        and "  " not in stem
        and all(unicodedata.category(c)[0] != "C" or c in "\u200c\u200d" for c in stem)
        and safe_filename(stem, "md") == name
    )


@needs_node
@settings(max_examples=int(os.environ.get("PITH_FUZZ_EXAMPLES", "3")), deadline=None)
@given(_titles)
def test_any_title_gives_a_safe_name_and_the_same_one_in_both_languages(titles):
    names = [safe_filename(t, "md") for t in titles]
    assert all(_is_safe(n) for n in names), [n for n in names if not _is_safe(n)]
    assert _js_names(titles) == names


def test_write_new_never_overwrites_and_never_leaves_the_directory(tmp_path):
    (tmp_path / "a.md").write_text("mine")
    first = write_new(tmp_path, "a.md", b"one")
    second = write_new(tmp_path, "a.md", b"two")
    assert (first.name, second.name) == ("a (2).md", "a (3).md")
    assert (tmp_path / "a.md").read_text() == "mine"
    outside = tmp_path.parent / f"{tmp_path.name}-outside.md"
    outside.write_text("outside")
    (tmp_path / "link.md").symlink_to(outside)
    assert write_new(tmp_path, "link.md", b"x").name == "link (2).md"
    assert outside.read_text() == "outside"
    for bad in ("../x.md", "a/b.md", "..", "/etc/passwd"):
        with pytest.raises(InputError):
            write_new(tmp_path, bad, b"x")
    with pytest.raises(InputError, match="not a directory"):
        write_new(tmp_path / "missing", "a.md", b"x")


def test_an_atomic_replacement_follows_no_link_and_leaves_nothing_on_failure(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "result.jsonl"
    (tmp_path / "out" / "result.jsonl.part").symlink_to(outside)  # the name the CLI used to write through
    with replaced_atomically(target) as out:
        out.write("new\n")
    assert target.read_text() == "new\n" and outside.read_text() == "keep" and not target.is_symlink()
    mask = os.umask(0)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask  # as open() makes files, not private
    with pytest.raises(RuntimeError), replaced_atomically(target) as out:
        out.write("half")
        raise RuntimeError("worker died")
    assert target.read_text() == "new\n"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["result.jsonl", "result.jsonl.part"]
    for bad, message in ((tmp_path / "out", "is a directory"), (tmp_path / "nowhere" / "r.jsonl", "does not exist")):
        with pytest.raises(InputError, match=message), replaced_atomically(bad):
            pass


@pytest.fixture(scope="module")
def page_dir(tmp_path_factory):
    pages = tmp_path_factory.mktemp("pages")
    hostile = "../../.bashrc \u202e CON"
    (pages / "a.html").write_text(article_html(4, title=hostile))
    (pages / "b.html").write_text(article_html(3, title="x" * 300))
    return pages


@pytest.fixture(scope="module")
def model_args(tmp_path_factory):
    model_dir = standin_model(tmp_path_factory.mktemp("model"))
    return ["--model-dir", model_dir] if model_dir else []


def test_the_cli_saves_under_a_safe_title_name_in_the_chosen_directory_only(tmp_path, page_dir, model_args, capsys):
    chosen = tmp_path / "chosen"
    chosen.mkdir()
    for _ in range(2):
        assert pith(["extract", str(page_dir / "a.html"), "-f", "markdown", "--save", str(chosen), *model_args]) == 0
    saved = sorted(p.name for p in chosen.iterdir())
    assert len(saved) == 2 and all(n.endswith(".md") and "/" not in n and not n.startswith(".") for n in saved)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chosen"]
    assert "pith: saved" in capsys.readouterr().err
    assert pith(["extract", str(page_dir), "--save", str(chosen), *model_args]) == 1
    assert "--save takes one input" in capsys.readouterr().err


def test_the_cli_out_to_a_directory_writes_shards_and_replaces_a_file_whole(tmp_path, page_dir, model_args):
    pytest.importorskip("pyarrow", reason="shards are Parquet: the corpus extra")
    shards = tmp_path / "shards"
    shards.mkdir()
    assert pith(["extract", str(page_dir), "--out", str(shards), "-j", "1", *model_args]) == 0
    assert sorted(p.name for p in shards.iterdir()) == ["a.parquet", "b.parquet"]  # one per input, nothing else
    out = tmp_path / "r.jsonl"
    assert pith(["extract", str(page_dir), "--out", str(out), "-j", "1", *model_args]) == 0
    assert len(out.read_text().splitlines()) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.jsonl", "shards"]
