"""Hand-computed group diagnostics (rcgrpo/diagnostics.py)."""

from __future__ import annotations

import math

import pytest
import torch

from rcgrpo import group_advantages, group_diagnostics
from rcgrpo.diagnostics import PER_GROUP_KEYS
from rcgrpo.metrics import METRICS

NAN = float("nan")

# Five groups of G = 4 (rows), with the reward token of each rollout (1 = high):
#   g0 [1, 1, 1, 1]      tokens [1,0,1,0]  all-success, both tokens, μ_h = μ_l = 1
#   g1 [0, 0, 0, 0]      tokens [1,1,1,1]  all-fail, high only
#   g2 [.5,.5,.5,.5]     tokens [0,0,0,0]  constant at another value ("other"), low only
#   g3 [1, 0, 1, 0]      tokens [1,0,1,0]  μ = .5, σ² = .25, μ_h = 1, μ_l = 0: all between-token
#   g4 [1, 1, 0, 0]      tokens [1,0,1,0]  μ = .5, σ² = .25, μ_h = μ_l = .5: all within-token
REWARDS = torch.tensor(
    [[1, 1, 1, 1], [0, 0, 0, 0], [0.5, 0.5, 0.5, 0.5], [1, 0, 1, 0], [1, 1, 0, 0]],
    dtype=torch.float32,
)
HIGH = torch.tensor(
    [[1, 0, 1, 0], [1, 1, 1, 1], [0, 0, 0, 0], [1, 0, 1, 0], [1, 0, 1, 0]], dtype=torch.bool
)


def _diag(**kwargs):
    return group_diagnostics(REWARDS, group_advantages(REWARDS, eps_stab=0.0), HIGH, **kwargs)


def _close(value, expected):
    torch.testing.assert_close(
        value, torch.as_tensor(expected, dtype=value.dtype), equal_nan=True, rtol=0, atol=1e-12
    )


def test_per_group_values():
    d = _diag()
    # g3, g4: A = ±1 (σ = .5, eps 0) ⇒ gap 2; constant groups have A = 0 ⇒ gap 0
    _close(d["adv_gap"], [0, 0, 0, 2, 2])
    _close(d["reward_var"], [0, 0, 0, 0.25, 0.25])
    _close(d["reward_std"], [0, 0, 0, 0.5, 0.5])
    assert d["zero_var"].tolist() == [True, True, True, False, False]
    assert d["all_success"].tolist() == [True, False, False, False, False]
    assert d["all_fail"].tolist() == [False, True, False, False, False]
    # s = fraction of R = 1; predicted P(all equal) = s^4 + (1-s)^4: s = .5 ⇒ 2/16 = .125
    _close(d["success_rate"], [1, 0, 0, 0.5, 0.5])
    _close(d["zero_var_predicted"], [1, 1, 1, 0.125, 0.125])
    _close(d["n_high"], [2, 4, 0, 2, 2])
    _close(d["mean_high"], [1, 0, NAN, 1, 0.5])  # g2 has no high token
    _close(d["mean_low"], [1, NAN, 0.5, 0, 0.5])  # g1 has no low token
    _close(d["success_low"], [1, NAN, 0, 0, 0.5])  # .5 is not a success
    _close(d["mode_sep"], [0, NAN, NAN, 1, 0])
    assert d["token_diverse"].tolist() == [True, False, False, True, True]
    # g3: within = (2·0 + 2·0)/4 = 0, between = (2·(1-.5)² + 2·(0-.5)²)/4 = .25
    # g4: within = (2·.25 + 2·.25)/4 = .25 (each token sees {1, 0}), between = 0
    _close(d["var_within"], [0, 0, 0, 0, 0.25])
    _close(d["var_between"], [0, 0, 0, 0.25, 0])


def test_scalar_summaries():
    d = _diag(p=0.5)
    expected = {
        "reward/mean": 10 / 20,  # 4 + 0 + 2 + 2 + 2
        "reward/success_rate": 8 / 20,  # 4 + 0 + 0 + 2 + 2 ones
        "adv/gap_mean": 4 / 5,
        "adv/gap_min": 0.0,
        "adv/gap_max": 2.0,
        "group/var_mean": 0.5 / 5,
        "group/var_p50": 0.0,  # sorted [0, 0, 0, .25, .25], middle element
        "group/var_p90": 0.25,  # linear: position .9·4 = 3.6 between .25 and .25
        "group/std_mean": 1.0 / 5,
        "group/std_p50": 0.0,
        "group/std_p90": 0.5,
        "group/zero_var_frac": 3 / 5,
        "group/zero_var_success_frac": 1 / 5,
        "group/zero_var_fail_frac": 1 / 5,
        "group/zero_var_other_frac": 1 / 5,
        "group/zero_var_predicted": (1 + 1 + 1 + 0.125 + 0.125) / 5,
        "group/zero_var_predicted_pooled": 0.4**4 + 0.6**4,  # s̄ = 8/20 successes
        "reward/high_frac": 10 / 20,
        "reward/mean_high": 5 / 10,  # high rewards: 1,1 | 0,0,0,0 | 1,1 | 1,0
        "reward/mean_low": 5 / 10,  # low rewards: 1,1 | .5 ×4 | 0,0 | 1,0
        "reward/success_high": 5 / 10,
        "reward/success_low": 3 / 10,
        "group/mode_sep_mean": (0 + 1 + 0) / 3,  # groups with both tokens: g0, g3, g4
        "group/mode_sep_pooled": 0.0,
        "group/var_within_mean": 0.25 / 5,
        "group/var_between_mean": 0.25 / 5,
        "group/between_frac": 0.25 / 0.5,
        "group/no_token_diversity_frac": 2 / 5,
        "theory/kappa": 3 / 4 * 0.25,  # (G-1)/G · p(1-p)
        "theory/var_bound_iid": 0.0,  # κ · 0²
        "theory/no_token_diversity_predicted": 2 / 16,  # .5^4 + .5^4
    }
    for key, value in expected.items():
        assert d[key].dim() == 0, key
        _close(d[key], value)
    scalar_keys = {k for k in d if "/" in k}
    assert scalar_keys == set(expected)
    assert scalar_keys <= set(METRICS)
    assert set(d) - scalar_keys == set(PER_GROUP_KEYS)


def test_without_tokens_only_base_keys():
    d = group_diagnostics(REWARDS, group_advantages(REWARDS))
    assert "mode_sep" not in d and "group/mode_sep_mean" not in d
    assert {k for k in d if "/" not in k} == {
        "adv_gap",
        "reward_mean",
        "reward_var",
        "reward_std",
        "zero_var",
        "all_success",
        "all_fail",
        "success_rate",
        "zero_var_predicted",
    }


def test_undefined_summaries_are_nan():
    # every rollout high, every group constant: no low token anywhere, no variance anywhere
    r = torch.tensor([[1.0, 1.0], [0.0, 0.0]])
    d = group_diagnostics(r, group_advantages(r), torch.ones(2, 2, dtype=torch.bool))
    for key in (
        "reward/mean_low",
        "reward/success_low",
        "group/mode_sep_mean",
        "group/mode_sep_pooled",
        "group/between_frac",
    ):
        assert math.isnan(d[key]), key
    _close(d["group/no_token_diversity_frac"], 1.0)
    _close(d["reward/success_high"], 0.5)


def test_success_prob_override():
    # s = [.5, .9], G = 2: s² + (1-s)² = [.5, .82] ⇒ mean .66
    r = torch.tensor([[0.0, 1.0], [1.0, 1.0]])
    d = group_diagnostics(
        r, group_advantages(r), success_prob=torch.tensor([0.5, 0.9], dtype=torch.float64)
    )
    _close(d["group/zero_var_predicted"], 0.66)


def test_custom_success_and_fail_values():
    # rewards in {-1, +1}: success = +1, fail = -1; a constant 0 group is "other"
    r = torch.tensor([[1.0, 1.0], [-1.0, -1.0], [0.0, 0.0]])
    d = group_diagnostics(r, group_advantages(r), success_value=1.0, fail_value=-1.0)
    assert d["all_success"].tolist() == [True, False, False]
    assert d["all_fail"].tolist() == [False, True, False]
    _close(d["group/zero_var_other_frac"], 1 / 3)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rewards": torch.zeros(4)}, "rewards"),
        ({"rewards": torch.zeros(3, 1), "advantages": torch.zeros(3, 1)}, "G >= 2"),
        ({"rewards": torch.tensor([[0.0, float("nan")]])}, "rewards"),
        ({"advantages": torch.zeros(2, 3)}, "advantages"),
        ({"advantages": torch.tensor([[0.0, float("nan")], [0, 0]])}, "advantages"),
        ({"high": torch.ones(2, 2)}, "high must be a bool"),
        ({"high": torch.ones(2, 3, dtype=torch.bool)}, "high"),
        ({"high": torch.ones(2, 2, dtype=torch.bool), "p": 1.5}, "p must be a probability"),
        ({"p": 0.5}, "p .* needs high"),
        ({"success_value": 0.0}, "success_value and fail_value"),
        ({"success_value": float("nan")}, "success_value"),
        ({"success_prob": torch.tensor([0.5, 1.5])}, "success_prob"),
        ({"success_prob": torch.tensor([0.5])}, "success_prob"),
    ],
)
def test_bad_input_raises_value_error_naming_the_argument(kwargs, match):
    args = {"rewards": torch.zeros(2, 2), "advantages": torch.zeros(2, 2), **kwargs}
    if "rewards" in kwargs and "advantages" not in kwargs:
        args["advantages"] = torch.zeros_like(kwargs["rewards"])
    with pytest.raises(ValueError, match=match):
        group_diagnostics(**args)
