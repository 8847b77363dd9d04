"""Prop. 4.2 laws on random tree policies (hypothesis)."""

import numpy as np
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from analysis.theory import peaked
from analysis.theory.report import bernstein_halfwidth
from analysis.theory.tree_policy import (
    collapse_probability_tree,
    grpo_gradient_exact,
    grpo_gradient_mc,
    leaf_probabilities,
    make_tree_policy,
    num_multisets,
)

shapes = st.tuples(st.integers(1, 3), st.integers(2, 4)).filter(lambda s: s[1] ** s[0] <= 27)
small_shapes = st.sampled_from([(1, 2), (1, 3), (1, 4), (2, 2), (2, 3), (3, 2)])


def random_tree(depth, num_actions, eps_sft, seed, off_path):
    rng = np.random.default_rng(seed)
    path_eps = eps_sft * rng.uniform(0.0, 1.0, size=depth)
    path_eps[0] = eps_sft
    tree = make_tree_policy(depth, num_actions, path_eps, rng, off_path=off_path)
    rewards = (rng.random(tree.num_leaves) < 0.5).astype(float)
    rewards[0] = 1.0
    return tree, rewards


@settings(max_examples=40)
@given(
    shape=shapes,
    eps_sft=st.floats(1e-6, 1.0),
    group_size=st.integers(2, 6),
    seed=st.integers(0, 2**31 - 1),
    off_path=st.sampled_from(["random", "uniform", "peaked"]),
)
@example(shape=(1, 2), eps_sft=1.0, group_size=2, seed=0, off_path="uniform")  # T eps = 1 edge
def test_collapse_chain(shape, eps_sft, group_size, seed, off_path):
    depth, num_actions = shape
    tree, _ = random_tree(depth, num_actions, eps_sft, seed, off_path)
    p_equal = collapse_probability_tree(tree, group_size)
    assert abs(p_equal - np.sum(leaf_probabilities(tree) ** group_size)) <= 1e-12
    p_star = leaf_probabilities(tree)[0] ** group_size
    assert p_equal >= p_star - 1e-15
    assert p_star >= max(0.0, 1 - depth * eps_sft) ** group_size - 1e-12  # corrected middle bound
    if depth * eps_sft <= 1.0:
        assert p_star >= peaked.power_bound(depth, eps_sft, group_size) - 1e-12
    assert p_star >= peaked.linear_bound(depth, eps_sft, group_size) - 1e-12


@settings(max_examples=25)
@given(
    shape=small_shapes,
    eps_sft=st.floats(1e-4, 1.0),
    group_size=st.integers(2, 5),
    seed=st.integers(0, 2**31 - 1),
)
def test_gradient_vanishes_with_collapse(shape, eps_sft, group_size, seed):
    depth, num_actions = shape
    tree, rewards = random_tree(depth, num_actions, eps_sft, seed, "random")
    assert num_multisets(tree.num_leaves, group_size) <= 1287  # C(9 + 4, 5)
    ex = grpo_gradient_exact(tree, rewards, group_size)
    assert ex["max_norm_collapsed"] == 0.0  # equal rewards -> exactly zero gradient
    assert abs(ex["total_weight"] - 1.0) <= 1e-12
    bound = peaked.gradient_norm_bound(depth, ex["p_rewards_equal"])
    assert ex["mean_norm"] <= bound + 1e-12
    assert bound <= np.sqrt(2 * depth) * group_size * depth * eps_sft + 1e-12
    norms = grpo_gradient_mc(tree, rewards, group_size, 2000, torch.Generator().manual_seed(seed))
    # tolerance: empirical Bernstein, ||g|| in [0, sqrt(2T)], delta = 1e-6
    tol = bernstein_halfwidth(norms, np.sqrt(2 * depth), 1e-6)
    assert abs(norms.mean() - ex["mean_norm"]) <= tol
