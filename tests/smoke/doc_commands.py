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

TINY_STEPS = 2
TASKS = ["--tasks.num-train", "8", "--tasks.num-eval", "2", "--run.no-tensorboard"]
STAGE1 = [*TASKS, "--run.steps", str(TINY_STEPS), "--sft.batch-size", "2"]
TINY = {
    "sft": [*STAGE1, "--sft.eval-max-new-tokens", "12"],
    "rctp": [*STAGE1, "--failures.num-tasks", "4", "--failures.max-new-tokens", "12"],
    "train": [*TASKS, "--run.steps", str(TINY_STEPS), "--rollout.group-size", "2"]
    + ["--rollout.prompts-per-step", "1", "--rollout.max-new-tokens", "12"],
    "eval": ["--limit", "2", "--max-new-tokens", "12"],
}
"""Tiny budget flags per subcommand, appended to a page's own (the last flag wins): 2 Stage-1
steps of 2 examples on 8 tasks, 2 RL steps of one group of 2, evaluation on 2 tasks."""


def rcgrpo_commands(page: Path, after: str) -> list[list[str]]:
    """The ``python -m rcgrpo`` lines of the first ``bash`` block after the line ``after``,
    continuation lines joined, comments dropped, as argv after ``-m rcgrpo``."""
    block = page.read_text().split(after + "\n", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    joined = re.sub(r"\\\n\s*", " ", block)
    lines = [line.split(" #", 1)[0].strip() for line in joined.splitlines()]
    return [shlex.split(line)[3:] for line in lines if line.startswith("python -m rcgrpo ")]


def rcgrpo(argv: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: int = 900):
    """``python -m rcgrpo *argv`` in ``cwd`` (``env``: the environment, default this one),
    its output captured: the CompletedProcess."""
    return subprocess.run(
        [sys.executable, "-m", "rcgrpo", *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=env,
    )


def run_rcgrpo(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``python -m rcgrpo *argv`` in ``cwd`` with this checkout first on the path, one thread;
    fails the test with the end of stderr unless it exits 0."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": f"{ROOT}{os.pathsep}{cwd}"}
    done = rcgrpo(argv, cwd, env)
    assert done.returncode == 0, (argv, done.stderr[-3000:])
    return done
