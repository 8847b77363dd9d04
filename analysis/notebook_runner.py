"""Execute, parameterise and strip the project's notebooks (``notebooks/*.ipynb``).

Notebooks are committed without outputs and define nothing reusable (house style): library
code lives in ``analysis/`` / ``rcgrpo/``. This module is what the smoke test and the
command line use to run them headless:

- a notebook declares its knobs in one code cell tagged ``parameters`` (papermill's
  convention); :func:`inject_parameters` adds a cell tagged ``injected-parameters`` right
  after it, so injected values win and the notebook still reads top to bottom;
- :func:`execute_notebook` runs it with ``nbclient`` on the ``python3`` kernel spec of the
  running interpreter (``jupyter_client`` maps the spec's ``python`` to ``sys.executable``,
  i.e. the project's ``.venv``); the kernel inherits this process's environment;
- :func:`strip_outputs` / :func:`problems` keep committed notebooks clean.

``python -m analysis.notebook_runner run NB [-p NAME=VALUE ...]``, ``strip NB ...``,
``check NB ...`` (exit 1 when a notebook has outputs or defines a function or class).
"""

from __future__ import annotations

import argparse
import ast
import copy
import sys
from pathlib import Path
from typing import Any

import nbformat
from nbformat import NotebookNode

PARAMETERS_TAG = "parameters"
INJECTED_TAG = "injected-parameters"
KEPT_CELL_METADATA = ("tags",)


def _plain(value: Any) -> Any:
    """Paths as str, also inside lists / tuples / dicts."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _literal(name: str, value: Any) -> str:
    if not name.isidentifier():
        raise ValueError(f"parameter name must be an identifier, got {name!r}")
    value = _plain(value)
    text = repr(value)
    try:
        same = ast.literal_eval(text) == value
    except (ValueError, SyntaxError):
        same = False
    if not same:
        raise ValueError(f"parameter {name} must be a Python literal, got {value!r}")
    return f"{name} = {text}"


def inject_parameters(nb: NotebookNode, parameters: dict[str, Any]) -> NotebookNode:
    """A copy of ``nb`` with ``NAME = value`` lines in a cell after the ``parameters`` cell
    (at the top when there is none). Values must be literals (a ``Path`` becomes ``str``)."""
    out = copy.deepcopy(nb)
    if not parameters:
        return out
    source = "\n".join(_literal(k, v) for k, v in parameters.items())
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": [INJECTED_TAG]})
    tagged = [
        i
        for i, c in enumerate(out.cells)
        if PARAMETERS_TAG in c.get("metadata", {}).get("tags", [])
    ]
    out.cells.insert(tagged[0] + 1 if tagged else 0, cell)
    return out


def execute_notebook(
    path: str | Path,
    parameters: dict[str, Any] | None = None,
    timeout: int = 600,
    cwd: str | Path | None = None,
    kernel_name: str = "python3",
) -> NotebookNode:
    """Run a notebook (``cwd`` defaults to its folder) and return it with outputs.

    A failing cell raises ``nbclient.exceptions.CellExecutionError`` naming the cell.
    """
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    path = Path(path)
    nb = inject_parameters(nbformat.read(path, as_version=4), parameters or {})
    km = KernelManager(kernel_name=kernel_name)
    client = NotebookClient(
        nb,
        km=km,
        timeout=timeout,
        kernel_name=kernel_name,
        resources={"metadata": {"path": str(cwd or path.parent)}},
    )
    client.execute()
    return nb


def outputs_text(nb: NotebookNode) -> str:
    """Every printed stream and ``text/plain`` result of the notebook, in cell order."""
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                parts.append(out.get("text", ""))
            elif "data" in out and "text/plain" in out["data"]:
                parts.append(out["data"]["text/plain"])
    return "\n".join(parts)


def strip_outputs(nb: NotebookNode) -> NotebookNode:
    """A copy without outputs, execution counts and per-cell run metadata."""
    out = copy.deepcopy(nb)
    for cell in out.cells:
        cell["metadata"] = {
            k: v for k, v in cell.get("metadata", {}).items() if k in KEPT_CELL_METADATA
        }
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    info = out.metadata.get("language_info", {})
    out.metadata = {
        "kernelspec": out.metadata.get("kernelspec", {}),
        "language_info": {"name": info.get("name", "python")},
    }
    return out


def problems(nb: NotebookNode) -> list[str]:
    """Why ``nb`` may not be committed: outputs, execution counts, ``def`` / ``class``."""
    found = []
    for i, cell in enumerate(nb.cells):
        if cell["cell_type"] != "code":
            continue
        if cell.get("outputs") or cell.get("execution_count") is not None:
            found.append(f"cell {i}: has outputs or an execution count")
        code = "\n".join(
            "" if line.lstrip().startswith(("%", "!")) else line  # IPython magics
            for line in cell["source"].splitlines()
        )
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.append(f"cell {i}: defines {node.name} (reusable code belongs in analysis/)")
    return found


def _parse_param(text: str) -> tuple[str, Any]:
    name, _, value = text.partition("=")
    try:
        return name.strip(), ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return name.strip(), value  # a bare string


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.notebook_runner")
    parser.add_argument("command", choices=["run", "strip", "check"])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("-p", "--param", action="append", default=[], help="NAME=VALUE")
    args = parser.parse_args(argv)
    status = 0
    for path in args.notebooks:
        nb = nbformat.read(path, as_version=4)
        if args.command == "run":
            execute_notebook(path, dict(_parse_param(p) for p in args.param))
            print(f"ran {path}")
        elif args.command == "strip":
            nbformat.write(strip_outputs(nb), path)
            print(f"stripped {path}")
        else:
            for problem in problems(nb):
                print(f"{path}: {problem}", file=sys.stderr)
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
