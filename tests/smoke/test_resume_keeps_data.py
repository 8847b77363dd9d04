"""``--run.resume`` never destroys (issue 49): a finished run is left byte for byte, a corrupt
newest checkpoint falls back to the one before it and keeps the steps logged up to it, and a
folder whose checkpoints all fail to verify is refused with nothing changed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rl_smoke_helpers import TASK_FLAGS, rows

pytestmark = pytest.mark.slow  # end to end: trains through the CLI (make test-slow)

STEPS = 4
ROOT = Path(__file__).resolve().parents[2]
ARGS = [
    "train",
    "--init",
    "micro",  # random init: what the files hold matters here, not what it learns
    *TASK_FLAGS,
    "--rollout.group-size",
    "2",
    "--rollout.prompts-per-step",
    "2",
    "--rollout.max-new-tokens",
    "16",
    "--rollout.max-context",
    "400",
    "--run.no-progress",
    "--run.eval-every",
    "0",
    "--run.checkpoint-every",
    "1",
    "--run.keep-checkpoints",
    "2",
    "--run.name",
    "r",
]


def _rcgrpo(cwd: Path, *extra: str) -> subprocess.CompletedProcess:
    """The run ``runs/r`` under ``cwd`` (a relative run.root, so a copied folder resumes)."""
    return subprocess.run(
        [sys.executable, "-m", "rcgrpo", *ARGS, "--run.root", "runs", *extra],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)},
    )


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _corrupt(checkpoint: Path) -> None:
    weights = checkpoint / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:100])


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """A finished 4-step run (TensorBoard on: its events file is checked too)."""
    cwd = tmp_path_factory.mktemp("finished")
    done = _rcgrpo(cwd, "--run.steps", str(STEPS))
    assert done.returncode == 0, done.stderr[-2000:]
    return cwd


def _copy(finished: Path, tmp_path: Path) -> Path:
    shutil.copytree(finished / "runs", tmp_path / "runs")
    return tmp_path / "runs" / "r"


def test_resuming_a_finished_run_leaves_every_file_byte_identical(finished, tmp_path):
    run = _copy(finished, tmp_path)
    before = _files(run)
    assert {"summary.json", "config.json", "metrics.jsonl"} <= set(before)
    assert any(name.startswith("events.out.tfevents") for name in before)
    done = _rcgrpo(tmp_path, "--run.steps", str(STEPS), "--run.resume")
    assert done.returncode == 0, done.stderr[-2000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.endswith(
        "holds a finished run of 4 steps; nothing to resume, every file left as it is (pass "
        "--run.steps N with N > 4 to train it on)"
    )
    assert _files(run) == before


def test_a_corrupt_latest_checkpoint_falls_back_and_keeps_the_logged_steps(finished, tmp_path):
    run = _copy(finished, tmp_path)
    before = rows(run / "metrics.jsonl")
    _corrupt(run / "checkpoints" / f"step_{STEPS}")
    done = _rcgrpo(tmp_path, "--run.steps", str(STEPS), "--run.resume")
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"skipping corrupt checkpoint: runs/r/checkpoints/step_{STEPS}" in done.stderr
    after = rows(run / "metrics.jsonl")
    assert [r["step"] for r in after] == list(range(STEPS + 1))
    assert after[:STEPS] == before[:STEPS]  # steps 0-3 as logged (time stamps too)
    assert after[STEPS]["time"] > before[STEPS]["time"]  # step 4 trained again


def test_a_folder_whose_checkpoints_all_fail_is_refused_and_left_as_it_is(finished, tmp_path):
    run = _copy(finished, tmp_path)
    (run / "summary.json").unlink()  # as if killed after its last checkpoint
    for checkpoint in (run / "checkpoints").iterdir():
        _corrupt(checkpoint)
    before = _files(run)
    done = _rcgrpo(tmp_path, "--run.steps", str(STEPS + 2), "--run.resume")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        f"rcgrpo train: run.resume: no checkpoint of runs/r/checkpoints verifies "
        f"(step_{STEPS - 1}, step_{STEPS}); nothing was changed (delete them to restart the "
        "run at step 0)"
    )
    assert _files(run) == before  # the logged steps are not dropped
