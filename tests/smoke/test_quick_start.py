"""The README's Quick start runs as written: its ``python -m rcgrpo`` commands, in order, in a
fresh working directory that sees the committed base checkpoint (``results/``), at tinier
budgets appended to the presets' (:data:`TINY`: 2 Stage-1 steps of 2 examples on 8 tasks, 2 RL
steps of 1 prompt x G 2, 2 held-out tasks, 12 new tokens), so the suite stays fast; the
presets' own budgets (the README's times) are those of ``quick-*``. The checkpoint its ``eval``
names is the one the RL preset writes."""

from __future__ import annotations

import json

import pytest
from doc_commands import ROOT, TINY, TINY_STEPS, rcgrpo_commands, run_rcgrpo

from rcgrpo.train.cli import parse_cli

README = ROOT / "README.md"
QUICK_START = [
    ["sft", "--preset", "quick-sft"],
    ["rctp", "--preset", "quick-rctp"],
    ["train", "--preset", "quick-grpo"],
    ["train", "--preset", "quick-rcgrpo"],
    [
        "eval",
        "--model",
        "runs/quick/quick-rcgrpo-s0/checkpoints/step_4",
        "--tasks.source",
        "synth",
        "--tasks.synth-preset",
        "collapse1-d10",
        "--mode",
        "combined",
        "--limit",
        "50",
    ],
]
"""The Quick start as this test knows it: the README's block must be exactly this."""


def test_the_readme_quick_start_is_the_tested_one():
    assert rcgrpo_commands(README, "## Quick start") == QUICK_START


def test_the_eval_command_names_the_checkpoint_the_preset_writes():
    model = QUICK_START[-1][QUICK_START[-1].index("--model") + 1]
    cfg = parse_cli("train", QUICK_START[3][1:])
    # a run always keeps its last step's checkpoint: runs/quick/quick-rcgrpo-s0/.../step_4
    assert model == f"{cfg.run.root}/quick-rcgrpo-s{cfg.run.seed}/checkpoints/step_{cfg.run.steps}"


@pytest.mark.slow
def test_the_quick_start_runs_verbatim_at_tiny_sizes(tmp_path):
    (tmp_path / "results").symlink_to(ROOT / "results")  # the committed base checkpoint
    for argv in rcgrpo_commands(README, "## Quick start"):
        if argv[0] == "eval":  # the checkpoint of the tiny run's last step
            argv = [a.replace("step_4", f"step_{TINY_STEPS}") for a in argv]
        run_rcgrpo([*argv, *TINY[argv[0]]], tmp_path)
    runs = tmp_path / "runs" / "quick"
    for run in ("sft", "rctp", "quick-grpo-s0", "quick-rcgrpo-s0"):
        assert (runs / run / "summary.json").is_file(), run
    out = tmp_path / "runs" / "eval" / f"runs_quick_quick-rcgrpo-s0_checkpoints_step_{TINY_STEPS}"
    report = json.loads((out / "synth-test-high.json").read_text())
    assert report["num_tasks"] == 2 and 0.0 <= report["overall"]["reward"]["mean"] <= 1.0
    rl = json.loads((runs / "quick-rcgrpo-s0" / "config.json").read_text())
    assert (rl["init"], rl["tasks"]["synth_preset"]) == ("runs/quick/rctp/final", "collapse1-d10")
