r"""Proposition 4.2 (vanishing gradient in peaked policies) — exact on tree policies.

Paper §4, Prop. 4.2: deterministic environment, an optimal trajectory :math:`\tau^*` of
length T, :math:`\mathrm{KL}(\delta_{a^*_t}\|\pi(\cdot\mid h^*_t))\le\varepsilon_{sft}` at
every step. Then for G i.i.d. rollouts

.. math::
    P(\tau_1=\dots=\tau_G) \ge P(\text{all}=\tau^*) \ge (1-T\varepsilon_{sft})^G
    \ge 1-GT\varepsilon_{sft},

and on that event the group's GRPO gradient is exactly 0. Checked with
:mod:`analysis.theory.tree_policy`: the exact :math:`\sum_\tau P(\tau)^G` (recursion) against
each link of the chain, and the exact (or sampled) expected gradient norm against

.. math::
    E\|g\| \le \sqrt{2T}\,(1-P(R_1=\dots=R_G)) \le \sqrt{2T}\,(1-P(\tau^*)^G)
    \le \sqrt{2T}\,GT\varepsilon_{sft}

(:math:`\|g\|\le\sqrt{2T}` since :math:`\sum_jA_j^2\le G` and
:math:`\|\nabla\log\pi(\tau)\|^2\le 2T`), so the gradient vanishes linearly as
:math:`\varepsilon_{sft}\to0`.

Where the statement needs more than it says (counterexamples in :func:`counterexamples`):

1. **Deterministic environment.** With stochastic transitions a trajectory contains the
   environment's outcomes: a policy with :math:`\varepsilon_{sft}=0` (one action) whose
   environment answers 0 or 1 with probability ½ each (reward = answer) has
   :math:`P(\tau_1=\dots=\tau_G)=2^{1-G}` (1/16 at G = 5) against the bound 1, and nonzero
   advantages with probability 15/16.
2. :math:`T\varepsilon_{sft}\le1` for the middle link: :math:`(1-T\varepsilon)^G` is not a
   lower bound when :math:`T\varepsilon>1` (it is positive for even G): T = 1, A = 101,
   :math:`\pi(a^*)=e^{-1.5}`, the rest uniform, G = 2 gives
   :math:`P(\tau_1=\tau_2)=0.0558 < (1-1.5)^2=0.25`. The correct form is
   :math:`\max(0,1-T\varepsilon)^G`; the outer bound :math:`1-GT\varepsilon` always holds.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
import torch

from analysis.theory.report import StatementResult, bernstein_halfwidth, exact_tol
from analysis.theory.tree_policy import (
    collapse_probability_tree,
    grpo_gradient_exact,
    grpo_gradient_mc,
    leaf_probabilities,
    make_tree_policy,
    num_multisets,
    path_kl,
)

MAX_EXACT_GROUPS = 20_000


def power_bound(depth: int, eps: float, group_size: int) -> float:
    r"""The paper's middle bound :math:`(1-T\varepsilon_{sft})^G` (valid for :math:`T\varepsilon\le1`)."""
    return (1.0 - depth * eps) ** group_size


def linear_bound(depth: int, eps: float, group_size: int) -> float:
    r"""The paper's outer bound :math:`1-GT\varepsilon_{sft}` (always valid, vacuous past 1/(GT))."""
    return 1.0 - group_size * depth * eps


def gradient_norm_bound(depth: int, p_rewards_equal: float) -> float:
    r""":math:`\sqrt{2T}\,(1-P(R_1=\dots=R_G))`, an upper bound on :math:`E\|g\|`."""
    return float(np.sqrt(2.0 * depth) * (1.0 - p_rewards_equal))


def counterexamples() -> dict:
    """The two counterexamples of the module docstring, computed."""
    group_size = 5
    stochastic = {"p_all_equal": 2.0 * 0.5**group_size, "bound": 1.0, "G": group_size}
    pi_star, num_other = float(np.exp(-1.5)), 100
    p_equal = pi_star**2 + num_other * ((1.0 - pi_star) / num_other) ** 2
    large_eps = {"p_all_equal": p_equal, "bound": power_bound(1, 1.5, 2), "T": 1, "G": 2}
    return {"stochastic_env": stochastic, "T_eps_above_1": large_eps}


def _random_tree(rng: np.random.Generator) -> tuple:
    while True:
        depth, num_actions = int(rng.integers(1, 5)), int(rng.integers(2, 6))
        if num_actions**depth <= 256:
            break
    eps_sft = float(np.exp(rng.uniform(np.log(1e-4), np.log(2.0 / depth))))
    path_eps = eps_sft * rng.uniform(0.0, 1.0, size=depth)
    path_eps[rng.integers(depth)] = eps_sft  # the tightest step attains eps_sft
    tree = make_tree_policy(depth, num_actions, path_eps, rng, off_path="random")
    rewards = (rng.random(tree.num_leaves) < rng.random()).astype(np.float64)
    rewards[0] = 1.0  # tau* succeeds
    return tree, rewards, eps_sft, int(rng.integers(2, 9))


def _check_chain(res, tree, eps_sft: float, group_size: int, bounds, cfg: dict) -> None:
    """Recursion vs leaves, and every link of P(equal) >= P(all = τ*) >= (1-Tε)^G >= 1-GTε."""
    power, linear = bounds
    depth, tol = tree.depth, exact_tol(1.0)
    add = partial(res.add, method="exact", config=cfg)
    p_equal = collapse_probability_tree(tree, group_size)
    leaf_p = leaf_probabilities(tree)
    add("sum_tau P^G: recursion vs leaves", "==", float(np.sum(leaf_p**group_size)), p_equal, tol)
    p_star = float(leaf_p[0] ** group_size)
    add("P(all equal) >= P(all = tau*)", ">=", p_star, p_equal, tol)
    power_value, linear_value = (
        power(depth, eps_sft, group_size),
        linear(depth, eps_sft, group_size),
    )
    if depth * eps_sft <= 1.0:  # extra assumption, see the module docstring
        add("P(all = tau*) >= (1-T eps)^G", ">=", power_value, p_star, tol)
        add("(1-T eps)^G >= 1 - G T eps", ">=", linear_value, power_value, tol)
    add("P(all = tau*) >= 1 - G T eps", ">=", linear_value, p_star, tol)
    if path_kl(tree).max() > eps_sft * (1 + 1e-12):
        raise AssertionError("tree construction broke the per-step KL budget")


def _check_gradient(res, tree, rewards, group_size: int, gen, num_mc: int, cfg: dict) -> None:
    """E‖g‖ <= sqrt(2T)(1 − P(R equal)), exact for small trees, Monte Carlo otherwise."""
    exact = partial(res.add, method="exact", config=cfg)
    p_success = float(leaf_probabilities(tree) @ rewards)
    p_rewards_equal = p_success**group_size + (1.0 - p_success) ** group_size
    bound = gradient_norm_bound(tree.depth, p_rewards_equal)
    name = "E||g|| <= sqrt(2T)(1-P(R equal))"
    if num_multisets(tree.num_leaves, group_size) <= MAX_EXACT_GROUPS:
        ex = grpo_gradient_exact(tree, rewards, group_size)
        exact(name, "<=", bound, ex["mean_norm"], exact_tol(bound))
        exact("||g|| on collapsed groups", "==", 0.0, ex["max_norm_collapsed"], 0.0)
        exact(
            "P(R equal): closed form vs groups", "==", p_rewards_equal, ex["p_rewards_equal"], 1e-9
        )
        if not (num_mc and tree.num_leaves <= 8):
            return
        name, predicted, relation = "E||g||: MC vs exact", ex["mean_norm"], "=="
    elif num_mc:
        predicted, relation = bound, "<="
    else:
        return
    norms = grpo_gradient_mc(tree, rewards, group_size, num_mc, gen)
    hw = bernstein_halfwidth(norms, np.sqrt(2.0 * tree.depth))
    res.add(name, relation, predicted, norms.mean(), hw, "monte carlo", cfg)


def _check_tree(res, tree, rewards, eps_sft, group_size, gen, num_mc, bounds) -> None:
    cfg = {"T": tree.depth, "A": tree.num_actions, "G": group_size, "eps_sft": eps_sft}
    _check_chain(res, tree, eps_sft, group_size, bounds, cfg)
    _check_gradient(res, tree, rewards, group_size, gen, num_mc, cfg)


def check(
    num_configs: int = 200,
    seed: int = 0,
    num_mc: int = 4000,
    power: Callable[[int, float, int], float] = power_bound,
    linear: Callable[[int, float, int], float] = linear_bound,
) -> StatementResult:
    """Prop. 4.2 on random trees (T <= 4, A <= 5, A^T <= 256, G in [2, 8]) plus G = 5 trees.

    ``power`` / ``linear`` replace the paper's bounds (tests pass deliberately wrong ones).
    """
    rng = np.random.default_rng(seed)
    gen = torch.Generator().manual_seed(seed)
    res = StatementResult("prop_4_2", "Prop 4.2 P(all equal) >= (1-T eps)^G >= 1-GT eps; E||g||->0")
    for depth, num_actions, eps in ((3, 4, 0.01), (2, 3, 0.1), (4, 2, 0.2)):
        tree = make_tree_policy(depth, num_actions, np.full(depth, eps), off_path="peaked")
        rewards = np.zeros(tree.num_leaves)
        rewards[0] = 1.0
        _check_tree(res, tree, rewards, eps, 5, gen, num_mc, (power, linear))
        res.configs += 1
    for _ in range(num_configs):
        _check_tree(res, *_random_tree(rng), gen, num_mc, (power, linear))
        res.configs += 1
    ce = counterexamples()
    res.notes.append(
        "Needs a deterministic environment: with eps_sft = 0 and an environment answering 0/1 "
        f"with probability 1/2, P(all trajectories equal) = {ce['stochastic_env']['p_all_equal']:.4g} "
        "< bound 1 at G = 5."
    )
    res.notes.append(
        "The middle bound (1 - T eps)^G needs T eps <= 1 (checked only there): T = 1, A = 101, "
        f"pi(a*) = e^-1.5, G = 2 gives P(all equal) = {ce['T_eps_above_1']['p_all_equal']:.4f} "
        f"< (1 - 1.5)^2 = {ce['T_eps_above_1']['bound']:.2f}; use max(0, 1 - T eps)^G."
    )
    res.notes.append(
        "Gradient: exact E||g|| <= sqrt(2T)(1 - P(R_1 = ... = R_G)) <= sqrt(2T) G T eps_sft, "
        "and ||g|| = 0 exactly on every group with equal rewards (deterministic rewards)."
    )
    return res
