r"""Failure kinds of the regime diagnostic, and for each kind the decision a sample gets right.

**Kind** of a reward-0 rollout: :func:`rcgrpo.train.failure_modes.classify_failure` (the
trainer's rule: truncated, wrong_argument, wrong_tool, parse_error, early_stop, missing_call,
extra_call, other), with ``wrong_argument`` split once more: ``wrong_extension`` when the
first argument the rollout got wrong differs from the ground truth's only in the file
extension (same stem, another of the suite's six extensions) — the capability hole of issue
25, whose "options" are countable.

**The decision.** For a task whose greedy rollout fails with kind K, let a* be the first
ground-truth call the greedy rollout left unmatched (R_action's matching) and F the number of
functions offered (``done`` excluded). A sample of the same task *gets the decision right*
and the decision's *chance* level (the probability that a policy knowing the options but
not which is right picks it, uniform over them) are:

================  ==========================================  ===============================
kind              a sample is right iff                       chance
================  ==========================================  ===============================
wrong_tool        it executes a call of a*'s function          1 / F (the offered functions)
wrong_extension   a call of a*'s function has the wrong        1 / 6 (the suite's extensions)
                  argument with a*'s extension
wrong_argument    a call of a*'s function has the wrong        1 / W, W = distinct tokens of
                  argument equal to a*'s value                 the user text (copy one of them)
missing_call,     it executes a*'s function at least as        1 / (F + 1) (call one of F or
early_stop        often as the ground truth does               stop)
extra_call        it executes no call beyond the ground        1 / (F + 1) (stop, or call one
                  truth's (by name, with multiplicity)         of F)
parse_error       no reply of it is rejected by the decoder    None (not countable)
truncated         it is not truncated                          None
other             it succeeds (R = 1)                          None
================  ==========================================  ===============================

"The wrong argument" is the first argument (in a*'s order) where the greedy rollout's first
call of a*'s function that differs from a* differs. P(right | sampled) of kind K is the mean
over K's tasks of the share of their samples that are right; its chance is the mean of the
tasks' chance levels. W makes chance generous for multi-word values (copying a phrase from W
tokens is rarer than 1/W), so the gate G2 that compares against 2× chance is strict there.
Call strings are parsed with :func:`rcgrpo.env.decode.decode_reply` (``ast``, never ``eval``).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from rcgrpo.env.decode import Call, decode_reply
from rcgrpo.env.synth_config import _EXTENSIONS  # the suite's file extensions (private constant)
from rcgrpo.env.turns import allowed_names, num_mode_turns
from rcgrpo.train.failure_modes import (
    FAILURE_MODES,
    _rejected_reply,
    call_name,
    classify_failure,
)

EXTENSIONS: tuple[str, ...] = tuple(_EXTENSIONS)
KINDS: tuple[str, ...] = (*FAILURE_MODES[:2], "wrong_extension", *FAILURE_MODES[2:])
"""Every kind, in the order of the classifier's rules."""
_TOKEN = re.compile(r"[^\s,;:!?'\"()]+")


def parse_call(source: str) -> Call | None:
    """The call of one call string (``f(a=1)``), or None when it does not decode."""
    decoded = decode_reply(source, {call_name(source)})
    return decoded.calls[0] if decoded.kind == "calls" and len(decoded.calls) == 1 else None


def executed_calls(rollout: Any) -> list[Call]:
    """Every executed call of a rollout, parsed, in order."""
    calls = (parse_call(c) for turn in rollout.calls_per_turn for c in turn)
    return [c for c in calls if c is not None]


def first_unmatched(rollout: Any) -> Call | None:
    """a*: the first ground-truth call the rollout left unmatched (None: all matched)."""
    unmatched = rollout.record.unmatched
    return parse_call(unmatched[0]) if unmatched else None


def wrong_argument_key(target: Call, calls: list[Call]) -> str | None:
    """The first argument of ``target`` that the first call of its function differing from
    it gets wrong (module docstring); None if no call of that function differs."""
    for call in calls:
        if call.name != target.name:
            continue
        for key, value in target.kwargs.items():
            if key not in call.kwargs or call.kwargs[key] != value:
                return key
    return None


def _split_ext(value: Any) -> tuple[str, str] | None:
    if not isinstance(value, str) or "." not in value:
        return None
    stem, ext = value.rsplit(".", 1)
    return stem, ext


def is_extension_slip(right: Any, got: Any) -> bool:
    """``got`` is ``right`` with another of the suite's extensions (same stem)."""
    a, b = _split_ext(right), _split_ext(got)
    return a is not None and b is not None and a[0] == b[0] and a[1] != b[1] and a[1] in EXTENSIONS


def failure_kind(task: Any, rollout: Any, mode: str) -> str | None:
    """The kind of a rollout (module docstring); None when it succeeded."""
    if int(rollout.record.reward) == 1:
        return None
    kind = classify_failure(task, rollout, mode)
    if kind != "wrong_argument":
        return kind
    target, calls = first_unmatched(rollout), executed_calls(rollout)
    key = None if target is None else wrong_argument_key(target, calls)
    if key is None:
        return kind
    for call in calls:
        if call.name == target.name and call.kwargs.get(key) != target.kwargs[key]:
            got = call.kwargs.get(key)
            return "wrong_extension" if is_extension_slip(target.kwargs[key], got) else kind
    return kind


def offered_functions(task: Any, mode: str) -> int:
    """F: the functions offered over the task's turns (``done`` excluded)."""
    names = set()
    for turn in range(num_mode_turns(task, mode)):
        names |= allowed_names(task, mode, turn)
    return len(names - {"done"})


def request_tokens(task: Any) -> int:
    """W: distinct whitespace/punctuation-separated tokens of the task's user text (a final
    full stop dropped, so ``a.txt.`` counts as ``a.txt``)."""
    text = " ".join(m["content"] for turn in task.turns for m in turn)
    return len({t.rstrip(".") for t in _TOKEN.findall(text) if t.rstrip(".")})


class Decision:
    """The decision behind a greedy failure of one task: ``right(sample)`` and ``chance``."""

    def __init__(self, task: Any, greedy: Any, kind: str, mode: str):
        self.task, self.kind, self.mode = task, kind, mode
        self.target = first_unmatched(greedy)
        self.key = None
        if kind in ("wrong_argument", "wrong_extension") and self.target is not None:
            self.key = wrong_argument_key(self.target, executed_calls(greedy))
        f = offered_functions(task, mode)
        self.chance = {
            "wrong_tool": 1 / f,
            "wrong_extension": 1 / len(EXTENSIONS),
            "wrong_argument": 1 / max(request_tokens(task), 1),
            "missing_call": 1 / (f + 1),
            "early_stop": 1 / (f + 1),
            "extra_call": 1 / (f + 1),
        }.get(kind)

    def right(self, sample: Any) -> bool:
        """Whether ``sample`` gets the decision right (module docstring)."""
        kind, target = self.kind, self.target
        if kind == "parse_error":
            return not _rejected_reply(self.task, sample, self.mode)
        if kind == "truncated":
            return not (sample.truncated or sample.record.truncated)
        calls = executed_calls(sample)
        if kind == "extra_call":
            gt = Counter(call_name(c) for turn in self.task.ground_truth for c in turn)
            return not (Counter(c.name for c in calls) - gt)
        if kind == "other" or target is None:
            return int(sample.record.reward) == 1
        same = [c for c in calls if c.name == target.name]
        if kind == "wrong_tool":
            return bool(same)
        if kind in ("missing_call", "early_stop"):
            need = sum(call_name(c) == target.name for t in self.task.ground_truth for c in t)
            return len(same) >= need
        key = self.key if self.key is not None else next(iter(target.kwargs), None)
        if key is None:
            return bool(same)
        want = target.kwargs[key]
        if kind == "wrong_extension":
            ext = _split_ext(want)[1]
            return any((_split_ext(c.kwargs.get(key)) or ("", None))[1] == ext for c in same)
        return any(key in c.kwargs and c.kwargs[key] == want for c in same)
