"""Vectorised group_diagnostics == a slow per-group pure-Python loop."""

from __future__ import annotations

import math

import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rcgrpo import group_advantages, group_diagnostics
from rcgrpo.advantages import ADV_ESTIMATORS

NAN = float("nan")


def _mean(xs):
    return sum(xs) / len(xs) if xs else NAN


def _pvar(xs):
    mu = _mean(xs)
    return sum((x - mu) ** 2 for x in xs) / len(xs) if xs else 0.0


def _quantile(xs, q):
    """Linear interpolation between order statistics (numpy/torch default)."""
    s = sorted(xs)
    pos = q * (len(s) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def _one_group(r, a, h):
    """Every per-group quantity from plain Python lists of one group."""
    g = len(r)
    const = max(r) == min(r)
    hi = [x for x, t in zip(r, h, strict=True) if t]
    lo = [x for x, t in zip(r, h, strict=True) if not t]
    s = sum(x == 1.0 for x in r) / g
    out = {
        "adv_gap": max(a) - min(a),
        "reward_mean": _mean(r),
        "reward_var": 0.0 if const else _pvar(r),
        "zero_var": const,
        "all_success": const and r[0] == 1.0,
        "all_fail": const and r[0] == 0.0,
        "success_rate": s,
        "zero_var_predicted": s**g + (1 - s) ** g,
        "n_high": float(len(hi)),
        "mean_high": _mean(hi),
        "mean_low": _mean(lo),
        "success_high": _mean([float(x == 1.0) for x in hi]),
        "success_low": _mean([float(x == 1.0) for x in lo]),
        "token_diverse": bool(hi) and bool(lo),
    }
    out["reward_std"] = math.sqrt(out["reward_var"])
    out["mode_sep"] = out["mean_high"] - out["mean_low"]
    mu = out["reward_mean"]
    within = (len(hi) * _pvar(hi) + len(lo) * _pvar(lo)) / g
    between = sum(len(c) * (_mean(c) - mu) ** 2 for c in (hi, lo) if c) / g
    out["var_within"] = 0.0 if const else within
    out["var_between"] = 0.0 if const else between
    return out


def slow_diagnostics(rewards, advantages, high, p):
    groups = [
        _one_group(r, a, h)
        for r, a, h in zip(rewards.tolist(), advantages.tolist(), high.tolist(), strict=True)
    ]
    per = {k: [gr[k] for gr in groups] for k in groups[0]}
    flat_r = [x for row in rewards.tolist() for x in row]
    flat_h = [t for row in high.tolist() for t in row]
    r_hi = [x for x, t in zip(flat_r, flat_h, strict=True) if t]
    r_lo = [x for x, t in zip(flat_r, flat_h, strict=True) if not t]
    seps = [m for m, ok in zip(per["mode_sep"], per["token_diverse"], strict=True) if ok]
    total_var = sum(per["reward_var"])
    g = rewards.shape[1]
    kappa = (g - 1) / g * p * (1 - p)
    out = {
        "reward/mean": _mean(flat_r),
        "reward/success_rate": _mean([float(x == 1.0) for x in flat_r]),
        "adv/gap_mean": _mean(per["adv_gap"]),
        "adv/gap_min": min(per["adv_gap"]),
        "adv/gap_max": max(per["adv_gap"]),
        "group/var_mean": _mean(per["reward_var"]),
        "group/var_p50": _quantile(per["reward_var"], 0.5),
        "group/var_p90": _quantile(per["reward_var"], 0.9),
        "group/std_mean": _mean(per["reward_std"]),
        "group/std_p50": _quantile(per["reward_std"], 0.5),
        "group/std_p90": _quantile(per["reward_std"], 0.9),
        "group/zero_var_frac": _mean([float(z) for z in per["zero_var"]]),
        "group/zero_var_success_frac": _mean([float(z) for z in per["all_success"]]),
        "group/zero_var_fail_frac": _mean([float(z) for z in per["all_fail"]]),
        "group/zero_var_other_frac": _mean(
            [
                float(z and not (s or f))
                for z, s, f in zip(
                    per["zero_var"], per["all_success"], per["all_fail"], strict=True
                )
            ]
        ),
        "group/zero_var_predicted": _mean(per["zero_var_predicted"]),
        "group/zero_var_predicted_pooled": (
            _mean([float(x == 1.0) for x in flat_r]) ** len(rewards[0])
            + (1 - _mean([float(x == 1.0) for x in flat_r])) ** len(rewards[0])
        ),
        "reward/high_frac": _mean([float(t) for t in flat_h]),
        "reward/mean_high": _mean(r_hi),
        "reward/mean_low": _mean(r_lo),
        "reward/success_high": _mean([float(x == 1.0) for x in r_hi]),
        "reward/success_low": _mean([float(x == 1.0) for x in r_lo]),
        "group/mode_sep_mean": _mean(seps),
        "group/mode_sep_pooled": _mean(r_hi) - _mean(r_lo),
        "group/var_within_mean": _mean(per["var_within"]),
        "group/var_between_mean": _mean(per["var_between"]),
        "group/between_frac": sum(per["var_between"]) / total_var if total_var > 0 else NAN,
        "group/no_token_diversity_frac": _mean([float(not d) for d in per["token_diverse"]]),
        "theory/kappa": kappa,
        "theory/var_bound_iid": kappa * (_mean(r_hi) - _mean(r_lo)) ** 2,
        "theory/no_token_diversity_predicted": p**g + (1 - p) ** g,
    }
    return per, out


@st.composite
def batch(draw):
    p = draw(st.integers(1, 7))
    g = draw(st.integers(2, 7))
    values = draw(st.sampled_from([(0.0, 1.0), (0.0, 0.5, 1.0), (0.0, 0.25, 0.7, 1.0, 2.0)]))
    rewards = draw(
        st.lists(st.lists(st.sampled_from(values), min_size=g, max_size=g), min_size=p, max_size=p)
    )
    high = draw(st.lists(st.lists(st.booleans(), min_size=g, max_size=g), min_size=p, max_size=p))
    estimator = draw(st.sampled_from(list(ADV_ESTIMATORS)))
    return (
        torch.tensor(rewards, dtype=torch.float32),
        torch.tensor(high),
        estimator,
        draw(st.floats(0, 1)),
    )


@settings(max_examples=120)
@given(batch())
@example((torch.tensor([[1.0, 1.0], [0.0, 0.0]]), torch.ones(2, 2, dtype=torch.bool), "grpo", 0.5))
def test_vectorised_equals_loop(inputs):
    rewards, high, estimator, p = inputs
    adv = group_advantages(rewards, estimator)
    fast = group_diagnostics(rewards, adv, high, p=p)
    per, summary = slow_diagnostics(rewards.double(), adv.double(), high, p)
    assert set(fast) == set(per) | set(summary)
    for key, values in {**per, **summary}.items():
        expected = torch.tensor(values, dtype=fast[key].dtype)
        torch.testing.assert_close(
            fast[key],
            expected,
            equal_nan=True,
            rtol=1e-12,
            atol=1e-12,
            msg=lambda m, key=key: f"{key}: {m}",
        )
