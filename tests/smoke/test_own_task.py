"""docs/own-task.md runs as written: the example task source ``examples/my_tasks.py`` named on
the command line (``module:function``) through Stage 1, RC-GRPO and ``eval``, at tiny budgets
appended to the page's commands (2 steps, 8 training tasks, 2 held-out ones, 12 new tokens);
the example's tasks score as their ground truth says, and the page's Python check of a task
runs as written; the README's own-task commands are the page's."""

from __future__ import annotations

import json

import pytest
from doc_commands import ROOT, TINY, TINY_STEPS, rcgrpo_commands, run_rcgrpo

from rcgrpo.env.reward import score_trajectory
from rcgrpo.policy.task_sources import TASK_SOURCES, load_tasks

PAGE = ROOT / "docs" / "own-task.md"
SPEC = "examples.my_tasks:make_tasks"


def test_the_example_tasks_score_as_their_ground_truth_says(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    try:
        train, test = load_tasks(SPEC, "train", limit=40), load_tasks(SPEC, "test", limit=40)
    finally:
        TASK_SOURCES.pop(SPEC, None)
    assert len(train) == len(test) == 40
    folders = [{t.ground_truth[0][0] for t in ts} for ts in (train, test)]
    assert not folders[0] & folders[1]  # held-out folder names never occur in training
    for task in train + test:
        calls = [c for turn in task.ground_truth for c in turn]
        # R = 1 for the ground truth in one combined reply; mkdir alone leaves the file: R = 0
        assert score_trajectory(task, [calls], "combined").reward == 1, task.id
        assert score_trajectory(task, [calls[:1]], "combined").reward == 0, task.id


def test_the_page_s_docs_and_ground_truth_check_runs_as_written(monkeypatch):
    section = PAGE.read_text().split("## Fill in the docs, check the ground truth\n", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert "class_function_docs(" in code and "score_trajectory(" in code
    monkeypatch.syspath_prepend(str(ROOT))  # the page runs it from the repository root
    # its asserts: the example's docs are BFCL's five offered, R = 1 for the ground truth and
    # R = 0 (state differs, the mv unmatched) without the mv
    exec(compile(code, f"{PAGE.name} python block", "exec"), {})


def test_the_readme_gives_the_page_s_commands_stage_1_included():
    # the README's train command alone stopped at its missing Stage-1 checkpoint (exit 2)
    readme = rcgrpo_commands(ROOT / "README.md", "## Use it on your own task")
    assert readme == rcgrpo_commands(PAGE, "## The method on it")
    assert [c[0] for c in readme] == ["sft", "rctp", "train", "eval"]


@pytest.mark.slow
def test_the_own_task_page_runs_verbatim_at_tiny_sizes(tmp_path):
    for name in ("results", "examples"):  # the base checkpoint; the example module
        (tmp_path / name).symlink_to(ROOT / name)
    commands = rcgrpo_commands(PAGE, "## The method on it")
    assert [c[0] for c in commands] == ["sft", "rctp", "train", "eval"]
    for argv in commands:
        if argv[0] == "eval":
            argv = [a.replace("step_4", f"step_{TINY_STEPS}") for a in argv]
        run_rcgrpo([*argv, *TINY[argv[0]]], tmp_path)
    rl = json.loads((tmp_path / "runs/my/quick-rcgrpo-s0/config.json").read_text())
    assert rl["tasks"]["source"] == SPEC and rl["init"] == "runs/my/rctp/final"
    name = f"runs_my_quick-rcgrpo-s0_checkpoints_step_{TINY_STEPS}"
    report = json.loads(
        (tmp_path / "runs/eval" / name / f"{SPEC.replace(':', '_')}-test-high.json").read_text()
    )
    assert report["num_tasks"] == 2 and set(report["per_category"]) == {"my_tasks"}
