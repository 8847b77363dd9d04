"""The policy stack: models, tokenizers, chat rendering, the batched rollout engine, evaluation.

::

    from rcgrpo.env import Episode
    from rcgrpo.policy import (ChatEncoder, ModelPolicy, RolloutEngine, build_tiny_policy,
                               load_policy)

    model, tokenizer = build_tiny_policy("tiny")            # or load_policy(path)[:2]
    encoder = ChatEncoder(tokenizer)
    policy = ModelPolicy(model, sorted(encoder.stop_ids), temperature=1.0)
    engine = RolloutEngine(policy, encoder, Episode, mode="combined", prompt_style="compact",
                           max_new_tokens=96, max_context=1024)
    batch = engine.run_groups(tasks, group_size=5, reward_high=high, seed=0)   # RolloutBatch
    pad = batch.padded(tokenizer.pad_token_id)                               # [B, T] tensors
    logp = sequence_logprobs(model, pad["input_ids"], pad["attention_mask"], pad["loss_mask"])

Modules: :mod:`~rcgrpo.policy.models` (presets, loading), :mod:`~rcgrpo.policy.tokenizer`
(BPE, chat template, reward tokens), :mod:`~rcgrpo.policy.render` (prompt styles, reward
goal), :mod:`~rcgrpo.policy.chat` (template-consistent tokenization, SFT encoding),
:mod:`~rcgrpo.policy.kv_batch` (batched KV cache), :mod:`~rcgrpo.policy.sampling`,
:mod:`~rcgrpo.policy.policies` (model / generate / scripted policies, oracle),
:mod:`~rcgrpo.policy.rollout` (the engine), :mod:`~rcgrpo.policy.recompute` (teacher-forced
log-probs), :mod:`~rcgrpo.policy.task_sources`, :mod:`~rcgrpo.policy.evaluate`.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING

_EXPORTS: dict[str, str] = {
    "ChatEncoder": "rcgrpo.policy.chat",
    "evaluate_policy": "rcgrpo.policy.evaluate",
    "summarize": "rcgrpo.policy.evaluate",
    "wilson_interval": "rcgrpo.policy.evaluate",
    "PRESETS": "rcgrpo.policy.models",
    "build_tiny_policy": "rcgrpo.policy.models",
    "load_policy": "rcgrpo.policy.models",
    "save_policy": "rcgrpo.policy.models",
    "GeneratePolicy": "rcgrpo.policy.policies",
    "ModelPolicy": "rcgrpo.policy.policies",
    "ScriptedPolicy": "rcgrpo.policy.policies",
    "StepView": "rcgrpo.policy.policies",
    "oracle_script": "rcgrpo.policy.policies",
    "sequence_logprobs": "rcgrpo.policy.recompute",
    "PROMPT_STYLES": "rcgrpo.policy.render",
    "initial_messages": "rcgrpo.policy.render",
    "with_reward_goal": "rcgrpo.policy.render",
    "RolloutEngine": "rcgrpo.policy.rollout",
    "RolloutJob": "rcgrpo.policy.rollout",
    "TASK_SOURCES": "rcgrpo.policy.task_sources",
    "load_tasks": "rcgrpo.policy.task_sources",
    "register_task_source": "rcgrpo.policy.task_sources",
    "add_reward_tokens": "rcgrpo.policy.tokenizer",
    "train_tiny_tokenizer": "rcgrpo.policy.tokenizer",
}
"""Public name -> the submodule defining it; imported on first access (PEP 562), so that
importing a light submodule (``task_sources``, ``render``) does not load transformers."""

if TYPE_CHECKING:  # the names as static tools see them
    from rcgrpo.policy.chat import ChatEncoder
    from rcgrpo.policy.evaluate import evaluate_policy, summarize, wilson_interval
    from rcgrpo.policy.models import PRESETS, build_tiny_policy, load_policy, save_policy
    from rcgrpo.policy.policies import (
        GeneratePolicy,
        ModelPolicy,
        ScriptedPolicy,
        StepView,
        oracle_script,
    )
    from rcgrpo.policy.recompute import sequence_logprobs
    from rcgrpo.policy.render import PROMPT_STYLES, initial_messages, with_reward_goal
    from rcgrpo.policy.rollout import RolloutEngine, RolloutJob
    from rcgrpo.policy.task_sources import TASK_SOURCES, load_tasks, register_task_source
    from rcgrpo.policy.tokenizer import add_reward_tokens, train_tiny_tokenizer

__all__ = [
    "PRESETS",
    "PROMPT_STYLES",
    "TASK_SOURCES",
    "ChatEncoder",
    "GeneratePolicy",
    "ModelPolicy",
    "RolloutEngine",
    "RolloutJob",
    "ScriptedPolicy",
    "StepView",
    "add_reward_tokens",
    "build_tiny_policy",
    "evaluate_policy",
    "initial_messages",
    "load_policy",
    "load_tasks",
    "oracle_script",
    "register_task_source",
    "save_policy",
    "sequence_logprobs",
    "summarize",
    "train_tiny_tokenizer",
    "wilson_interval",
    "with_reward_goal",
]


def __getattr__(name: str):
    """A public name from its submodule (:data:`_EXPORTS`), or a submodule not yet imported."""
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    if importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
