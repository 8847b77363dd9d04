"""Def. 4.1: hand-computed collapse probabilities and the floating-point counterexample."""

import numpy as np
import pytest
import torch

from analysis.theory import collapse


def test_binary_collapse_probability_paper_setting():
    # s = 1/2, G = 5: 2 * (1/2)^5 = 1/16
    assert collapse.collapse_probability_binary(0.5, 5) == pytest.approx(0.0625, abs=1e-15)
    # s = 0.9, G = 5: 0.9^5 + 0.1^5 = 0.59049 + 0.00001
    assert collapse.collapse_probability_binary(0.9, 5) == pytest.approx(0.5905, abs=1e-12)


def test_finite_distribution_collapse_probability():
    # q = (0.2, 0.3, 0.5), G = 2: 0.04 + 0.09 + 0.25 = 0.38
    assert collapse.collapse_probability(np.array([0.2, 0.3, 0.5]), 2) == pytest.approx(0.38)


def test_enumeration_matches_closed_form_and_guard_is_exact():
    values, q = np.array([0.0, 0.1, 0.7]), np.array([0.2, 0.3, 0.5])
    rewards, probs = collapse.enumerate_groups(values, q, 3)
    assert rewards.shape == (27, 3) and probs.sum() == pytest.approx(1.0)
    for eps in collapse.EPS_GRID:
        assert collapse.collapse_mismatch_mass(rewards, probs, eps) == 0.0
    constant = (rewards == rewards[:, :1]).all(dim=1).numpy()
    assert probs[constant].sum() == pytest.approx(0.2**3 + 0.3**3 + 0.5**3, abs=1e-15)


def test_naive_formula_counterexample():
    # float64 mean of (0.1, 0.1, 0.1) is 0.1 + 1.4e-17: centred = -1.4e-17 = -std, so A = -1
    ce = collapse.naive_constant_group_counterexample()
    assert ce["naive_eps0"] == -1.0
    assert ce["naive_eps1e-6"] == pytest.approx(-1.3878e-11, rel=1e-3)
    assert np.isnan(ce["naive_all_zero_group_eps0"])
    assert ce["group_advantages_eps0"] == 0.0


def test_mc_indicator_frequency():
    gen = torch.Generator().manual_seed(0)
    ind = collapse.collapse_indicators_mc(
        np.array([0.0, 1.0]), np.array([0.5, 0.5]), 5, 20_000, gen
    )
    # 1/16 = 0.0625; binomial std sqrt(0.0625*0.9375/20000) = 0.0017, 5 sigma = 0.0086
    assert abs(ind.mean() - 0.0625) < 0.0086


def test_check_runs_clean_and_validates():
    res = collapse.check(num_configs=10, seed=1)
    assert res.status == "ok" and res.configs == 13
    with pytest.raises(ValueError, match="q"):
        collapse.collapse_probability(np.array([0.5, 0.6]), 2)
