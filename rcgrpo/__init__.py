"""rcgrpo — a research workbench for RC-GRPO (arXiv 2602.03025).

The public algorithm library (pure functions, torch tensors in and out)::

    rcgrpo.group_advantages(rewards, eps_stab=1e-6, scale="group", ddof=0)
    rcgrpo.sample_reward_tokens(num_prompts, group_size, p=0.5, scheme="iid", generator=None)

The BFCL environment lives in :mod:`rcgrpo.env`, the policy stack in :mod:`rcgrpo.policy`
and the trainer in :mod:`rcgrpo.train`.
"""

from rcgrpo.advantages import group_advantages
from rcgrpo.conditioning import (
    HIGH_TOKEN,
    LOW_TOKEN,
    reward_goal_text,
    sample_reward_tokens,
    scheme_uses_token,
)

__version__ = "0.1.0"

__all__ = [
    "HIGH_TOKEN",
    "LOW_TOKEN",
    "group_advantages",
    "reward_goal_text",
    "sample_reward_tokens",
    "scheme_uses_token",
]
