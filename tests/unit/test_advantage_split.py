"""Hand-computed between/within-goal splits of the advantage (rcgrpo/advantage_split.py)."""

from __future__ import annotations

import math

import pytest
import torch

from rcgrpo import group_advantages
from rcgrpo.advantage_split import SPLIT_METRICS, advantage_split, split_summaries
from rcgrpo.metrics import METRICS
from rcgrpo.train.rl.step_metrics import split_metrics

T, F = True, False


def _close(value, expected):
    torch.testing.assert_close(
        value, torch.as_tensor(expected, dtype=torch.float64), rtol=0, atol=1e-12, equal_nan=True
    )


def test_goal_explains_everything_or_nothing():
    # G = 4, goals [h, h, l, l], group scaling with eps 0:
    #   g0 R = [1, 0, 1, 0]: mu = .5, sigma = .5, A = [1, -1, 1, -1]; mu_h = mu_l = .5 -> b = 0
    #   g1 R = [1, 1, 0, 0]: A = [1, 1, -1, -1]; mu_h = 1, mu_l = 0 -> b = (1 - .5)/.5 = +-1,
    #      w = 0
    rewards = torch.tensor([[1.0, 0, 1, 0], [1, 1, 0, 0]])
    high = torch.tensor([[T, T, F, F], [T, T, F, F]])
    between, within = advantage_split(group_advantages(rewards, eps_stab=0.0), high)
    _close(between, [[0, 0, 0, 0], [1, 1, -1, -1]])
    _close(within, [[1, -1, 1, -1], [0, 0, 0, 0]])
    s = split_summaries(between, within, high)
    # sum|b| = 4, sum|w| = 4 over 8 rollouts; high rollouts: |w| 1 + 1, |b| 1 + 1
    _close(s["adv/between_abs_mean"], 0.5)
    _close(s["adv/within_abs_mean"], 0.5)
    _close(s["adv/between_share"], 0.5)
    _close(s["adv/within_share"], 0.5)
    _close(s["adv/high_within_share"], 0.5)
    assert set(s) == set(SPLIT_METRICS) <= set(METRICS)


def test_unscaled_advantage_mixed_group():
    # Dr. GRPO scaling A = R - mu: R = [1, 0, 0, 0], goals [h, h, l, l]: mu = .25,
    # A = [.75, -.25, -.25, -.25]; mu_h = .5 -> b_h = .25; mu_l = 0 -> b_l = -.25;
    # w = A - b = [.5, -.5, 0, 0]
    rewards = torch.tensor([[1.0, 0, 0, 0]])
    high = torch.tensor([[T, T, F, F]])
    between, within = advantage_split(group_advantages(rewards, "dr-grpo"), high)
    _close(between, [[0.25, 0.25, -0.25, -0.25]])
    _close(within, [[0.5, -0.5, 0, 0]])
    s = split_summaries(between, within, high)
    # sum|b| = 1 = sum|w|; high: |w| = 1, |b| = .5 -> 1 / 1.5
    _close(s["adv/between_share"], 0.5)
    _close(s["adv/high_within_share"], 2 / 3)


def test_matches_the_paper_formula_with_eps():
    # b_j = (mu_{r_j} - mu_g)/(sigma_g + eps), w_j = (R_j - mu_{r_j})/(sigma_g + eps), G = 5
    rewards = torch.tensor([[1.0, 1, 0, 1, 0]], dtype=torch.float64)
    high = torch.tensor([[T, T, T, F, F]])
    eps = 0.1
    mu, sigma = 0.6, math.sqrt(0.24)
    mu_r = torch.tensor([[2 / 3, 2 / 3, 2 / 3, 0.5, 0.5]], dtype=torch.float64)
    between, within = advantage_split(group_advantages(rewards, eps_stab=eps), high)
    _close(between, (mu_r - mu) / (sigma + eps))
    _close(within, (rewards - mu_r) / (sigma + eps))


def test_one_goal_and_constant_groups():
    # one goal only: mu_r = mu_g, so b = 0 exactly and w = A; a constant group: A = b = w = 0
    rewards = torch.tensor([[1.0, 0, 1, 1], [1, 1, 1, 1]])
    high = torch.tensor([[T, T, T, T], [T, F, T, F]])
    adv = group_advantages(rewards)
    between, within = advantage_split(adv, high)
    assert torch.equal(between, torch.zeros(2, 4, dtype=torch.float64))
    assert torch.equal(within, adv.double())
    s = split_summaries(between[1:], within[1:], high[1:])
    assert math.isnan(s["adv/between_share"]) and math.isnan(s["adv/high_within_share"])
    _close(s["adv/between_abs_mean"], 0.0)
    no_high = split_summaries(between, within, torch.zeros(2, 4, dtype=torch.bool))
    assert math.isnan(no_high["adv/high_within_share"])
    _close(no_high["adv/within_share"], 1.0)


@pytest.mark.parametrize(
    ("adv", "high", "match"),
    [
        (torch.zeros(2, 3), torch.zeros(2, 4, dtype=torch.bool), "same shape"),
        (torch.zeros(2, 3), torch.zeros(2, 3, dtype=torch.int64), "bool"),
        (torch.zeros(2, 3, dtype=torch.int64), torch.zeros(2, 3, dtype=torch.bool), "floating"),
        (torch.full((1, 3), float("nan")), torch.zeros(1, 3, dtype=torch.bool), "NaN"),
        (torch.zeros(3), torch.zeros(3, dtype=torch.bool), r"\[P, G\]"),
    ],
)
def test_bad_input_names_the_argument(adv, high, match):
    with pytest.raises(ValueError, match=match):
        advantage_split(adv, high)


class _Algo:
    eps_stab, adv_estimator, adv_ddof = 0.0, "grpo", 0
    adv_scope, low_goal_gradient = "group", True  # the paper's RC-GRPO


class _Collected:
    """The three fields split_metrics reads (the trainer's Collected)."""

    def __init__(self, rewards, high, kept):
        self.rewards, self.high, self.kept = rewards, high, kept

    def inputs(self, estimator, groups=None):
        return {}  # grpo reads no input besides the rewards and goals


def test_trainer_uses_kept_groups_only():
    # group 0 (kept) is g1 of the first test: all between; group 1 (dropped) all within
    rewards = torch.tensor([[1.0, 1, 0, 0], [1, 0, 1, 0]])
    high = torch.tensor([[T, T, F, F], [T, T, F, F]])
    out = split_metrics(_Collected(rewards, high, torch.tensor([T, F])), _Algo())
    _close(out["adv/between_share"], 1.0)
    _close(out["adv/high_within_share"], 0.0)
    none = split_metrics(_Collected(rewards, high, torch.tensor([F, F])), _Algo())
    assert set(none) == set(SPLIT_METRICS) and all(math.isnan(v) for v in none.values())
