"""Teacher-forced log-prob recomputation of whole rollouts (the trainer's forward pass).

One batched forward over right-padded sequences ([B, T], as
:meth:`rcgrpo.records.RolloutBatch.padded` returns them), aligned like the rollout records:
``out[:, t] = log π(ids[t] | ids[:t])`` at temperature τ, 0 at t = 0 and wherever the mask is
0. At the same parameters and τ it equals the engine's behaviour log-probs to float32
rounding (tests/equivalence/test_logprob_recompute.py checks 1e-5); greedy rollouts (τ = 0)
recorded τ = 1 log-probs, so recompute them with ``temperature=1``.
"""

from __future__ import annotations

import torch

from rcgrpo.logprobs import token_logprobs


def sequence_logprobs(
    model,
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    loss_mask: torch.Tensor | None = None,
    temperature: float = 1.0,
) -> torch.Tensor:
    """Token-aligned log-probs [B, T] of ``input_ids`` under ``model`` (differentiable).

    Args:
        input_ids: [B, T] int64, right-padded.
        attention_mask: [B, T] bool/0-1, True on real tokens (a prefix of each row).
        loss_mask: optional [B, T]; only these positions are computed (others are 0).
        temperature: τ > 0 dividing the logits, as at sampling time.
    """
    if input_ids.dim() != 2:
        raise ValueError(f"input_ids must have shape [B, T], got {tuple(input_ids.shape)}")
    if attention_mask.shape != input_ids.shape:
        raise ValueError(f"attention_mask must have shape {tuple(input_ids.shape)}")
    if loss_mask is not None and loss_mask.shape != input_ids.shape:
        raise ValueError(f"loss_mask must have shape {tuple(input_ids.shape)}")
    mask = (attention_mask if loss_mask is None else loss_mask.bool() & attention_mask.bool())[
        :, 1:
    ]
    device = next(model.parameters()).device
    logits = model(
        input_ids=input_ids.to(device), attention_mask=attention_mask.long().to(device)
    ).logits
    shifted = token_logprobs(
        logits[:, :-1], input_ids[:, 1:].to(device), mask.to(device), temperature=temperature
    )
    return torch.cat([shifted.new_zeros(input_ids.shape[0], 1), shifted], dim=1)
