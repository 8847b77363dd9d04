"""Per-step metrics: hand-computed group / rollout / update values, registry names."""

from __future__ import annotations

import math

import pytest
import torch

from rcgrpo.metrics import validate_metric_names
from rcgrpo.train.config import TrainConfig
from rcgrpo.train.distributed import DistInfo
from rcgrpo.train.rl.filters import GROUP_FILTERS, Round, collect_groups
from rcgrpo.train.rl.step_metrics import (
    PhaseTimer,
    group_metrics,
    perf_metrics,
    rollout_metrics,
    to_floats,
    update_metrics,
)
from rcgrpo.train.rl.update import UpdateStats


def _collected(rewards, high=None):
    rnd = Round(torch.tensor(rewards, dtype=torch.float32), high, [], {})
    return collect_groups(lambda i: rnd, GROUP_FILTERS["none"], len(rewards), 0)


def test_group_metrics_hand_computed():
    # groups (1,1,1,1): collapsed, all success; (1,0,0,0): s = 1/4, σ² = 3/16;
    # (0,0,0,0): collapsed, all fail; (1,1,0,0): s = 1/2, σ² = 1/4
    high = torch.tensor([[1, 0, 1, 0], [1, 0, 1, 0], [1, 1, 0, 0], [1, 1, 0, 0]]).bool()
    rewards = [[1, 1, 1, 1], [1, 0, 0, 0], [0, 0, 0, 0], [1, 1, 0, 0]]
    cfg = TrainConfig()
    m = to_floats(group_metrics(_collected(rewards, high), cfg.algo))
    validate_metric_names(m)
    assert m["group/zero_var_frac"] == 0.5
    assert m["group/zero_var_success_frac"] == m["group/zero_var_fail_frac"] == 0.25
    assert m["group/var_mean"] == pytest.approx((3 / 16 + 1 / 4) / 4)
    # predicted collapse: mean_g s^G + (1-s)^G = (1 + (1/4^4 + (3/4)^4) + 1 + 2/16) / 4
    assert m["group/zero_var_predicted"] == pytest.approx((2 + 82 / 256 + 2 / 16) / 4)
    # group 4: highs are both successes, lows both fails: μ_h - μ_l = 1, all between-token
    assert m["group/var_between_mean"] == pytest.approx((1 / 16 + 1 / 4) / 4)
    assert m["theory/kappa"] == pytest.approx(3 / 4 * 0.25)
    # A = (R - μ)/(σ + 1e-6): group 2 spread = (3/4 + 1/4)/sqrt(3/16), group 4 = 2
    assert m["adv/gap_max"] == pytest.approx(1 / math.sqrt(3 / 16), rel=1e-5)
    assert m["adv/nonzero_frac"] == 0.5 and m["group/kept_frac"] == 1.0
    assert m["rollout/extra_batches"] == 0.0


def test_rollout_metrics_hand_computed():
    base = {
        "state": 1,
        "action": 0,
        "bfcl_valid": False,
        "length": 10,
        "gen_tokens": 4,
        "steps": 2,
        "turns": 1,
        "truncated": False,
        "capped": 0,
    }
    rows = [
        {**base, "calls": 2, "tool_errors": 1, "observations": 3},
        {**base, "calls": 0, "tool_errors": 0, "observations": 0, "length": 30, "capped": 2},
    ]
    m = to_floats(rollout_metrics(rows))
    validate_metric_names(m)
    assert m["tools/error_rate"] == pytest.approx(1 / 3)  # Σ errors / Σ observations
    assert m["tools/no_call_frac"] == 0.5 and m["tools/calls_mean"] == 1.0
    assert (m["rollout/length_mean"], m["rollout/length_max"]) == (20.0, 30.0)
    assert m["rollout/capped_frac"] == 0.5 and m["reward/state_mean"] == 1.0
    no_tools = rollout_metrics([rows[1]])
    assert math.isnan(float(no_tools["tools/error_rate"]))


def test_update_metrics_are_token_weighted_over_updates():
    cfg = TrainConfig()
    cfg.algo.conditioning = "iid"
    stats = UpdateStats()
    # two micro-batches: 2 tokens at kl 0.5 and 6 tokens at kl 0.1 -> 1.6 / 8 = 0.2
    stats.sums = {
        "tokens": 8.0,
        "policy/kl_ref": 2 * 0.5 + 6 * 0.1,
        "loss/total": 0.4,
        "loss/pg": 0.3,
        "loss/kl": 0.1,
        "policy/entropy": 16.0,
        "policy/entropy_high": 6.0,
        "tokens_high": 2.0,
        "tokens_low": 6.0,
        "policy/entropy_low": 10.0,
    }
    stats.grad_norms, stats.updates, stats.skipped = [1.0, 3.0], 2, 1
    stats.ratio_max, stats.ratio_min = torch.tensor(1.5), torch.tensor(0.7)
    m = to_floats(update_metrics(stats, cfg, DistInfo()))
    validate_metric_names(m)
    assert m["policy/kl_ref"] == pytest.approx(0.2) and m["policy/entropy"] == 2.0
    assert (m["policy/entropy_high"], m["policy/entropy_low"]) == (3.0, 10 / 6)
    assert m["policy/grad_norm"] == 2.0 and m["loss/total"] == pytest.approx(0.2)
    assert m["loss/nonfinite"] == 1.0 and m["loss/active_tokens"] == 8.0
    assert (m["policy/ratio_max"], m["policy/ratio_min"]) == pytest.approx((1.5, 0.7))


def test_perf_metrics_names_and_phase_times():
    timer = PhaseTimer()
    with timer("rollout"):
        pass
    timer.seconds["rollout"] = 2.0
    m = to_floats(perf_metrics(timer, [{"gen_tokens": 30}, {"gen_tokens": 10}], DistInfo()))
    validate_metric_names(m)
    assert m["perf/tokens_per_s"] == 20.0 and m["perf/peak_rss_gib"] > 0
