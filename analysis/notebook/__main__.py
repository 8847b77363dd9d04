"""``python -m analysis.notebook run|strip|check|lab``: the notebooks from the command line.

``run NB [-p NAME=VALUE ...] [--out DIR]`` executes a notebook with injected parameters
(:func:`analysis.notebook.runner.execute_notebook`) and writes the executed copy, outputs
included, to ``DIR/<notebook name>`` (default ``runs/notebooks/``; never over the committed,
output-free notebook), ``strip NB ...`` removes outputs,
``check NB ...`` exits 1 when a notebook has outputs or defines a function or class
(the pre-commit hook), and ``lab [--port N] [--no-browser]`` starts JupyterLab on
``notebooks/`` on the loopback address only (``make lab``;
:func:`analysis.notebook.runner.lab_command`).
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
from pathlib import Path
from typing import Any

import nbformat

from analysis.notebook.runner import (
    EXECUTED,
    execute_notebook,
    executed_path,
    lab_command,
    problems,
    save_executed,
    strip_outputs,
)


def _parse_param(text: str) -> tuple[str, Any]:
    name, _, value = text.partition("=")
    try:
        return name.strip(), ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return name.strip(), value  # a bare string


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.notebook")
    parser.add_argument("command", choices=["run", "strip", "check", "lab"])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("-p", "--param", action="append", default=[], help="NAME=VALUE")
    parser.add_argument(
        "--out",
        type=Path,
        default=EXECUTED,
        help=f"run: folder of the executed copies, outputs included (default {EXECUTED})",
    )
    parser.add_argument("--port", type=int, default=8888, help="lab: the first port tried")
    parser.add_argument("--no-browser", action="store_true", help="lab: do not open a browser")
    args = parser.parse_args(argv)
    if args.command == "lab":
        command = lab_command(args.port, not args.no_browser)
        os.execv(command[0], command)
    if not args.notebooks:
        parser.error(f"{args.command} needs at least one notebook")
    if args.command == "run":
        try:  # before minutes of execution: no copy may land on a committed notebook
            [executed_path(path, args.out) for path in args.notebooks]
        except ValueError as err:
            parser.error(str(err))
    status = 0
    for path in args.notebooks:
        nb = nbformat.read(path, as_version=4)
        if args.command == "run":
            ran = execute_notebook(path, dict(_parse_param(p) for p in args.param))
            print(f"ran {path}: outputs in {save_executed(ran, path, args.out)}")
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
