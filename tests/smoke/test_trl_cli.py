"""A 2-step RC-GRPO run on TRL's GRPOTrainer through the CLI (python -m rcgrpo trl).

Coin-flip checkpoint (tests/smoke/rl_smoke_helpers.py), 2 synth tasks, G = 4, 2 prompts per
step, i.i.d. goals. Checked from the run's own files (rollouts.jsonl, metrics.jsonl):

- goals are drawn per rollout: they equal the global i.i.d. draw of round (seed, step, 0)
  and at least one group holds both tokens;
- every row holds every field of ``python -m rcgrpo train``'s rollouts.jsonl, and every
  reward equals ``score_trajectory`` on that rollout's executed calls and ``truncated``;
- our group metrics are in TRL's log rows under the registry names, and equal
  ``group_diagnostics`` of the logged rewards;
- the run trains on the estimator its flag names (``--algo.adv-estimator rloo``, a name of the
  trainer's registry): the logged advantages are ``group_advantages(R, "rloo")``, which
  TRL itself does not compute (its own is ``grpo`` with ddof 1 and 1e-4,
  tests/unit/integrations/test_trl_conventions.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
import torch
from rl_smoke_helpers import coin_flip_checkpoint, rows

from rcgrpo import group_advantages, group_diagnostics
from rcgrpo.env import score_trajectory
from rcgrpo.integrations.goals import local_goals, round_seed
from rcgrpo.metrics import METRICS
from rcgrpo.policy.task_sources import load_tasks
from rcgrpo.train.runlog import open_table

pytestmark = pytest.mark.slow  # end to end: one run of TRL's GRPOTrainer through the CLI

G, P, STEPS, SEED = 4, 2, 2, 0
TRAINER_RUN = Path(__file__).parents[2] / "results/campaign/cpu-rcgrpo-s0"
"""A run of ``python -m rcgrpo train`` (a committed campaign run; its per-rollout table plain
or compressed, read with :func:`rcgrpo.train.runlog.open_table`)."""


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.getbasetemp()
    ckpt = coin_flip_checkpoint(root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root)
    out = tmp_path_factory.mktemp("trl_run")
    flags = ["--init", str(ckpt), "--run.root", str(out.parent), "--run.name", out.name]
    flags += ["--tasks.num-train", "2", "--tasks.prompt-style", "bare"]
    flags += ["--rollout.max-context", "400", "--optim.lr", "1e-3"]
    flags += ["--rollout.group-size", str(G), "--rollout.prompts-per-step", str(P)]
    flags += ["--run.steps", str(STEPS), "--run.seed", str(SEED)]
    flags += ["--algo.conditioning", "iid", "--algo.adv-estimator", "rloo"]
    done = subprocess.run(
        [sys.executable, "-m", "rcgrpo", "trl", *flags],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "OMP_NUM_THREADS": "1", "TRL_EXPERIMENTAL_SILENCE": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return rows(out / "rollouts.jsonl"), rows(out / "metrics.jsonl")


def _groups(rollout_rows):
    by = defaultdict(list)
    for r in rollout_rows:
        by[(r["step"], r["prompt"])].append(r)
    return by


def test_goals_are_drawn_per_rollout(run):
    rollout_rows, _ = run
    assert len(rollout_rows) == STEPS * P * G
    for step in range(STEPS):
        high = [r["reward_token"] == "high" for r in rollout_rows if r["step"] == step]
        expected = local_goals(P * G, G, 0, 1, scheme="iid", p=0.5, seed=round_seed(SEED, step, 0))
        assert high == expected.tolist()
    groups = _groups(rollout_rows).values()
    assert all(len({r["task_id"] for r in g}) == 1 for g in groups)  # a group = one task
    assert any(len({r["reward_token"] for r in g}) == 2 for g in groups)  # goals differ in a group


def test_rewards_are_score_trajectory_on_the_same_calls(run):
    rollout_rows, _ = run
    tasks = {
        t.id: t
        for t in load_tasks(
            "synth", "train", 0, 2, preset="tiny", turns=(1, 1), calls_per_turn=(1, 1)
        )
    }
    with open_table(TRAINER_RUN) as fh:
        trainer_row = json.loads(fh.readline())
    for r in rollout_rows:
        assert set(trainer_row) <= set(r), set(trainer_row) - set(r)
        task, calls = tasks[r["task_id"]], r["calls_per_turn"]
        replay = score_trajectory(task, calls, "combined", truncated=r["truncated"])
        assert r["reward"] == replay.reward
    assert 0 < sum(r["reward"] for r in rollout_rows) < len(rollout_rows)  # both outcomes occur


def test_the_run_trains_on_the_estimator_of_its_flag(run):
    rollout_rows, _ = run
    for step in range(STEPS):
        step_rows = [r for r in rollout_rows if r["step"] == step]
        rewards = torch.tensor([r["reward"] for r in step_rows]).view(P, G)
        adv = torch.tensor([r["advantage"] for r in step_rows]).view(P, G)
        # the float32 values trained on, so equal to float32 rounding
        torch.testing.assert_close(adv, group_advantages(rewards, "rloo"))
    assert any(r["advantage"] != 0 for r in rollout_rows)


def test_group_metrics_are_in_trl_logs(run):
    rollout_rows, metric_rows = run
    train_rows = [m for m in metric_rows if "loss" in m]
    assert len(train_rows) == STEPS
    ours = {
        "group/zero_var_success_frac",
        "group/zero_var_fail_frac",
        "group/zero_var_predicted",
        "group/var_between_mean",
        "group/var_within_mean",
        "group/mode_sep_pooled",
        "theory/var_bound_iid",
    }
    for step, logged in enumerate(train_rows):
        assert ours <= set(logged) and {"reward", "frac_reward_zero_std", "kl"} <= set(logged)
        step_rows = [r for r in rollout_rows if r["step"] == step]
        rewards = torch.tensor([r["reward"] for r in step_rows], dtype=torch.float64).view(P, G)
        high = torch.tensor([r["reward_token"] == "high" for r in step_rows]).view(P, G)
        diag = group_diagnostics(rewards, group_advantages(rewards, "rloo"), high, p=0.5)
        for name in (
            "group/zero_var_frac",
            "group/var_mean",
            "group/var_between_mean",
            "reward/high_frac",
        ):
            assert logged[name] == pytest.approx(float(diag[name]), abs=1e-9)
        assert all(k in METRICS for k in logged if k.split("/")[0] in ("group", "theory"))
