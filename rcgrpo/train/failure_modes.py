"""Why a reward-0 episode failed: one failure mode per trajectory, first matching rule.

Computed from what the environment recorded (executed calls per turn, the reward record's
unmatched ground-truth calls and truncation flag) and from re-decoding the assistant
replies with each turn's allow-list. "gt" = ground-truth call; names compare function names.

================  ===========================================================================
mode              rule (checked in this order)
================  ===========================================================================
truncated         the episode was cut (context cap, BFCL step limit, or fewer turns) — R = 0
wrong_argument    an unmatched gt call's function was called more often than the matched gt
                  calls of that name account for (a call with other argument values)
wrong_tool        an unmatched gt call's function was never called, and a function outside
                  the ground truth was
parse_error       a gt call is unmatched and some reply was rejected by the decoder
                  (not a call list, bad syntax, a function that is not offered)
early_stop        a turn with gt calls ended without any executed call (the model replied
                  without calls at once; in combined mode: no call at all)
missing_call      some other gt call is unmatched (right tools, too few calls)
extra_call        every gt call matched but the final state differs (extra / repeated calls)
other             none of the above
================  ===========================================================================
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from rcgrpo.env.decode import decode_reply
from rcgrpo.env.turns import allowed_names

FAILURE_MODES = (
    "truncated",
    "wrong_argument",
    "wrong_tool",
    "parse_error",
    "early_stop",
    "missing_call",
    "extra_call",
    "other",
)


def call_name(source: str) -> str:
    """Function name of a call string ``f(a=1)``."""
    return source.split("(", 1)[0].strip()


def _gt_per_turn(task: Any, mode: str) -> list[list[str]]:
    if mode == "combined":
        return [[c for turn in task.ground_truth for c in turn]]
    return [list(turn) for turn in task.ground_truth]


def _rejected_reply(task: Any, rollout: Any, mode: str) -> bool:
    replies = [m["content"] for m in rollout.messages if m["role"] == "assistant"]
    for text, turn in zip(replies, rollout.message_turns, strict=False):
        if decode_reply(text, allowed_names(task, mode, turn)).kind == "rejected":
            return True
    return False


def classify_failure(task: Any, rollout: Any, mode: str) -> str:
    """The failure mode of a reward-0 rollout (module docstring); raises if it succeeded."""
    record = rollout.record
    if int(record.reward) == 1:
        raise ValueError(f"rollout {rollout.task_id} has reward 1: it did not fail")
    if rollout.truncated or record.truncated:
        return "truncated"
    executed = Counter(call_name(c) for turn in rollout.calls_per_turn for c in turn)
    gt_turns = _gt_per_turn(task, mode)
    gt_all = Counter(call_name(c) for turn in gt_turns for c in turn)
    missing = [call_name(c) for c in record.unmatched]
    spare = executed - (gt_all - Counter(missing))  # executed calls no gt call matched
    gt_names = set(gt_all)
    if any(spare[name] > 0 for name in missing):
        return "wrong_argument"
    if missing and any(name not in gt_names for name in executed):
        return "wrong_tool"
    if missing and _rejected_reply(task, rollout, mode):
        return "parse_error"
    calls = list(rollout.calls_per_turn) + [[]] * len(gt_turns)
    if any(gt and not calls[k] for k, gt in enumerate(gt_turns)):
        return "early_stop"
    if missing:
        return "missing_call"
    if not record.state:
        return "extra_call"
    return "other"


def failure_mix(modes: Iterable[str | None]) -> dict[str, float]:
    """Fraction of each failure mode among the failed trajectories (every mode listed)."""
    counts = Counter(m for m in modes if m is not None)
    total = sum(counts.values())
    return {m: (counts[m] / total if total else 0.0) for m in FAILURE_MODES}
