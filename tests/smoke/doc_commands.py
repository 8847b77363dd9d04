"""The ``python -m rcgrpo`` commands of a fenced ``bash`` block of a Markdown page, as argv:
what the README's Quick start and docs/own-task.md tell a reader to run
(tests/smoke/test_quick_start.py, tests/smoke/test_own_task.py)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def rcgrpo_commands(page: Path, after: str) -> list[list[str]]:
    """The ``python -m rcgrpo`` lines of the first ``bash`` block after the line ``after``,
    continuation lines joined, comments dropped, as argv after ``-m rcgrpo``."""
    block = page.read_text().split(after + "\n", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    joined = re.sub(r"\\\n\s*", " ", block)
    lines = [line.split(" #", 1)[0].strip() for line in joined.splitlines()]
    return [shlex.split(line)[3:] for line in lines if line.startswith("python -m rcgrpo ")]


def run_rcgrpo(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``python -m rcgrpo *argv`` in ``cwd`` with this checkout first on the path, one thread;
    fails the test with the end of stderr unless it exits 0."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": f"{ROOT}{os.pathsep}{cwd}"}
    done = subprocess.run(
        [sys.executable, "-m", "rcgrpo", *argv],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=cwd,
        env=env,
    )
    assert done.returncode == 0, (argv, done.stderr[-3000:])
    return done
