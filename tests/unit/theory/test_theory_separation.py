"""Hand-computed cases of the separation dynamics (analysis.theory.separation_*)."""

import math

import numpy as np
import pytest

from analysis.theory.separation_dynamics import (
    advantage_values,
    bandit,
    bandit_rewards,
    goal_weights,
    half_life,
    kl_gradient,
    simulate,
)
from analysis.theory.separation_fixed_point import gibbs_value, k3_success, tilt_tree
from analysis.theory.tree_policy import TreePolicy


def test_advantage_values_g2():
    # G = 2, k = 1: X = (1, 0), mean 1/2, population std 1/2 -> A = +-0.5 / (0.5 + 1e-6);
    # k = 0 or 2: collapsed, A = 0.
    a = 0.5 / (0.5 + 1e-6)
    assert np.allclose(advantage_values(2), [[0.0, 0.0], [-a, a], [0.0, 0.0]], atol=1e-15)


@pytest.mark.parametrize("s_high", [0.1, 0.5, 0.9])
def test_goal_weights_every_token_high(s_high):
    # p = 1, G = 2: only k = 1 groups move; P = 2 s (1 - s) and the bracket is
    # a (1 - s) + a s = a, so c_high = 2 s (1 - s) a / (2 s (1 - s)) = a for every s;
    # c_low = 0 (no low token is ever drawn).
    c = goal_weights(np.array([0.3, s_high]), 2, p=1.0)
    assert c[0] == 0.0 and c[1] == pytest.approx(0.5 / (0.5 + 1e-6), rel=1e-12)


def test_kl_gradients_on_a_bandit():
    # pi = (0.6, 0.4), pi_ref = (0.5, 0.5). k3: pi - pi_ref = (0.1, -0.1).
    # reverse: pi (log(pi/pi_ref) - KL), KL = 0.6 ln 1.2 + 0.4 ln 0.8.
    tree, ref = bandit(0.6), bandit(0.5)
    assert np.allclose(kl_gradient(tree, ref, "k3"), [0.1, -0.1], atol=1e-15)
    kl = 0.6 * math.log(1.2) + 0.4 * math.log(0.8)
    want = [0.6 * (math.log(1.2) - kl), 0.4 * (math.log(0.8) - kl)]
    assert np.allclose(kl_gradient(tree, ref, "reverse"), want, atol=1e-15)


def test_k3_success_closed_form():
    # k s^2 + (1 - k) s - s_ref = 0 at s_ref = 0.2, k = 10: s = (9 + sqrt(89)) / 20.
    assert k3_success(0.2, 10.0) == pytest.approx((9 + math.sqrt(89)) / 20, rel=1e-14)
    assert k3_success(0.2, 0.0) == pytest.approx(0.2, rel=1e-15)  # no pull: pi* = pi_ref


def test_gibbs_value_and_tilt():
    # beta log(1 - s + s e^{c/beta}) at s = 1/2, c = beta ln 3: beta ln 2.
    assert gibbs_value(0.5, 0.3 * math.log(3), 0.3) == pytest.approx(0.3 * math.log(2))
    # uniform depth-2 binary tree, leaf 0 weighted e: root pi(0) = (e/4 + 1/4) / (e/4 + 3/4).
    ref = TreePolicy((np.full((1, 2), 0.5), np.full((2, 2), 0.5)))
    tilted = tilt_tree(ref, np.array([math.e, 1.0, 1.0, 1.0]))
    assert tilted.probs[0][0, 0] == pytest.approx((math.e + 1) / (math.e + 3), rel=1e-14)
    assert tilted.probs[1][0, 0] == pytest.approx(math.e / (math.e + 1), rel=1e-14)


def test_half_life_hand_made():
    eps = np.array([0.4, 0.3, 0.2, 0.1])
    assert half_life(eps) == 2 and half_life(eps, floor=0.15) == 3
    assert half_life(eps, floor=0.05) is None


def test_one_step_by_hand():
    # Bandit, p = 1 (every token high), G = 2, start pi_ref = (0.5, 0.5), lr = 1:
    # c_high = a (test above), grad s = s (1 - s) (1, -1) = (0.25, -0.25), KL grad 0 at ref,
    # so the logits move by (a/4, -a/4) and s(1) = sigmoid(a/2).
    a = 0.5 / (0.5 + 1e-6)
    out = simulate((bandit(0.5), bandit(0.5)), bandit_rewards(), 0.1, 1.0, 1, 2, p=1.0)
    assert out["s_high"][1] == pytest.approx(1 / (1 + math.exp(-a / 2)), rel=1e-14)
    assert out["s_low"][1] == 0.5


def test_larger_beta_is_not_pointwise_slower():
    # Counterexample found by hypothesis: from (0.05, 0.15), G = 3, lr = 0.625, the high goal
    # learns first and separation peaks higher at beta = 0.2 than at beta = 0.8, so
    # eps_0.8(t) < eps_0.2(t) somewhere in the transient; the limits are ordered.
    trees, rewards = (bandit(0.05), bandit(0.15)), bandit_rewards()
    low = simulate(trees, rewards, 0.2, 0.625, 120, 3, 0.5)["eps"]
    high = simulate(trees, rewards, 0.8, 0.625, 120, 3, 0.5)["eps"]
    assert np.min(high - low) < -0.1 and high[-1] > low[-1]
