"""Lemma A.2 on hand-worked policies."""

import math

import numpy as np
import pytest

from analysis.theory import kl_bound


def test_kl_dirac_is_minus_log_prob():
    # pi = (1/2, 1/4, 1/4), a* = 0: KL = 1 * log(1 / (1/2)) = log 2
    assert kl_bound.kl_dirac(np.array([0.5, 0.25, 0.25]), 0) == pytest.approx(math.log(2))
    assert kl_bound.kl_dirac(np.array([0.5, 0.25, 0.25]), 2) == pytest.approx(math.log(4))


def test_bounds_tight_at_kl():
    # eps = log 2 = KL: e^{-eps} = 1/2 = pi(a*) (tight), 1 - eps = 0.3069
    exp_b, lin_b = kl_bound.probability_lower_bounds(math.log(2))
    assert exp_b == pytest.approx(0.5) and lin_b == pytest.approx(1 - math.log(2))


def test_argument_checks():
    with pytest.raises(ValueError, match="a_star"):
        kl_bound.kl_dirac(np.array([0.5, 0.5]), 2)
    with pytest.raises(ValueError, match="eps"):
        kl_bound.probability_lower_bounds(-1.0)


def test_check_clean():
    assert kl_bound.check(num_configs=20).status == "ok"
