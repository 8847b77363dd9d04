r"""Next-token sampling with temperature and top-p, and the behaviour log-prob it records.

Behaviour log-prob convention (TRL, verl): the recorded value is
:math:`\log\mathrm{softmax}(z/\tau)_a` — the temperature-scaled distribution BEFORE top-p
truncation — so a teacher-forced recomputation at the same τ reproduces it exactly.
Greedy decoding (τ = 0) records :math:`\log\mathrm{softmax}(z)_a`.
"""

from __future__ import annotations

import torch


def check_sampling(temperature: float, top_p: float) -> None:
    """τ ≥ 0 (0 = greedy) and top-p in (0, 1]."""
    if (
        isinstance(temperature, bool)
        or not isinstance(temperature, (int, float))
        or not temperature >= 0
    ):
        raise ValueError(f"temperature must be a number >= 0 (0 = greedy), got {temperature!r}")
    if isinstance(top_p, bool) or not isinstance(top_p, (int, float)) or not 0 < top_p <= 1:
        raise ValueError(f"top_p must be in (0, 1], got {top_p!r}")


def top_p_filter(probs: torch.Tensor, top_p: float) -> torch.Tensor:
    """Zero all but the smallest set of most likely tokens whose mass reaches ``top_p``.

    probs: [R, V] rows summing to 1. Returns unnormalised [R, V]; the top token is always kept.
    """
    if top_p >= 1.0:
        return probs
    sorted_probs, order = probs.sort(dim=-1, descending=True)
    mass_before = sorted_probs.cumsum(dim=-1) - sorted_probs
    sorted_probs = sorted_probs.masked_fill(mass_before >= top_p, 0.0)
    return torch.zeros_like(probs).scatter(-1, order, sorted_probs)


def sample_next(
    logits: torch.Tensor,
    temperature: float,
    top_p: float = 1.0,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Draw one token per row.

    Args:
        logits: [R, V] next-token logits.
    Returns:
        tokens [R] int64 and their behaviour log-probs [R] float32 (module docstring).
    """
    if logits.dim() != 2:
        raise ValueError(f"logits must have shape [R, V], got {tuple(logits.shape)}")
    check_sampling(temperature, top_p)
    logits = logits.float()
    if temperature == 0:
        tokens = logits.argmax(dim=-1)
        logp = logits.log_softmax(dim=-1)
    else:
        logp = (logits / temperature).log_softmax(dim=-1)
        probs = top_p_filter(logp.exp(), top_p)
        tokens = torch.multinomial(probs, 1, generator=generator).squeeze(1)
    return tokens, logp.gather(1, tokens.unsqueeze(1)).squeeze(1)
