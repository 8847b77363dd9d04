r"""A two-mode reward-conditioned policy with exact expected GRPO statistics (Remark 4.4).

The model: one prompt, two modes (success, reward 1; failure, reward 0). The policy is a
tabular softmax over the two modes whose logit depends on the reward token:
``logits = (z_low, z_high)``, :math:`\pi(\text{success}\mid r)=\sigma(z_r/\tau)` at sampling
temperature τ. Plain GRPO (no token, or RCTP + GRPO with every token high) is
``scheme="high"``: only ``z_high`` is used. RC-GRPO draws each rollout's token with
``scheme="iid"`` (the paper) or ``"stratified"``.

For a group with tokens :math:`r_j` and outcomes :math:`X_j\in\{0,1\}` the GRPO gradient
w.r.t. the logits at ratio 1 is

.. math::
    g_r=\frac1G\sum_{j:\,r_j=r}A_j\,\frac{X_j-\sigma(z_r/\tau)}{\tau},
    \qquad A=\texttt{group\_advantages}(X),

and every expectation below is exact: a sum over all token patterns (2^G i.i.d.,
C(G, k) stratified, 1 high) times all 2^G outcomes. The advantages depend on the outcomes
only, so they are computed once per table and the policy only reweights the rows.

Bound used by the checks (|A_j| <= sqrt(G−1), :math:`E|X-s|=2s(1-s)`):

.. math:: E\|g\| \le \frac{2\sqrt{G-1}}{\tau}\sum_r f_r\,s_r(1-s_r),

with :math:`f_r` the expected fraction of rollouts carrying token r: the update vanishes
when each conditional policy is peaked, however separated the modes are.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch

from rcgrpo import group_advantages
from rcgrpo.conditioning import stratified_count

SCHEMES = ("iid", "stratified", "high")


def token_patterns(group_size: int, p: float, scheme: str) -> tuple[np.ndarray, np.ndarray]:
    """(patterns bool [M, G] True = high, probs [M]) of the group's reward tokens."""
    if scheme == "high":
        return np.ones((1, group_size), dtype=bool), np.ones(1)
    if scheme == "stratified":
        k = stratified_count(p, group_size)
        rows = [
            np.isin(np.arange(group_size), c) for c in itertools.combinations(range(group_size), k)
        ]
        return np.array(rows, dtype=bool).reshape(-1, group_size), np.full(len(rows), 1 / len(rows))
    if scheme == "iid":
        pats = np.array(list(itertools.product([False, True], repeat=group_size)))
        k = pats.sum(axis=1)
        return pats, p**k * (1.0 - p) ** (group_size - k)
    raise ValueError(f"scheme must be one of {SCHEMES}, got {scheme!r}")


@dataclass(frozen=True)
class OutcomeTable:
    """Every (tokens, outcomes) row of a group: tokens/outcomes bool [N, G], token_probs [N],
    advantages [N, G] (from ``group_advantages``) and ``collapsed`` bool [N]."""

    tokens: np.ndarray
    outcomes: np.ndarray
    token_probs: np.ndarray
    advantages: np.ndarray
    collapsed: np.ndarray


@lru_cache(maxsize=64)
def outcome_table(group_size: int, p: float, scheme: str, eps_stab: float = 1e-6) -> OutcomeTable:
    """The exact enumeration table for (G, p, scheme); G <= 8 keeps it under 65 536 rows."""
    if not 2 <= group_size <= 8:
        raise ValueError(f"group_size must be in [2, 8] for exact enumeration, got {group_size}")
    pats, probs = token_patterns(group_size, p, scheme)
    outs = np.array(list(itertools.product([False, True], repeat=group_size)))
    tokens = np.repeat(pats, len(outs), axis=0)
    outcomes = np.tile(outs, (len(pats), 1))
    adv = group_advantages(torch.from_numpy(outcomes.astype(np.float64)), eps_stab=eps_stab)
    adv = adv.numpy()
    return OutcomeTable(tokens, outcomes, np.repeat(probs, len(outs)), adv, (adv == 0).all(axis=1))


def success_probs(logits: np.ndarray, tau: float = 1.0) -> np.ndarray:
    """[2] (s_low, s_high) = sigmoid(z / tau)."""
    return 1.0 / (1.0 + np.exp(-np.asarray(logits, dtype=np.float64) / tau))


def token_fractions(group_size: int, p: float, scheme: str) -> np.ndarray:
    """[2] expected fraction of low / high tokens in a group."""
    if scheme == "high":
        return np.array([0.0, 1.0])
    f_high = stratified_count(p, group_size) / group_size if scheme == "stratified" else p
    return np.array([1.0 - f_high, f_high])


def group_gradients(table: OutcomeTable, logits: np.ndarray, tau: float) -> tuple:
    """(row probabilities [N], gradients [N, 2]) of every row of ``table``."""
    s = success_probs(logits, tau)
    s_row = np.where(table.tokens, s[1], s[0])
    like = np.where(table.outcomes, s_row, 1.0 - s_row).prod(axis=1)
    weighted = table.advantages * (table.outcomes - s_row) / tau / table.tokens.shape[1]
    grads = np.stack([(weighted * ~table.tokens).sum(1), (weighted * table.tokens).sum(1)], 1)
    return table.token_probs * like, grads


def expected_statistics(
    logits: np.ndarray,
    group_size: int,
    p: float = 0.5,
    scheme: str = "iid",
    tau: float = 1.0,
    eps_stab: float = 1e-6,
) -> dict:
    """Exact E[g] [2], E‖g‖, E[σ_g²], P(collapse) and the vanishing bound at ``logits``."""
    table = outcome_table(group_size, float(p), scheme, float(eps_stab))
    probs, grads = group_gradients(table, logits, tau)
    s = success_probs(logits, tau)
    frac = token_fractions(group_size, p, scheme)
    return {
        "mean_grad": probs @ grads,
        "mean_grad_norm": float(probs @ np.linalg.norm(grads, axis=1)),
        "expected_variance": float(probs @ table.outcomes.var(axis=1)),
        "p_collapse": float(probs[table.collapsed].sum()),
        "grad_norm_bound": 2.0 * math.sqrt(group_size - 1) / tau * float(frac @ (s * (1 - s))),
        "success": s,
        "total_prob": float(probs.sum()),
    }


def entropy_gradient(logits: np.ndarray, weights: np.ndarray) -> np.ndarray:
    r""":math:`\nabla_z\sum_rw_rH_b(\sigma(z_r))` in nats, :math:`dH_b/dz=-z\,s(1-s)`."""
    z = np.asarray(logits, dtype=np.float64)
    s = success_probs(z)
    return -np.asarray(weights) * z * s * (1.0 - s)


def binary_entropy(s: np.ndarray) -> np.ndarray:
    """H_b(s) in nats (0 at s in {0, 1})."""
    s = np.clip(np.asarray(s, dtype=np.float64), 1e-300, 1.0)
    t = np.clip(1.0 - np.asarray(s), 1e-300, 1.0)
    return -(s * np.log(s) + t * np.log(t))


def sample_group_gradients(
    logits: np.ndarray,
    group_size: int,
    p: float,
    scheme: str,
    tau: float,
    num_groups: int,
    gen: torch.Generator,
    eps_stab: float = 1e-6,
) -> np.ndarray:
    """[num_groups, 2] sampled group gradients (tokens from ``sample_reward_tokens``)."""
    from rcgrpo import sample_reward_tokens

    tokens = sample_reward_tokens(num_groups, group_size, p=p, scheme=scheme, generator=gen)
    s = torch.from_numpy(success_probs(logits, tau))
    s_row = torch.where(tokens, s[1], s[0])
    outcomes = (
        torch.rand(num_groups, group_size, generator=gen, dtype=torch.float64) < s_row
    ).double()
    adv = group_advantages(outcomes, eps_stab=eps_stab)
    weighted = adv * (outcomes - s_row) / tau / group_size
    high = tokens.double()
    return torch.stack([(weighted * (1 - high)).sum(1), (weighted * high).sum(1)], 1).numpy()
