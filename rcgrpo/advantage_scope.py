r"""Which rollouts an advantage is normalised over, and which rollouts train: the mechanism
arms of RC-GRPO (pure functions and their registry).

Shape letters: P prompts, G group size; ``high`` [P, G] bool is each rollout's reward goal
(True = <|high_reward|>). By the law of total variance (Lemma A.3) RC-GRPO's group variance
splits into a within-goal and a between-goal term,

.. math:: \sigma_g^2 = \underbrace{\textstyle\sum_r \tfrac{n_r}{G}\,\sigma_{g,r}^2}_{within}
   + \underbrace{\textstyle\sum_r \tfrac{n_r}{G}\,(\mu_{g,r}-\mu_g)^2}_{between},

and Prop. 4.3's guarantee is the between-goal term. Two arms remove one mechanism each:

- **scope** ``goal`` (within-goal normalisation): each goal's sub-group of :math:`n_r`
  rollouts is its own group for the estimator,
  :math:`A_j = \mathrm{est}(R_{\{k: r_k = r_j\}})_j`; the between-goal term no longer enters
  any advantage. A sub-group of one rollout has no baseline: its advantage is 0. ``group``
  (the paper) normalises over all G rollouts.
Both scopes work from the estimator's declared inputs (:data:`rcgrpo.advantages.INPUTS`):
the goals are its ``goals``, and the goal scope hands each sub-group its slice of every input
given (its rollouts' goals and lengths, its group's id).

- **anchored low mode**: the advantages are those of the whole group (low-goal rollouts enter
  its mean and std), but only high-goal rollouts are trained on (:func:`trained_rollouts`),
  so the low mode's conditional policy gets no gradient and cannot learn to succeed.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from rcgrpo.advantages import group_advantages
from rcgrpo.validation import check_choice, check_group_tensor


def _check_goals(rewards: torch.Tensor, high: torch.Tensor) -> None:
    check_group_tensor("rewards", rewards)
    if high.shape != rewards.shape or high.dtype != torch.bool:
        raise ValueError(
            f"high must be a bool tensor of the rewards' shape {tuple(rewards.shape)}, "
            f"got {high.dtype} {tuple(high.shape)}"
        )


def group_scope(
    rewards, high, estimator="grpo", eps_stab=1e-6, ddof=0, **inputs: torch.Tensor | None
) -> torch.Tensor:
    """The paper's scope: :func:`rcgrpo.group_advantages` over all G rollouts (``high`` is
    the estimator's ``goals``; ``inputs``: its ``group_ids`` / ``lengths``)."""
    _check_goals(rewards, high)
    return group_advantages(rewards, estimator, eps_stab=eps_stab, ddof=ddof, goals=high, **inputs)


def _sub_inputs(inputs: dict[str, torch.Tensor | None], p: int, idx: torch.Tensor) -> dict:
    """Each given input of rollouts ``idx`` of group ``p``, as a group of its own."""
    return {
        k: v[p : p + 1] if k == "group_ids" else v[p, idx][None]
        for k, v in inputs.items()
        if v is not None
    }


def goal_scope(
    rewards, high, estimator="grpo", eps_stab=1e-6, ddof=0, **inputs: torch.Tensor | None
) -> torch.Tensor:
    r"""Within-goal advantages [P, G] (module docstring): the estimator on each goal's
    sub-group of each group; 0 for a sub-group of one rollout.

    Args:
        rewards: [P, G], finite, G >= 2.
        high: [P, G] bool, the rollouts' reward goals.
        estimator, eps_stab, ddof: as :func:`rcgrpo.group_advantages`.
        inputs: ``group_ids`` [P] / ``lengths`` [P, G], when the estimator reads them.

    Returns:
        [P, G] float, the dtype of ``rewards`` (integer/bool rewards become float32).
    """
    _check_goals(rewards, high)
    r = rewards if rewards.is_floating_point() else rewards.float()
    out = torch.zeros_like(r)
    for p in range(r.shape[0]):
        for goal in (True, False):
            idx = (high[p] == goal).nonzero().flatten()
            if len(idx) >= 2:
                sub = _sub_inputs({**inputs, "goals": high}, p, idx)
                adv = group_advantages(
                    r[p, idx][None], estimator, eps_stab=eps_stab, ddof=ddof, **sub
                )
                out[p, idx] = adv[0]
    return out


ADV_SCOPES: dict[str, Callable[..., torch.Tensor]] = {"group": group_scope, "goal": goal_scope}
"""``algo.adv_scope`` name -> function of (rewards, high, estimator, eps_stab, ddof, **inputs)."""


def scoped_advantages(
    rewards: torch.Tensor,
    high: torch.Tensor | None,
    scope: str = "group",
    estimator: str = "grpo",
    *,
    eps_stab: float = 1e-6,
    ddof: int = 0,
    group_ids: torch.Tensor | None = None,
    lengths: torch.Tensor | None = None,
) -> torch.Tensor:
    """Advantages [P, G] under ``scope`` (:data:`ADV_SCOPES`); ``high`` None (no reward
    token) is only valid for the ``group`` scope. ``group_ids`` and ``lengths``: the
    estimator's inputs of those names (:data:`rcgrpo.advantages.INPUTS`), when it reads them."""
    check_choice("scope", scope, ADV_SCOPES)
    inputs = {"group_ids": group_ids, "lengths": lengths}
    if high is None:
        if scope != "group":
            raise ValueError(f"scope {scope!r} needs reward goals (high), got None")
        return group_advantages(rewards, estimator, eps_stab=eps_stab, ddof=ddof, **inputs)
    return ADV_SCOPES[scope](rewards, high, estimator, eps_stab, ddof, **inputs)


def trained_rollouts(high: torch.Tensor | None, low_goal_gradient: bool) -> torch.Tensor | None:
    """bool [P, G] of the rollouts the update trains on: every one, or (anchored low mode,
    ``low_goal_gradient`` False) the high-goal ones only; None = every one."""
    if low_goal_gradient:
        return None
    if high is None or high.dtype != torch.bool:
        raise ValueError("the anchored low mode needs bool reward goals (high), got none")
    return high.clone()
