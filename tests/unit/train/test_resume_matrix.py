"""``--run.resume`` of an RL run, case by case (:mod:`rcgrpo.train.rl.resume`): a finished or
unfinished run, ``--run.steps`` not given, smaller, equal or larger, in its own folder or in a
copy under another name. Each case hashes the files it must not touch before and after.

One 4-step run of a random ``micro`` model on 2 synth tasks is trained once; every case
resumes a copy of its folder. The unfinished run is that copy without ``summary.json`` and
without its step-4 checkpoint (killed after logging step 4, before checkpointing it), so it
resumes at step 3.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
import torch

from rcgrpo.train.errors import RunFinished
from rcgrpo.train.rl.loop import main as train_main
from rcgrpo.train.rl.resume import plan_resume
from rcgrpo.train.runlog import RunPaths

STEPS = 4
ARGS = [
    "--preset",
    "cpu-grpo",  # 200 steps: a resume that fell back to the preset would run on
    "--init",
    "micro",
    "--tasks.source",
    "synth",
    "--tasks.synth-preset",
    "tiny",
    "--tasks.mode",
    "combined",
    "--tasks.prompt-style",
    "bare",
    "--tasks.num-train",
    "2",
    "--tasks.num-eval",
    "1",
    "--tasks.max-turns",
    "1",
    "--tasks.max-calls-per-turn",
    "1",
    "--rollout.group-size",
    "2",
    "--rollout.prompts-per-step",
    "1",
    "--rollout.max-new-tokens",
    "8",
    "--rollout.max-context",
    "400",
    "--run.eval-every",
    "0",
    "--run.checkpoint-every",
    "1",
    "--run.keep-checkpoints",
    "2",
    "--run.no-progress",
    "--run.no-tensorboard",
]


def _train(root: Path, name: str, *extra: str) -> int:
    return train_main([*ARGS, "--run.root", str(root), "--run.name", name, *extra])


def _hashes(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _rows(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "metrics.jsonl").read_text().splitlines()]


def _summary(folder: Path) -> dict:
    return json.loads((folder / "summary.json").read_text())


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    """The finished 4-step run, trained once."""
    root = tmp_path_factory.mktemp("trained")
    assert _train(root, "r", "--run.steps", str(STEPS)) == 0
    return root / "r"


def _copy(trained: Path, tmp_path: Path, name: str = "r", unfinished: bool = False) -> Path:
    run = tmp_path / name
    shutil.copytree(trained, run)
    if unfinished:
        (run / "summary.json").unlink()
        shutil.rmtree(run / "checkpoints" / f"step_{STEPS}")
    return run


@pytest.mark.parametrize("steps", [None, 2, STEPS], ids=["no-steps", "smaller", "equal"])
@pytest.mark.parametrize("name", ["r", "copy"], ids=["own-folder", "renamed-copy"])
def test_a_finished_run_is_left_byte_for_byte_unless_more_steps_are_asked(
    trained, tmp_path, capsys, steps, name
):
    run = _copy(trained, tmp_path, name)
    before = _hashes(run)
    extra = ["--run.steps", str(steps)] if steps else []
    assert _train(tmp_path, name, "--run.resume", *extra) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"rcgrpo train: {run} holds a finished run of 4 steps; nothing to resume, every file "
        "left as it is (pass --run.steps N with N > 4 to train it on)"
    ]
    assert _hashes(run) == before


@pytest.mark.parametrize("name", ["r", "copy"], ids=["own-folder", "renamed-copy"])
def test_a_finished_run_given_more_steps_is_extended_and_the_extension_recorded(
    trained, tmp_path, name
):
    original = _hashes(trained)
    run = _copy(trained, tmp_path, name)
    before, old_rows = _hashes(run), (run / "metrics.jsonl").read_bytes()
    assert _train(tmp_path, name, "--run.resume", "--run.steps", "6") == 0
    after = _hashes(run)
    kept = ["config.json", "eval/step_0.json", "eval/step_4.json", "init/model.safetensors"]
    assert {f: after[f] for f in kept} == {f: before[f] for f in kept}
    assert (run / "metrics.jsonl").read_bytes().startswith(old_rows)  # steps 0-4 as logged
    rows = _rows(run)
    assert [r["step"] for r in rows] == [0, 1, 2, 3, 4, 4, 5, 6]
    marker = rows[5]["extended"]
    assert (marker["from"], marker["to"], len(marker["commit"])) == (4, 6, 40)
    assert isinstance(marker["dirty"], bool)
    summary = _summary(run)
    assert (summary["steps"], summary["resumed_from"], summary["extended"]) == (6, 4, [marker])
    assert summary["run"] == str(run)
    assert summary["git"] == _summary(trained)["git"]  # the commit of steps 0-4 is kept
    assert len(summary["git"]["commit"]) == 40
    assert json.loads((run / "config.json").read_text())["run"]["steps"] == STEPS
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["step_5", "step_6"]
    state = torch.load(run / "checkpoints" / "step_6" / "trainer_state.pt", weights_only=False)
    assert state["extra"]["ref"] == str(run / "init")  # π_ref from its own folder
    assert _hashes(trained) == original
    # resumed again without --run.steps: the extended run is finished, left as it is
    again = _hashes(run)
    assert _train(tmp_path, name, "--run.resume") == 0
    assert _hashes(run) == again


@pytest.mark.parametrize(
    ("steps", "trained_to"),
    [(None, STEPS), (STEPS, STEPS), (6, 6)],
    ids=["no-steps", "equal", "larger"],
)
@pytest.mark.parametrize("name", ["r", "copy"], ids=["own-folder", "renamed-copy"])
def test_an_unfinished_run_continues_to_its_own_step_count_or_a_larger_one_asked(
    trained, tmp_path, steps, trained_to, name
):
    run = _copy(trained, tmp_path, name, unfinished=True)
    before = _hashes(run)
    rows_to_3 = (run / "metrics.jsonl").read_text().splitlines()[:4]
    extra = ["--run.steps", str(steps)] if steps else []
    assert _train(tmp_path, name, "--run.resume", *extra) == 0
    after = _hashes(run)
    kept = ["config.json", "eval/step_0.json", "init/model.safetensors"]
    assert {f: after[f] for f in kept} == {f: before[f] for f in kept}
    lines = (run / "metrics.jsonl").read_text().splitlines()
    assert lines[:4] == rows_to_3  # steps 0-3 as logged; step 4 trained again
    rows = _rows(run)
    extended = [r["extended"] for r in rows if "extended" in r]
    assert [r["step"] for r in rows if "extended" not in r] == list(range(trained_to + 1))
    assert [(e["from"], e["to"]) for e in extended] == ([(4, 6)] if trained_to > STEPS else [])
    assert [r["step"] for r in rows if "extended" in r] == [3] * len(extended)
    summary = _summary(run)
    assert (summary["steps"], summary["resumed_from"]) == (trained_to, 3)
    assert summary.get("extended", []) == extended


@pytest.mark.parametrize("steps", [2, 3], ids=["below-done", "below-plan"])
def test_an_unfinished_run_asked_for_fewer_steps_is_refused_with_nothing_changed(
    trained, tmp_path, capsys, steps
):
    run = _copy(trained, tmp_path, unfinished=True)
    before = _hashes(run)
    assert _train(tmp_path, "r", "--run.resume", "--run.steps", str(steps)) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"rcgrpo train: run.steps {steps} would end {run} before the 4 steps it was started "
        "for (3 done); nothing was changed (resume without --run.steps to finish it, or pass "
        "more steps to extend it)"
    ]
    assert _hashes(run) == before


def _folder(tmp_path: Path, steps: int, rows: list[dict], summary: bool) -> RunPaths:
    paths = RunPaths(tmp_path / "f").make()
    paths.config.write_text(json.dumps({"run": {"steps": steps}}))
    paths.metrics.write_text("".join(json.dumps(r) + "\n" for r in rows))
    if summary:
        (paths.root / "summary.json").write_text("{}\n")
    return paths


def test_a_killed_extension_resumes_to_its_target_and_a_cut_back_one_is_forgotten(tmp_path):
    # a 4-step run extended to 6 at step 4 and killed at step 5: summary.json is the 4-step one
    mark = {"from": 4, "to": 6, "commit": "0" * 40, "dirty": False}
    rows = [{"step": s} for s in range(6)]
    paths = _folder(tmp_path, 4, [*rows[:5], {"step": 4, "extended": mark}, rows[5]], True)
    plan = plan_resume(paths, 5, None, 200)
    assert (plan.steps, plan.extended, plan.new) == (6, [mark], None)
    assert plan_resume(paths, 4, None, 200).steps == 6  # the marker is at the step resumed
    # resumed from a step-3 checkpoint (4 and 5 corrupt): the extension came after it
    assert (plan_resume(paths, 3, None, 200).steps, plan_resume(paths, 3, None, 200).extended) == (
        4,
        [],
    )
    with pytest.raises(RunFinished, match="finished run of 6 steps"):
        plan_resume(_folder(tmp_path / "done", 4, [{"step": 4, "extended": mark}], True), 6, 6, 0)
    grown = plan_resume(paths, 5, 9, 200)
    assert (grown.steps, grown.extended, grown.new) == (9, [mark], {"from": 6, "to": 9})


def test_a_folder_without_a_readable_config_plans_the_steps_given(tmp_path):
    paths = RunPaths(tmp_path / "bare").make()
    assert plan_resume(paths, 2, None, 7).steps == 7
