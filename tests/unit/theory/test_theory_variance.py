"""Prop. 4.3 and statement 6 (stratified) on hand-worked settings; wrong bounds flagged."""

import numpy as np
import pytest
import torch

from analysis.theory import stratified
from analysis.theory import variance_guarantee as vg

DET_HIGH, DET_LOW = (np.array([1.0]), np.array([1.0])), (np.array([0.0]), np.array([1.0]))
BERN_HIGH = (np.array([0.0, 1.0]), np.array([0.2, 0.8]))  # mu 0.8, v 0.16
BERN_LOW = (np.array([0.0, 1.0]), np.array([0.7, 0.3]))  # mu 0.3, v 0.21


def test_kappa_paper_values():
    assert vg.kappa(5, 0.5) == pytest.approx(0.2)
    assert vg.kappa_stratified(5, 3) == pytest.approx(0.24)


def test_iid_closed_form_hand_values():
    # deterministic conditionals: (4/5) * (1/4) * 1 = 0.2 = kappa (tight)
    assert vg.expected_group_variance_iid(DET_HIGH, DET_LOW, 0.5, 5) == pytest.approx(0.2)
    # (4/5) (0.5*0.16 + 0.5*0.21 + 0.25*0.25) = 0.8 * 0.2475 = 0.198
    assert vg.expected_group_variance_iid(BERN_HIGH, BERN_LOW, 0.5, 5) == pytest.approx(0.198)
    enum = vg.expected_group_variance_enumerated(BERN_HIGH, BERN_LOW, 0.5, 5, "iid")
    assert enum == pytest.approx(0.198, abs=1e-14)


def test_stratified_closed_form_hand_values():
    # k = 3: (4/25)(3*0.16 + 2*0.21) + (6/25)(0.5)^2 = 0.144 + 0.06 = 0.204
    assert vg.expected_group_variance_stratified(BERN_HIGH, BERN_LOW, 3, 5) == pytest.approx(0.204)
    enum = vg.expected_group_variance_enumerated(BERN_HIGH, BERN_LOW, 0.5, 5, "stratified")
    assert enum == pytest.approx(0.204, abs=1e-14)
    assert vg.expected_group_variance_stratified(DET_HIGH, DET_LOW, 3, 5) == pytest.approx(0.24)


def test_no_token_diversity():
    assert stratified.no_token_diversity_probability(0.5, 5, "iid") == pytest.approx(1 / 16)
    assert stratified.no_token_diversity_probability(0.5, 5, "stratified") == 0.0
    assert stratified.no_token_diversity_probability(0.05, 5, "stratified") == 1.0  # k = 0


def test_dominance_counterexample():
    # G = 10, p = 0.14: k = floor(1.4 + 0.5) = 1 -> 9/100 < 0.9 * 0.14 * 0.86 = 0.10836
    ce = stratified.dominance_counterexample()
    assert ce["k"] == 1 and ce["stratified"] == pytest.approx(0.09)
    assert ce["iid"] == pytest.approx(0.10836) and ce["stratified"] < ce["iid"]


def test_per_group_collapse_despite_expected_bound():
    gen = torch.Generator().manual_seed(0)
    _, rewards = vg.sample_group_rewards(DET_HIGH, DET_LOW, 0.5, 5, "iid", 20_000, gen)
    frac = float((rewards == rewards[:, :1]).all(dim=1).double().mean())
    # 1/16 = 0.0625, 5 sigma = 5 sqrt(0.0625 * 0.9375 / 20000) = 0.0086
    assert abs(frac - 0.0625) < 0.0086


def test_checks_clean_and_wrong_kappa_flagged():
    assert vg.check(num_configs=15, seed=4, num_mc=1000).status == "ok"
    assert stratified.check(num_configs=15, seed=4, num_mc=500).status == "ok"
    # Prop 4.3 without its (G-1)/G factor: violated on the tight deterministic setting
    wrong = vg.check(num_configs=15, seed=4, num_mc=0, kappa_fn=lambda g, p: p * (1 - p))
    assert wrong.status == "VIOLATED"
    assert any(c.config["mu_h"] == 1.0 and c.config["G"] == 5 for c in wrong.violations)
    too_big = stratified.check(
        num_configs=15, seed=4, num_mc=0, kappa_fn=lambda g, k: k * (g - k) / g / (g - 1)
    )
    assert too_big.status == "VIOLATED"
