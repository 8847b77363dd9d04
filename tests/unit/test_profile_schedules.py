"""The decode-schedule arithmetic of ``benchmarks/profile_rl_step.py``, computed by hand.

The profile prices continuous batching and prompt-lookup drafts on recorded rollouts; the
numbers it prints are only as good as these counts.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from profile_rl_step import (  # noqa: E402
    continuous_rows,
    drafted_round_rows,
    lookup_draft,
    message_passes,
    synchronous_rows,
)


def test_lookup_draft_takes_the_longest_latest_match():
    # no earlier [9, 1, 2]; [1, 2] occurs at 0, followed by [3, 9]
    assert lookup_draft([1, 2, 3, 9, 1, 2], k=2) == [3, 9]
    # the latest match wins: [7] occurs at 0 and 2, the one at 2 is followed by 8
    assert lookup_draft([7, 5, 7, 8, 7], k=1) == [8]
    assert lookup_draft([1, 2, 3], k=4) == []  # nothing repeats
    assert lookup_draft([4], k=2) == []


def test_message_passes_accepts_leading_matches_only():
    ids = [5, 6, 7, 5, 6, 7]
    # the message is ids[3:6]: the first pass samples 5, drafts [6, 7] (after the 5 at 0): done
    assert message_passes(ids, 3, 6, k=2) == 1
    assert message_passes(ids, 3, 6, k=0) == 3  # one token per pass without drafts
    # the draft [6, 7] meets [6, 9]: one accepted, then 9 and 1 are sampled
    assert message_passes([5, 6, 7, 5, 6, 9, 1], 3, 7, k=2) == 3


def test_synchronous_rounds_wait_for_their_longest_message():
    # two episodes: messages of 1 then 3 tokens, and of 3 then 1
    passes = [[1, 3], [3, 1]]
    assert synchronous_rows(passes) == [2, 1, 1, 2, 1, 1]
    assert continuous_rows(passes) == [2, 2, 2, 2]  # 4 tokens each, back to back


def test_drafted_round_without_drafts_is_the_synchronous_round():
    messages = [([1, 2, 3, 4], 1, 4), ([1, 2], 1, 2)]
    assert drafted_round_rows(messages, k=0, max_rows=4) == synchronous_rows([[3], [1]])
    # drafting only when one row is live: row 0 is alone from its second step on
    repeat = [([5, 6, 5, 6, 5, 6], 2, 6), ([1, 2], 1, 2)]
    # step 1: both live (no drafts): row 0 at 3, row 1 done; step 2: row 0 alone samples 6
    # (index 3), drafts [5, 6] after the 6 at 1 -> both accepted, done
    assert drafted_round_rows(repeat, k=2, max_rows=1) == [2, 1]
