"""Separation-dynamics laws on a goal-blind reward (issue 46; hypothesis, exact updates)."""

import itertools

import numpy as np
import torch
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from analysis.theory.separation_dynamics import (
    bandit,
    bandit_rewards,
    expected_update,
    goal_weights,
    simulate,
    success,
    success_gradient,
)
from analysis.theory.separation_fixed_point import k3_fixed_point, reverse_fixed_point
from analysis.theory.tree_policy import leaf_probabilities, make_tree_policy, score_matrix
from analysis.theory.two_mode import expected_statistics
from analysis.theory.variance_guarantee import kappa
from rcgrpo import group_advantages

starts = dict(
    s_low=st.floats(0.05, 0.6),
    gap=st.floats(0.1, 0.4),
    group_size=st.integers(3, 6),
)


def _bandits(s_low, gap):
    return (bandit(s_low), bandit(min(s_low + gap, 0.95))), bandit_rewards()


def _eps_star(solve, trees, rewards, beta, group_size):
    fixed, _ = solve(trees, rewards, beta, group_size, 0.5)
    return abs(success(fixed[1], rewards) - success(fixed[0], rewards))


@settings(max_examples=10, deadline=None)
@given(**starts, beta=st.floats(0.05, 0.3), lr=st.floats(0.5, 2.0))
@example(s_low=0.05, gap=0.4, group_size=3, beta=0.3, lr=0.5)  # eps* = 0.20: not below eps0/2
def test_separation_decays_when_reward_is_goal_blind(s_low, gap, group_size, beta, lr):
    # Found: eps need not fall below eps0/2 (the example keeps 0.20 of 0.40) nor fall
    # monotonically (from s_low = 0.05 the high goal learns first); the law is eps(T) < eps0,
    # at the k3 fixed point's separation.
    trees, rewards = _bandits(s_low, gap)
    eps = simulate(trees, rewards, beta, lr, 300, group_size, 0.5, "k3")["eps"]
    assert eps[-1] < eps[0]
    assert abs(eps[-1] - _eps_star(k3_fixed_point, trees, rewards, beta, group_size)) < 0.01


@settings(max_examples=25, deadline=None)
@given(**starts, beta=st.floats(0.05, 1.0), factor=st.floats(1.5, 10.0))
def test_fixed_point_separation_grows_with_beta(s_low, gap, group_size, beta, factor):
    # Found: from (s_low, s_high) = (0.25, 0.50), G = 3, eps*(beta = 1) = 0.236 but
    # eps*(beta = 2) = 0.258 > eps0: the tilt moves both modes towards 1/2 first. Reverse
    # KL shifts both success logits by c/beta (c_low = c_high at p = 1/2), and
    # sigma(x + k) - sigma(y + k) falls with k iff x + y + 2k > 0; so the law needs the
    # start's mean logit >= 0 (s_low + s_high >= 1). Pointwise eps_beta'(t) >= eps_beta(t)
    # is false in the transient (unit test test_larger_beta_is_not_pointwise_slower).
    trees, rewards = _bandits(s_low, gap)
    assume(s_low + success(trees[1], rewards) >= 1.0)
    for solve in (k3_fixed_point, reverse_fixed_point):
        small = _eps_star(solve, trees, rewards, beta, group_size)
        large = _eps_star(solve, trees, rewards, beta * factor, group_size)
        assert large >= small - 1e-12


@settings(max_examples=10, deadline=None)
@given(**starts, beta=st.floats(0.0, 3.0), kl=st.sampled_from(["k3", "reverse"]))
def test_no_change_at_lr_zero_and_bound_at_t0(s_low, gap, group_size, beta, kl):
    trees, rewards = _bandits(s_low, gap)
    out = simulate(trees, rewards, beta, 0.0, 5, group_size, 0.5, kl)
    assert np.all(out["eps"] == out["eps"][0])
    assert out["cum_bound"][0] == kappa(group_size, 0.5) * out["eps"][0] ** 2  # Prop. 4.3
    assert np.all(np.diff(out["cum_bound"]) >= 0)


@settings(max_examples=15, deadline=None)
@given(
    depth=st.integers(1, 2),
    num_actions=st.integers(2, 3),
    beta=st.floats(0.05, 3.0),
    group_size=st.integers(2, 8),
    p=st.floats(0.1, 0.9),
    seed=st.integers(0, 2**31 - 1),
)
@example(depth=1, num_actions=2, beta=0.1, group_size=8, p=0.5, seed=0)  # the campaign's β, G, p
def test_fixed_point_is_a_fixed_point_of_the_exact_update(
    depth, num_actions, beta, group_size, p, seed
):
    rng = np.random.default_rng(seed)
    eps = rng.uniform(0.1, 2.0, (2, depth))
    refs = tuple(make_tree_policy(depth, num_actions, e, rng) for e in eps)
    rewards = np.zeros(num_actions**depth)
    rewards[0] = 1.0
    trees, _ = reverse_fixed_point(refs, rewards, beta, group_size, p)
    grads = expected_update(trees, refs, rewards, beta, group_size, p, "reverse")
    assert max(np.abs(g).max() for g in grads) <= 1e-9
    if depth == 1:
        trees, _ = k3_fixed_point(refs, rewards, beta, group_size, p)
        grads = expected_update(trees, refs, rewards, beta, group_size, p, "k3")
        assert max(np.abs(g).max() for g in grads) <= 1e-9


@settings(max_examples=20, deadline=None)
@given(
    s_low=st.floats(0.01, 0.99),
    s_high=st.floats(0.01, 0.99),
    group_size=st.integers(2, 7),
    p=st.floats(0.05, 0.95),
)
def test_goal_weights_match_the_two_mode_enumeration(s_low, s_high, group_size, p):
    s = np.array([s_low, s_high])
    exact = expected_statistics(np.log(s / (1 - s)), group_size, p, "iid")["mean_grad"]
    assert np.allclose(goal_weights(s, group_size, p) * s * (1 - s), exact, rtol=1e-9, atol=1e-13)


def _brute_force_pg(trees, rewards, group_size, p):
    """E over every (token, leaf) assignment of (1/G) sum_{j: r_j = r} A_j grad log P(tau_j|r)."""
    probs = [leaf_probabilities(t) for t in trees]
    scores = [score_matrix(t) for t in trees]
    slots = [(r, leaf) for r in range(2) for leaf in range(len(rewards))]
    out = [np.zeros(scores[0].shape[1]), np.zeros(scores[1].shape[1])]
    for group in itertools.product(slots, repeat=group_size):
        weight = np.prod([(p if r else 1 - p) * probs[r][leaf] for r, leaf in group])
        x = torch.tensor([[rewards[leaf] for _, leaf in group]], dtype=torch.float64)
        adv = group_advantages(x)[0].numpy()
        for a, (r, leaf) in zip(adv, group, strict=True):
            out[r] += weight * a * scores[r][leaf] / group_size
    return out


@settings(max_examples=6, deadline=None)
@given(group_size=st.integers(2, 3), p=st.floats(0.2, 0.8), seed=st.integers(0, 2**31 - 1))
def test_policy_gradient_equals_brute_force_enumeration(group_size, p, seed):
    rng = np.random.default_rng(seed)
    trees = tuple(make_tree_policy(2, 2, rng.uniform(0.1, 2.0, 2), rng) for _ in range(2))
    rewards = np.array([1.0, 0.0, 1.0, 0.0])
    s = np.array([success(t, rewards) for t in trees])
    c = goal_weights(s, group_size, p)
    brute = _brute_force_pg(trees, rewards, group_size, p)
    for r in range(2):
        assert np.allclose(c[r] * success_gradient(trees[r], rewards), brute[r], atol=1e-12)
