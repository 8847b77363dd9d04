"""Group-relative advantages (GRPO, Dr. GRPO, batch-scaled) — pure functions.

Shape letters: P prompts, G group size (rollouts per prompt). Rewards are laid out [P, G]
so every group statistic is a reduction over dim 1.
"""

from __future__ import annotations

import torch

from rcgrpo.validation import check_choice, check_group_tensor, check_nonnegative

SCALES = ("group", "batch", "none")


def _row_scale(x: torch.Tensor) -> torch.Tensor:
    """m = max|x| per row (keepdim), 1 for an all-zero row."""
    m = x.abs().amax(dim=1, keepdim=True)
    return torch.where(m > 0, m, torch.ones_like(m))


def group_advantages(
    rewards: torch.Tensor,
    eps_stab: float = 1e-6,
    scale: str = "group",
    ddof: int = 0,
) -> torch.Tensor:
    r"""Group-normalised advantages, paper Eq. (advantage) in §2 / Def. 4.1.

    .. math::
        \mu_g = \tfrac1G \sum_k R_k,\qquad
        \sigma_g^2 = \tfrac{1}{G-\mathrm{ddof}} \sum_k (R_k-\mu_g)^2

    - ``scale="group"`` (GRPO, Shao et al. 2024; the RC-GRPO paper):
      :math:`A_j = (R_j-\mu_g)/(\sigma_g+\varepsilon_{stab})`.
    - ``scale="batch"`` (TRL ``scale_rewards="batch"``): centred per group, divided by the
      standard deviation of all P·G rewards of the batch (same ``ddof``).
    - ``scale="none"`` (Dr. GRPO, Liu et al. 2025): :math:`A_j = R_j-\mu_g`.

    Conventions: the paper uses the population std (``ddof=0``); TRL and verl use the
    Bessel-corrected std (``ddof=1``). With ``ddof=0``, ``|A_j| <= sqrt(G-1)``. A constant
    group (advantage collapse, Def. 4.1) returns exactly 0 for every ``eps_stab`` and every
    scale, even when floating-point rounding makes the computed mean differ from the value.

    Args:
        rewards: float tensor [P, G], finite, G >= 2.
        eps_stab: ε_stab >= 0 added to the std (the paper leaves it unstated; TRL uses 1e-4,
            verl 1e-6).
        scale: one of ``"group"``, ``"batch"``, ``"none"``.
        ddof: 0 (population std, paper) or 1 (sample std, TRL/verl).

    Returns:
        advantages [P, G], same dtype as ``rewards`` (integer/bool rewards become float32).
    """
    check_group_tensor("rewards", rewards)
    check_nonnegative("eps_stab", eps_stab)
    check_choice("scale", scale, SCALES)
    if isinstance(ddof, bool) or ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 (population std, paper) or 1 (sample std), got {ddof!r}")

    r = rewards if rewards.is_floating_point() else rewards.float()
    constant = r.amax(dim=1, keepdim=True) == r.amin(dim=1, keepdim=True)
    # Work with y = R/m, m = max|R| (per group, or over the batch for scale="batch"):
    # (R - μ)/(σ + ε) = (y - μ_y)/(σ_y + ε/m) is the same number, but y ∈ [-1, 1] cannot
    # underflow or overflow when squared (plain std turns rewards 1e-200 apart into σ = 0,
    # and the mean of (0, 5e-324) rounds to an endpoint).
    m = _row_scale(r) if scale != "batch" else _row_scale(r.reshape(1, -1))
    y = r / m
    centred = y - y.mean(dim=1, keepdim=True)
    centred = torch.where(constant, torch.zeros_like(centred), centred)
    if scale == "none":
        return centred * m
    rows = y if scale == "group" else y.reshape(1, -1)
    std = rows.std(dim=1, keepdim=True, correction=ddof).expand(r.shape[0], 1)
    # (torch evaluates scalar / m as scalar · (1/m): 0 · inf = NaN for subnormal m)
    scaled_eps = eps_stab / m if eps_stab > 0 else torch.zeros_like(m)
    # A constant group divides 0 by 1, not by (0 + eps_stab): with eps_stab = 0 the latter
    # is 0/0 = NaN, which would break the "exactly 0 for every eps_stab" contract.
    denom = torch.where(constant, torch.ones_like(std), std + scaled_eps)
    return centred / denom
