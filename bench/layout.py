"""The code's layout in figures: modules and lines of native_host/, imports that run up, cycles.

    python3 bench/layout.py                     # this checkout
    cd OLD && python3 /path/to/bench/layout.py  # another checkout (an old commit's `git archive`), from its root

Imports that run up are counted over the import graph (grimp, as import-linter reads it) against one fixed
order of native_host's rooms, from the top: the command (`cli`, `__main__`), the corpus jobs and the browser
link (which must not import each other either), the renderings, the pipeline, the shared modules; across the
top level, `bench` over `export` over `harness` over `native_host`, and nothing but `__main__` importing the command. The
order is fixed here, not read from pyproject.toml, so a checkout whose contracts were looser counts the same
way. A cycle is a set of sibling modules (or subpackages) of one package that import each other round, by the
same graph: each strongly connected set of more than one counts once.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

# `contracts` is a command too (`python -m native_host.contracts` writes extension/limits.js); the package's
# __init__ re-exports the pipeline's entry points and is left out, as import-linter's layers leave it.
RANK = {"__main__": 5, "cli": 5, "contracts": 5, "corpus": 4, "browser": 4, "render": 3, "pipeline": 2}  # else 1
TOP_RANK = {"bench": 4, "export": 3, "harness": 2, "native_host": 1}
PACKAGES = ("native_host", "harness", "export", "bench")


def _rank(module: str) -> tuple[int, int, str]:
    parts = module.split(".")
    room = parts[1] if parts[0] == "native_host" and len(parts) > 1 else ""
    return TOP_RANK[parts[0]], RANK.get(room, 1), room


def upward(graph) -> list[tuple[str, str]]:
    """The direct imports that run against the order, one (importer, imported) each."""
    found = []
    for importer in sorted(graph.modules):
        if importer.split(".")[0] not in PACKAGES or importer == "native_host":
            continue
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            if imported.split(".")[0] not in PACKAGES:
                continue
            (top_a, rank_a, room_a), (top_b, rank_b, room_b) = _rank(importer), _rank(imported)
            command = room_b in ("cli", "__main__") and importer.split(".")[0] != "native_host"
            sideways = rank_a == rank_b == RANK["corpus"] and room_a != room_b
            if top_a < top_b or command or (top_a == top_b == 1 and (rank_a < rank_b or sideways)):
                found.append((importer, imported))
    return found


def cycles(graph) -> list[list[str]]:
    """Each set of sibling modules of one package that import each other round."""
    children = defaultdict(set)
    for module in graph.modules:
        parts = module.split(".")
        if parts[0] in PACKAGES:
            for i in range(1, len(parts)):
                children[".".join(parts[:i])].add(".".join(parts[: i + 1]))
    found = []
    for _, siblings in sorted(children.items()):
        edges = defaultdict(set)
        for a in siblings:
            for b in siblings:
                if a != b and graph.chain_exists(importer=a, imported=b, as_packages=True):
                    edges[a].add(b)
        found += [sorted(c) for c in _strongly_connected(sorted(siblings), edges) if len(c) > 1]
    return found


def _strongly_connected(nodes: list[str], edges: dict[str, set[str]]) -> list[list[str]]:
    reach = {n: _reachable(n, edges) for n in nodes}
    seen: set[str] = set()
    out = []
    for n in nodes:
        if n not in seen:
            group = [m for m in nodes if m in reach[n] and n in reach[m]] or [n]
            seen.update(group)
            out.append(group)
    return out


def _reachable(start: str, edges: dict[str, set[str]]) -> set[str]:
    todo, seen = [start], {start}
    while todo:
        for m in edges[todo.pop()]:
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return seen


def main() -> int:
    root = Path.cwd()
    sys.path.insert(0, str(root))
    import grimp

    graph = grimp.build_graph(*PACKAGES, include_external_packages=False, exclude_type_checking_imports=False)
    files = [*root.joinpath("native_host").rglob("*.py"), *root.joinpath("native_host").rglob("*.pyx")]
    files = [f for f in files if "build" not in f.relative_to(root).parts]
    lines = sum(len(f.read_text(encoding="utf-8").splitlines()) for f in files)
    up, rounds = upward(graph), cycles(graph)
    print(f"native_host: {len(files)} modules (.py and .pyx), {lines:,} lines")
    print(f"imports that run up: {len(up)}")
    for a, b in up:
        print(f"  {a} -> {b}")
    print(f"cycles: {len(rounds)}")
    for group in rounds:
        print("  " + " <-> ".join(group))
    return 0


if __name__ == "__main__":
    sys.exit(main())
