"""Shared-prefix planning of the rollout engine's prefill: hand cases and partition laws."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rcgrpo.policy.prefix import common_prefix, shared_prefixes


def test_common_prefix_hand_cases():
    assert common_prefix([1, 2, 3], [1, 2, 4]) == 2
    assert common_prefix([1, 2], [1, 2, 3]) == 2
    assert common_prefix([5], [6]) == 0


def test_group_with_reward_goals_shares_up_to_the_goal():
    # a group's prompts: 10 shared tokens, then the goal token (8 high, 9 low), then 2 more
    head = list(range(10))
    prompts = [head + [8, 1, 2], head + [9, 1, 2], head + [8, 1, 2], list(range(20, 26))]
    # sorted: the three group prompts (ids 0, 2 then 1), then the other task's prompt;
    # the group shares p = 10 (2·10 >= 13); the other prompt shares nothing with them
    assert shared_prefixes(prompts) == [([0, 2, 1], 10), ([3], 6)]


def test_no_shared_prefix_whole_prompt_and_single_rows():
    # different tasks behind a 2-token common header: 2·2 < 5, no sharing
    assert shared_prefixes([[1, 2, 3, 4, 5], [1, 2, 7, 8, 9]]) == [([0], 5), ([1], 5)]
    # identical prompts (no reward goal): the prefix is the whole prompt
    assert shared_prefixes([[4, 5, 6]] * 3) == [([0, 1, 2], 3)]
    # a prompt that is a prefix of another: p = its whole length
    assert shared_prefixes([[4, 5, 6, 7], [4, 5, 6]]) == [([1, 0], 3)]
    assert shared_prefixes([[3, 1]]) == [([0], 2)]
    assert shared_prefixes([]) == []


def test_empty_prompt_is_rejected():
    with pytest.raises(ValueError, match="at least one token"):
        shared_prefixes([[1], []])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=8), min_size=1, max_size=7))
@example([[0, 0, 1], [0, 0, 2], [0, 1]])
def test_groups_partition_rows_and_share_exactly_their_prefix(prompts):
    groups = shared_prefixes(prompts)
    assert sorted(i for members, _ in groups for i in members) == list(range(len(prompts)))
    for members, shared in groups:
        # p is the common prefix of all members, and covers half of the shortest one
        lcp = min(common_prefix(prompts[members[0]], prompts[m]) for m in members)
        assert shared == (lcp if len(members) > 1 else len(prompts[members[0]]))
        assert shared >= 1 and 2 * shared >= min(len(prompts[m]) for m in members)
