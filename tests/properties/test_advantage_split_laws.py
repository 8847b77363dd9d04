"""Hypothesis laws of the between/within-goal advantage split (rcgrpo/advantage_split.py)."""

from __future__ import annotations

import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rcgrpo import group_advantages
from rcgrpo.advantage_split import advantage_split, split_summaries
from rcgrpo.advantages import ADV_ESTIMATORS


@st.composite
def groups(draw, max_p=5, max_g=8):
    """rewards [P, G] (binary or a small grid), bool goals [P, G], an estimator and eps."""
    p, g = draw(st.integers(1, max_p)), draw(st.integers(2, max_g))
    values = draw(st.sampled_from([[0.0, 1.0], [0.0, 0.5, 1.0], [-2.0, 0.25, 3.0]]))
    cells = st.tuples(st.sampled_from(values), st.booleans())
    rows = draw(st.lists(st.lists(cells, min_size=g, max_size=g), min_size=p, max_size=p))
    rewards = torch.tensor([[v for v, _ in row] for row in rows], dtype=torch.float64)
    high = torch.tensor([[h for _, h in row] for row in rows], dtype=torch.bool)
    estimator = draw(st.sampled_from(list(ADV_ESTIMATORS)))
    eps = draw(st.sampled_from([0.0, 1e-6, 0.1]))
    return rewards, high, group_advantages(rewards, estimator, eps_stab=eps)


@settings(deadline=None)
@given(groups())
@example(
    (
        torch.tensor([[1.0, 0.0, 0.0, 0.0]], dtype=torch.float64),
        torch.tensor([[True, True, False, False]]),
        torch.tensor([[0.75, -0.25, -0.25, -0.25]], dtype=torch.float64),
    )
)
def test_parts_sum_to_the_advantage_and_are_orthogonal(inputs):
    _, high, adv = inputs
    between, within = advantage_split(adv, high)
    torch.testing.assert_close(between + within, adv, rtol=0, atol=1e-12)
    # per group and goal, w sums to 0 and b is constant: sum_j b_j w_j = 0 per group
    torch.testing.assert_close((between * within).sum(dim=1), torch.zeros(len(adv)).double())
    s = split_summaries(between, within, high)
    if bool(adv.abs().sum() > 0):
        total = s["adv/between_share"] + s["adv/within_share"]
        torch.testing.assert_close(total, torch.tensor(1.0, dtype=torch.float64))


@settings(deadline=None)
@given(groups())
def test_within_part_is_zero_when_each_goals_rollouts_agree(inputs):
    rewards, high, _ = inputs
    # overwrite each goal's rewards with the reward of its first rollout: goals agree inside
    agreed = rewards.clone()
    for i in range(len(rewards)):
        for sel in (high[i], ~high[i]):
            if sel.any():
                agreed[i, sel] = rewards[i, sel][0]
    between, within = advantage_split(group_advantages(agreed, eps_stab=0.0), high)
    torch.testing.assert_close(within, torch.zeros_like(within), rtol=0, atol=1e-12)


@settings(deadline=None)
@given(groups())
def test_between_part_is_zero_without_goal_diversity(inputs):
    rewards, _, _ = inputs
    one_goal = torch.ones_like(rewards, dtype=torch.bool)
    adv = group_advantages(rewards)
    between, within = advantage_split(adv, one_goal)
    assert torch.equal(between, torch.zeros_like(between)) and torch.equal(within, adv)
