"""Hand-made rollout records and a micro policy for the RL unit tests."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from rcgrpo.records import Rollout


@dataclass
class Record:
    state: int = 0
    action: int = 0
    reward: float = 0.0
    bfcl_valid: bool = False
    failure_reason: str | None = None
    truncated: bool = False


def fake_rollout(
    ids,
    gen_from: int,
    reward: float = 0.0,
    high=None,
    p: int = 0,
    g: int = 0,
    messages=None,
    calls=(),
    errors: int = 0,
    steps: int = 1,
) -> Rollout:
    """A rollout over token ids ``ids`` whose tokens from ``gen_from`` on were generated."""
    ids = torch.tensor(ids, dtype=torch.long)
    mask = torch.zeros(len(ids), dtype=torch.bool)
    mask[gen_from:] = True
    record = Record(int(reward), int(reward), float(reward), bool(reward))
    return Rollout(
        task_id=f"t{p}",
        category="synth/x",
        reward_high=high,
        input_ids=ids,
        loss_mask=mask,
        behaviour_logprobs=torch.zeros(len(ids)),
        prompt_length=gen_from,
        message_spans=((gen_from, len(ids)),),
        message_turns=(0,),
        calls_per_turn=[list(calls)],
        record=record,
        num_steps=steps,
        num_tool_errors=errors,
        truncated=False,
        capped_messages=0,
        messages=list(messages or []),
        prompt_index=p,
        group_index=g,
    )
