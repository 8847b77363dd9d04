"""Group-relative advantages (GRPO, Dr. GRPO, batch-scaled) — pure functions.

Shape letters: P prompts, G group size (rollouts per prompt). Rewards are laid out [P, G]
so every group statistic is a reduction over dim 1.
"""

from __future__ import annotations

import torch

from rcgrpo.validation import check_choice, check_group_tensor, check_nonnegative

SCALES = ("group", "batch", "none")


def _scaled_std(x: torch.Tensor, ddof: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(m, σ(x)/m) along dim 1 (keepdim) with m = max|x - mean| (1 for a constant row).

    The std is positively homogeneous, σ(x) = m·σ(x/m). Working with x/m ∈ [-1, 1] means
    squares cannot underflow or overflow, so a non-constant row always gets σ/m > 0 (plain
    ``std`` turns rewards 1e-200 apart into σ = 0, and even m·σ(x/m) underflows for rewards
    (0, 5e-324)); callers divide in the scaled space instead of forming σ itself.
    """
    c = x - x.mean(dim=1, keepdim=True)
    m = c.abs().amax(dim=1, keepdim=True)
    m = torch.where(m > 0, m, torch.ones_like(m))
    return m, (c / m).std(dim=1, keepdim=True, correction=ddof)


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
    centred = r - r.mean(dim=1, keepdim=True)
    constant = r.amax(dim=1, keepdim=True) == r.amin(dim=1, keepdim=True)
    centred = torch.where(constant, torch.zeros_like(centred), centred)
    if scale == "none":
        return centred
    # "batch": one std over all P·G rewards, broadcast to every group
    rows = r if scale == "group" else r.reshape(1, -1)
    m, unit_std = _scaled_std(rows, ddof)
    m, unit_std = m.expand(r.shape[0], 1), unit_std.expand(r.shape[0], 1)
    # (R - μ)/(σ + ε) = ((R - μ)/m) / (σ/m + ε/m): identical maths, no underflow of σ.
    # A constant group divides 0 by 1, not by (0 + eps_stab): with eps_stab = 0 the latter
    # is 0/0 = NaN, which would break the "exactly 0 for every eps_stab" contract.
    # (torch evaluates scalar / m as scalar · (1/m): 0 · inf = NaN for subnormal m)
    scaled_eps = eps_stab / m if eps_stab > 0 else torch.zeros_like(m)
    denom = torch.where(constant, torch.ones_like(unit_std), unit_std + scaled_eps)
    return (centred / m) / denom
