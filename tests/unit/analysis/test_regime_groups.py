"""Group statistics of the regime's verdicts (analysis/verdicts/groups.py): the within/between
split, informative and collapsed groups by hand, and equality with the trainer's logged
metrics on a committed run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.runs import load_run
from analysis.verdicts import groups as rg

RUN = Path(__file__).resolve().parents[3] / "results" / "campaign" / "cpu-rcgrpo-s0"


def rows(step, prompt, goals, rewards, round_=0):
    return [
        {
            "step": step,
            "round": round_,
            "prompt": prompt,
            "group": j,
            "reward_token": g,
            "reward": r,
        }
        for j, (g, r) in enumerate(zip(goals, rewards, strict=True))
    ]


HHLL = ["high", "high", "low", "low"]
TABLE = pd.DataFrame(
    rows(1, 0, HHLL, [1, 0, 0, 0])
    + rows(1, 1, HHLL, [1, 1, 0, 0])
    + rows(2, 0, ["high", "low", "low", "low"], [0, 0, 0, 0])
    + rows(0, 0, HHLL, [1, 0, 1, 0])  # step 0: not training
    + rows(2, 0, HHLL, [1, 0, 1, 0], round_=1)  # a resampled round: not counted
)


def test_group_table_by_hand():
    g = rg.group_table(TABLE).set_index(["step"]).reset_index()
    assert len(g) == 3
    first, second, third = (g.iloc[i] for i in range(3))
    # group 1: high {1, 0} (μ .5, Σ dev² .5), low {0, 0}: within .5/4 = .125;
    # μ_g = .25, σ² = (.75² + 3·.25²)/4 = .1875, between = .1875 − .125 = .0625
    # (= Σ n_c(μ_c − μ_g)²/G = (2·.0625 + 2·.0625)/4)
    assert (first.var_within, first.var_total, first.var_between) == pytest.approx(
        (0.125, 0.1875, 0.0625)
    )
    assert first.informative and not first.collapsed and first.n_high == 2
    # group 2: high {1, 1}, low {0, 0}: only between-goal variance .25, not informative
    assert (second.var_within, second.var_total, second.var_between) == pytest.approx(
        (0.0, 0.25, 0.25)
    )
    assert not second.informative and not second.collapsed
    # group 3: every reward 0: collapsed, one high goal
    assert third.collapsed and not third.informative and third.n_high == 1
    assert third.var_total == 0


def test_shares_by_hand():
    g = rg.group_table(TABLE)
    assert rg.collapse_share(g) == pytest.approx(1 / 3)
    assert rg.informative_share(g) == pytest.approx(1 / 3)
    assert rg.within_variance(g) == pytest.approx(0.125 / 3)
    assert rg.high_share(g) == pytest.approx(5 / 12)  # (2 + 2 + 1) / 12 rollouts
    assert rg.exact_half_share(g) == pytest.approx(2 / 3)


def test_no_token_is_one_class():
    # GRPO: reward_token None everywhere; informative = not collapsed, within = total
    t = pd.DataFrame(rows(1, 0, [None] * 4, [1, 0, 0, 0]) + rows(1, 1, [None] * 4, [1] * 4))
    g = rg.group_table(t)
    assert list(g.informative) == [True, False]
    assert list(g.var_within) == pytest.approx(list(g.var_total))
    assert rg.high_share(g) == 0


def test_spread_range_by_hand():
    # spread 1/σ = G/√(k(G−k)); G 5: k = 2 -> 5/√6 = 2.041, k = 1 -> 5/2 = 2.5
    assert rg.spread_range(5) == pytest.approx((5 / 6**0.5, 2.5))
    # G 8: k = 4 -> 8/4 = 2, k = 1 -> 8/√7 = 3.024
    assert rg.spread_range(8) == pytest.approx((2.0, 8 / 7**0.5))
    # z = .5 at G 8: the mean spread must lie in [1, 1.512]
    inside = rg.spread_in_range(np.array([1.1, 1.55, 0.99]), np.array([0.5] * 3), 8)
    assert list(inside) == [True, False, False]


def test_matches_the_trainers_logged_metrics():
    """On a committed RC-GRPO run the table recomputes the logged per-step statistics."""
    run = load_run(RUN)
    g = rg.group_table(run.rollouts)
    m = run.metrics[run.metrics.step >= 1]
    assert len(g) == 8 * len(m)  # 8 prompts a step
    assert rg.collapse_share(g) == pytest.approx(m["group/zero_var_frac"].mean())
    assert rg.within_variance(g) == pytest.approx(m["group/var_within_mean"].mean())
    assert g.var_total.mean() == pytest.approx(m["group/var_mean"].mean())
