"""A goal scheme that keeps state, added in this one file (``docs/library.md``): rollout g of
group p gets <|high_reward|> iff p + g + (rounds drawn before) is even, so the pattern
flips every round; the state also sums the rewards it has seen."""

from __future__ import annotations

import torch

from rcgrpo.conditioning import register_scheme

NAME = "toy-alternate"


def first_state() -> dict:
    return {"rounds": 0, "reward_sum": 0.0}


def after_round(state: dict, goals: torch.Tensor, rewards: torch.Tensor) -> dict:
    return {"rounds": state["rounds"] + 1, "reward_sum": state["reward_sum"] + float(rewards.sum())}


@register_scheme(NAME, per_rollout=True, init_state=first_state, update_state=after_round)
def alternate(num_prompts: int, group_size: int, generator, *, state: dict) -> torch.Tensor:
    """bool [P, G]: high iff p + g + state["rounds"] is even."""
    p, g = torch.arange(num_prompts)[:, None], torch.arange(group_size)[None, :]
    return (p + g + state["rounds"]) % 2 == 0
