"""Loss masks and masked reductions — pure functions.

Shape letters: B rollouts (= P·G), T tokens. A loss mask is a [B, T] tensor that is 1 / True
exactly on the tokens the policy generated (assistant actions) and 0 on prompt, user and
tool-output tokens and on padding.

Empty-row convention (used by every reduction here and by :mod:`rcgrpo.aggregation`): a row
with no active token contributes nothing; a mean over zero active elements is 0, never NaN,
and its gradient is exactly 0. Masked-out values never reach the result (``torch.where``,
not multiplication), so a NaN or inf under a 0 mask can neither poison the value nor the
gradient.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch


def check_mask(name: str, mask: torch.Tensor, like_name: str, like: torch.Tensor) -> torch.Tensor:
    """Validate a loss mask against the tensor it masks and return it as bool.

    ``mask`` must have exactly ``like``'s shape (no broadcasting) and be bool or hold only
    the values 0 and 1 (a weighted mask would silently change the loss's meaning).
    """
    if not isinstance(mask, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor, got {type(mask).__name__}")
    if mask.shape != like.shape:
        raise ValueError(
            f"{name} must have the same shape as {like_name} {tuple(like.shape)}, "
            f"got {tuple(mask.shape)}"
        )
    if mask.dtype == torch.bool:
        return mask
    if mask.is_complex() or not bool(((mask == 0) | (mask == 1)).all()):
        raise ValueError(f"{name} must be bool or contain only 0 and 1")
    return mask != 0


def spans_to_mask(
    spans: Sequence[Sequence[tuple[int, int]]],
    length: int,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """Loss mask from assistant token spans.

    Args:
        spans: one sequence per rollout of half-open ``(start, end)`` token spans, e.g. the
            spans of the assistant messages of a multi-turn conversation. Spans may touch or
            overlap; an empty span (start == end) marks nothing.
        length: T, the padded sequence length.

    Returns:
        bool [B, T], True exactly on tokens covered by a span.
    """
    if isinstance(length, bool) or not isinstance(length, int) or length < 0:
        raise ValueError(f"length must be an integer >= 0, got {length!r}")
    mask = torch.zeros((len(spans), length), dtype=torch.bool, device=device)
    for row, row_spans in enumerate(spans):
        for span in row_spans:
            if len(span) != 2:
                raise ValueError(f"spans[{row}] must hold (start, end) pairs, got {span!r}")
            start, end = span
            if not (isinstance(start, int) and isinstance(end, int)) or not (
                0 <= start <= end <= length
            ):
                raise ValueError(
                    f"spans[{row}] has span {span!r}; need integers 0 <= start <= end <= "
                    f"length = {length}"
                )
            mask[row, start:end] = True
    return mask


def masked_sum(x: torch.Tensor, mask: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    """Σ x over the positions where ``mask`` is true (over all dims, or along ``dim``)."""
    mask = check_mask("mask", mask, "x", x)
    selected = torch.where(mask, x, torch.zeros((), dtype=x.dtype, device=x.device))
    return selected.sum() if dim is None else selected.sum(dim=dim)


def masked_count(mask: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    """Number of true positions (int64), over all dims or along ``dim``."""
    mask = mask if mask.dtype == torch.bool else mask != 0
    return mask.sum() if dim is None else mask.sum(dim=dim)


def masked_mean(x: torch.Tensor, mask: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    r"""Mean of x over the positions where ``mask`` is true; 0 where there are none.

    .. math:: \bar x = \frac{\sum_t m_t x_t}{\max(1, \sum_t m_t)}
    """
    mask = check_mask("mask", mask, "x", x)
    count = masked_count(mask, dim).clamp(min=1).to(x.dtype)
    return masked_sum(x, mask, dim) / count


def masked_max(x: torch.Tensor, mask: torch.Tensor, empty: float = 0.0) -> torch.Tensor:
    """Max of x over true positions (a scalar); ``empty`` when there are none."""
    mask = check_mask("mask", mask, "x", x)
    low = torch.full((), float("-inf"), dtype=x.dtype, device=x.device)
    out = torch.where(mask, x, low).amax() if x.numel() else low
    return torch.where(mask.any(), out, torch.full_like(out, empty))


def masked_min(x: torch.Tensor, mask: torch.Tensor, empty: float = 0.0) -> torch.Tensor:
    """Min of x over true positions (a scalar); ``empty`` when there are none."""
    return -masked_max(-x, mask, empty=-empty)
