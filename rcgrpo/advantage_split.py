r"""Where an RC-GRPO update comes from: each advantage split into a between-goal and a
within-goal part.

RC-GRPO draws a reward goal r_j ∈ {high, low} per rollout and normalises over the whole
group (paper §2): :math:`A_j = (R_j-\mu_g)/(\sigma_g+\varepsilon)`. With
:math:`\mu_{r}` the mean reward of the group's rollouts that drew goal r,

.. math::
    A_j = \underbrace{\frac{\mu_{r_j}-\mu_g}{\sigma_g+\varepsilon}}_{b_j\ \text{(between goals)}}
        + \underbrace{\frac{R_j-\mu_{r_j}}{\sigma_g+\varepsilon}}_{w_j\ \text{(within goal)}}.

b_j rewards a rollout for the goal it drew (it teaches what the goal token means); w_j
ranks rollouts of the same goal against each other (it improves behaviour under that goal,
and under the high goal is what evaluation uses). Per group and goal, Σ_{j∈r} w_j = 0 and
b_j is constant, so Σ_j b_j w_j = 0 and Σ_j A_j² = Σ_j b_j² + Σ_j w_j² (Lemma A.3 scaled).

An estimator that declares the form :math:`A_j = c_g(R_j-\mu_g)` for a per-group factor
c_g (``centred``, :class:`rcgrpo.advantages.Estimator`; every built-in one: 1/(σ_g+ε), a
batch factor, 1 or G/(G-1)) has its split read off the advantages alone: :math:`b_j` is the
mean advantage of the group's rollouts with goal :math:`r_j` (that mean is
:math:`c_g(\mu_{r_j}-\mu_g)`) and :math:`w_j = A_j - b_j`. No rewards, ε or ddof are needed,
and the same function serves the trainer and an offline recomputation from
``rollouts.jsonl``. For another estimator the parts are still defined (b the goal's mean
advantage, w the rest) but are not the two terms above, so the trainers and ``diagnose``
report no split for it (:func:`split_applies`).

Conventions:

- A group in which only one goal occurs has μ_r = μ_g: its b is exactly 0 and w = A
  (not the rounding residue of a mean of advantages that sums to ~0).
- A constant group (σ_g = 0) has A = 0, hence b = w = 0.
- Shares are of the advantage *weight* Σ|b| + Σ|w|, so between + within = 1. (Σ|A| can be
  smaller: b_j and w_j have opposite signs for, e.g., a failed high-goal rollout in a group
  where the high goal beats the mean.) A share over a set whose advantages are all 0 is NaN.
- Which groups enter is the caller's choice: the trainer passes the groups it trains on
  (a group dropped by dynamic sampling carries no advantage in the update).

Shapes: P groups, G rollouts per group; all outputs float64.
"""

from __future__ import annotations

import torch

from rcgrpo.advantages import ADV_ESTIMATORS
from rcgrpo.validation import check_choice, check_group_tensor, check_same_shape

SPLIT_METRICS = (
    "adv/between_abs_mean",
    "adv/within_abs_mean",
    "adv/between_share",
    "adv/within_share",
    "adv/high_within_share",
)
"""Registry names :func:`split_summaries` returns (see :mod:`rcgrpo.metrics`)."""


def split_applies(estimator: str) -> bool:
    """Whether advantages of ``estimator`` split into the between- and within-goal terms of
    the module docstring: it declares ``centred`` (:class:`rcgrpo.advantages.Estimator`)."""
    check_choice("estimator", estimator, ADV_ESTIMATORS)
    return ADV_ESTIMATORS[estimator].centred


def advantage_split(
    advantages: torch.Tensor, high: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    r"""(between, within) parts of every advantage, each [P, G] float64 (module docstring).

    .. math::
        b_j = \frac{1}{n_{r_j}}\sum_{k:\,r_k=r_j} A_k \ \ (= 0 \text{ if one goal only}),
        \qquad w_j = A_j - b_j.

    Args:
        advantages: [P, G] finite float, of an estimator that :func:`split_applies` to.
        high: [P, G] bool, True = the rollout drew ``<|high_reward|>``.
    """
    check_group_tensor("advantages", advantages)
    check_same_shape("advantages", advantages, "high", high)
    if not advantages.is_floating_point():
        raise ValueError(f"advantages must be a floating tensor, got {advantages.dtype}")
    if high.dtype != torch.bool:
        raise ValueError(f"high must be a bool tensor (True = high goal), got {high.dtype}")
    a = advantages.to(torch.float64)
    zero = a.new_zeros(())
    between = torch.zeros_like(a)
    for sel in (high, ~high):
        n = sel.sum(dim=1, keepdim=True).to(a.dtype)
        mean = torch.where(sel, a, zero).sum(dim=1, keepdim=True) / n.clamp(min=1)
        between = torch.where(sel, mean.expand_as(a), between)
    diverse = high.any(dim=1, keepdim=True) & (~high).any(dim=1, keepdim=True)
    between = torch.where(diverse, between, zero)
    return between, a - between


def _share(part: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    """Σ|part| / (Σ|part| + Σ|other|), NaN when both sums are 0."""
    num = part.abs().sum()
    den = num + other.abs().sum()
    return num / den if bool(den > 0) else torch.full((), float("nan"), dtype=part.dtype)


def split_summaries(
    between: torch.Tensor, within: torch.Tensor, high: torch.Tensor
) -> dict[str, torch.Tensor]:
    r"""Batch summaries of a split, keyed by registry name (0-d float64 tensors).

    .. math::
        \text{between\_share} = \frac{\sum_j |b_j|}{\sum_j |b_j| + \sum_j |w_j|},\quad
        \text{within\_share} = 1 - \text{between\_share},\quad
        \text{high\_within\_share} = \frac{\sum_{j:h_j} |w_j|}
            {\sum_{j:h_j} |b_j| + \sum_{j:h_j} |w_j|},

    and ``adv/{between,within}_abs_mean`` = mean_j |b_j|, mean_j |w_j|.
    """
    check_same_shape("between", between, "within", within)
    check_same_shape("between", between, "high", high)
    if high.dtype != torch.bool:
        raise ValueError(f"high must be a bool tensor (True = high goal), got {high.dtype}")
    b, w = between.to(torch.float64), within.to(torch.float64)
    return {
        "adv/between_abs_mean": b.abs().mean(),
        "adv/within_abs_mean": w.abs().mean(),
        "adv/between_share": _share(b, w),
        "adv/within_share": _share(w, b),
        "adv/high_within_share": _share(w[high], b[high]),
    }
