"""Laws of the transfer model (analysis/theory/transfer.py; hypothesis, exact enumeration)."""

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from analysis.theory.transfer import (
    composition_term,
    goal_coefficients,
    group_moments,
    learning_speed,
    mixture_success,
)

probs = st.floats(0.02, 0.98)
sizes = st.integers(2, 7)


@settings(max_examples=40, deadline=None)
@given(s_h=probs, s_l=probs, size=sizes, p=st.floats(0.05, 0.95))
def test_bernoulli_mixture_identity(s_h, s_l, size, p):
    m, bar = group_moments(s_h, s_l, size, p), mixture_success(s_h, s_l, p)
    assert m["zero_var"] == pytest.approx(bar**size + (1 - bar) ** size, abs=1e-12)
    assert m["var"] == pytest.approx((size - 1) / size * bar * (1 - bar), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(s=probs, size=sizes, p=st.floats(0.05, 0.95), noise=st.booleans())
def test_rho_one_on_one_policy_is_grpo_at_g(s, size, p, noise):
    rc = learning_speed("rc_grpo", s, s, 1.0, size, p, noise=noise)
    grpo = learning_speed("rctp_grpo", s, s, 1.0, size, p, noise=noise)
    assert rc == pytest.approx(grpo, rel=1e-9, abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(s_h=probs, s_l=probs, size=sizes)
def test_rho_zero_is_within_goal_grpo_plus_composition(s_h, s_l, size):
    from scipy.stats import binom

    within = sum(
        binom.pmf(n, size, 0.5)
        * n
        / size
        * goal_coefficients("grpo_n", s_h, s_l, size, n_high=n)["c_h"]
        for n in range(1, size + 1)
    )
    dh = s_h * (1 - s_h)
    rc = learning_speed("rc_grpo", s_h, s_l, 0.0, size, 0.5)[0]
    assert rc == pytest.approx(dh * dh * (within + composition_term(s_h, s_l, size)), rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(s_h=st.floats(0.03, 0.49), gap=st.floats(0.01, 0.4), rho=st.floats(0.0, 1.0))
@example(s_h=0.4999, gap=0.0717, rho=1.0)  # the check's tightest setting (slack 8e-4 at p 0.6)
def test_no_gain_where_the_low_goal_is_further_from_half(s_h, gap, rho):
    s_l = s_h - gap
    assume(s_l > 0.01)
    rc = learning_speed("rc_grpo", s_h, s_l, rho)[0]
    grpo = learning_speed("rctp_grpo", s_h, s_l, rho)[0]
    assert rc <= grpo


@settings(max_examples=30, deadline=None)
@given(s_h=probs, s_l=probs, rho=st.floats(0.0, 1.0))
def test_speed_is_monotone_in_transfer(s_h, s_l, rho):
    # the low goal's update pushes the high goal forward (c_l ≥ 0): more coupling, more speed
    lo = learning_speed("rc_grpo", s_h, s_l, rho)[0]
    hi = learning_speed("rc_grpo", s_h, s_l, min(1.0, rho + 0.1))[0]
    assert hi >= lo - 1e-15
