r"""Tree-structured tabular softmax policies: exact trajectory collapse and GRPO gradients.

The model behind Proposition 4.2: a deterministic environment, T decisions with A actions
each, so a trajectory is an action sequence and the histories form a complete A-ary tree.
``probs[t]`` [A**t, A] holds :math:`\pi(\cdot\mid h)` for the A**t histories of depth t
(node index = the actions so far read as a base-A number); leaf index
:math:`\ell=\sum_t a_t A^{T-1-t}` in [A**T]. The designated optimal path is
:math:`\tau^*=(0,\dots,0)`, i.e. node 0 at every depth and leaf 0.

- :func:`collapse_probability_tree`: :math:`P(\tau_1=\dots=\tau_G)=\sum_\tau P(\tau)^G` by the
  recursion :math:`S(h)=\sum_a\pi(a\mid h)^G S(ha)`, :math:`S(\text{leaf})=1` — over tree
  nodes, never over the :math:`(A^T)^G` groups.
- :func:`grpo_gradient_exact`: the GRPO policy gradient of one group at ratio 1,
  :math:`g=\tfrac1G\sum_j A_j\nabla_\theta\log\pi(\tau_j)` w.r.t. the logits θ[h, a]
  (:math:`\nabla\log\pi(\tau)` = :math:`e_{a_t}-\pi(\cdot\mid h_t)` in the block of each
  visited node), averaged exactly over the multisets of G leaves (multinomial weights).
- :func:`grpo_gradient_mc`: the same by sampling groups. Advantages always come from
  :func:`rcgrpo.group_advantages` (ddof = 0).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import torch
from scipy.special import gammaln

from rcgrpo import group_advantages


@dataclass(frozen=True)
class TreePolicy:
    """``probs[t]``: [A**t, A] conditional action probabilities at depth t (rows sum to 1)."""

    probs: tuple[np.ndarray, ...]

    def __post_init__(self) -> None:
        if not self.probs:
            raise ValueError("probs must hold at least one level (T >= 1)")
        num_actions = self.probs[0].shape[1]
        for t, level in enumerate(self.probs):
            if level.shape != (num_actions**t, num_actions):
                raise ValueError(f"probs[{t}] must have shape {(num_actions**t, num_actions)}")
            if (level < 0).any() or not np.allclose(level.sum(axis=1), 1.0, atol=1e-12):
                raise ValueError(f"probs[{t}] rows must be probability vectors")

    @property
    def depth(self) -> int:
        return len(self.probs)

    @property
    def num_actions(self) -> int:
        return self.probs[0].shape[1]

    @property
    def num_leaves(self) -> int:
        return self.num_actions**self.depth


def peaked_row(pi_star: float, rest: np.ndarray) -> np.ndarray:
    """A row with mass ``pi_star`` on action 0 and ``1 - pi_star`` split like ``rest``."""
    rest = np.asarray(rest, dtype=np.float64)
    return np.concatenate([[pi_star], (1.0 - pi_star) * rest / rest.sum()])


def make_tree_policy(
    depth: int,
    num_actions: int,
    path_eps: np.ndarray,
    rng: np.random.Generator | None = None,
    off_path: str = "random",
) -> TreePolicy:
    r"""A tree policy with :math:`\pi(a^*_t\mid h^*_t)=e^{-\varepsilon_t}` on the optimal path.

    ``path_eps`` [T] are the per-step KLs :math:`\varepsilon_t` (Lemma A.2). Off the path
    (and for the non-optimal actions on it): ``"random"`` draws Dirichlet rows from ``rng``,
    ``"uniform"`` spreads mass evenly, ``"peaked"`` copies the on-path row (every node as
    peaked as the optimal path, mass on action 0).
    """
    path_eps = np.asarray(path_eps, dtype=np.float64)
    if path_eps.shape != (depth,) or (path_eps < 0).any():
        raise ValueError(f"path_eps must be [T={depth}] non-negative, got {path_eps!r}")
    if num_actions < 2:
        raise ValueError(f"num_actions must be >= 2, got {num_actions}")
    if off_path == "random" and rng is None:
        raise ValueError("rng is required for off_path='random'")
    levels = []
    for t in range(depth):
        star = np.exp(-path_eps[t])
        if off_path == "random":
            alpha = float(np.exp(rng.uniform(np.log(0.05), np.log(5.0))))
            level = rng.dirichlet(np.full(num_actions, alpha), size=num_actions**t)
            level[0] = peaked_row(star, rng.dirichlet(np.ones(num_actions - 1)))
        else:
            row = peaked_row(star, np.ones(num_actions - 1))
            fill = row if off_path == "peaked" else np.full(num_actions, 1.0 / num_actions)
            level = np.tile(fill, (num_actions**t, 1))
            level[0] = row
        levels.append(level)
    return TreePolicy(tuple(levels))


def leaf_probabilities(tree: TreePolicy) -> np.ndarray:
    """[A**T] trajectory probabilities P(τ) (product of the conditionals along each path)."""
    probs = np.ones(1)
    for level in tree.probs:
        probs = (probs[:, None] * level).reshape(-1)
    return probs


def collapse_probability_tree(tree: TreePolicy, group_size: int) -> float:
    r""":math:`\sum_\tau P(\tau)^G` by the bottom-up recursion over tree nodes."""
    if group_size < 1:
        raise ValueError(f"group_size must be >= 1, got {group_size}")
    s = np.ones(tree.num_leaves)
    for level in reversed(tree.probs):
        s = (level**group_size * s.reshape(level.shape)).sum(axis=1)
    return float(s[0])


def path_kl(tree: TreePolicy) -> np.ndarray:
    r"""[T] per-step :math:`\mathrm{KL}(\delta_{a^*_t}\|\pi(\cdot\mid h^*_t))=-\log\pi(0\mid h^*_t)`."""
    return np.array([-np.log(level[0, 0]) for level in tree.probs])


def score_matrix(tree: TreePolicy) -> np.ndarray:
    r"""[L, D] :math:`\nabla_\theta\log\pi(\tau_\ell)`, D = number of (node, action) logits."""
    depth, num_actions, leaves = tree.depth, tree.num_actions, np.arange(tree.num_leaves)
    blocks = []
    for t, level in enumerate(tree.probs):
        node = leaves // num_actions ** (depth - t)
        action = (leaves // num_actions ** (depth - t - 1)) % num_actions
        block = np.zeros((tree.num_leaves, level.size))
        block[leaves[:, None], node[:, None] * num_actions + np.arange(num_actions)] = -level[node]
        block[leaves, node * num_actions + action] += 1.0
        blocks.append(block)
    return np.concatenate(blocks, axis=1)


def _group_gradients(combos: np.ndarray, rewards: np.ndarray, scores: np.ndarray, eps_stab):
    """[C, D] GRPO gradients of the groups ``combos`` [C, G] (leaf indices)."""
    num, group_size = combos.shape
    adv = group_advantages(torch.from_numpy(rewards[combos]), eps_stab=eps_stab).numpy()
    weights = np.zeros((num, scores.shape[0]))
    np.add.at(weights, (np.arange(num)[:, None], combos), adv / group_size)
    return weights @ scores


def grpo_gradient_exact(
    tree: TreePolicy, rewards: np.ndarray, group_size: int, eps_stab: float = 1e-6
) -> dict:
    """Exact group-gradient statistics over all multisets of G leaves.

    Returns ``mean_norm`` E‖g‖, ``norm_of_mean`` ‖E g‖, ``p_rewards_equal`` and
    ``max_norm_collapsed`` (largest ‖g‖ over groups whose rewards are all equal; 0 exactly
    when collapsed groups contribute no gradient).
    """
    rewards = np.asarray(rewards, dtype=np.float64)
    if rewards.shape != (tree.num_leaves,):
        raise ValueError(f"rewards must have shape [{tree.num_leaves}], got {rewards.shape}")
    leaf_p = leaf_probabilities(tree)
    combos = np.array(
        list(itertools.combinations_with_replacement(range(tree.num_leaves), group_size))
    )
    counts = np.zeros((len(combos), tree.num_leaves))
    np.add.at(counts, (np.arange(len(combos))[:, None], combos), 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_p = np.where(counts > 0, counts * np.log(leaf_p), 0.0)
    log_w = gammaln(group_size + 1) - gammaln(counts + 1).sum(axis=1) + log_p.sum(axis=1)
    weight = np.exp(log_w)
    grads = _group_gradients(combos, rewards, score_matrix(tree), eps_stab)
    norms = np.linalg.norm(grads, axis=1)
    equal = (rewards[combos] == rewards[combos][:, :1]).all(axis=1)
    return {
        "mean_norm": float(weight @ norms),
        "norm_of_mean": float(np.linalg.norm(weight @ grads)),
        "p_rewards_equal": float(weight[equal].sum()),
        "max_norm_collapsed": float(norms[equal].max(initial=0.0)),
        "total_weight": float(weight.sum()),
    }


def grpo_gradient_mc(
    tree: TreePolicy,
    rewards: np.ndarray,
    group_size: int,
    num_groups: int,
    gen: torch.Generator,
    eps_stab: float = 1e-6,
) -> np.ndarray:
    """[num_groups] sampled group-gradient norms ‖g‖ (i.i.d. groups of G trajectories)."""
    leaf_p = torch.from_numpy(leaf_probabilities(tree))
    idx = torch.multinomial(leaf_p, num_groups * group_size, replacement=True, generator=gen)
    combos = idx.reshape(num_groups, group_size).numpy()
    grads = _group_gradients(combos, np.asarray(rewards, float), score_matrix(tree), eps_stab)
    return np.linalg.norm(grads, axis=1)


def num_multisets(num_leaves: int, group_size: int) -> int:
    """C(L + G − 1, G): how many groups :func:`grpo_gradient_exact` enumerates."""
    from math import comb

    return comb(num_leaves + group_size - 1, group_size)
