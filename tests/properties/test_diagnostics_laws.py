"""Hypothesis laws of group_diagnostics (law of total variance, collapse accounting)."""

from __future__ import annotations

import torch
from hypothesis import example, given
from hypothesis import strategies as st

from rcgrpo import group_advantages, group_diagnostics


@st.composite
def batch(draw, max_p=6, max_g=8):
    """rewards [P, G] (binary, a small grid or floats) and bool tokens [P, G]."""
    p = draw(st.integers(1, max_p))
    g = draw(st.integers(2, max_g))
    elems = draw(
        st.sampled_from(
            [
                st.sampled_from([0.0, 1.0]),
                st.sampled_from([0.0, 0.5, 1.0]),
                # rounded: values 1e-300 apart would underflow σ_g² to 0 (float limit)
                st.floats(-5, 5, allow_nan=False).map(lambda x: round(x, 6)),
            ]
        )
    )
    cells = st.lists(st.tuples(elems, st.booleans()), min_size=g, max_size=g)
    rows = draw(st.lists(cells, min_size=p, max_size=p))
    rewards = torch.tensor([[v for v, _ in row] for row in rows], dtype=torch.float64)
    high = torch.tensor([[h for _, h in row] for row in rows], dtype=torch.bool)
    return rewards, high


def _diag(rewards, high, **kwargs):
    return group_diagnostics(rewards, group_advantages(rewards), high, **kwargs)


@given(batch())
@example(
    (
        torch.tensor([[1.0, 0.0, 1.0, 0.0]], dtype=torch.float64),
        torch.tensor([[True, False, True, False]]),
    ),
)
def test_variance_split_sums_to_total(inputs):
    # Lemma A.3 per group: σ_g² = Σ_c n_c/G var_c + Σ_c n_c/G (μ_c - μ_g)², both parts >= 0
    rewards, high = inputs
    d = _diag(rewards, high)
    scale = 1 + rewards.abs().amax() ** 2
    torch.testing.assert_close(
        d["var_within"] + d["var_between"], d["reward_var"], rtol=0, atol=1e-12 * scale
    )
    assert bool((d["var_within"] >= 0).all()) and bool((d["var_between"] >= 0).all())
    torch.testing.assert_close(
        d["group/var_within_mean"] + d["group/var_between_mean"],
        d["group/var_mean"],
        rtol=0,
        atol=1e-12 * scale,
    )


@given(batch())
def test_variance_is_the_population_variance(inputs):
    rewards, high = inputs
    d = _diag(rewards, high)
    torch.testing.assert_close(d["reward_var"], rewards.var(dim=1, correction=0))
    assert torch.equal(d["reward_var"] == 0, d["zero_var"])


@given(batch())
def test_collapse_accounting(inputs):
    rewards, high = inputs
    d = _diag(rewards, high)
    parts = (
        d["group/zero_var_success_frac"]
        + d["group/zero_var_fail_frac"]
        + d["group/zero_var_other_frac"]
    )
    torch.testing.assert_close(parts, d["group/zero_var_frac"])
    # a collapsed group has zero advantage spread, a live one a positive spread
    assert torch.equal(d["adv_gap"] == 0, d["zero_var"])
    # plug-in prediction: each collapsed group contributes 1 to both ⇒ predicted ≥ observed
    assert d["group/zero_var_predicted"] >= d["group/zero_var_frac"] - 1e-12
    # Jensen: s ↦ s^G + (1-s)^G is convex ⇒ the pooled prediction is the smaller one
    assert d["group/zero_var_predicted_pooled"] <= d["group/zero_var_predicted"] + 1e-12


@given(batch())
def test_mode_separation_defined_iff_both_tokens(inputs):
    rewards, high = inputs
    d = _diag(rewards, high)
    assert torch.equal(~torch.isnan(d["mode_sep"]), d["token_diverse"])
    n_high = high.sum(dim=1)
    assert torch.equal(d["n_high"], n_high.to(torch.float64))
    # a group without token diversity has no between-token variance
    assert bool((d["var_between"][~d["token_diverse"]] == 0).all())


@given(batch(), st.floats(0, 1))
def test_theory_keys(inputs, p):
    rewards, high = inputs
    g = rewards.shape[1]
    d = _diag(rewards, high, p=p)
    kappa = (g - 1) / g * p * (1 - p)
    torch.testing.assert_close(d["theory/kappa"], torch.tensor(kappa, dtype=torch.float64))
    torch.testing.assert_close(
        d["theory/no_token_diversity_predicted"],
        torch.tensor(p**g + (1 - p) ** g, dtype=torch.float64),
    )
