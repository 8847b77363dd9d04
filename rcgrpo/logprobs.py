r"""Token log-probabilities and entropies from logits — pure, memory-bounded functions.

Shapes: logits [B, T, V] (V vocabulary), token ids [B, T], loss mask [B, T]. Alignment
is the caller's job: for a causal LM pass ``logits[:, :-1]`` with ``ids[:, 1:]``.

Both functions work on the flattened active positions in chunks of ``chunk_size`` rows, so
the largest temporary is [chunk_size, V] rather than a full [B, T, V] log-softmax copy
(TRL's ``selective_log_softmax`` solves the same problem row by row). With a ``mask``, only
positions where it is true are computed at all; the others are exactly 0 in the output and
receive exactly zero gradient. Logits must be finite (a -inf logit makes the entropy's
p·z term 0·inf = NaN).

``temperature`` τ divides the logits first, as TRL does, so that the training log-probs
match behaviour log-probs sampled at temperature τ.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

DEFAULT_CHUNK = 1024


def _check_logits(logits: torch.Tensor, temperature: float, chunk_size: int) -> None:
    if not isinstance(logits, torch.Tensor) or logits.dim() != 3:
        shape = tuple(logits.shape) if isinstance(logits, torch.Tensor) else type(logits).__name__
        raise ValueError(f"logits must be a [B, T, V] tensor, got {shape}")
    if not logits.is_floating_point():
        raise ValueError(f"logits must be a floating tensor, got dtype {logits.dtype}")
    if (
        isinstance(temperature, bool)
        or not isinstance(temperature, (int, float))
        or not (temperature > 0)
    ):
        raise ValueError(f"temperature must be a number > 0, got {temperature!r}")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be an integer >= 1, got {chunk_size!r}")


def _active_index(logits: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
    batch, length = logits.shape[:2]
    if mask is None:
        return torch.arange(batch * length, device=logits.device)
    if not isinstance(mask, torch.Tensor) or mask.shape != (batch, length):
        shape = tuple(mask.shape) if isinstance(mask, torch.Tensor) else type(mask).__name__
        raise ValueError(f"mask must have shape [B, T] = {(batch, length)}, got {shape}")
    if mask.dtype != torch.bool and not bool(((mask == 0) | (mask == 1)).all()):
        raise ValueError("mask must be bool or contain only 0 and 1")
    return (mask != 0).reshape(-1).nonzero().squeeze(1)


def _chunked(
    logits: torch.Tensor,
    index: torch.Tensor,
    fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    temperature: float,
    chunk_size: int,
) -> torch.Tensor:
    """Apply ``fn(z [n, V], positions [n]) -> [n]`` to the active rows; scatter into [B, T]."""
    batch, length, _ = logits.shape
    parts = []
    for start in range(0, index.numel(), chunk_size):
        rows = index[start : start + chunk_size]
        # (row, column) indexing copies only this chunk, also for a non-contiguous view such
        # as logits[:, :-1] (reshape would first copy the whole [B, T, V] tensor)
        z = logits[rows // length, rows % length]
        if z.dtype in (torch.float16, torch.bfloat16):
            z = z.float()  # log-softmax of half-precision logits: compute in float32, per chunk
        if temperature != 1.0:
            z = z / temperature
        parts.append(fn(z, rows))
    half = logits.dtype in (torch.float16, torch.bfloat16)
    out = logits.new_zeros(batch * length, dtype=torch.float32 if half else logits.dtype)
    if parts:
        out = out.index_copy(0, index, torch.cat(parts))
    return out.view(batch, length)


def token_logprobs(
    logits: torch.Tensor,
    ids: torch.Tensor,
    mask: torch.Tensor | None = None,
    *,
    temperature: float = 1.0,
    chunk_size: int = DEFAULT_CHUNK,
) -> torch.Tensor:
    r"""log π(ids | context) = z_{ids} - logsumexp(z), z = logits / τ.

    Args:
        logits: [B, T, V] float.
        ids: [B, T] integer token ids aligned with ``logits``. Under a mask only the active
            ids must lie in [0, V) (padding such as -100 is fine where the mask is 0).
        mask: optional [B, T] bool or 0/1; positions where it is 0 get log-prob 0.

    Returns:
        [B, T] log-probabilities in the logits' dtype (float32 for float16/bfloat16 logits,
        which are upcast chunk by chunk: half-precision log-softmax adds noise to ratios
        and KL).
    """
    _check_logits(logits, temperature, chunk_size)
    if not isinstance(ids, torch.Tensor) or ids.shape != logits.shape[:2]:
        shape = tuple(ids.shape) if isinstance(ids, torch.Tensor) else type(ids).__name__
        raise ValueError(f"ids must have shape [B, T] = {tuple(logits.shape[:2])}, got {shape}")
    if ids.is_floating_point() or ids.dtype == torch.bool or ids.is_complex():
        raise ValueError(f"ids must be an integer tensor, got dtype {ids.dtype}")
    index = _active_index(logits, mask)
    flat_ids = ids.reshape(-1)
    active = flat_ids.index_select(0, index)
    if active.numel() and not bool(((active >= 0) & (active < logits.shape[2])).all()):
        raise ValueError(f"ids must lie in [0, V = {logits.shape[2]}) at active positions")

    def gather(z: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        picked = z.gather(1, flat_ids.index_select(0, rows).unsqueeze(1)).squeeze(1)
        return picked - torch.logsumexp(z, dim=1)

    return _chunked(logits, index, gather, temperature, chunk_size)


def token_entropy(
    logits: torch.Tensor,
    mask: torch.Tensor | None = None,
    *,
    temperature: float = 1.0,
    chunk_size: int = DEFAULT_CHUNK,
) -> torch.Tensor:
    r"""Entropy of the next-token distribution, H = logsumexp(z) - Σ_v softmax(z)_v z_v.

    The log-sum-exp form needs one [chunk, V] softmax temporary per chunk and no
    log-softmax copy. Differentiable (an entropy bonus back-propagates through it).

    Args:
        logits: [B, T, V] float, finite.
        mask: optional [B, T] bool or 0/1; positions where it is 0 get entropy 0.

    Returns:
        [B, T] entropies in nats, in the logits' dtype (float32 for half-precision logits).
    """
    _check_logits(logits, temperature, chunk_size)
    index = _active_index(logits, mask)

    def entropy(z: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        lse = torch.logsumexp(z, dim=1)
        probs = torch.exp(z - lse.unsqueeze(1))
        return lse - torch.bmm(probs.unsqueeze(1), z.unsqueeze(2)).view(-1)

    return _chunked(logits, index, entropy, temperature, chunk_size)
