"""Hypothesis laws of group_advantages (paper §2, Def. 4.1)."""

from __future__ import annotations

import math

import torch
from hypothesis import example, given
from hypothesis import strategies as st

from rcgrpo import group_advantages
from rcgrpo.advantages import ADV_ESTIMATORS

FLOATS = st.floats(-10, 10, allow_nan=False, allow_subnormal=False)
# multiples of 1/4: sums, shifts and power-of-two scalings are exact in float64
GRID = st.integers(-40, 40).map(lambda k: k / 4)


@st.composite
def rewards(draw, values=FLOATS, max_p=5, max_g=8):
    p = draw(st.integers(1, max_p))
    g = draw(st.integers(2, max_g))
    kind = draw(st.sampled_from(["values", "binary"]))
    elems = st.sampled_from([0.0, 1.0]) if kind == "binary" else values
    rows = draw(st.lists(st.lists(elems, min_size=g, max_size=g), min_size=p, max_size=p))
    return torch.tensor(rows, dtype=torch.float64)


def _constant(r: torch.Tensor) -> torch.Tensor:
    return r.amax(dim=1) == r.amin(dim=1)


@given(rewards(), st.sampled_from(list(ADV_ESTIMATORS)), st.sampled_from([0, 1]))
def test_zero_mean_per_group(r, estimator, ddof):
    a = group_advantages(r, estimator, ddof=ddof)
    bound = 1e-12 * (1 + a.abs().amax(dim=1))
    assert bool((a.mean(dim=1).abs() <= bound).all())


@given(rewards(values=GRID), st.integers(-400, 400).map(lambda k: k / 4))
@example(torch.tensor([[0.0, 0.0, 1.0]], dtype=torch.float64), 1e2)
def test_invariant_to_a_reward_shift(r, shift):
    for estimator in ADV_ESTIMATORS:
        torch.testing.assert_close(
            group_advantages(r + shift, estimator),
            group_advantages(r, estimator),
            rtol=1e-9,
            atol=1e-9,
        )


@given(rewards(values=GRID), st.integers(-3, 6).map(lambda k: 2.0**k))
def test_invariant_to_a_positive_scale_when_sigma_dominates_eps(r, scale):
    # exact with eps_stab = 0; with eps_stab = 1e-6 ≪ σ_g (grid ⇒ σ_g ≥ 1/32) within 1e-4
    torch.testing.assert_close(
        group_advantages(r * scale, eps_stab=0.0),
        group_advantages(r, eps_stab=0.0),
        rtol=1e-12,
        atol=1e-12,
    )
    torch.testing.assert_close(
        group_advantages(r * scale), group_advantages(r), rtol=1e-4, atol=1e-4
    )


@given(rewards(), st.sampled_from([0.0, 1e-6]))
@example(torch.tensor([[0.0, 0.0, 0.0, 1.0]], dtype=torch.float64), 0.0)  # |A| = √3 exactly
# found by hypothesis: σ² of rewards 7.6e-231 apart underflowed to 0 ⇒ A = ±inf at eps 0
@example(torch.tensor([[0.0, 7.6386e-231]], dtype=torch.float64), 0.0)
def test_abs_advantage_bounded_by_sqrt_g_minus_1(r, eps_stab):
    g = r.shape[1]
    a = group_advantages(r, eps_stab=eps_stab, ddof=0)
    assert bool((a.abs() <= math.sqrt(g - 1) * (1 + 1e-12)).all())


@given(rewards(), st.sampled_from(list(ADV_ESTIMATORS)), st.sampled_from([0.0, 1e-6]))
@example(torch.tensor([[0.1, 0.1, 0.1]], dtype=torch.float64), "grpo", 0.0)
def test_zero_advantage_iff_constant_group(r, estimator, eps_stab):
    a = group_advantages(r, estimator, eps_stab=eps_stab)
    assert torch.equal((a == 0).all(dim=1), _constant(r))


@given(rewards())
def test_ddof_one_is_ddof_zero_times_sqrt_g_minus_1_over_g(r):
    # σ_ddof1 = σ_ddof0 · sqrt(G/(G-1)) ⇒ A_ddof1 = A_ddof0 · sqrt((G-1)/G) (eps_stab = 0)
    g = r.shape[1]
    a0 = group_advantages(r, eps_stab=0.0, ddof=0)
    a1 = group_advantages(r, eps_stab=0.0, ddof=1)
    torch.testing.assert_close(a1, a0 * math.sqrt((g - 1) / g), rtol=1e-9, atol=1e-9)
