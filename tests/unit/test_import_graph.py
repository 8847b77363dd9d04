"""The import graph of ``rcgrpo/`` and ``analysis/``: no cycle, and ``analysis/`` in layers.

What counts as an edge ``a -> b`` (``a``, ``b`` modules of the two packages, read with
``ast``, never imported): every ``import b`` / ``from b import x`` / ``from b.x import y``
statement of ``a`` wherever it stands (module level, inside a function, under
``if __name__ == "__main__":``), resolving relative imports; ``from pkg import name`` is an
edge to ``pkg.name`` when that is a module, else to ``pkg``. Only statements under
``if TYPE_CHECKING:`` are left out (they never run). An import inside a function is counted
because deferring it hides a cycle rather than removing it: the two modules still need each
other. Importing ``a.b.c`` also runs ``a/__init__.py`` and ``a/b/__init__.py``; those implicit
parent edges are not counted (every submodule would otherwise be in a cycle with a package
``__init__`` that re-exports it).

Layers of ``analysis/``, lowest first (:mod:`analysis`); a module of one layer never reaches
a module of a higher layer, directly or through any other module:

1. run data (``analysis.runs``): discovery, loading, the completion test, per-run extractors;
2. the campaign (``analysis.campaign``): which runs exist, training, locating, committing;
3. diagnostics (``analysis.diagnostics``);
4. statistics and verdict rules;
5. figures (``analysis.figures``);
6. report renderers (``analysis.report``);
7. notebook helpers (``analysis.notebook``).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("rcgrpo", "analysis")

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("run data", ("analysis.runs",)),
    ("campaign", ("analysis.campaign",)),
    ("diagnostics", ("analysis.diagnostics",)),
    ("statistics and verdicts", ("analysis.stats", "analysis.paired_design", "analysis.verdicts")),
    ("figures", ("analysis.figures",)),
    ("report", ("analysis.report",)),
    ("notebook helpers", ("analysis.notebook",)),
)
"""(layer name, module names or package prefixes), lowest layer first."""


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules(root: Path = ROOT) -> dict[str, Path]:
    """Dotted name -> file, for every module of :data:`PACKAGES`."""
    return {module_name(p, root): p for pkg in PACKAGES for p in sorted((root / pkg).rglob("*.py"))}


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _targets(node: ast.Import | ast.ImportFrom, name: str, is_pkg: bool, known) -> set[str]:
    if isinstance(node, ast.Import):
        return {a.name for a in node.names if a.name in known}
    base = node.module or ""
    if node.level:
        package = name.split(".") if is_pkg else name.split(".")[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join([*package, base] if base else package)
    found = set()
    for alias in node.names:
        if f"{base}.{alias.name}" in known:
            found.add(f"{base}.{alias.name}")
        elif base in known:
            found.add(base)
    return found


def imports_of(name: str, path: Path, known) -> set[str]:
    """The modules of ``known`` that ``name`` imports (module docstring: what counts)."""
    edges: set[str] = set()
    stack: list[ast.AST] = [ast.parse(path.read_text(), str(path))]
    while stack:
        for child in ast.iter_child_nodes(stack.pop()):
            if _type_checking(child):
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                edges |= _targets(child, name, path.name == "__init__.py", known)
            stack.append(child)
    return edges - {name}


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    known = modules(root)
    return {name: imports_of(name, path, known) for name, path in known.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle ``[a, b, ..., a]`` of ``graph``, or None (iterative depth-first search)."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    for start in sorted(graph):
        if start in state:
            continue
        path, todo = [start], [iter(sorted(graph[start]))]
        state[start] = 1
        while todo:
            nxt = next(todo[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                todo.pop()
            elif state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                todo.append(iter(sorted(graph[nxt])))
    return None


def layer_of(name: str) -> int | None:
    for rank, (_, members) in enumerate(LAYERS):
        if any(name == m or name.startswith(m + ".") for m in members):
            return rank
    return None


def upward_path(graph: dict[str, set[str]], start: str) -> list[str] | None:
    """A path from ``start`` to a module of a higher layer than ``start``'s, or None."""
    rank = layer_of(start)
    parent: dict[str, str | None] = {start: None}
    todo = [start]
    while todo:
        here = todo.pop()
        for nxt in sorted(graph[here]):
            if nxt in parent:
                continue
            parent[nxt] = here
            higher = layer_of(nxt)
            if higher is not None and rank is not None and higher > rank:
                path = [nxt]
                while parent[path[-1]] is not None:
                    path.append(parent[path[-1]])
                return path[::-1]
            todo.append(nxt)
    return None


def test_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_analysis_imports_only_downward():
    graph = import_graph()
    layered = [m for m in graph if layer_of(m) is not None]
    assert {layer_of(m) for m in layered} == set(range(len(LAYERS)))  # no layer matches nothing
    wrong = {m: p for m in layered if (p := upward_path(graph, m))}
    names = {m: LAYERS[layer_of(m)][0] for m in wrong}
    assert not wrong, "\n".join(
        f"{names[m]} module {m} reaches {LAYERS[layer_of(p[-1])][0]}: {' -> '.join(p)}"
        for m, p in wrong.items()
    )


def test_the_checks_find_what_they_look_for(tmp_path):
    """A hand-made tree: a -> b (in a function) -> a is a cycle; a TYPE_CHECKING import is
    not; a run-data module reaching a figure through an unlayered module is upward."""
    pkg = tmp_path / "analysis"
    (pkg / "figures").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "figures" / "__init__.py").write_text("")
    (pkg / "figures" / "fig_x.py").write_text("")
    (pkg / "a.py").write_text("from analysis import b\n")
    (pkg / "b.py").write_text("def f():\n    from . import a\n")
    (pkg / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import analysis.d\n"
    )
    (pkg / "d.py").write_text("import analysis.c\n")
    (pkg / "runs.py").write_text("from analysis.helper import x\n")
    (pkg / "helper.py").write_text("from analysis.figures.fig_x import y\n")
    (tmp_path / "rcgrpo").mkdir()
    graph = import_graph(tmp_path)
    assert graph["analysis.b"] == {"analysis.a"}
    assert graph["analysis.c"] == set()
    assert find_cycle(graph) == ["analysis.a", "analysis.b", "analysis.a"]
    path = upward_path(graph, "analysis.runs")
    assert path == ["analysis.runs", "analysis.helper", "analysis.figures.fig_x"]
    del graph["analysis.b"], graph["analysis.a"]
    assert find_cycle(graph) is None
