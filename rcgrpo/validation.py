"""Argument checks shared by the pure maths modules.

Every public function of the algorithm library validates its inputs on its first lines
and raises ``ValueError`` naming the offending argument — never a silent broadcast.
"""

from __future__ import annotations

import math

import torch


def check_group_tensor(name: str, x: torch.Tensor, *, min_group: int = 2) -> None:
    """``x`` must be a finite floating tensor of shape [P, G] with P >= 1, G >= min_group."""
    if not isinstance(x, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor of shape [P, G], got {type(x).__name__}")
    if x.dim() != 2:
        raise ValueError(f"{name} must have shape [P, G] (2 dims), got shape {tuple(x.shape)}")
    num_prompts, group_size = x.shape
    if num_prompts < 1:
        raise ValueError(
            f"{name} must hold at least one group (P >= 1), got shape {tuple(x.shape)}"
        )
    if group_size < min_group:
        raise ValueError(
            f"{name} must have group size G >= {min_group}, got G = {group_size} "
            f"(shape {tuple(x.shape)}); a group of one rollout has no relative advantage"
        )
    if x.is_complex():
        raise ValueError(f"{name} must be real-valued, got dtype {x.dtype}")
    if x.is_floating_point() and not bool(torch.isfinite(x).all()):
        raise ValueError(f"{name} contains NaN or infinite values")


def check_same_shape(name_a: str, a: torch.Tensor, name_b: str, b: torch.Tensor) -> None:
    """``a`` and ``b`` must be tensors of exactly the same shape (no broadcasting)."""
    if not isinstance(b, torch.Tensor):
        raise ValueError(f"{name_b} must be a torch.Tensor, got {type(b).__name__}")
    if a.shape != b.shape:
        raise ValueError(
            f"{name_b} must have the same shape as {name_a} {tuple(a.shape)}, got {tuple(b.shape)}"
        )


def check_probability(name: str, p: float) -> None:
    """``p`` must be a real number in [0, 1]."""
    if isinstance(p, bool) or not isinstance(p, (int, float)) or math.isnan(p) or not 0 <= p <= 1:
        raise ValueError(f"{name} must be a probability in [0, 1], got {p!r}")


def check_positive_int(name: str, n: int, *, minimum: int = 1) -> None:
    """``n`` must be an int >= minimum."""
    if isinstance(n, bool) or not isinstance(n, int) or n < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {n!r}")


def check_nonnegative(name: str, x: float) -> None:
    """``x`` must be a finite real >= 0."""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {x!r}")


def check_choice(name: str, value: str, choices) -> None:
    """``value`` must be one of ``choices`` (a string enum validated up front)."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(choices)}, got {value!r}")
