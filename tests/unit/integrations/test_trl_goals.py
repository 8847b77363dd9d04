"""Per-rollout goals over a data-parallel generation batch (rcgrpo/integrations/goals.py)."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rcgrpo import sample_reward_tokens
from rcgrpo.conditioning import stratified_count
from rcgrpo.integrations.goals import local_goals, round_seed


def _slices(local, group, procs, **kw):
    return [local_goals(local, group, k, procs, **kw) for k in range(procs)]


def test_two_processes_split_a_group_and_join_into_one_global_draw():
    # b = 3 rollouts per process, G = 2, 2 processes: B = 6 = 3 groups; group 1 is rows
    # 2 (process 0) and 3 (process 1), the layout TRL's RepeatSampler docstring draws.
    seed = round_seed(0, 5, 0)
    parts = _slices(3, 2, 2, scheme="stratified", p=0.5, seed=seed)
    joined = torch.cat(parts).view(3, 2)
    # k = round(0.5 * 2) = 1 high per group, the straddling group included
    assert torch.equal(joined.sum(dim=1), torch.ones(3, dtype=torch.long))
    expected = sample_reward_tokens(3, 2, 0.5, "stratified", torch.Generator().manual_seed(seed))
    assert torch.equal(joined, expected)


@settings(max_examples=60, deadline=None)
@given(
    group=st.integers(2, 6),
    groups=st.integers(1, 6),
    procs=st.integers(1, 4),
    p=st.sampled_from([0.0, 0.3, 0.5, 0.9, 1.0]),
    seed=st.integers(0, 2**31),
)
def test_stratified_count_holds_over_the_union_of_slices(group, groups, procs, p, seed):
    total = group * groups * procs  # a multiple of both G and the world size
    parts = _slices(total // procs, group, procs, scheme="stratified", p=p, seed=seed)
    grid = torch.cat(parts).view(-1, group)
    assert bool((grid.sum(dim=1) == stratified_count(p, group)).all())


def test_iid_is_the_global_bernoulli_grid_and_eval_scheme_is_all_high():
    seed = round_seed(3, 0, 1)
    parts = _slices(4, 4, 2, scheme="iid", p=0.5, seed=seed)
    expected = sample_reward_tokens(2, 4, 0.5, "iid", torch.Generator().manual_seed(seed))
    assert torch.equal(torch.cat(parts), expected.reshape(-1))
    assert bool(local_goals(6, 3, 1, 2, scheme="high", seed=seed).all())


def test_round_seed_differs_per_step_and_call_and_is_reproducible():
    seeds = {round_seed(0, s, c) for s in range(20) for c in range(3)}
    assert len(seeds) == 60
    assert round_seed(7, 4, 2) == round_seed(7, 4, 2) == (7 * 1_000_003 + 4 * 10_007 + 2 * 101 + 17)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"local_size": 3, "group_size": 2, "process_index": 0, "num_processes": 1}, "whole"),
        ({"local_size": 4, "group_size": 2, "process_index": 2, "num_processes": 2}, "process"),
        ({"local_size": 4, "group_size": 1, "process_index": 0, "num_processes": 1}, "group"),
        (
            {
                "local_size": 4,
                "group_size": 2,
                "process_index": 0,
                "num_processes": 1,
                "scheme": "none",
            },
            "renders no reward goal",
        ),
    ],
)
def test_bad_layouts_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        local_goals(**kwargs)
