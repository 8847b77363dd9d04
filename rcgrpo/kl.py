r"""Per-token estimators of KL(π_θ ‖ π_ref) from sampled tokens (Schulman 2020,
"Approximating KL Divergence") — pure functions.

For a token sampled from π_θ, with log-ratio :math:`x = \log\pi_{ref}(a) - \log\pi_\theta(a)`:

- ``k1`` :math:`= -x` — unbiased, high variance, can be negative.
- ``k2`` :math:`= \tfrac12 x^2` — biased, low variance, ≥ 0 (verl ``"mse"``).
- ``k3`` :math:`= e^{x} - x - 1` — unbiased, low variance, ≥ 0 and = 0 iff x = 0
  (TRL's GRPO KL; verl ``"low_var_kl"``, which additionally clamps it to [-10, 10]; we do
  not clamp, so a huge log-ratio shows up as a huge KL instead of being hidden).

The RC-GRPO paper writes β·KL(π_θ(·|h,r) ‖ π_ref(·|h,r)) without naming an estimator
(unstated); TRL and verl's GRPO recipes use k3, our default.

Shapes: ``logp`` and ``ref_logp`` [B, T] (any identical shape works); output has the same
shape. Masking is the caller's job (:func:`rcgrpo.aggregation.aggregate` or
:func:`rcgrpo.masks.masked_mean`).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from rcgrpo.validation import check_choice, check_same_shape


def _k1(log_ratio: torch.Tensor) -> torch.Tensor:
    return -log_ratio


def _k2(log_ratio: torch.Tensor) -> torch.Tensor:
    return 0.5 * log_ratio.square()


def _k3(log_ratio: torch.Tensor) -> torch.Tensor:
    # expm1(x) - x is exp(x) - 1 - x without the cancellation of exp(x) - 1 near x = 0
    # (in float32 the naive form gives -1e-8 at x = 1e-8); the clamp removes a last-ulp
    # negative value of a non-correctly-rounded expm1, keeping k3 >= 0 exactly.
    return (torch.expm1(log_ratio) - log_ratio).clamp_min(0.0)


# estimator name -> function of x = ref_logp - logp (a registry, not an if/elif chain)
KL_ESTIMATORS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "k1": _k1,
    "k2": _k2,
    "k3": _k3,
}


def kl_penalty(logp: torch.Tensor, ref_logp: torch.Tensor, estimator: str = "k3") -> torch.Tensor:
    r"""Per-token KL estimate k1 / k2 / k3 of KL(π_θ ‖ π_ref) (see module docstring).

    Args:
        logp: log π_θ of the sampled tokens, [B, T]; gradients flow through it.
        ref_logp: log π_ref of the same tokens, same shape (normally detached).
        estimator: ``"k1"``, ``"k2"`` or ``"k3"``.

    Returns:
        per-token estimate, same shape as ``logp``.
    """
    if not isinstance(logp, torch.Tensor):
        raise ValueError(f"logp must be a torch.Tensor, got {type(logp).__name__}")
    check_same_shape("logp", logp, "ref_logp", ref_logp)
    check_choice("estimator", estimator, KL_ESTIMATORS)
    return KL_ESTIMATORS[estimator](ref_logp - logp)
