"""A run killed with SIGKILL and resumed with ``--run.resume`` writes exactly what an
uninterrupted run with the same seed writes: metrics, rollout table, evaluations, weights."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
import torch
from rl_smoke_helpers import SMALL_RUN, cli, params, rows

STEPS = 10


def _without_timing(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "time" and not k.startswith("perf/")}


def _evals(run):
    out = {}
    for path in sorted((run / "eval").glob("*.json")):
        report = json.loads(path.read_text())
        for summary in report["conditions"].values():
            summary.pop("perf")
        out[path.name] = report
    return out


@pytest.mark.slow
def test_resume_after_sigkill_matches_an_uninterrupted_run(coin_flip, tmp_path):
    args = [
        "train",
        "--preset",
        "cpu-rcgrpo",
        "--init",
        str(coin_flip),
        *SMALL_RUN,
        "--run.steps",
        str(STEPS),
        "--run.checkpoint-every",
        "2",
        "--run.eval-every",
        "4",
        "--run.root",
        str(tmp_path),
    ]
    cli(*args, "--run.name", "full")
    cut = tmp_path / "cut"
    proc = subprocess.Popen(
        [sys.executable, "-m", "rcgrpo", *args, "--run.name", "cut"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    deadline = time.monotonic() + 120
    while not (cut / "checkpoints" / "step_2" / "manifest.json").exists():
        assert proc.poll() is None and time.monotonic() < deadline, "no checkpoint appeared"
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL
    done = [r["step"] for r in rows(cut / "metrics.jsonl")]
    assert done and done[-1] < STEPS, "the run finished before it could be killed"

    cli(*args, "--run.name", "cut", "--run.resume")
    full_rows, cut_rows = rows(tmp_path / "full" / "metrics.jsonl"), rows(cut / "metrics.jsonl")
    assert [r["step"] for r in cut_rows] == list(range(STEPS + 1))
    assert [_without_timing(r) for r in cut_rows] == [_without_timing(r) for r in full_rows]
    assert rows(cut / "rollouts.jsonl") == rows(tmp_path / "full" / "rollouts.jsonl")
    assert rows(cut / "conversations.jsonl") == rows(tmp_path / "full" / "conversations.jsonl")
    assert _evals(cut) == _evals(tmp_path / "full")
    a, b = (
        params(tmp_path / "full" / "checkpoints" / f"step_{STEPS}"),
        params(cut / "checkpoints" / f"step_{STEPS}"),
    )
    assert all(torch.equal(a[k], b[k]) for k in a)
    summary = json.loads((cut / "summary.json").read_text())
    assert 2 <= summary["resumed_from"] < STEPS
