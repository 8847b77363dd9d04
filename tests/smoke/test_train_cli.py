"""``python -m rcgrpo train`` for 2 steps of every CPU algorithm preset (real environment,
a micro model that succeeds about half the time): required metric keys, the run folder,
and parameters change exactly when the step had a learning signal."""

from __future__ import annotations

import json

import pytest
import torch
from rl_smoke_helpers import SMALL_RUN, cli, params, rows

from rcgrpo.__main__ import main as rcgrpo_main
from rcgrpo.metrics import METRICS

ALGOS = (
    "cpu-grpo",
    "cpu-rcgrpo",
    "cpu-sft-rc",
    "cpu-rctp-grpo",
    "cpu-dapo",
    "cpu-entropy",
    "cpu-hightemp",
    "cpu-drgrpo",
)
EVERY_STEP = (
    "reward/mean",
    "reward/success_rate",
    "reward/state_mean",
    "reward/action_mean",
    "adv/gap_mean",
    "adv/gap_min",
    "group/var_mean",
    "group/var_p50",
    "group/var_p90",
    "group/zero_var_frac",
    "group/zero_var_success_frac",
    "group/zero_var_fail_frac",
    "group/zero_var_predicted",
    "group/kept_frac",
    "policy/entropy",
    "policy/kl_ref",
    "policy/clipfrac",
    "policy/grad_norm",
    "policy/lr",
    "loss/total",
    "loss/pg",
    "loss/kl",
    "loss/nonfinite",
    "rollout/length_mean",
    "rollout/steps_mean",
    "rollout/gen_tokens_mean",
    "tools/error_rate",
    "tools/calls_mean",
    "perf/tokens_per_s",
    "perf/time_rollout_s",
    "perf/time_gather_s",
    "perf/time_ref_s",
    "perf/time_update_s",
    "perf/time_step_s",
    "perf/peak_rss_gib",
)
WITH_TOKEN = (
    "reward/success_high",
    "reward/success_low",
    "reward/high_frac",
    "group/mode_sep_pooled",
    "group/var_between_mean",
    "group/var_within_mean",
    "policy/entropy_high",
    "adv/between_share",
    "adv/high_within_share",
)
G, P = 4, 2


@pytest.fixture(autouse=True)
def one_thread():
    """As the subprocesses (OMP_NUM_THREADS=1): on 2 shared cores, 2 torch threads make each
    tiny matmul ~50x slower by spinning against the other processes."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize("name", ALGOS)
def test_two_steps_of_each_algorithm(name, coin_flip, tmp_path):
    argv = [
        "train",
        "--preset",
        name,
        "--init",
        str(coin_flip),
        *SMALL_RUN,
        "--run.steps",
        "2",
        "--run.root",
        str(tmp_path),
        "--run.name",
        "r",
    ]
    if name == "cpu-rcgrpo":
        summary = json.loads(cli(*argv).stdout.strip().splitlines()[-1])  # the real CLI
        assert summary["run"] == str(tmp_path / "r")
    else:
        assert rcgrpo_main(argv) == 0
    run = tmp_path / "r"
    config = json.loads((run / "config.json").read_text())
    assert (config["preset"], config["init"]) == (name, str(coin_flip))
    metrics = rows(run / "metrics.jsonl")
    assert [m["step"] for m in metrics] == [0, 1, 2]  # step 0 = evaluation of the start
    token = config["algo"]["conditioning"] != "none"
    for m in metrics[1:]:
        assert set(EVERY_STEP + (WITH_TOKEN if token else ())) <= set(m), name
        assert set(m) - {"step", "time"} <= set(METRICS)
    assert {"reward/eval_success", "perf/time_eval_s"} <= set(metrics[0]) & set(metrics[2])
    assert sorted(p.name for p in (run / "eval").iterdir()) == ["step_0.json", "step_2.json"]
    # the per-rollout table: every generated rollout of every round, once
    table = rows(run / "rollouts.jsonl")
    generated = sum(P * G * (1 + m["rollout/extra_batches"]) for m in metrics[1:])
    assert len(table) == generated
    assert {"step", "task_id", "group", "reward_token", "reward", "advantage", "length"} <= set(
        table[0]
    )
    assert all((r["reward_token"] is None) == (not token) for r in table)
    # parameters move iff some update had a signal (advantage spread, or the entropy bonus)
    signal = any(m["adv/gap_max"] > 0 for m in metrics[1:]) or "entropy" in name
    assert signal, f"{name}: the coin-flip start gave no group with reward variance"
    before, after = params(coin_flip), params(run / "checkpoints" / "step_2")
    assert any(not torch.equal(before[k], after[k]) for k in before)
    assert all(m["loss/nonfinite"] == 0 for m in metrics[1:])


def test_zero_signal_leaves_parameters_unchanged(coin_flip, tmp_path):
    # a greedy-like start never varies in a group: with temperature tiny and β > 0 the
    # first update has A = 0 everywhere and π_θ = π_ref, so the gradient is exactly 0
    argv = [
        "train",
        "--preset",
        "cpu-grpo",
        "--init",
        str(coin_flip),
        *SMALL_RUN,
        "--rollout.temperature",
        "0.01",
        "--run.steps",
        "1",
        "--run.root",
        str(tmp_path),
        "--run.name",
        "z",
    ]
    assert rcgrpo_main(argv) == 0
    [_, m] = rows(tmp_path / "z" / "metrics.jsonl")
    assert m["group/zero_var_frac"] == 1.0 and m["policy/grad_norm"] == 0.0
    before, after = params(coin_flip), params(tmp_path / "z" / "checkpoints" / "step_1")
    assert all(torch.equal(before[k], after[k]) for k in before)


def test_non_finite_losses_skip_updates_then_stop(coin_flip, tmp_path, monkeypatch, capsys):
    import rcgrpo.train.rl.update as update

    real = update.policy_loss

    def poisoned(*args, **kwargs):
        loss, stats = real(*args, **kwargs)
        return loss * float("nan"), stats

    monkeypatch.setattr(update, "policy_loss", poisoned)
    argv = [
        "train",
        "--preset",
        "cpu-grpo",
        "--init",
        str(coin_flip),
        *SMALL_RUN,
        "--run.steps",
        "5",
        "--run.max-nonfinite",
        "2",
        "--run.checkpoint-every",
        "1",
        "--run.root",
        str(tmp_path),
        "--run.name",
        "nan",
    ]
    assert rcgrpo_main(argv) == 3
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("rcgrpo train: stopping at step 2: 2 consecutive steps with a non-fini")
    metrics = rows(tmp_path / "nan" / "metrics.jsonl")
    assert [(m["step"], m.get("loss/nonfinite")) for m in metrics] == [
        (0, None),
        (1, 1.0),
        (2, 1.0),
    ]
    before, after = params(coin_flip), params(tmp_path / "nan" / "checkpoints" / "step_2")
    assert all(torch.equal(before[k], after[k]) for k in before)  # every update was skipped


def test_run_folder_guards(coin_flip, tmp_path, capsys):
    argv = [
        "train",
        "--preset",
        "cpu-grpo",
        "--init",
        str(coin_flip),
        *SMALL_RUN,
        "--run.steps",
        "1",
        "--run.root",
        str(tmp_path),
        "--run.name",
        "g",
    ]
    assert rcgrpo_main(argv) == 0
    capsys.readouterr()
    assert rcgrpo_main(argv) == 2  # the folder holds a run: no silent overwrite
    assert "already holds a run; pass --run.resume" in capsys.readouterr().err
    assert rcgrpo_main([*argv, "--run.resume", "--optim.lr", "0.5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("rcgrpo train: config: optim.lr is 0.5 but the run being resumed used")
    # extending a finished run is a valid resume: it continues at step 2, marked at step 1
    assert rcgrpo_main([*argv, "--run.resume", "--run.steps", "2"]) == 0
    logged = rows(tmp_path / "g" / "metrics.jsonl")
    assert [(m["step"], "extended" in m) for m in logged] == [
        (0, False),
        (1, False),
        (1, True),
        (2, False),
    ]
