"""Def. 4.1 and Lemma A.2 laws on random reward distributions and policies (hypothesis)."""

import math

import numpy as np
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from analysis.theory import collapse, kl_bound
from analysis.theory.report import bernstein_halfwidth

DELTA = 1e-6  # per-example failure probability of the Monte Carlo half-widths

weights = st.lists(st.floats(0.0, 1.0), min_size=1, max_size=4).filter(lambda w: sum(w) > 1e-3)


def normalise(w):
    w = np.asarray(w, dtype=np.float64)
    return w / w.sum()


@settings(max_examples=40)
@given(w=weights, group_size=st.integers(2, 6))
@example(w=[1.0, 1.0], group_size=5)  # binary s = 1/2, the paper's G
@example(w=[0.0, 1.0], group_size=3)  # s = 1: always collapsed
def test_enumerated_collapse_equals_sum_q_pow_g(w, group_size):
    q = normalise(w)
    values = np.round(np.linspace(0.1, 0.7, q.size), 1)  # 0.1 etc. exercise the float guard
    if q.size**group_size > collapse.MAX_ENUMERATED_GROUPS:
        return
    rewards, probs = collapse.enumerate_groups(values, q, group_size)
    for eps in collapse.EPS_GRID:
        assert collapse.collapse_mismatch_mass(rewards, probs, eps) == 0.0
    constant = (rewards == rewards[:, :1]).all(dim=1).numpy()
    predicted = collapse.collapse_probability(q, group_size)
    assert abs(probs[constant].sum() - predicted) <= 1e-12


@settings(max_examples=20)
@given(s=st.floats(0.0, 1.0), group_size=st.integers(2, 12), seed=st.integers(0, 2**31 - 1))
def test_mc_collapse_frequency(s, group_size, seed):
    gen = torch.Generator().manual_seed(seed)
    ind = collapse.collapse_indicators_mc(
        np.array([0.0, 1.0]), np.array([1 - s, s]), group_size, 4000, gen
    )
    # tolerance: empirical Bernstein half-width for values in [0, 1] at delta = 1e-6
    tol = bernstein_halfwidth(ind, 1.0, DELTA)
    assert abs(ind.mean() - collapse.collapse_probability_binary(s, group_size)) <= tol


@settings(max_examples=60)
@given(
    w=st.lists(st.floats(1e-6, 1.0), min_size=1, max_size=30),
    idx=st.integers(0, 29),
    margin=st.floats(0.0, 5.0),
)
@example(w=[1.0, 1e-6], idx=1, margin=0.0)  # very unlikely optimal action, tight bound
def test_kl_dirac_bound(w, idx, margin):
    pi = normalise(w)
    a_star = idx % pi.size
    kl = kl_bound.kl_dirac(pi, a_star)
    assert math.isclose(kl, -math.log(pi[a_star]), rel_tol=1e-12, abs_tol=1e-15)
    exp_b, lin_b = kl_bound.probability_lower_bounds(kl + margin)
    assert pi[a_star] >= exp_b * (1 - 1e-13)  # equality at margin 0 up to exp(log x) rounding
    assert exp_b >= lin_b
