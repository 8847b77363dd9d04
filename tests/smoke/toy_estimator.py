"""An advantage estimator reading every declared input, added in this one file
(``docs/library.md``): a per-task, per-goal baseline with a length cost,

    s_j = R_j - c·L_j,    A_j = s_j - mean{s_k : task_k = task_j and goal_k = goal_j},

over the whole batch (groups of the same task share the baseline); c = :data:`LENGTH_COST`,
L the generated tokens. Not of the form c_g (R_j - μ_g), so it does not declare ``centred``.
"""

from __future__ import annotations

import torch

from rcgrpo.advantages import register_estimator

NAME = "toy-task-goal-baseline"
LENGTH_COST = 0.01


@register_estimator(NAME, inputs=("rewards", "group_ids", "goals", "lengths"))
def task_goal_baseline(
    rewards: torch.Tensor, group_ids: torch.Tensor, goals: torch.Tensor, lengths: torch.Tensor
) -> torch.Tensor:
    """[P, G] advantages (module docstring); rewards [P, G], group_ids [P], goals and
    lengths [P, G]."""
    r = rewards if rewards.is_floating_point() else rewards.float()
    s = r - LENGTH_COST * lengths.to(r.dtype)
    same_task = group_ids[:, None, None, None] == group_ids[None, None, :, None]
    same_goal = goals[:, :, None, None] == goals[None, None, :, :]
    w = (same_task & same_goal).to(s.dtype)  # [P, G, P, G]: k counts in j's baseline
    return s - (w * s[None, None]).sum(dim=(2, 3)) / w.sum(dim=(2, 3))
