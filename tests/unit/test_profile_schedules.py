"""The decode-schedule arithmetic of ``benchmarks/profile_rl_step.py``, computed by hand.

The profile prices continuous batching and prompt-lookup drafts on recorded rollouts; the
numbers it prints are only as good as these counts.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from profile_rl_step import advance, lookup_draft, schedule_rows  # noqa: E402


def test_lookup_draft_takes_the_longest_latest_match():
    # no earlier [9, 1, 2]; [1, 2] occurs at 0, followed by [3, 9]
    assert lookup_draft([1, 2, 3, 9, 1, 2], k=2) == [3, 9]
    # the latest match wins: [7] occurs at 0 and 2, the one at 2 is followed by 8
    assert lookup_draft([7, 5, 7, 8, 7], k=1) == [8]
    assert lookup_draft([1, 2, 3], k=4) == []  # nothing repeats
    assert lookup_draft([4], k=2) == []


def test_a_pass_accepts_the_drafts_leading_matches_only():
    ids = [5, 6, 7, 5, 6, 7]
    # message ids[3:6]: the pass samples 5, drafts [6, 7] (what followed the 5 at 0): done
    assert advance(ids, 3, 6, k=2) == 6
    assert advance(ids, 3, 6, k=0) == 4  # one token per pass without drafts
    # the draft [6, 7] meets [6, 9]: one accepted
    assert advance([5, 6, 7, 5, 6, 9, 1], 3, 7, k=2) == 5
    # a draft never runs past the message's end
    assert advance(ids, 3, 5, k=2) == 5


def test_synchronous_rounds_wait_for_their_longest_message():
    # episode a writes messages of 1 then 3 tokens, b of 3 then 1 (no repeats: drafts idle)
    a = [10, 11, 12, 13, 14, 15]
    b = [20, 21, 22, 23, 24, 25]
    a0, a1, b0, b1 = (a, 1, 2), (a, 3, 6), (b, 1, 4), (b, 5, 6)
    rounds = schedule_rows([[a0], [b0]]) + schedule_rows([[a1], [b1]])
    assert rounds == [2, 1, 1, 2, 1, 1]
    assert schedule_rows([[a0, a1], [b0, b1]]) == [2, 2, 2, 2]  # back to back: 4 each
    assert schedule_rows([[a0, a1], [b0, b1]], k=3) == [2, 2, 2, 2]


def test_drafts_only_in_passes_with_few_live_rows():
    repeat = [5, 6, 5, 6, 5, 6]
    # row 0 writes repeat[2:6], row 1 one token. Pass 1: both live, no drafts (max_rows 1):
    # row 0 at 3, row 1 done. Pass 2: row 0 alone samples 6 (index 3), drafts [5, 6] (what
    # followed the 6 at 1), both accepted: done
    rows = [[(repeat, 2, 6)], [([1, 2], 1, 2)]]
    assert schedule_rows(rows, k=2, max_rows=1) == [2, 1]
    assert schedule_rows(rows, k=0) == [2, 1, 1, 1]
