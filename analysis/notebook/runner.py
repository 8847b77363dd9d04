"""Execute, parameterise and strip the project's notebooks (``notebooks/*.ipynb``).

Notebooks are committed without outputs and define nothing reusable (house style): library
code lives in ``analysis/`` / ``rcgrpo/``. This module is what the smoke test and the
command line (:mod:`analysis.notebook.__main__`) use to run them headless:

- a notebook declares its knobs in one code cell tagged ``parameters`` (papermill's
  convention); :func:`inject_parameters` adds a cell tagged ``injected-parameters`` right
  after it, so injected values win and the notebook still reads top to bottom;
- :func:`execute_notebook` runs it with ``nbclient`` on the ``python3`` kernel spec of the
  running interpreter (``jupyter_client`` maps the spec's ``python`` to ``sys.executable``,
  i.e. the project's ``.venv``); the kernel inherits this process's environment;
- :func:`save_executed` writes the executed copy elsewhere (default :data:`EXECUTED`);
- :func:`strip_outputs` / :func:`problems` keep committed notebooks clean;
- :func:`lab_command`: JupyterLab on ``notebooks/`` on the loopback address only (``make
  lab``; a token from ``JUPYTER_TOKEN`` or a generated one).
"""

from __future__ import annotations

import ast
import copy
import os
import re
import sys
from pathlib import Path
from typing import Any

import nbformat
from nbformat import NotebookNode

from analysis import REPO_ROOT

NOTEBOOKS = REPO_ROOT / "notebooks"
LAB_HOST = "127.0.0.1"
"""JupyterLab listens on the loopback address only: a shared machine's other users and its
network cannot reach the kernels."""
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


EXECUTED = Path("runs/notebooks")
"""Default folder of ``python -m analysis.notebook run``'s executed copies (relative to the
working directory; ``runs/`` is not committed): the committed notebooks stay output-free."""


def executed_path(source: str | Path, out: str | Path = EXECUTED) -> Path:
    """``out/<source name>``, where the executed copy of notebook ``source`` goes; refused
    (``ValueError``) when that is ``source`` itself (outputs over the committed notebook)."""
    target = Path(out) / Path(source).name
    if target.resolve() == Path(source).resolve():
        raise ValueError(f"--out {out} would overwrite {source} with outputs; name another folder")
    return target


def save_executed(nb: NotebookNode, source: str | Path, out: str | Path = EXECUTED) -> Path:
    """Write the executed ``nb`` of notebook ``source`` to :func:`executed_path` and return it."""
    target = executed_path(source, out)
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target)
    return target


SHOWN_PROBLEMS = re.compile(r"\bnan\b|warning|not logged", re.IGNORECASE)
"""What an executed notebook must not show: a NaN where a value does not apply, a warning,
a panel or value that was *not logged*."""


def _texts(out: NotebookNode) -> list[str]:
    texts = [out.get("text", "")] if out.get("output_type") == "stream" else []
    for mime, value in out.get("data", {}).items():
        if mime.startswith("text/"):
            texts.append(value if isinstance(value, str) else "".join(value))
    return texts


def output_problems(nb: NotebookNode, explained: tuple[str, ...] = ()) -> list[str]:
    """What an executed notebook shows that it should not: any stderr output, any error, and
    :data:`SHOWN_PROBLEMS` in any printed or displayed text (text/plain, text/html), except
    inside the ``explained`` phrases (a NaN that is itself the computed result)."""
    found = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            kind = out.get("output_type")
            if kind == "error" or (kind == "stream" and out.get("name") == "stderr"):
                found.append(f"cell {i}: {kind} output: {''.join(_texts(out))[:300]!r}")
                continue
            for text in _texts(out):
                for phrase in explained:
                    text = text.replace(phrase, "")
                hit = SHOWN_PROBLEMS.search(text)
                if hit:
                    context = text[max(0, hit.start() - 120) : hit.end() + 60]
                    found.append(f"cell {i}: {hit[0]!r} in {context!r}")
    return found


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


def lab_command(port: int = 8888, open_browser: bool = True, port_retries: int = 50) -> list[str]:
    """The JupyterLab server of ``make lab``: this interpreter's ``jupyterlab`` serving
    :data:`NOTEBOOKS` on :data:`LAB_HOST` at ``port`` (or the next free one of
    ``port_retries``); as root (a container, CI) with ``allow_root``, which Jupyter otherwise
    refuses to start without."""
    root = [f"--ServerApp.allow_root={os.geteuid() == 0}"] if hasattr(os, "geteuid") else []
    return [
        sys.executable,
        "-m",
        "jupyterlab",
        f"--ServerApp.root_dir={NOTEBOOKS}",
        f"--ServerApp.ip={LAB_HOST}",
        f"--ServerApp.port={port}",
        f"--ServerApp.port_retries={port_retries}",
        f"--ServerApp.open_browser={open_browser}",
        *root,
    ]
