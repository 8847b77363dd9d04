"""``python -m rcgrpo eval`` end to end on a random tiny checkpoint (real CLI, real env)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rcgrpo.__main__ import main as rcgrpo_main
from rcgrpo.policy.evaluate import wilson_interval
from rcgrpo.policy.models import main as make_checkpoint

pytestmark = pytest.mark.bfcl
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    path = tmp_path_factory.mktemp("ckpt") / "random_micro"
    assert make_checkpoint(["--out", str(path), "--preset", "micro", "--vocab-size", "512"]) == 0
    return path


@pytest.mark.slow  # evaluates on the BFCL test split end to end
def test_eval_cli_on_bfcl_test_split(checkpoint, tmp_path):
    args = ["--model", str(checkpoint), "--split", "test", "--condition", "high", "--limit", "6"]
    args += ["--max-new-tokens", "16", "--max-context", "1024", "--examples", "2"]
    done = subprocess.run(
        [sys.executable, "-m", "rcgrpo", "eval", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    # the default folder is under runs/ of the working directory, not the model's folder
    # (a committed checkpoint lives in results/)
    name = str(checkpoint).strip("/").replace("/", "_")
    out = tmp_path / "runs" / "eval" / name / "bfcl-test-high.json"
    assert not (checkpoint / "eval").exists()
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


def _eval_synth(checkpoint, folder: Path, *tasks: str) -> dict:
    """eval of ``checkpoint`` on 4 synth test tasks named by the flags ``tasks``, into
    ``folder``: the report."""
    argv = ["eval", "--model", str(checkpoint), *tasks, "--split", "test", "--limit", "4"]
    argv += ["--condition", "none", "--max-new-tokens", "8", "--max-context", "1024"]
    assert rcgrpo_main([*argv, "--out", str(folder)]) == 0
    return json.loads((folder / "synth-test-none.json").read_text())


def test_eval_cli_on_synth_without_token(checkpoint, tmp_path):
    # named as train names its tasks: tiny's turns (1, 2) end at max-turns 1
    tasks = ["--tasks.source", "synth", "--tasks.synth-preset", "tiny", "--tasks.max-turns", "1"]
    report = _eval_synth(checkpoint, tmp_path / "mine", *tasks)
    assert report["num_tasks"] == 4 and report["args"]["tasks"]["synth_preset"] == "tiny"
    assert all(c.startswith("synth/") for c in report["per_category"])
    assert "Reward Goal" not in (tmp_path / "mine" / "synth-test-none.txt").read_text()


def test_eval_s_earlier_task_flags_name_the_same_tasks(checkpoint, tmp_path):
    # results/real-model/zero-shot-synth-collapse1-d10/run.json records this spelling
    old = _eval_synth(
        checkpoint,
        tmp_path / "old",
        "--tasks",
        "synth",
        "--task-seed",
        "3",
        "--synth-options",
        '{"preset": "tiny"}',
    )
    new = _eval_synth(
        checkpoint,
        tmp_path / "new",
        "--tasks.source",
        "synth",
        "--tasks.split-seed",
        "3",
        "--tasks.synth-preset",
        "tiny",
    )
    assert [t["task_id"] for t in old["per_task"]] == [t["task_id"] for t in new["per_task"]]
    assert old["args"]["tasks"] == new["args"]["tasks"]
    assert old["overall"] == new["overall"]


def test_a_missing_local_model_is_one_line_and_never_looked_up(tmp_path, monkeypatch, capsys):
    # issue 49: runs/nope was taken for a Hub id (~50 s of retries, a 93-line traceback)
    import transformers

    def no_lookup(*args, **kwargs):
        raise AssertionError("a missing local path must not reach from_pretrained")

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", no_lookup)
    monkeypatch.chdir(tmp_path)
    for model in ("runs/nope", "results/campaign/nope/final", "./nope", "a/b/c"):
        assert rcgrpo_main(["eval", "--model", model]) == 2
        err = capsys.readouterr().err
        assert (
            err
            == f"rcgrpo eval: --model: no model folder at {model!r} (a local path, not looked up)\n"
        )
    assert list(tmp_path.iterdir()) == []  # no folder created


def test_a_truncated_weight_file_is_one_line_naming_it(checkpoint, tmp_path, capsys):
    broken = tmp_path / "broken"
    shutil.copytree(checkpoint, broken)
    weights = broken / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:200])
    assert rcgrpo_main(["eval", "--model", str(broken), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"rcgrpo eval: {weights}: cannot be loaded (SafetensorError: Error while deserializing "
        "header: invalid header length)\n"
    )
    assert not (tmp_path / "o").exists()
