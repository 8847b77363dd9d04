"""``.ci/run``: ``make lint`` then ``make test``, the status passed through; README's test command."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FAKE_MAKE = """#!/usr/bin/env bash
echo "$*" >> "$CALLS"
[ "$1" != "$FAIL" ]
"""


def _ci(tmp_path: Path, fail: str) -> tuple[int, list[str]]:
    """Run .ci/run with a ``make`` on PATH that records its arguments and fails on ``fail``."""
    (tmp_path / "make").write_text(FAKE_MAKE)
    (tmp_path / "make").chmod(0o755)
    calls = tmp_path / "calls.txt"
    env = {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}", "CALLS": str(calls)}
    proc = subprocess.run([str(ROOT / ".ci" / "run")], env={**env, "FAIL": fail}, check=False)
    return proc.returncode, calls.read_text().split("\n")[:-1]


@pytest.mark.parametrize(
    ("fail", "status", "calls"),
    [("none", 0, ["lint", "test"]), ("lint", 1, ["lint"]), ("test", 1, ["lint", "test"])],
)
def test_ci_lints_then_tests_and_passes_the_status_through(tmp_path, fail, status, calls):
    assert _ci(tmp_path, fail) == (status, calls)


def test_readme_test_command_is_what_make_test_runs():
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"^(\.venv/bin/python -m pytest [^\n#]*?)\s*(?:#|$)", readme, re.M)
    # inside `make test` (CI) the environment says MAKELEVEL=1: a nested make would then print
    # "Entering directory" lines around the recipe
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    dry = subprocess.run(
        ["make", "-n", "--no-print-directory", "-o", ".venv/.bootstrapped", "test", "JOBS=2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    assert dry.stdout.strip() in commands, (dry.stdout, commands)
