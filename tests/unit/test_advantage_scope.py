"""rcgrpo.advantage_scope: within-goal advantages and the anchored low mode on hand-computed
groups (the derivation in each comment), and the trainer's batch built from them."""

from __future__ import annotations

import math

import pytest
import torch

from rcgrpo import group_advantages
from rcgrpo.advantage_scope import goal_scope, scoped_advantages, trained_rollouts

H, L = True, False
S3 = math.sqrt(3.0)


def t(*rows):
    return torch.tensor(rows, dtype=torch.float64)


def goals(*rows):
    return torch.tensor(rows, dtype=torch.bool)


def test_a_goal_blind_group_gets_the_same_advantages_in_both_scopes():
    # rewards 1 0 | 1 0 under goals H H | L L: each goal's sub-group is {1, 0} (mean .5,
    # std .5 -> ±1) and so is the whole group: (1 0 1 0 - .5)/.5 = 1 -1 1 -1
    r, g = t([1, 0, 1, 0]), goals([H, H, L, L])
    want = t([1, -1, 1, -1])
    assert torch.allclose(goal_scope(r, g, eps_stab=0.0), want)
    assert torch.allclose(scoped_advantages(r, g, "group", eps_stab=0.0), want)


def test_a_one_goal_group_is_the_group_itself():
    # every rollout high: the sub-group is the group, 1 0 0 0 -> mean .25, std √.1875:
    # (1 - .25)/.4330 = √3, (0 - .25)/.4330 = -1/√3
    r, g = t([1, 0, 0, 0]), goals([H, H, H, H])
    want = t([S3, -1 / S3, -1 / S3, -1 / S3])
    assert torch.allclose(goal_scope(r, g, eps_stab=0.0), want)
    assert torch.allclose(group_advantages(r, eps_stab=0.0), want)


def test_one_rollout_per_goal_has_no_baseline():
    # G = 2, goals H L, rewards 1 0: each sub-group has one rollout -> 0, 0 (the group scope
    # would give +1, -1, all of it between goals)
    r, g = t([1, 0]), goals([H, L])
    assert torch.equal(goal_scope(r, g), t([0, 0]))
    assert torch.allclose(scoped_advantages(r, g, "group", eps_stab=0.0), t([1, -1]))


def test_between_goal_variance_alone_enters_no_within_goal_advantage():
    # 1 1 | 0 0 under H H | L L: every sub-group is constant -> 0; the group scope gives ±1
    r, g = t([1, 1, 0, 0], [0, 1, 1, 1]), goals([H, H, L, L], [H, L, L, L])
    out = goal_scope(r, g, eps_stab=0.0)
    assert torch.equal(out[0], t([0, 0, 0, 0])[0])
    # row 2: high {0} alone -> 0; low {1, 1, 1} constant -> 0
    assert torch.equal(out[1], t([0, 0, 0, 0])[0])


def test_within_goal_scope_uses_the_estimator():
    # Dr. GRPO in the high sub-group {1, 0, 0}: R - mean = 2/3, -1/3, -1/3; low {1}: 0
    r, g = t([1, 0, 0, 1]), goals([H, H, H, L])
    out = scoped_advantages(r, g, "goal", "dr-grpo")
    assert torch.allclose(out, t([2 / 3, -1 / 3, -1 / 3, 0]))


def test_anchored_low_mode_trains_high_rollouts_with_whole_group_statistics():
    # 1 0 | 0 0 under H H | L L: the whole group's mean .25 and std .433 give the high
    # rollouts √3 and -1/√3 (normalising over the high ones alone would give +1, -1);
    # the low rollouts are not trained on
    r, g = t([1, 0, 0, 0]), goals([H, H, L, L])
    adv = scoped_advantages(r, g, "group", eps_stab=0.0)
    train = trained_rollouts(g, low_goal_gradient=False)
    assert torch.equal(train, g)
    assert torch.allclose(torch.where(train, adv, torch.zeros_like(adv)), t([S3, -1 / S3, 0, 0]))
    assert trained_rollouts(g, low_goal_gradient=True) is None


def test_bad_inputs_are_one_clear_error():
    r = t([1, 0])
    with pytest.raises(ValueError, match="bool tensor"):
        goal_scope(r, torch.ones(1, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match="needs reward goals"):
        scoped_advantages(r, None, "goal")
    with pytest.raises(ValueError, match="scope"):
        scoped_advantages(r, goals([H, L]), "everything")
    with pytest.raises(ValueError, match="anchored"):
        trained_rollouts(None, low_goal_gradient=False)
