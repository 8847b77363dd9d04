"""Prop. 4.2 machinery on hand-worked trees, counterexamples, wrong bounds flagged."""

import math

import numpy as np
import pytest
import torch

from analysis.theory import peaked
from analysis.theory.tree_policy import (
    TreePolicy,
    collapse_probability_tree,
    grpo_gradient_exact,
    grpo_gradient_mc,
    leaf_probabilities,
    make_tree_policy,
    path_kl,
    score_matrix,
)


def one_step(p0: float) -> TreePolicy:
    return TreePolicy((np.array([[p0, 1.0 - p0]]),))


def test_collapse_probability_hand_values():
    # T = 1, pi = (0.9, 0.1), G = 2: 0.81 + 0.01
    assert collapse_probability_tree(one_step(0.9), 2) == pytest.approx(0.82)
    # T = 2, A = 2 uniform, G = 2: 4 leaves of 1/4 -> 4 * 1/16
    uniform = make_tree_policy(2, 2, np.full(2, math.log(2)), off_path="uniform")
    assert collapse_probability_tree(uniform, 2) == pytest.approx(0.25)
    assert leaf_probabilities(uniform) == pytest.approx(np.full(4, 0.25))


def test_path_kl_and_peaked_construction():
    tree = make_tree_policy(3, 4, np.array([0.01, 0.02, 0.0]), off_path="peaked")
    assert path_kl(tree) == pytest.approx([0.01, 0.02, 0.0], abs=1e-15)
    assert tree.probs[2][5] == pytest.approx(tree.probs[2][0])  # off-path copies the row


def test_score_matrix_one_step():
    # grad log pi(a) wrt logits = e_a - pi: leaf 0 -> (0.1, -0.1), leaf 1 -> (-0.9, 0.9)
    assert score_matrix(one_step(0.9)) == pytest.approx(np.array([[0.1, -0.1], [-0.9, 0.9]]))


def test_exact_gradient_hand_value():
    # T = 1, pi = (0.9, 0.1), R = (1, 0), G = 2. Only the mixed group {0, 1} (prob 0.18) moves:
    # A = (+-0.5)/(0.5 + eps); g = 1/2 [A_0 (0.1, -0.1) + A_1 (-0.9, 0.9)] = (0.5, -0.5) * 0.5/(0.5+eps)
    ex = grpo_gradient_exact(one_step(0.9), np.array([1.0, 0.0]), 2)
    scale = 0.5 / (0.5 + 1e-6)
    assert ex["mean_norm"] == pytest.approx(0.18 * math.sqrt(0.5) * scale, rel=1e-12)
    assert ex["norm_of_mean"] == pytest.approx(ex["mean_norm"], rel=1e-12)
    assert ex["p_rewards_equal"] == pytest.approx(0.82) and ex["max_norm_collapsed"] == 0.0


def test_mc_matches_exact():
    tree = make_tree_policy(2, 2, np.array([0.3, 0.1]), off_path="uniform")
    rewards = np.array([1.0, 0.0, 1.0, 0.0])
    ex = grpo_gradient_exact(tree, rewards, 3)
    norms = grpo_gradient_mc(tree, rewards, 3, 20_000, torch.Generator().manual_seed(0))
    # 5 sigma with the empirical std of ||g||
    assert abs(norms.mean() - ex["mean_norm"]) < 5 * norms.std() / math.sqrt(norms.size)


def test_counterexamples():
    ce = peaked.counterexamples()
    assert ce["stochastic_env"]["p_all_equal"] == pytest.approx(1 / 16)
    assert ce["stochastic_env"]["p_all_equal"] < ce["stochastic_env"]["bound"]
    # T eps = 1.5 > 1: e^-3 + 100 * ((1 - e^-1.5)/100)^2 = 0.0558 < (1 - 1.5)^2 = 0.25
    assert ce["T_eps_above_1"]["p_all_equal"] == pytest.approx(0.05582, abs=1e-5)
    assert ce["T_eps_above_1"]["bound"] == 0.25


def test_counterexample_tree_really_violates_power_bound():
    pi_star = math.exp(-1.5)
    row = np.concatenate([[pi_star], np.full(100, (1 - pi_star) / 100)])
    tree = TreePolicy((row[None, :],))
    assert path_kl(tree)[0] == pytest.approx(1.5)
    assert collapse_probability_tree(tree, 2) < peaked.power_bound(1, 1.5, 2)
    assert collapse_probability_tree(tree, 2) >= max(0.0, 1 - 1.5) ** 2


def test_check_clean_and_wrong_sign_bounds_flagged():
    assert peaked.check(num_configs=15, seed=3, num_mc=200).status == "ok"
    wrong_linear = peaked.check(
        num_configs=15, seed=3, num_mc=0, linear=lambda t, e, g: 1 + g * t * e
    )
    assert wrong_linear.status == "VIOLATED"
    wrong_power = peaked.check(
        num_configs=15, seed=3, num_mc=0, power=lambda t, e, g: (1 + t * e) ** g
    )
    assert wrong_power.status == "VIOLATED"
