r"""Loss aggregation: a [B, T] per-token loss and a loss mask -> one scalar.

Notation: :math:`\ell_{i,t}` the per-token loss, :math:`m_{i,t}\in\{0,1\}` the loss mask,
:math:`n_i=\sum_t m_{i,t}` the active tokens of row i, :math:`N=\sum_i n_i`, and
:math:`B' = |\{i: n_i>0\}|` the number of NON-EMPTY rows.

- ``token-mean`` :math:`\frac1N\sum_{i,t} m_{i,t}\ell_{i,t}` — DAPO (Yu et al. 2025);
  TRL ``bnpo``/``dapo``; verl's default.
- ``seq-mean-token-mean`` :math:`\frac1{B'}\sum_i \frac1{n_i}\sum_t m_{i,t}\ell_{i,t}` —
  original GRPO (Shao et al. 2024); TRL ``grpo``; the RC-GRPO paper's
  :math:`\frac1G\sum_j` over per-trajectory terms.
- ``seq-mean-token-sum`` :math:`\frac1{B'}\sum_i \sum_t m_{i,t}\ell_{i,t}` — verl
  ``seq-mean-token-sum`` (a per-trajectory sum, REINFORCE-style).
- ``seq-mean-token-sum-norm`` :math:`\frac1{B' L}\sum_{i,t} m_{i,t}\ell_{i,t}` with a
  constant L — Dr. GRPO (Liu et al. 2025); TRL ``dr_grpo``; verl.

Conventions (where we differ from verl/TRL, on purpose):

- Empty rows (:math:`n_i = 0`) contribute 0 and are not counted in :math:`B'`; TRL and
  verl count them in their B (and verl's ``seq-mean-token-mean`` divides 0 by 0 there).
  An all-empty batch gives a loss of exactly 0 whose gradient is exactly 0.
- ``seq-mean-token-sum-norm`` divides by a constant L (``norm_length``; Dr. GRPO uses the
  maximum generation length). Default: the padded width T of this batch (verl's
  ``loss_mat.shape[-1]``), which changes from batch to batch — pass the constant.
- ``denominator`` overrides N (token-mean) or B' (the seq modes), e.g. with the global
  counts of a data-parallel or gradient-accumulation step so that the micro-batch losses
  sum to the full-batch loss.

All modes agree when every row has the same number L of active tokens (and
``norm_length = L``), except ``seq-mean-token-sum``, which is then L times the others.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from rcgrpo.masks import check_mask, masked_count, masked_sum


def _count(value: torch.Tensor | float | None, default: torch.Tensor, like: torch.Tensor):
    if value is None:
        return default.clamp(min=1).to(like.dtype)
    if isinstance(value, torch.Tensor):
        return value.to(like.dtype)
    return torch.as_tensor(float(value), dtype=like.dtype, device=like.device)


def _token_mean(loss, mask, denominator, norm_length):
    return masked_sum(loss, mask) / _count(denominator, masked_count(mask), loss)


def _row_sums(loss, mask, denominator):
    rows = masked_sum(loss, mask, dim=1)
    n_rows = (masked_count(mask, dim=1) > 0).sum()
    return rows, _count(denominator, n_rows, loss)


def _seq_mean_token_mean(loss, mask, denominator, norm_length):
    rows, n_rows = _row_sums(loss, mask, denominator)
    per_row = rows / masked_count(mask, dim=1).clamp(min=1).to(loss.dtype)
    return per_row.sum() / n_rows


def _seq_mean_token_sum(loss, mask, denominator, norm_length):
    rows, n_rows = _row_sums(loss, mask, denominator)
    return rows.sum() / n_rows


def _seq_mean_token_sum_norm(loss, mask, denominator, norm_length):
    rows, n_rows = _row_sums(loss, mask, denominator)
    length = loss.shape[1] if norm_length is None else norm_length
    return rows.sum() / (n_rows * length)


# mode name -> aggregator (a registry, not an if/elif chain)
AGG_MODES: dict[str, Callable[..., torch.Tensor]] = {
    "token-mean": _token_mean,
    "seq-mean-token-mean": _seq_mean_token_mean,
    "seq-mean-token-sum": _seq_mean_token_sum,
    "seq-mean-token-sum-norm": _seq_mean_token_sum_norm,
}


def aggregate(
    loss: torch.Tensor,
    mask: torch.Tensor,
    mode: str = "token-mean",
    *,
    norm_length: float | None = None,
    denominator: torch.Tensor | float | None = None,
) -> torch.Tensor:
    """Aggregate a per-token loss [B, T] under a loss mask [B, T] into a scalar.

    See the module docstring for the formulas, the papers behind each mode and the
    empty-row convention. Masked-out entries of ``loss`` (even NaN) never reach the result
    and receive exactly zero gradient.

    Args:
        loss: per-token loss [B, T], float.
        mask: loss mask [B, T], bool or 0/1.
        mode: one of :data:`AGG_MODES`.
        norm_length: the constant L of ``seq-mean-token-sum-norm`` (> 0); default T.
        denominator: override of the count the mode divides by (> 0).
    """
    if not isinstance(loss, torch.Tensor) or loss.dim() != 2:
        shape = tuple(loss.shape) if isinstance(loss, torch.Tensor) else type(loss).__name__
        raise ValueError(f"loss must be a [B, T] tensor, got {shape}")
    if not loss.is_floating_point():
        raise ValueError(f"loss must be a floating tensor, got dtype {loss.dtype}")
    mask = check_mask("mask", mask, "loss", loss)
    if mode not in AGG_MODES:
        raise ValueError(f"mode must be one of {sorted(AGG_MODES)}, got {mode!r}")
    if norm_length is not None and not (
        isinstance(norm_length, (int, float))
        and not isinstance(norm_length, bool)
        and norm_length > 0
    ):
        raise ValueError(f"norm_length must be a number > 0, got {norm_length!r}")
    if isinstance(denominator, (int, float)) and not denominator > 0:
        raise ValueError(f"denominator must be > 0, got {denominator!r}")
    return AGG_MODES[mode](loss, mask, denominator, norm_length)
