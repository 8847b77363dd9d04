"""Comparison / StatementResult semantics and the Monte Carlo half-widths."""

import math

import numpy as np
import pytest

from analysis.theory.report import (
    Comparison,
    StatementResult,
    bernstein_halfwidth,
    hoeffding_halfwidth,
)


def test_slack_signs():
    # ">=": slack = true - predicted; "<=": predicted - true; "==": -|diff|
    assert Comparison("q", ">=", 0.2, 0.25, 0.0, "exact").slack == pytest.approx(0.05)
    assert Comparison("q", "<=", 0.2, 0.25, 0.0, "exact").slack == pytest.approx(-0.05)
    assert Comparison("q", "==", 0.2, 0.25, 0.0, "exact").slack == pytest.approx(-0.05)


def test_violation_uses_tolerance_and_nan_is_violated():
    assert not Comparison("q", "==", 1.0, 1.0 + 1e-13, 1e-12, "exact").violated
    assert Comparison("q", "==", 1.0, 1.0 + 1e-11, 1e-12, "exact").violated
    assert Comparison("q", ">=", 0.0, float("nan"), 1.0, "exact").violated


def test_bad_relation_rejected():
    with pytest.raises(ValueError, match="relation"):
        Comparison("q", ">", 0.0, 0.0, 0.0, "exact")


def test_result_status_and_worst():
    res = StatementResult("x", "title")
    res.add("a", ">=", 0.0, 0.5, 0.0, "exact", {})
    res.add("b", ">=", 0.0, 0.1, 0.0, "exact", {})
    res.add("c", ">=", 0.0, -0.2, 0.3, "monte carlo", {})  # within tol, ignored for worst
    assert res.status == "ok"
    assert res.worst_bound().quantity == "b"
    res.add("d", "==", 1.0, 2.0, 0.5, "exact", {})
    assert res.status == "VIOLATED" and len(res.violations) == 1
    d = res.to_dict()
    assert d["violations"] == 1 and d["max_err_over_tol"] == pytest.approx(2.0)


def test_hoeffding_value():
    # b sqrt(ln(2/delta)/(2n)) with b = 1, n = 100, delta = 0.05: sqrt(ln 40 / 200) = 0.1358
    assert hoeffding_halfwidth(100, 1.0, 0.05) == pytest.approx(math.sqrt(math.log(40) / 200))


def test_bernstein_never_wider_than_hoeffding_and_small_for_low_variance():
    rng = np.random.default_rng(0)
    x = rng.random(1000)
    assert bernstein_halfwidth(x, 1.0) <= hoeffding_halfwidth(1000, 1.0)
    low_var = np.full(10_000, 0.5) + 1e-4 * rng.standard_normal(10_000)
    assert bernstein_halfwidth(low_var, 1.0) < 0.2 * hoeffding_halfwidth(10_000, 1.0)
