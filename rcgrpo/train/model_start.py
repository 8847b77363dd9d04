"""What every trainer does to the model it starts from, after loading it: LoRA adapters
(``lora``: :func:`rcgrpo.policy.lora.with_adapters`; a model that already carries an
adapter continues it), gradient checkpointing (Stage 1's ``model.grad_checkpointing``) and the prompt
style recorded in the tokenizer, which the rollout engine and every checkpoint read
(``tasks.prompt_style``; ``auto`` resolved for this model:
:func:`rcgrpo.policy.render.resolve_prompt_style`), and whether training has used reward
goals (:func:`rcgrpo.policy.tokenizer.record_goals`; ``eval --condition auto`` reads it).
Used by Stage 1 (SFT, RCTP-FT) and RL.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any


def start_model(model, tokenizer, base: str, cfg: Any):
    """``model`` ready to train under ``cfg`` (a Stage-1 or RL config); ``base`` is the name
    or path it was loaded from (recorded by an adapter checkpoint)."""
    from rcgrpo.policy.lora import with_adapters
    from rcgrpo.policy.models import set_grad_checkpointing
    from rcgrpo.policy.render import record_prompt_style, resolve_prompt_style
    from rcgrpo.policy.tokenizer import record_goals

    model = with_adapters(model, tokenizer, base, **asdict(cfg.lora))
    set_grad_checkpointing(model, getattr(cfg.model, "grad_checkpointing", False))  # Stage 1
    record_prompt_style(tokenizer, resolve_prompt_style(cfg.tasks.prompt_style, tokenizer))
    record_goals(tokenizer, uses_goals(cfg))
    return model


def uses_goals(cfg: Any) -> bool:
    """Whether a run puts reward goals in its prompts: RCTP-FT always, SFT with
    ``sft.random_goals``, RL when its ``algo.conditioning`` renders a goal token."""
    from rcgrpo.conditioning import scheme_uses_token

    if hasattr(cfg, "stage"):
        return cfg.stage == "rctp" or cfg.sft.random_goals > 0
    return scheme_uses_token(cfg.algo.conditioning)
