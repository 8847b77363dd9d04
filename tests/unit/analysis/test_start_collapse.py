"""The start's collapse (``analysis.diagnostics.transfer.start_collapse``): hand-computed
cases, unbiasedness by exact enumeration, Jensen's sign, and the bootstrap interval."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from analysis.diagnostics.transfer.start_collapse import (
    all_fail_share,
    start_collapse,
    zero_var_share,
)
from analysis.theory.collapse import collapse_probability_binary


def test_hand_computed_shares():
    # K 8, G 5: 3 successes leave one all-fail 5-subset of the 5 failures among C(8, 5) = 56
    assert zero_var_share(3, 8, 5) == pytest.approx(1 / 56)
    assert all_fail_share(3, 8, 5) == pytest.approx(1 / 56)
    assert zero_var_share(6, 8, 5) == pytest.approx(6 / 56) and all_fail_share(6, 8, 5) == 0
    assert zero_var_share(0, 8, 5) == zero_var_share(8, 8, 5) == 1.0
    assert zero_var_share(4, 8, 5) == 0.0  # 4 and 4: every 5-subset mixes
    assert zero_var_share(1, 5, 5) == 0.0 and zero_var_share(0, 5, 5) == 1.0  # K = G


@pytest.mark.parametrize(("samples", "group"), [(8, 5), (5, 5), (10, 2), (7, 3)])
@pytest.mark.parametrize("s", [0.0, 0.07, 0.3, 0.5, 0.91, 1.0])
def test_unbiased_for_the_iid_formula_by_exact_enumeration(samples, group, s):
    """E[U] over k ~ Binomial(K, s) equals s^G + (1 − s)^G (Def. 4.1)."""
    mean = sum(
        comb(samples, k) * s**k * (1 - s) ** (samples - k) * zero_var_share(k, samples, group)
        for k in range(samples + 1)
    )
    assert mean == pytest.approx(collapse_probability_binary(s, group), abs=1e-12)


def test_bad_sizes_are_one_clear_error():
    for args in [(9, 8, 5), (-1, 8, 5), (3, 8, 9), (3, 8, 1)]:
        with pytest.raises(ValueError, match="need 0 <= k <= K"):
            zero_var_share(*args)


def test_identical_tasks_give_observed_near_predicted_and_mixed_tasks_exceed_it():
    """Homogeneous tasks: observed − predicted has mean ≈ 0 (only s̄'s plug-in differs);
    tasks at s = 0 and s = 1 half each: observed 1, predicted (½)^5 · 2, the Jensen gap."""
    rng = np.random.default_rng(0)
    diffs = [start_collapse(rng.binomial(8, 0.4, 50), 8, 5, seed=i)["diff"] for i in range(200)]
    assert abs(np.mean(diffs)) < 0.01
    out = start_collapse([0, 8] * 25, 8, 5, seed=1)
    assert out["observed"] == 1.0 and out["predicted"] == pytest.approx(2 / 32)
    assert out["diff"] == pytest.approx(1 - 2 / 32) and out["all_fail"] == 0.5
    lo, hi = out["ci"]
    assert lo <= out["diff"] <= hi and lo > 0.5
    assert (out["n"], out["samples"], out["group"], out["success"]) == (50, 8, 5, 0.5)


def test_the_interval_is_seeded_and_covers_a_mixed_sample():
    k = np.random.default_rng(3).choice([0, 2, 5, 8], 60)
    a, b = start_collapse(k, 8, 5, seed=7), start_collapse(k, 8, 5, seed=7)
    assert a == b and a["ci"][0] < a["diff"] < a["ci"][1]
    with pytest.raises(ValueError, match="n >= 2"):
        start_collapse([3], 8, 5)
