"""Held-out success paired by task and seed (analysis/paired_design.py): the two-way
estimate, its Satterthwaite df, the MDE and the plan, on matrices worked by hand."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from analysis.paired_design import (
    Components,
    mde,
    paired,
    plan,
    plan_largest,
    planned,
    planned_mde,
)

Z = stats.norm.ppf(0.975) + stats.norm.ppf(0.80)  # 1.959964 + 0.841621 = 2.801585


def test_two_way_by_hand():
    # d (S = 2 seeds x T = 4 tasks)   task means (0.5, 0, 1, 0.5), seed means (0.75, 0.25),
    #   1 0 1 1                       grand mean 0.5
    #   0 0 1 0
    # MS_A = S·Σ(task − grand)²/(T−1) = 2·(0 + .25 + .25 + 0)/3 = 1/3
    # MS_B = T·Σ(seed − grand)²/(S−1) = 4·(.0625 + .0625)/1 = 1/2
    # residuals ±.25 in all 8 cells: Σ r² = .5, df (T−1)(S−1) = 3, MS_E = 1/6
    # both MS_A, MS_B > MS_E: SE² = (1/3 + 1/2 − 1/6)/8 = 1/12
    # ν = (2/3)² / ((1/3)²/3 + (1/2)²/1 + (1/6)²/3) = (4/9) / (32/108) = 1.5
    p = paired([[1, 0, 1, 1], [0, 0, 1, 0]])
    assert p.mean == pytest.approx(0.5)
    assert p.se == pytest.approx(math.sqrt(1 / 12))
    assert p.df == pytest.approx(1.5)
    # components: σ_a² = (1/3 − 1/6)/2 = 1/12, σ_b² = (1/2 − 1/6)/4 = 1/12, σ_e² = 1/6;
    # σ_a²/T + σ_b²/S + σ_e²/(TS) = 1/48 + 1/24 + 1/48 = 1/12 = SE²
    c = p.components
    assert (c.task, c.seed, c.resid) == pytest.approx((1 / 12, 1 / 12, 1 / 6))
    half = stats.t.ppf(0.975, 1.5) * math.sqrt(1 / 12)
    assert p.interval == pytest.approx((0.5 - half, 0.5 + half))
    assert p.mde == pytest.approx((stats.t.ppf(0.975, 1.5) + stats.t.ppf(0.8, 1.5)) / 12**0.5)


def test_truncated_seed_component():
    # d = [[1, 0], [1, 0]]: MS_A = 2·(.25 + .25)/1 = 1, MS_B = 0, MS_E = 0
    # c_A = 1, c_B = 0 (0 > 0 is false), c_E = 0: SE² = 1/4, ν = 1² / (1²/1) = 1
    p = paired([[1, 0], [1, 0]])
    assert (p.mean, p.se, p.df) == pytest.approx((0.5, 0.5, 1.0))
    assert p.components == Components(0.5, 0.0, 0.0)


def test_constant_contrast_has_zero_width():
    p = paired([[1, 1, 1], [1, 1, 1], [1, 1, 1]])
    assert p.se == 0 and math.isinf(p.df) and p.interval == (1.0, 1.0)


def test_shape_checks():
    with pytest.raises(ValueError, match="S >= 2"):
        paired([[1, 0, 1]])
    with pytest.raises(ValueError, match="finite"):
        paired([[1, math.nan], [0, 1]])


def test_mde_normal_limit():
    # ν = ∞: (z_0.975 + z_0.80)·SE = 2.801585 · 0.01
    assert mde(0.01, math.inf) == pytest.approx(0.02801585, rel=1e-6)
    assert mde(0.01, 2) == pytest.approx((4.302653 + 1.060660) * 0.01, rel=1e-5)


def test_planned_residual_only():
    # σ_e² = .25 only: E[MS] = (.25, .25, .25), c = (0, 0, 1): SE² = .25/(100·4) -> SE .025,
    # ν = (T−1)(S−1) = 297
    se, df = planned(Components(0.0, 0.0, 0.25), 100, 4)
    assert (se, df) == pytest.approx((0.025, 297))
    assert planned_mde(Components(0.0, 0.0, 0.25), 100, 4) == pytest.approx(
        (stats.t.ppf(0.975, 297) + stats.t.ppf(0.8, 297)) * 0.025
    )


def test_plan_by_hand():
    # σ_e² = .25, S = 3: MDE ≈ 2.806·√(.25/(3T)); T = 250: 2.806·.018257 = .0512 > .05;
    # T = 300: 2.806·.016667 = .0468 ≤ .05 -> 300 on the 50-task grid
    assert plan(Components(0.0, 0.0, 0.25), seeds=(3,)) == {3: 300}
    # a seed component σ_b² = .01 floors SE at √(.01/5) = .0447: MDE > .05 for any T
    assert plan(Components(0.0, 0.01, 0.25), seeds=(5,)) == {5: None}
    # more seeds never need more tasks here
    need = plan(Components(0.0, 0.0, 0.25))
    assert need[5] <= need[4] <= need[3]


def test_plan_largest_keeps_the_worst_pilot():
    # pilot 1 needs 300 tasks at 3 seeds (above); σ_e² = .5 doubles SE² -> about 600;
    # a seed floor makes the 5-seed entry None
    small, big = Components(0.0, 0.0, 0.25), Components(0.0, 0.0, 0.5)
    both = plan_largest([small, big], seeds=(3,))
    assert both == {3: plan(big, seeds=(3,))[3]} and both[3] > 300
    assert plan_largest([small, Components(0.0, 0.01, 0.25)], seeds=(5,)) == {5: None}
