"""LoRA on TRL's ``GRPOTrainer``: π_ref and the trained goal-token rows (trl 1.16, peft 0.21).

``python -m rcgrpo trl --lora.r N`` hands TRL a model already wrapped by
:func:`rcgrpo.policy.lora.with_adapters` (LoRA on ``lora.targets``, the reward-goal token
rows trainable through peft's ``trainable_token_indices``, the base frozen), or, when
``init`` is a Stage-1 adapter checkpoint, that adapter loaded to be continued, as ``python
-m rcgrpo train`` continues it. TRL's own ``peft_config=`` is not used: it would know
nothing of the goal rows or of the checkpoint record (``base.json``).

**π_ref.** With β > 0 and a model that already carries an adapter, TRL gives it a frozen
second adapter ``ref``, a copy of ``default`` made in ``GRPOTrainer.__init__``, and scores
the reference log-probs under it (not with the adapter disabled, which it does only for a
``peft_config`` it applied itself). So π_ref is the starting policy exactly: the base for a
fresh adapter (B = 0, token deltas 0) and base + the Stage-1 adapter when ``init`` is one.
No merge is needed, and the run's adapter stays loadable on the base its ``base.json``
names. TRL copies only parameters whose name contains ``.default.``, which misses peft's
goal-token delta (``…trainable_tokens_delta.default``): the ``ref`` goal rows would keep
their initial values, and π_ref would differ from a Stage-1 ``init`` on every prompt that
holds a goal. :func:`sync_reference_adapter` copies every ``default`` parameter again after
TRL's set-up (tested: ``tests/unit/integrations/test_trl_lora.py``).

**The output layer.** TRL's fused LM head reads the output layer's ``weight`` and ``bias``
directly. peft's ``TrainableTokensWrapper`` around a tied output layer forwards ``weight``
(merged with the active adapter's rows, so the goal rows' gradient flows) but not
``bias``: :func:`expose_head_bias` hands it the wrapped layer's.
"""

from __future__ import annotations

from typing import Any

import torch

REF_ADAPTER = "ref"
"""The name TRL gives its frozen copy of the starting adapter."""


def sync_reference_adapter(model: Any) -> list[str]:
    """Copy every parameter of a peft model's ``default`` adapter onto its ``ref`` adapter
    (module docstring); returns the names copied (none without a ``ref`` adapter)."""
    if REF_ADAPTER not in getattr(model, "peft_config", {}):
        return []
    copied = []
    with torch.no_grad():
        for name, param in model.named_parameters():
            parts = name.split(".")
            if "default" not in parts:
                continue
            ref = ".".join(REF_ADAPTER if part == "default" else part for part in parts)
            model.get_parameter(ref).copy_(param)
            copied.append(name)
    return copied


def expose_head_bias(model: Any) -> None:
    """Give peft's ``TrainableTokensWrapper`` around the output layer (trained goal-token rows
    on tied embeddings) the wrapped layer's ``bias`` as a plain attribute: it forwards
    ``weight`` only, and TRL's fused LM head reads both (module docstring)."""
    head = model.get_output_embeddings()
    layer = getattr(getattr(head, "token_adapter", None), "base_layer", None)
    if layer is not None and "bias" not in vars(head):
        object.__setattr__(head, "bias", layer.bias)  # not registered: the layer owns it


def drop_reference_adapter(model: Any) -> None:
    """Delete TRL's ``ref`` adapter (before saving: it is ``init``'s adapter, on disk)."""
    if REF_ADAPTER in getattr(model, "peft_config", {}):
        model.delete_adapter(REF_ADAPTER)
