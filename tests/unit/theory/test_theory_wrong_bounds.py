"""Every statement's check can fail: a deliberately wrong prediction IS reported as violated."""

import math

import numpy as np

from analysis.theory import collapse, dynamics, kl_bound, near_collapse


def test_collapse_without_the_all_fail_term_is_violated():
    # s^G only (forgets the all-failure groups): wrong whenever s < 1
    wrong = collapse.check(num_configs=10, seed=7, num_mc=0, predict=lambda q, g: float(q[-1] ** g))
    assert wrong.status == "VIOLATED"
    assert collapse.check(num_configs=10, seed=7, num_mc=0).status == "ok"


def test_kl_bound_with_halved_exponent_is_violated():
    # pi(a*) >= e^{-eps/2} is false for every pi(a*) < 1 at eps = KL
    wrong = kl_bound.check(num_configs=10, bounds=lambda e: (math.exp(-e / 2), 1 - e))
    assert wrong.status == "VIOLATED"


def test_informative_groups_off_by_one_factor_is_violated():
    wrong = near_collapse.check(
        num_configs=5,
        seed=8,
        num_mc=2000,
        informative=lambda s, g: float(np.sum(1 - np.asarray(s) ** g)),
    )
    assert wrong.status == "VIOLATED"


def test_update_bound_too_small_is_violated():
    wrong = dynamics.check(num_configs=20, seed=9, num_mc=0, steps=5, bound_scale=0.25)
    assert wrong.status == "VIOLATED"
