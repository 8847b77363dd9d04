"""The paper's binary reward R = R_state * R_action, and BFCL's own validity rule.

RC-GRPO §2 (arXiv 2602.03025), for a trajectory τ of executed calls:

- R_state(τ) = 1[after the last turn, every involved instance's public state (its
  non-underscore attributes, compared as BFCL's ``state_checker`` does) equals the state
  the ground truth reaches].
- R_action(τ) = 1[every ground-truth call a* is matched by an executed call a with the
  same name and, for every argument of a*, the same value] — order-free across the whole
  trajectory; extra arguments allowed. Conventions we fix (unstated in the paper): the
  matching is one-to-one (a ground-truth call repeated k times needs k executed calls; a
  maximum bipartite matching, so the outcome never depends on call order); an argument
  the model omits takes the backend signature's default; values compare with Python
  ``==``; every executed call counts, even one whose backend returned an error; rejected
  (never executed) calls do not.
- R = R_state * R_action, and R = 0 for a truncated trajectory (force-quit after too many
  steps, or fewer turns than the task has), as BFCL fails such entries.

Empty ground-truth turns (miss_param/miss_func: the turn where the model should notice
that it cannot act) add no ground-truth calls, so they never lower R_action; calls the
model makes there are executed, count as executed calls for the matching, and change the
state that R_state checks. Calls are never credited to a particular turn.

``bfcl_valid`` is BFCL's rule (``multi_turn_checker``), computed from the package's
``state_checker`` and ``response_checker``: after each turn with non-empty ground truth,
the model must have made a call in that turn, the state must equal the ground-truth state
after that turn, and the ground-truth results of the turn must be contained (as a
multiset) in the model's results of all turns so far; empty-ground-truth turns are not
checked. In combined mode there is one turn: the ground truth of all turns is merged into
it, so state and results are checked once, at the end.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rcgrpo.env.bfcl import response_checker, state_checker
from rcgrpo.env.decode import Call, DecodeLimits, decode_reply
from rcgrpo.env.executor import ERROR_PREFIX, Sandbox
from rcgrpo.env.ground_truth import GroundTruthRun, ground_truth_run
from rcgrpo.env.tasks import Task
from rcgrpo.env.turns import DONE_NAME, allowed_names, num_mode_turns

__all__ = ["RewardRecord", "TurnCheck", "match_actions", "score_trajectory"]


@dataclass(frozen=True)
class TurnCheck:
    """BFCL's check of one turn."""

    turn: int
    num_calls: int
    """Calls executed in the turn (rejected ones not counted)."""
    num_gt_calls: int
    """Ground-truth calls of the turn (all turns merged in combined mode)."""
    checked: bool
    """BFCL checks the turn (its ground truth is non-empty)."""
    valid: bool | None
    """Outcome of BFCL's check; None when not checked."""
    error_type: str | None = None
    """BFCL's ``error_type`` of a failed check (``multi_turn:...``)."""


@dataclass(frozen=True)
class RewardRecord:
    """Reward of one trajectory; ``reward`` is the paper's R."""

    state: int
    """R_state in {0, 1}."""
    action: int
    """R_action in {0, 1}."""
    reward: int
    """R = state * action, 0 if truncated."""
    bfcl_valid: bool
    """BFCL's per-turn state + response rule (module docstring)."""
    per_turn: tuple[TurnCheck, ...]
    failure_reason: str | None
    """Why R = 0 (first of: truncation, state, action), None if R = 1."""
    bfcl_error: str | None = None
    """First failed BFCL check (``turn k: <error_type>: <message>``), None if valid."""
    truncated: bool = False
    mode: str = "multi_turn"
    num_calls: int = 0
    """Executed calls in the whole trajectory."""
    unmatched: tuple[str, ...] = ()
    """Ground-truth calls with no executed match (their source text)."""

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form for JSON logs."""
        return dataclasses.asdict(self)


_MISSING = object()


@functools.cache
def _defaults(cls: type, method: str) -> dict[str, Any]:
    params = inspect.signature(getattr(cls, method)).parameters.values()
    return {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}


def _covers(gt: Call, call: Call, defaults: dict[str, Any]) -> bool:
    for key, value in gt.kwargs.items():
        got = call.kwargs.get(key, defaults.get(key, _MISSING))
        if got is _MISSING or not bool(got == value):
            return False
    return True


def match_actions(
    gt_calls: Sequence[Call], executed: Sequence[Call], sandbox: Sandbox | None = None
) -> list[int]:
    """Indices of ``gt_calls`` left unmatched by a maximum one-to-one matching.

    ``executed[j]`` can match ``gt_calls[i]`` iff same name and every ground-truth argument
    is present in ``executed[j]`` (or defaulted by the method signature, when ``sandbox``
    is given) with an equal value.
    """
    by_name: dict[str, list[int]] = {}
    for j, call in enumerate(executed):
        by_name.setdefault(call.name, []).append(j)
    candidates = []
    for gt in gt_calls:
        defaults = sandbox_defaults(sandbox, gt.name)
        candidates.append(
            [j for j in by_name.get(gt.name, ()) if _covers(gt, executed[j], defaults)]
        )
    owner: dict[int, int] = {}  # executed index -> ground-truth index

    def augment(i: int, seen: set[int]) -> bool:
        for j in candidates[i]:
            if j not in seen:
                seen.add(j)
                if j not in owner or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return [i for i in range(len(gt_calls)) if not augment(i, set())]


def sandbox_defaults(sandbox: Sandbox | None, method: str) -> dict[str, Any]:
    """Default argument values of ``method`` on the sandbox's instances ({} if unknown)."""
    instance = sandbox.owner_instance(method) if sandbox is not None else None
    return {} if instance is None else _defaults(type(instance), method)


def _check_calls_per_turn(calls_per_turn: Any, num_turns: int) -> list[list[str]]:
    if not isinstance(calls_per_turn, (list, tuple)):
        raise ValueError(
            f"calls_per_turn must be a list of lists of str, got {type(calls_per_turn).__name__}"
        )
    if len(calls_per_turn) > num_turns:
        raise ValueError(
            f"calls_per_turn has {len(calls_per_turn)} turns, the task has {num_turns}"
        )
    for turn in calls_per_turn:
        if not isinstance(turn, (list, tuple)) or not all(isinstance(c, str) for c in turn):
            raise ValueError(
                f"calls_per_turn must be a list of lists of str, got an entry {turn!r:.80}"
            )
    return [list(turn) for turn in calls_per_turn]


def _bfcl_turn(
    turn: int,
    made_calls: bool,
    sandbox: Sandbox,
    gt_state: dict,
    all_results: list[str],
    gt_results: list[str],
) -> dict[str, Any]:
    if not made_calls:
        return {
            "valid": False,
            "error_type": "multi_turn:empty_turn_model_response",
            "error_message": f"Model response list is empty for turn {turn}",
        }
    result = state_checker(sandbox.instances, gt_state)
    if result["valid"]:
        result = response_checker(all_results, gt_results, turn)
    return result


def score_trajectory(
    task: Task,
    calls_per_turn: Sequence[Sequence[str]],
    mode: str = "multi_turn",
    *,
    truncated: bool = False,
    call_timeout_s: float | None = 2.0,
    decode_limits: DecodeLimits | None = None,
) -> RewardRecord:
    """Execute ``calls_per_turn`` on fresh instances of ``task`` and score it.

    ``calls_per_turn[k]`` holds the call strings of turn ``k`` as the model emitted them
    (a string may hold several calls, ``"[f(a=1), g(b=2)]"``); each is decoded with the
    allow-list of its turn, rejected strings are not executed (their error counts as a
    result, as BFCL's would). Fewer turns than the task has (one turn in combined mode)
    means the episode was cut short: ``truncated`` is then set. ``done()`` calls are
    ignored. See the module docstring for R and ``bfcl_valid``.
    """
    num_turns = num_mode_turns(task, mode)
    turns = _check_calls_per_turn(calls_per_turn, num_turns)
    truncated = bool(truncated) or len(turns) < num_turns
    turns += [[] for _ in range(num_turns - len(turns))]
    gt = ground_truth_run(task)
    sandbox = Sandbox(gt.factory.fresh(), call_timeout_s=call_timeout_s)
    executed: list[Call] = []
    all_results: list[str] = []
    checks, bfcl_error = [], None
    for turn, texts in enumerate(turns):
        allowed = allowed_names(task, mode, turn)
        turn_calls, attempted = _execute_turn(texts, allowed, sandbox, all_results, decode_limits)
        executed.extend(turn_calls)
        gt_results, gt_state = _gt_turn(gt, mode, turn)
        num_gt = len(gt_results)
        if num_gt == 0:
            checks.append(TurnCheck(turn, len(turn_calls), 0, False, None))
            continue
        result = _bfcl_turn(turn, attempted, sandbox, gt_state, all_results, gt_results)
        checks.append(
            TurnCheck(
                turn, len(turn_calls), num_gt, True, result["valid"], result.get("error_type")
            )
        )
        if not result["valid"] and bfcl_error is None:
            bfcl_error = f"turn {turn}: {result['error_type']}: {result['error_message']}"
    return _record(gt, sandbox, executed, checks, bfcl_error, truncated, mode)


def _execute_turn(
    texts: list[str],
    allowed: frozenset[str],
    sandbox: Sandbox,
    results: list[str],
    limits: DecodeLimits | None,
) -> tuple[list[Call], bool]:
    """Run one turn's call strings; returns the executed calls and whether any call was
    attempted (BFCL's "non-empty model response": something decoded, even if it failed)."""
    calls, attempted = [], False
    for text in texts:
        decoded = decode_reply(text, allowed, limits)
        attempted = attempted or decoded.kind != "no_calls"
        if decoded.kind == "rejected":
            results.append(f"{ERROR_PREFIX}{decoded.error}")
        for call in decoded.calls:
            if call.name != DONE_NAME:
                results.append(sandbox.run(call))
                calls.append(call)
    return calls, attempted


def _gt_turn(gt: GroundTruthRun, mode: str, turn: int) -> tuple[list[str], dict[str, Any]]:
    if mode == "combined":
        return [r for results in gt.results for r in results], gt.final
    return list(gt.results[turn]), gt.states[turn]


def _record(
    gt: GroundTruthRun,
    sandbox: Sandbox,
    executed: list[Call],
    checks: list[TurnCheck],
    bfcl_error: str | None,
    truncated: bool,
    mode: str,
) -> RewardRecord:
    final = state_checker(sandbox.instances, gt.final)
    gt_calls = [call for turn in gt.calls for call in turn]
    unmatched = tuple(gt_calls[i].source for i in match_actions(gt_calls, executed, sandbox))
    state, action = int(final["valid"]), int(not unmatched)
    reason = None
    if truncated:
        reason = "truncated: the episode ended before its last turn"
    elif not state:
        differing = sorted(final.get("details", {}).get("differences", {}))
        reason = f"state: {final['error_message']} (attributes: {', '.join(differing)})"
    elif not action:
        reason = f"action: no executed call matches {unmatched[0]}"
    if truncated:
        bfcl_error = "multi_turn:force_terminated"
    return RewardRecord(
        state=state,
        action=action,
        reward=0 if truncated else state * action,
        bfcl_valid=bfcl_error is None,
        per_turn=tuple(checks),
        failure_reason=reason,
        bfcl_error=bfcl_error,
        truncated=truncated,
        mode=mode,
        num_calls=len(executed),
        unmatched=unmatched,
    )
