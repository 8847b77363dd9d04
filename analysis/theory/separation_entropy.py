r"""Group reward variance over (mode separation, policy entropy): variance follows separation.

Claim (paper §5 analysis, Remark 4.4 reading): RC-GRPO's advantage spread comes from
between-mode separation, not from policy entropy. Model: binary reward; conditional on the
token r the policy reaches the success family with probability :math:`s_r` and spreads its
mass inside each outcome family over ``n`` equivalent trajectories with within-family entropy
:math:`w\in[0,\log n]` (paraphrases — reward-irrelevant entropy). Then

.. math::
    \bar H = p\,H(\pi(\cdot\mid h)) + (1-p)\,H(\pi(\cdot\mid l))
           = p\,H_b(s_h) + (1-p)\,H_b(s_l) + w,\qquad
    E[\sigma_g^2] = \tfrac{G-1}{G}\,m(1-m),\quad m = p\,s_h + (1-p)\,s_l,

(binary X: Var X = m(1 − m); Lemma A.4). For each separation :math:`\Delta=s_h-s_l\ge0` and
mean conditional entropy :math:`\bar H` we take the minimum and the maximum of
:math:`E[\sigma_g^2]` over every feasible :math:`(s_l, w)`. The minimum ("guaranteed
variance") depends on Δ only and is :math:`\ge\kappa\Delta^2`; at Δ = 0 it is 0 at every
entropy. The maximum shows entropy can buy variance but does not have to.
"""

from __future__ import annotations

import numpy as np

from analysis.theory.two_mode import binary_entropy


def variance_envelope(
    delta: np.ndarray,
    entropy: np.ndarray,
    group_size: int = 5,
    p: float = 0.5,
    paraphrases: int = 8,
    resolution: int = 801,
) -> tuple[np.ndarray, np.ndarray]:
    """(min, max) of E[σ_g²] over feasible policies, each [len(entropy), len(delta)].

    Infeasible (Δ, H̄) cells are NaN. ``resolution`` is the grid size over s_low.
    """
    delta, entropy = np.asarray(delta, float), np.asarray(entropy, float)
    if (delta < 0).any() or (delta > 1).any():
        raise ValueError("delta must lie in [0, 1]")
    if paraphrases < 1:
        raise ValueError(f"paraphrases must be >= 1, got {paraphrases}")
    lo = np.full((entropy.size, delta.size), np.nan)
    hi = np.full_like(lo, np.nan)
    cap = np.log(paraphrases)
    for j, d in enumerate(delta):
        s_low = np.linspace(0.0, 1.0 - d, resolution)
        s_high = s_low + d
        binary = p * binary_entropy(s_high) + (1 - p) * binary_entropy(s_low)
        m = p * s_high + (1 - p) * s_low
        var = (group_size - 1) / group_size * m * (1 - m)
        feasible = (binary[None, :] <= entropy[:, None] + 1e-12) & (
            entropy[:, None] <= binary[None, :] + cap + 1e-12
        )
        masked = np.where(feasible, var[None, :], np.nan)
        any_ok = feasible.any(axis=1)
        lo[any_ok, j] = np.nanmin(masked[any_ok], axis=1)
        hi[any_ok, j] = np.nanmax(masked[any_ok], axis=1)
    return lo, hi
