"""Rollout records: one episode with its token-level arrays, and a [P, G] batch of them.

Shape letters: P prompts, G group size, B = P·G rollouts, T tokens. Token arrays of one
rollout are 1-D of length T (its own length); :meth:`RolloutBatch.padded` right-pads them
to [B, T_max]. Rollouts are stored row-major, so rollout ``b`` is group ``b // G``,
member ``b % G``, and group maths is a ``reshape(P, G)``.

Token alignment: ``behaviour_logprobs[t]`` is log π_old(input_ids[t] | input_ids[:t]), the
log-prob of token t itself (not of the next token); it is 0 wherever ``loss_mask`` is 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch


@dataclass
class Rollout:
    """One episode of one task under one reward token."""

    task_id: str
    """``Task.id`` of the episode's task."""
    category: str
    """``Task.category`` (BFCL category or ``synth/<family>``)."""
    reward_high: bool | None
    """Reward token rendered in the prompt: True ``<|high_reward|>``, False ``<|low_reward|>``,
    None no token (plain SFT / GRPO prompt)."""
    input_ids: torch.Tensor
    """[T] int64: the whole conversation (system, user, assistant, tool) as the model saw it."""
    loss_mask: torch.Tensor
    """[T] bool: True exactly on tokens the policy generated (assistant text and its
    end-of-message token); False on system, user, tool and template header tokens."""
    behaviour_logprobs: torch.Tensor
    """[T] float32: log-prob of each generated token under the sampling policy at its
    temperature (before top-p truncation, as TRL and verl); 0 where ``loss_mask`` is False."""
    prompt_length: int
    """Tokens of the first prompt (system + first user message + assistant header)."""
    message_spans: tuple[tuple[int, int], ...]
    """``[start, end)`` token span of every generated assistant message, in order (the
    step boundaries; ``loss_mask`` is the union of these spans)."""
    message_turns: tuple[int, ...]
    """User-turn index during which each assistant message was generated (turn boundaries;
    always 0 in combined mode)."""
    calls_per_turn: list[list[str]]
    """Executed call strings per user turn, as the environment recorded them."""
    record: Any
    """The environment's ``RewardRecord`` (state, action, reward, bfcl_valid, per_turn,
    failure_reason)."""
    num_steps: int
    """Assistant messages the environment executed."""
    num_tool_errors: int
    """Error observations the environment returned (parse errors, disallowed calls,
    execution errors)."""
    truncated: bool
    """True if the context cap ended the episode before the environment did."""
    capped_messages: int
    """Assistant messages cut by the per-message token cap (they were still executed)."""
    messages: list[dict] = field(default_factory=list)
    """The conversation as messages (system prompt, user turns with the reward goal,
    assistant texts, tool results) — for logs and rendered examples."""
    prompt_index: int = 0
    """p: the group (prompt) this rollout belongs to."""
    group_index: int = 0
    """g: position inside its group."""

    @property
    def reward(self) -> float:
        """The paper's R = R_state · R_action (0 or 1)."""
        return float(self.record.reward)

    @property
    def bfcl_valid(self) -> bool:
        """BFCL's own per-turn validity rule."""
        return bool(self.record.bfcl_valid)

    @property
    def length(self) -> int:
        """T: total tokens."""
        return int(self.input_ids.numel())

    @property
    def num_generated(self) -> int:
        """Tokens the policy generated (sum of the loss mask)."""
        return int(self.loss_mask.sum())


@dataclass
class RolloutBatch:
    """B = P·G rollouts stored row-major ([P, G] layout)."""

    rollouts: list[Rollout]
    """Rollout b is group b // G, member b % G."""
    num_prompts: int
    """P."""
    group_size: int
    """G."""

    def __post_init__(self) -> None:
        if self.num_prompts * self.group_size != len(self.rollouts):
            raise ValueError(
                f"rollouts must hold num_prompts * group_size = "
                f"{self.num_prompts} * {self.group_size} rollouts, got {len(self.rollouts)}"
            )

    def _grid(self, values: list[float], dtype: torch.dtype) -> torch.Tensor:
        return torch.tensor(values, dtype=dtype).view(self.num_prompts, self.group_size)

    def rewards(self) -> torch.Tensor:
        """[P, G] float32 rewards R."""
        return self._grid([r.reward for r in self.rollouts], torch.float32)

    def bfcl_valid(self) -> torch.Tensor:
        """[P, G] bool BFCL validity."""
        return self._grid([r.bfcl_valid for r in self.rollouts], torch.bool)

    def reward_high(self) -> torch.Tensor:
        """[P, G] bool, True = ``<|high_reward|>`` (False also for no token; see conditioning)."""
        return self._grid([bool(r.reward_high) for r in self.rollouts], torch.bool)

    def padded(self, pad_id: int) -> dict[str, torch.Tensor]:
        """Right-padded token arrays, each [B, T_max]: ``input_ids`` (pad_id), ``attention_mask``
        (bool, True on real tokens), ``loss_mask`` (bool), ``behaviour_logprobs`` (float32)."""
        width = max(r.length for r in self.rollouts)
        size = (len(self.rollouts), width)
        out = {
            "input_ids": torch.full(size, pad_id, dtype=torch.long),
            "attention_mask": torch.zeros(size, dtype=torch.bool),
            "loss_mask": torch.zeros(size, dtype=torch.bool),
            "behaviour_logprobs": torch.zeros(size, dtype=torch.float32),
        }
        for b, r in enumerate(self.rollouts):
            out["input_ids"][b, : r.length] = r.input_ids
            out["attention_mask"][b, : r.length] = True
            out["loss_mask"][b, : r.length] = r.loss_mask
            out["behaviour_logprobs"][b, : r.length] = r.behaviour_logprobs
        return out
