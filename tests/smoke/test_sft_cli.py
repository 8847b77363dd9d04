"""``python -m rcgrpo sft`` then ``python -m rcgrpo rctp`` for a few steps on CPU (real CLIs,
real environment, a micro model): metric keys, 1:1 data, reward goals, parameters move."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from rcgrpo.conditioning import HIGH_TOKEN, LOW_TOKEN
from rcgrpo.metrics import METRICS
from rcgrpo.policy.models import build_tiny_policy
from rcgrpo.precision import probe_host, resolve_amp

pytestmark = pytest.mark.slow  # end to end: trains through the CLI (make test-slow)

COMMON = [
    "--model.path",
    "micro",
    "--tasks.num-train",
    "12",
    "--tasks.num-eval",
    "3",
    "--sft.batch-size",
    "8",
    "--sft.eval-max-new-tokens",
    "12",
    "--sft.eval-modes",
    "multi_turn",
    "--sft.modes",
    "multi_turn",
    "combined",
    "--sft.synth-preset",
    "tiny",
    "--sft.prompt-loss-weight",
    "0",
    "--sft.threads",
    "1",
    "--run.no-progress",
    "--run.no-tensorboard",
    "--run.log-every",
    "1",
]


def _cli(*args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "rcgrpo", *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def _params(path):
    return dict(AutoModelForCausalLM.from_pretrained(path).named_parameters())


def test_sft_then_rctp_cli(tmp_path):
    sft_run, rctp_run = tmp_path / "sft", tmp_path / "rctp"
    done = _cli(
        "sft",
        "--preset",
        "sft-synth-cpu",
        *COMMON,
        "--sft.vocab-size",
        "400",
        "--sft.epochs",
        "1",
        "--sft.weak-snapshot-frac",
        "0.5",
        "--optim.lr",
        "3e-3",
        "--optim.warmup-steps",
        "1",
        "--run.root",
        str(tmp_path),
        "--run.name",
        "sft",
    )
    # sft.amp auto: resolved on this machine, printed and in summary.json with the host facts;
    # config.json keeps what was asked (the same spec on every machine)
    precision = json.loads((sft_run / "summary.json").read_text())["precision"]
    assert precision == resolve_amp("auto", probe_host("cpu")).as_dict()
    assert precision["host"]["device"] == "cpu" and precision["host"]["cpu_capability"]
    assert json.loads((sft_run / "config.json").read_text())["sft"]["amp"] == "auto"
    assert f"rcgrpo sft: precision {precision['amp']} (auto: {precision['reason']})" in done.stdout
    rows = _rows(sft_run / "metrics.jsonl")
    assert [r["step"] for r in rows] == [1, 2, 3]  # 12 tasks x 2 modes / batch 8
    for key in ("loss/sft", "sft/tokens_per_s", "policy/lr", "sft/eval_multi_turn"):
        assert key in rows[-1] and key in METRICS
    assert rows[-1]["loss/sft"] < rows[0]["loss/sft"]
    assert (sft_run / "checkpoints" / "step_3" / "manifest.json").is_file()
    # the final weights moved away from the seeded initialisation (same tokenizer, seed 0)
    tokenizer = AutoTokenizer.from_pretrained(sft_run / "final")
    init, _ = build_tiny_policy("micro", tokenizer=tokenizer, seed=0)
    final = _params(sft_run / "final")
    assert all(name in final for name, _ in init.named_parameters())
    assert any(not torch.equal(p, final[n]) for n, p in init.named_parameters())

    rctp_args = (
        "rctp",
        "--preset",
        "rctp-synth-cpu",
        *COMMON,
        "--model.path",
        str(sft_run / "final"),
        "--failures.policy",
        str(sft_run / "weak"),
        "--failures.num-tasks",
        "8",
        "--failures.max-new-tokens",
        "12",
        "--failures.max-context",
        "400",
        "--failures.max-rounds",
        "1",
        "--sft.modes",
        "multi_turn",
        "--sft.epochs",
        "1",
        "--run.root",
        str(tmp_path),
        "--run.name",
        "rctp",
        "--goals.spread",
        "0.5",
    )
    _cli(*rctp_args)
    # goals.spread: the goal rows start half a median row norm apart (from the SFT's distance)
    rows_apart = json.loads((rctp_run / "summary.json").read_text())["data"]["goal_rows"]
    assert rows_apart["spread"] == 0.5 and rows_apart["after"] == pytest.approx(0.5, rel=1e-4)
    assert rows_apart["before"] != pytest.approx(0.5, rel=1e-2)
    data = json.loads((rctp_run / "data.json").read_text())
    # a weak micro model fails every task; replies that hold a sampled reward token are
    # dropped before the draw, so n = usable failures, and the mix is exactly n : n
    n = data["mix"]["successes"]
    assert data["multi_turn"]["sampled"] == data["multi_turn"]["failures"] == 8
    assert n == data["mix"]["failures"] == 8 - data["mix"]["dropped"]["failures"] >= 4
    summary = json.loads((rctp_run / "summary.json").read_text())["data"]
    # goals.labels reward (the default): every trajectory under the goal of its reward
    assert summary["goal_labels"] == {
        "labels": "reward",
        "pair_labels": "reward",
        "high": n,
        "agree_with_reward": 2 * n,
    }
    rows = _rows(rctp_run / "metrics.jsonl")
    assert {"sft/eval_multi_turn", "sft/eval_multi_turn_low"} <= set(rows[-1])
    assert len(rows) == -(-2 * n // 8)  # ceil(2n / batch 8) steps, one log line each
    trajs = _rows(rctp_run / "trajectories.jsonl")
    assert sorted(t["reward"] for t in trajs) == [0] * n + [1] * n
    assert all(
        HIGH_TOKEN not in m["content"] and LOW_TOKEN not in m["content"]
        for t in trajs
        for m in t["messages"]
    )
    before, after = _params(sft_run / "final"), _params(rctp_run / "final")
    assert any(not torch.equal(before[n], after[n]) for n in before)

    # killed after sampling, before its first checkpoint: a resumed run (same command, so
    # the same config) reuses the saved mix — the weak policy is gone from disk, so nothing
    # can be re-sampled — and restarts its log at step 0
    shutil.rmtree(rctp_run / "checkpoints")
    shutil.rmtree(sft_run / "weak")
    (rctp_run / "summary.json").unlink()  # written last: a killed run has none
    mix_before = (rctp_run / "trajectories.jsonl").read_text()
    _cli(*rctp_args, "--run.resume")
    assert (rctp_run / "trajectories.jsonl").read_text() == mix_before
    assert [r["step"] for r in _rows(rctp_run / "metrics.jsonl")] == [r["step"] for r in rows]
