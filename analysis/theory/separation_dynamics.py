r"""Separation dynamics: how long Prop. 4.3's guarantee lasts under the KL-regularised update.

Model: one prompt, two goals r ∈ {low, high} (index 0 = low, 1 = high, as in
:mod:`analysis.theory.two_mode`), and for each goal a tabular tree policy
:math:`\pi_\theta(\cdot\mid r)` (:class:`~analysis.theory.tree_policy.TreePolicy`, logits
θ_r[h, a] laid out like :func:`~analysis.theory.tree_policy.score_matrix`'s columns). The
reward :math:`R(\tau)\in\{0,1\}` depends on the leaf only — it ignores the goal. RC-GRPO
starts from π_ref = the start policy (the RCTP checkpoint). :math:`s_r=E_{\pi(\cdot|r)}[R]`,
:math:`\varepsilon=|s_h-s_l|`.

**Exact expected update** (i.i.d. tokens, ratio 1 — the trainer's one inner epoch and one
minibatch). The group advantages depend on the outcomes only, so conditioning on them,

.. math::
    E[g_r^{PG}] = c_r\,\nabla_{\theta_r}s_r,\qquad
    c_r=\frac{E\big[\tfrac1G\sum_{j:r_j=r}A_j\,(X_j-s_r)\big]}{s_r(1-s_r)},

:math:`A=\texttt{group\_advantages}(X)` (:func:`goal_weights`; exact, a sum over the count
patterns (n_high, successes per goal)). The KL term (``kl``):

- ``"k3"`` (the trainer's ``algo.kl_estimator k3``): the per-token loss
  :math:`k_3=e^x-x-1`, :math:`x=\log\pi_{ref}(a)-\log\pi_\theta(a)`, on tokens sampled from
  π_θ, differentiated through :math:`\log\pi_\theta` only. Its expected gradient in node h's
  logits is :math:`P_\theta(h)\,(\pi_\theta(\cdot\mid h)-\pi_{ref}(\cdot\mid h))` — the
  gradient of the *forward* KL(π_ref‖π_θ) per node, not of the printed KL(π_θ‖π_ref).
- ``"reverse"``: the exact gradient of :math:`\mathrm{KL}(\pi_\theta\|\pi_{ref})` over
  trajectories, :math:`\sum_\tau P(\tau)\log\tfrac{P(\tau)}{P_{ref}(\tau)}\nabla\log P(\tau)`
  (the paper's objective as printed).

Update: :math:`\theta_r\leftarrow\theta_r+\eta\,(c_r\nabla s_r-\beta\nabla\mathrm{KL}_r)`
(plain gradient ascent; the trainer's AdamW and token-mean aggregation only rescale η, which
is why the figure fits an *effective* η). Prop. 4.3 at each step gives
:math:`E[\sigma_g^2](t)\ge\kappa\varepsilon(t)^2`, κ = (G−1)/G·p(1−p); :func:`simulate`
returns the cumulative bound :math:`\sum_{u\le t}\kappa\varepsilon(u)^2`.

**Fixed points** (:mod:`analysis.theory.separation_fixed_point`): with the reverse KL,
:math:`\pi^*(\tau\mid r)\propto\pi_{ref}(\tau\mid r)\exp(c_r^*R(\tau)/\beta)`; with k3 on
a bandit, :math:`\pi^*(a)=\pi_{ref}(a)/(1-c^*_r(R(a)-s_r)/\beta)`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import scipy.special._ufuncs as scipy_kernels
import torch

from analysis.theory.tree_policy import TreePolicy, leaf_probabilities, score_matrix
from analysis.theory.variance_guarantee import kappa
from rcgrpo import group_advantages

KL_GRADIENTS = ("k3", "reverse")


@lru_cache(maxsize=64)
def advantage_values(group_size: int, eps_stab: float = 1e-6) -> np.ndarray:
    """[G+1, 2] (A of a failure, A of a success) in a group with k = 0..G successes.

    From :func:`rcgrpo.group_advantages` on the outcome vector with k ones (the advantage of
    a binary outcome depends on k only); entries for an absent outcome are 0.
    """
    rows = torch.tensor([[1.0] * k + [0.0] * (group_size - k) for k in range(group_size + 1)])
    adv = group_advantages(rows.double(), eps_stab=eps_stab).numpy()
    out = np.zeros((group_size + 1, 2))
    for k in range(group_size + 1):
        out[k, 0] = adv[k, -1] if k < group_size else 0.0
        out[k, 1] = adv[k, 0] if k > 0 else 0.0
    return out


def binom_pmf(k: np.ndarray | int, n: int, p: float) -> np.ndarray:
    """``scipy.stats.binom.pmf(k, n, p)`` for k in 0..n and p in [0, 1], bit for bit: the
    kernel binom.pmf calls, clipped to [0, 1] as it does, without its argument checks and
    support bookkeeping (≈ 20x the kernel's time; :func:`goal_weights` calls it 3(G + 1)
    times per simulated step). Outside the support binom.pmf gives 0, this NaN: k must be in it."""
    return np.minimum(np.maximum(scipy_kernels._binom_pmf(k, n, p), 0.0), 1.0)  # = np.clip


@lru_cache(maxsize=64)
def _outcome_grid(group_size: int, p: float, eps_stab: float) -> tuple:
    """Per number of high tokens n: ((n_low, n_high), P(n), (0..n_low, 0..n_high), per goal r
    (k_r a_1(k), (n_r − k_r) a_0(k)) on the [n_low + 1, n_high + 1] grid of (k_l, k_h)): what
    :func:`goal_weights` needs that does not depend on the success rates, computed once."""
    a = advantage_values(group_size, eps_stab)
    out = []
    for n_high in range(group_size + 1):
        counts = (group_size - n_high, n_high)
        ks = (np.arange(counts[0] + 1), np.arange(counts[1] + 1))
        kl_, kh_ = np.meshgrid(*ks, indexing="ij")
        k = kl_ + kh_
        weighted = tuple(
            (kr * a[k, 1], (counts[r] - kr) * a[k, 0]) for r, kr in ((0, kl_), (1, kh_))
        )
        out.append((counts, binom_pmf(n_high, group_size, p), ks, weighted))
    return tuple(out)


def goal_weights(
    success: np.ndarray, group_size: int, p: float = 0.5, eps_stab: float = 1e-6
) -> np.ndarray:
    r"""[2] c = (c_low, c_high), the expected GRPO gradient per unit of ∇s_r (i.i.d. tokens).

    .. math:: c_r=\frac{1}{G\,s_r(1-s_r)}\sum_{n,k_h,k_l}P(n,k_h,k_l)\,
              \big[k_r a_1(k)(1-s_r)-(n_r-k_r)\,a_0(k)\,s_r\big],

    n = number of high tokens (Binomial(G, p)), :math:`k_r` successes among the
    :math:`n_r` rollouts of goal r (Binomial(n_r, s_r)), k = k_h + k_l, :math:`a_{1/0}(k)`
    from :func:`advantage_values`. ``success`` [2] = (s_low, s_high) in (0, 1); c_r = 0 where
    s_r(1 − s_r) = 0 (then ∇s_r = 0 too).
    """
    s = np.asarray(success, dtype=np.float64)
    if s.shape != (2,) or (s < 0).any() or (s > 1).any():
        raise ValueError(f"success must be [2] in [0, 1], got {success!r}")
    total = np.zeros(2)
    for counts, p_tok, ks, weighted in _outcome_grid(group_size, p, float(eps_stab)):
        prob = p_tok * binom_pmf(ks[0], counts[0], s[0])[:, None]
        prob = prob * binom_pmf(ks[1], counts[1], s[1])[None, :]
        for r in (0, 1):
            term = weighted[r][0] * (1 - s[r]) - weighted[r][1] * s[r]
            total[r] += float((prob * term).sum())
    spread = s * (1 - s)
    safe = np.where(spread > 0, spread, 1.0)
    return np.where(spread > 0, total / (group_size * safe), 0.0)


def bandit(success: float, num_actions: int = 2) -> TreePolicy:
    """One decision: action 0 succeeds with probability ``success``, the rest share the rest."""
    rest = np.full(num_actions - 1, (1.0 - success) / (num_actions - 1))
    return TreePolicy((np.concatenate([[success], rest])[None, :],))


def bandit_rewards(num_actions: int = 2) -> np.ndarray:
    """[A] reward 1 on action 0 (the goal-blind reward of :func:`bandit`)."""
    return (np.arange(num_actions) == 0).astype(np.float64)


def flat_logits(tree: TreePolicy) -> np.ndarray:
    """[D] log π(a|h) of every (node, action), in :func:`score_matrix`'s column order."""
    with np.errstate(divide="ignore"):
        return np.concatenate([np.log(level).reshape(-1) for level in tree.probs])


def tree_from_logits(logits: np.ndarray, like: TreePolicy) -> TreePolicy:
    """The softmax tree with ``logits`` [D] on the shape of ``like``."""
    levels, start = [], 0
    for level in like.probs:
        z = logits[start : start + level.size].reshape(level.shape)
        z = np.exp(z - z.max(axis=1, keepdims=True))
        levels.append(z / z.sum(axis=1, keepdims=True))
        start += level.size
    return TreePolicy(tuple(levels))


def success(tree: TreePolicy, rewards: np.ndarray) -> float:
    """s = Σ_τ P(τ) R(τ)."""
    return float(leaf_probabilities(tree) @ rewards)


def success_gradient(tree: TreePolicy, rewards: np.ndarray) -> np.ndarray:
    r"""[D] :math:`\nabla_\theta s=\sum_\tau P(\tau)R(\tau)\nabla\log P(\tau)`."""
    return (leaf_probabilities(tree) * rewards) @ score_matrix(tree)


def visit_probabilities(tree: TreePolicy) -> list[np.ndarray]:
    """P_θ(h) of the nodes of each depth, [A**t] per level."""
    out, probs = [], np.ones(1)
    for level in tree.probs:
        out.append(probs)
        probs = (probs[:, None] * level).reshape(-1)
    return out


def kl_divergence(tree: TreePolicy, ref: TreePolicy) -> float:
    """Exact trajectory KL(π_θ ‖ π_ref) in nats."""
    p, q = leaf_probabilities(tree), leaf_probabilities(ref)
    keep = p > 0
    return float(p[keep] @ np.log(p[keep] / q[keep]))


def kl_gradient(tree: TreePolicy, ref: TreePolicy, kind: str = "k3") -> np.ndarray:
    """[D] expected gradient of the KL term (see the module docstring for ``kind``)."""
    if kind == "k3":
        visits = visit_probabilities(tree)
        pairs = zip(visits, tree.probs, ref.probs, strict=True)
        blocks = [v[:, None] * (a - b) for v, a, b in pairs]
        return np.concatenate([b.reshape(-1) for b in blocks])
    if kind == "reverse":
        p, q = leaf_probabilities(tree), leaf_probabilities(ref)
        with np.errstate(divide="ignore"):
            log_ratio = np.where(p > 0, np.log(np.where(p > 0, p, 1.0) / q), 0.0)
        return (p * log_ratio) @ score_matrix(tree)
    raise ValueError(f"kl must be one of {KL_GRADIENTS}, got {kind!r}")


def expected_update(
    trees: tuple[TreePolicy, TreePolicy],
    refs: tuple[TreePolicy, TreePolicy],
    rewards: np.ndarray,
    beta: float,
    group_size: int,
    p: float = 0.5,
    kl: str = "k3",
) -> tuple[np.ndarray, np.ndarray]:
    r"""(g_low [D], g_high [D]): :math:`g_r=c_r\nabla s_r-\beta\nabla\mathrm{KL}_r` (ascent)."""
    s = np.array([success(t, rewards) for t in trees])
    c = goal_weights(s, group_size, p)
    return tuple(
        c[r] * success_gradient(trees[r], rewards) - beta * kl_gradient(trees[r], refs[r], kl)
        for r in range(2)
    )


def simulate(
    start: tuple[TreePolicy, TreePolicy],
    rewards: np.ndarray,
    beta: float,
    lr: float,
    steps: int,
    group_size: int = 8,
    p: float = 0.5,
    kl: str = "k3",
) -> dict[str, np.ndarray]:
    r"""ε(t) under the exact expected update from π_ref = ``start`` (low, high), t = 0..steps.

    Returns [steps + 1] arrays ``s_low``, ``s_high``, ``eps`` = |s_h − s_l|, ``bound`` =
    κε(t)² and ``cum_bound`` = :math:`\sum_{u\le t}\kappa\varepsilon(u)^2`.
    """
    if steps < 0 or lr < 0 or beta < 0:
        raise ValueError("steps, lr and beta must be >= 0")
    trees = tuple(start)
    rows = []
    for t in range(steps + 1):
        rows.append([success(tree, rewards) for tree in trees])
        if t == steps:
            break
        if lr > 0:
            grads = expected_update(trees, start, rewards, beta, group_size, p, kl)
            trees = tuple(
                tree_from_logits(flat_logits(tr) + lr * g, tr)
                for tr, g in zip(trees, grads, strict=True)
            )
    s = np.array(rows)
    eps = np.abs(s[:, 1] - s[:, 0])
    bound = kappa(group_size, p) * eps**2
    out = {"s_low": s[:, 0], "s_high": s[:, 1], "eps": eps, "bound": bound}
    return out | {"cum_bound": np.cumsum(bound)}


def half_life(eps: np.ndarray, floor: float | None = None) -> int | None:
    """First t with ε(t) ≤ ε(0)/2 (or ≤ ``floor``); None if ε never gets there."""
    eps = np.asarray(eps, dtype=np.float64)
    level = eps[0] / 2.0 if floor is None else float(floor)
    hit = np.nonzero(eps <= level)[0]
    return int(hit[0]) if hit.size else None


def half_life_grid(
    betas: np.ndarray,
    lrs: np.ndarray,
    start: tuple[float, float],
    steps: int = 400,
    group_size: int = 8,
    p: float = 0.5,
    kl: str = "k3",
) -> np.ndarray:
    """[len(betas), len(lrs)] predicted half-life on the bandit from (s_low, s_high) = ``start``
    (NaN: not reached within ``steps``)."""
    trees, rewards = (bandit(start[0]), bandit(start[1])), bandit_rewards()
    out = np.full((len(betas), len(lrs)), np.nan)
    for i, beta in enumerate(betas):
        for j, lr in enumerate(lrs):
            hl = half_life(simulate(trees, rewards, beta, lr, steps, group_size, p, kl)["eps"])
            out[i, j] = np.nan if hl is None else hl
    return out
