"""The reader's frame as one script: extension/reader/bundle.js, written from reader/reader.js and every module
it imports, so that the frame fetches, compiles and links one file on the click's path instead of a graph of
ten (docs/extension.md, "Instant from the first click").

Each module becomes a function run once, in the order the browser would evaluate the modules (an import's
module before its importer, in source order), returning its exports; an importer reads what it imports from
that object. The forms the extension's modules use are the only ones taken: `import "x.js";`,
`import { a, b } from "x.js";`, `export function|async function|class|const|let`; any other `import` or
`export` stops the build with the line, so a new form cannot slip through unbundled.
tests/test_extension_files.py fails while the file differs from what this module writes now.

    python -m scripts.bundle           # write extension/reader/bundle.js
    python -m scripts.bundle --check   # exit 1 if it is out of date
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from native_host.contracts import write_generated

EXTENSION = Path(__file__).resolve().parent.parent / "extension"
ENTRY = EXTENSION / "reader" / "reader.js"
PATH = EXTENSION / "reader" / "bundle.js"
COMMAND = "python -m scripts.bundle"

IMPORT = re.compile(r'^import\s+(?:\{(?P<names>[^}]*)\}\s+from\s+)?"(?P<target>\.{1,2}/[^"]+)";[^\n]*\n', re.M)
EXPORT = re.compile(r"^export\s+(?=(?:async\s+)?function\b|class\b|const\b|let\b)", re.M)
DECLARED = re.compile(r"^export\s+(?:async\s+)?(?:function\*?|class)\s+(?P<name>[A-Za-z_$][\w$]*)", re.M)
BOUND = re.compile(r"^export\s+(?:const|let)\s+(?P<pattern>\{[^}]*\}|[A-Za-z_$][\w$]*)", re.M)
ANY = re.compile(r"^(?:import|export)\b.*$", re.M)
NAME = re.compile(r"[A-Za-z_$][\w$]*")


def exports(text: str, where: str) -> list[str]:
    """The names `text` exports, in order."""
    names = [m["name"] for m in DECLARED.finditer(text)]
    for m in BOUND.finditer(text):
        pattern = m["pattern"]
        if not pattern.startswith("{"):
            names.append(pattern)
            continue
        for item in pattern.strip("{}").split(","):
            local = item.split(":")[-1].strip()
            if not NAME.fullmatch(local):
                raise ValueError(f"{where}: cannot bundle the export pattern {pattern!r}")
            names.append(local)
    return names


def modules(entry: Path) -> list[Path]:
    """`entry` and every module it imports, each once, in evaluation order (an import before its importer)."""
    order: list[Path] = []
    seen: set[Path] = set()

    def visit(path: Path) -> None:
        path = path.resolve()
        if path in seen:
            return
        seen.add(path)
        for m in IMPORT.finditer(path.read_text(encoding="utf-8")):
            visit(path.parent / m["target"])
        order.append(path)

    visit(entry)
    return order


def render(entry: Path | None = None) -> str:
    """The text of extension/reader/bundle.js (`entry`: another module, two folders down from its root)."""
    entry = (entry or ENTRY).resolve()
    root = entry.parent.parent
    order = modules(entry)
    names = {path: f"module{i}" for i, path in enumerate(order)}
    imported = {
        (path.parent / m["target"]).resolve()
        for path in order
        for m in IMPORT.finditer(path.read_text(encoding="utf-8"))
        if m["names"]
    }
    out = [
        f"// Written by `{COMMAND}` from reader/reader.js and the modules it imports: do not edit.",
        "// Each module runs once, in the order the browser would run them as modules, in a function of its own.",
    ]
    for path in order:
        where = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        body = EXPORT.sub("", IMPORT.sub("", text))
        stray = ANY.search(body)
        if stray:
            raise ValueError(f"{where}: cannot bundle {stray.group(0)!r}")
        heads = [
            f"const {{ {' '.join(m['names'].split())} }} = {names[(path.parent / m['target']).resolve()]};\n"
            for m in IMPORT.finditer(text)
            if m["names"]
        ]
        given = exports(text, where)
        tail = f"return {{ {', '.join(given)} }};\n" if path in imported else ""
        head = f"const {names[path]} = " if path in imported else ""
        out.append(f"\n// ---- {where}\n{head}(() => {{\n{''.join(heads)}{body.rstrip()}\n{tail}}})();")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    return write_generated(PATH, render(), COMMAND, sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
