"""analysis.inference: the t p-value, Holm, TOST and the learning-speed area, on hand-worked
cases (the derivation in each comment) and their laws."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from scipy import stats as _st

from analysis.inference import area_under_curve, holm, t_pvalue, tost_pvalue

BIG_DF = 1e9  # t with this many df is the normal to ~1e-9


def test_t_pvalue_is_the_normal_two_sided_tail_at_large_df():
    # |1.959964 - 0| / 1 = z_0.975 -> p = 2 (1 - 0.975) = 0.05
    assert t_pvalue(1.959964, 1.0, BIG_DF) == pytest.approx(0.05, abs=1e-6)
    # against θ = 0.5: |0.5 - 0.5| = 0 -> p = 1
    assert t_pvalue(0.5, 0.1, 7, theta=0.5) == pytest.approx(1.0)


def test_t_pvalue_matches_the_interval_decision():
    # the 95% interval 0.03 ± t_{0.975,4} 0.01 excludes 0 (t = 3 > 2.776) -> p < 0.05;
    # at se 0.012, t = 2.5 < 2.776 -> p > 0.05
    assert t_pvalue(0.03, 0.010, 4) < 0.05 < t_pvalue(0.03, 0.012, 4)


def test_holm_on_a_hand_worked_family():
    # sorted 0.01, 0.03, 0.04 with m = 3: 3 * 0.01 = 0.03; 2 * 0.03 = 0.06;
    # 1 * 0.04 = 0.04 -> raised to the running maximum 0.06 (step-down monotone)
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    # NaN kept and not counted: m = 2 -> 2 * 0.02 = 0.04, then 1 * 0.6 = 0.6
    out = holm([0.6, math.nan, 0.02])
    assert out[0] == pytest.approx(0.6) and math.isnan(out[1]) and out[2] == pytest.approx(0.04)
    # capped at 1: 2 * 0.6 = 1.2 -> 1, and the next is raised to it
    assert holm([0.7, 0.6]) == [1.0, 1.0]


def test_holm_is_not_bonferroni_nor_unadjusted():
    # Bonferroni would give 3 * 0.03 = 0.09 for the second; unadjusted 0.03
    assert holm([0.01, 0.03, 0.5])[1] == pytest.approx(0.06)


def test_holm_rejects_an_impossible_p():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        holm([0.2, 1.5])


@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=12))
@example([0.04, 0.01, 0.03])
def test_holm_laws(ps):
    adj = holm(ps)
    # never below the raw p, never above Bonferroni, and order-preserving
    for p, a in zip(ps, adj, strict=True):
        assert p - 1e-15 <= a <= min(1.0, len(ps) * p) + 1e-15
    for i in range(len(ps)):
        for j in range(len(ps)):
            if ps[i] < ps[j]:
                assert adj[i] <= adj[j] + 1e-15


def test_tost_at_the_margin_of_a_normal():
    # est 0, se 1, m = z_0.95 = 1.644854: p- = 1 - Φ(1.6449) = 0.05 = p+ -> 0.05
    assert tost_pvalue(0.0, 1.0, BIG_DF, 1.644854) == pytest.approx(0.05, abs=1e-6)


def test_tost_against_scipy_one_sided_tests():
    # est 0.01, se 0.01, df 10, m 0.05: t- = (0.01 + 0.05) / 0.01 = 6, t+ = (0.01 - 0.05)
    # / 0.01 = -4 -> p = max(sf(6), cdf(-4)) = sf(4, 10), the nearer margin
    p = tost_pvalue(0.01, 0.01, 10, 0.05)
    assert p == pytest.approx(float(_st.t.sf(4.0, 10)))
    assert p == pytest.approx(0.001259, rel=1e-3)  # t table, 10 df, t = 4


def test_tost_is_not_equivalent_when_the_estimate_sits_at_the_margin():
    # est = m -> t+ = 0 -> p+ = 0.5 whatever the se
    assert tost_pvalue(0.05, 0.001, 30, 0.05) == pytest.approx(0.5)


@given(
    st.floats(-0.2, 0.2),
    st.floats(0.001, 0.1),
    st.floats(2.0, 500.0),
    st.floats(0.005, 0.2),
)
def test_tost_decision_is_the_90_interval_inside_the_margin(est, se, df, m):
    half = float(_st.t.ppf(0.95, df)) * se
    inside = -m < est - half and est + half < m
    p = tost_pvalue(est, se, df, m)
    if abs(p - 0.05) > 1e-9:
        assert (p < 0.05) == inside


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="se"):
        t_pvalue(0.1, 0.0, 4)
    with pytest.raises(ValueError, match="margin"):
        tost_pvalue(0.1, 0.1, 4, 0.0)
    with pytest.raises(ValueError, match="after"):
        area_under_curve({25: 1.0}, 175, 25)


def test_area_under_a_hand_made_curve():
    # steps 25, 50, 75 lie in [25, 175]: (0.5 + 0.7 + 0.8) / 3 = 0.6667; 0 and 200 do not
    curve = {0: 0.2, 25: 0.5, 50: 0.7, 75: 0.8, 200: 0.9}
    assert area_under_curve(curve, 25, 175) == pytest.approx(2.0 / 3.0)
    assert math.isnan(area_under_curve(curve, 100, 175))
