"""``python -m rcgrpo eval`` end to end on a random tiny checkpoint (real CLI, real env)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rcgrpo.__main__ import main as rcgrpo_main
from rcgrpo.policy.evaluate import wilson_interval
from rcgrpo.policy.models import main as make_checkpoint

pytestmark = pytest.mark.bfcl


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    path = tmp_path_factory.mktemp("ckpt") / "random_micro"
    assert make_checkpoint(["--out", str(path), "--preset", "micro", "--vocab-size", "512"]) == 0
    return path


def test_eval_cli_on_bfcl_test_split(checkpoint):
    args = ["--model", str(checkpoint), "--split", "test", "--condition", "high", "--limit", "6"]
    args += ["--max-new-tokens", "16", "--max-context", "1024", "--examples", "2"]
    done = subprocess.run(
        [sys.executable, "-m", "rcgrpo", "eval", *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    out = checkpoint / "eval" / "bfcl-test-high.json"
    report = json.loads(out.read_text())
    assert report["num_tasks"] == 6 and report["args"]["temperature"] == 0.0  # greedy default
    overall = report["overall"]
    # a random model solves nothing: 0/6, Wilson upper bound 0.390 (z^2/n / (1 + z^2/n))
    assert overall["reward"]["successes"] == 0 and overall["bfcl_valid"]["successes"] == 0
    assert overall["reward"]["ci95"] == pytest.approx([0.0, 0.3903], abs=1e-4)
    assert list(wilson_interval(0, 6)) == overall["reward"]["ci95"]
    assert sum(c["n"] for c in report["per_category"].values()) == 6
    assert len(report["per_task"]) == 6 and "overall" in done.stdout
    examples = out.with_suffix(".txt").read_text()
    assert examples.count("### multi_turn_") == 2
    assert "[Reward Goal: <|high_reward|>]" in examples


def test_eval_cli_on_synth_without_token(checkpoint, tmp_path):
    out = tmp_path / "synth.json"
    code = rcgrpo_main(
        [
            "eval",
            "--model",
            str(checkpoint),
            "--tasks",
            "synth",
            "--split",
            "test",
            "--condition",
            "none",
            "--limit",
            "4",
            "--synth-options",
            '{"preset": "tiny", "turns": [1, 1]}',
            "--max-new-tokens",
            "8",
            "--max-context",
            "1024",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    report = json.loads(out.read_text())
    assert report["num_tasks"] == 4
    assert all(c.startswith("synth/") for c in report["per_category"])
    assert "Reward Goal" not in out.with_suffix(".txt").read_text()
