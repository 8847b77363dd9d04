"""The README's Quick start runs as written (issue 49): its ``python -m rcgrpo`` commands, in
order, with tiny budgets appended, in a fresh working directory; the checkpoint its ``eval``
names is one the RL preset keeps."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from rcgrpo.train.cli import parse_cli

ROOT = Path(__file__).resolve().parents[2]
TINY_STEPS = 2
TASKS = ["--tasks.num-train", "20", "--tasks.num-eval", "2", "--run.no-tensorboard"]
STAGE1 = [*TASKS, "--run.steps", "4", "--model.path", "micro"]  # weak snapshot at step 1
BUDGETS = {
    "sft": [*STAGE1, "--sft.vocab-size", "300", "--sft.eval-max-new-tokens", "4"],
    "rctp": [
        *TASKS,
        "--run.steps",
        str(TINY_STEPS),
        "--failures.num-tasks",
        "4",
        "--failures.max-rounds",
        "1",
        "--failures.max-new-tokens",
        "8",
        "--sft.eval-max-new-tokens",
        "4",
    ],
    "train": [
        *TASKS,
        "--run.steps",
        str(TINY_STEPS),
        "--rollout.group-size",
        "2",
        "--rollout.prompts-per-step",
        "2",
        "--rollout.max-new-tokens",
        "8",
        "--run.eval-every",
        "0",
    ],
    "eval": ["--limit", "2", "--max-new-tokens", "8"],
}
"""Tiny budget flags per subcommand, appended to the README's own flags."""


def quick_start_commands() -> list[list[str]]:
    """The ``python -m rcgrpo`` commands of the README's Quick start block, as argv."""
    text = (ROOT / "README.md").read_text()
    block = text.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    joined = re.sub(r"\\\n\s*", " ", block)
    lines = [line.split(" #", 1)[0].strip() for line in joined.splitlines()]
    return [shlex.split(line)[3:] for line in lines if line.startswith("python -m rcgrpo ")]


def test_the_eval_command_names_a_checkpoint_the_preset_keeps():
    commands = quick_start_commands()
    assert [c[0] for c in commands] == ["sft", "rctp", "train", "train", "eval"]
    model = commands[-1][commands[-1].index("--model") + 1]
    cfg = parse_cli("train", commands[2][1:])
    # with checkpoint_every 20 and keep 2, a 200-step run keeps step_180 and step_200
    assert model == f"{cfg.run.root}/{cfg.run.name}/checkpoints/step_{cfg.run.steps}"


def test_the_quick_start_runs_verbatim_at_tiny_sizes(tmp_path):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    for argv in quick_start_commands():
        if argv[0] == "eval":  # the checkpoint of the tiny run's last step
            argv = [a.replace("step_200", f"step_{TINY_STEPS}") for a in argv]
        done = subprocess.run(
            [sys.executable, "-m", "rcgrpo", *argv, *BUDGETS[argv[0]]],
            capture_output=True,
            text=True,
            timeout=900,
            cwd=tmp_path,
            env=env,
        )
        assert done.returncode == 0, (argv, done.stderr[-3000:])
    out = tmp_path / "runs" / "eval" / f"runs_cpu-rcgrpo-s0_checkpoints_step_{TINY_STEPS}"
    assert (out / "synth-test-high.json").is_file()
    for run in ("stage1/sft-synth", "stage1/rctp-synth", "cpu-rcgrpo-s0", "cpu-grpo-s0"):
        assert (tmp_path / "runs" / run / "summary.json").is_file(), run
