"""Statement 7: hand-worked advantage laws near collapse."""

import math

import numpy as np
import pytest
import torch

from analysis.theory import near_collapse as nc
from rcgrpo import group_advantages


def test_binary_distribution_g2():
    # G = 2, s = 1/2: m = 1 w.p. 1/2 with sigma = 1/2, |A| = 0.5/(0.5 + eps) on both slots;
    # m in {0, 2} w.p. 1/2 collapses (|A| = 0). E|A| = 1/2 * 0.5/(0.5 + eps)
    values, probs = nc.binary_advantage_distribution(0.5, 2, eps_stab=1e-6)
    assert probs.sum() == pytest.approx(1.0)
    assert probs @ values == pytest.approx(0.5 * 0.5 / (0.5 + 1e-6))


def test_lone_success_gets_sqrt_g_minus_1():
    # G = 5, one success: A = (1 - 1/5)/(2/5) = 2 = sqrt(G - 1)
    adv = group_advantages(
        torch.tensor([[1.0, 0.0, 0.0, 0.0, 0.0]], dtype=torch.float64), eps_stab=0.0
    )
    assert float(adv[0, 0]) == pytest.approx(math.sqrt(4))


def test_expected_weight_binary_matches_enumeration():
    # G = 3, s = 0.3: sigma_1 = sigma_2 = sqrt(2)/3; P(m in {1, 2}) = 1 - 0.3^3 - 0.7^3 = 0.63
    sigma = math.sqrt(2) / 3
    expected = 0.63 * sigma / (sigma + 1e-4)
    assert nc.binary_expected_weight(0.3, 3, 1e-4) == pytest.approx(expected, rel=1e-12)


def test_informative_groups():
    # s = (0, 1, 1/2), G = 2: 0 + 0 + (1 - 1/4 - 1/4)
    assert nc.expected_informative_groups(np.array([0.0, 1.0, 0.5]), 2) == pytest.approx(0.5)


def test_gaussian_weight_limits():
    # delta >> eps: w -> 1; delta << eps: w ~ (delta/eps) E[sqrt(chi2_{G-1}/G)]
    assert nc.gaussian_expected_weight(1.0, 5, 1e-6) == pytest.approx(1.0, abs=1e-5)
    # E[sqrt(chi2_4)] = sqrt(2) Gamma(5/2)/Gamma(2) = 1.87997
    small = nc.gaussian_expected_weight(1e-9, 5, 1e-6)
    assert small == pytest.approx(1e-3 * 1.879971 / math.sqrt(5), rel=2e-3)


def test_check_clean():
    assert nc.check(num_configs=10, seed=5, num_mc=500).status == "ok"
