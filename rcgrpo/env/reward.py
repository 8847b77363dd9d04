"""The paper's binary reward R = R_state * R_action, and BFCL's own validity rule.

RC-GRPO §2 (arXiv 2602.03025), for a trajectory τ of executed calls:

- R_state(τ) = 1[after the last turn, every involved instance's public state (its
  non-underscore attributes, compared as BFCL's ``state_checker`` does) equals the state
  the ground truth reaches].
- R_action(τ) = 1[every ground-truth call a* is matched by an executed call a with the
  same name and, for every argument of a*, the same value] — order-free across the whole
  trajectory; extra arguments allowed; one-to-one maximum matching, omitted arguments
  take the signature default, values compare with ``==`` (:mod:`rcgrpo.env.matching`).
  Every executed call counts, even one whose backend returned an error; rejected (never
  executed) calls do not.
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

A call of a function the turn does not offer (``ls()`` in a TradingBot task, or a miss_func
function before its reveal) is rejected by our decoder: nothing runs and R ignores it.
BFCL's decoder accepts any name and its executor answers the call (``Error during
execution: name 'ls' is not defined``), so for BFCL the turn has a call and is checked on
state and results; ``bfcl_valid`` follows BFCL and counts such a call
(:func:`unavailable_calls`: a reply rejected for its names only) as the turn's call. Two
differences remain: BFCL would also run the offered calls of such a reply, and a held-out
miss_func function (a real method of an involved class); we run neither.

:class:`TrajectoryScorer` does this incrementally on a live sandbox (the episode feeds it
as it runs, so ``Episode.score()`` costs no re-execution); :func:`score_trajectory` replays
call strings on fresh instances through the same scorer, so both give equal records.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Container, Sequence
from dataclasses import dataclass
from typing import Any

from rcgrpo.env.bfcl import response_checker, state_checker
from rcgrpo.env.decode import Call, DecodeLimits, decode_reply
from rcgrpo.env.executor import Sandbox
from rcgrpo.env.ground_truth import ground_truth_run
from rcgrpo.env.matching import match_actions, signature_defaults
from rcgrpo.env.tasks import Task
from rcgrpo.env.turns import DONE_NAME, allowed_names, num_mode_turns

__all__ = ["RewardRecord", "TrajectoryScorer", "TurnCheck", "score_trajectory", "unavailable_calls"]


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
    num_unavailable: int = 0
    """Calls of functions the turn does not offer (never executed; BFCL counts them)."""


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
        """Plain-data form for JSON logs (tuples as lists)."""
        out = dataclasses.asdict(self)
        out["per_turn"], out["unmatched"] = list(out["per_turn"]), list(out["unmatched"])
        return out


class TrajectoryScorer:
    """Scores one trajectory while it runs on ``sandbox`` (fresh instances of ``task``)."""

    def __init__(self, task: Task, mode: str, sandbox: Sandbox):
        self.num_turns = num_mode_turns(task, mode)
        self.mode, self.sandbox = mode, sandbox
        self.gt = ground_truth_run(task)
        self.turn = 0
        self.executed: list[Call] = []
        self.results: list[str] = []
        self.checks: list[TurnCheck] = []
        self.bfcl_error: str | None = None
        self._turn_calls = self._turn_unavailable = 0

    def add(self, call: Call, result: str) -> None:
        """Record one executed call of the current turn and its observation."""
        self.executed.append(call)
        self.results.append(result)
        self._turn_calls += 1

    def add_unavailable(self, calls: Sequence[Call]) -> None:
        """Record calls of the current turn to functions it does not offer (not executed)."""
        self._turn_unavailable += len(calls)

    def end_turn(self) -> None:
        """BFCL's check of the current turn on the sandbox as it is now; next turn."""
        if self.turn >= self.num_turns:
            raise RuntimeError(f"all {self.num_turns} turns have already ended")
        turn, made, unavailable = self.turn, self._turn_calls, self._turn_unavailable
        if self.mode == "combined":
            gt_results = [r for results in self.gt.results for r in results]
            gt_state = self.gt.final
        else:
            gt_results, gt_state = list(self.gt.results[turn]), self.gt.states[turn]
        self.turn, self._turn_calls, self._turn_unavailable = turn + 1, 0, 0
        if not gt_results:
            self.checks.append(TurnCheck(turn, made, 0, False, None, None, unavailable))
            return
        if not made and not unavailable:
            result = {
                "valid": False,
                "error_type": "multi_turn:empty_turn_model_response",
                "error_message": f"Model response list is empty for turn {turn}",
            }
        else:
            result = state_checker(self.sandbox.instances, gt_state)
            if result["valid"]:
                result = response_checker(self.results, gt_results, turn)
        valid, kind = result["valid"], result.get("error_type")
        self.checks.append(TurnCheck(turn, made, len(gt_results), True, valid, kind, unavailable))
        if not valid and self.bfcl_error is None:
            self.bfcl_error = f"turn {turn}: {kind}: {result['error_message']}"

    def finish(self, truncated: bool = False) -> RewardRecord:
        """End the current and any remaining turns (those without calls) and compute the
        record; ``truncated``: the episode was cut short (force-quit, context cap)."""
        while self.turn < self.num_turns:
            self.end_turn()
        return self._record(truncated)

    def _defaults(self, method: str) -> dict[str, Any]:
        instance = self.sandbox.owner_instance(method)
        return {} if instance is None else signature_defaults(type(instance), method)

    def _record(self, truncated: bool) -> RewardRecord:
        final = state_checker(self.sandbox.instances, self.gt.final)
        gt_calls = [call for turn in self.gt.calls for call in turn]
        missing = match_actions(gt_calls, self.executed, self._defaults)
        unmatched = tuple(gt_calls[i].source for i in missing)
        state, action = int(final["valid"]), int(not unmatched)
        reason = None
        if truncated:
            reason = "truncated: the episode ended before its last turn"
        elif not state:
            differing = sorted(final.get("details", {}).get("differences", {}))
            reason = f"state: {final['error_message']} (attributes: {', '.join(differing)})"
        elif not action:
            reason = f"action: no executed call matches {unmatched[0]}"
        return RewardRecord(
            state=state,
            action=action,
            reward=0 if truncated else state * action,
            bfcl_valid=not truncated and self.bfcl_error is None,
            per_turn=tuple(self.checks),
            failure_reason=reason,
            bfcl_error="multi_turn:force_terminated" if truncated else self.bfcl_error,
            truncated=truncated,
            mode=self.mode,
            num_calls=len(self.executed),
            unmatched=unmatched,
        )


class _AnyName:
    """Every name is allowed (to tell a reply rejected for its names from other rejections)."""

    def __contains__(self, name: object) -> bool:
        return True


def unavailable_calls(
    text: str, allowed: Container[str], limits: DecodeLimits | None = None
) -> tuple[Call, ...]:
    """The calls of ``text`` to functions outside ``allowed`` if that is the only reason
    :func:`~rcgrpo.env.decode.decode_reply` rejects it, else ``()`` (accepted replies,
    prose, bad syntax, non-literal arguments, ...): the calls BFCL's executor would answer
    with an error where ours runs nothing (module docstring)."""
    if decode_reply(text, allowed, limits).kind != "rejected":
        return ()
    anyway = decode_reply(text, _AnyName(), limits)
    return tuple(call for call in anyway.calls if call.name not in allowed)


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
    allow-list of its turn; rejected strings and ``done()`` are not executed (the calls of a
    string rejected for naming functions the turn does not offer count for ``bfcl_valid``,
    as BFCL counts them). Fewer turns than the task has (one turn in combined mode) means
    the episode was cut short, and ``truncated`` is then set. See the module docstring for
    R and ``bfcl_valid``.
    """
    num_turns = num_mode_turns(task, mode)
    turns = _check_calls_per_turn(calls_per_turn, num_turns)
    truncated = bool(truncated) or len(turns) < num_turns
    sandbox = Sandbox(ground_truth_run(task).factory.fresh(), call_timeout_s=call_timeout_s)
    scorer = TrajectoryScorer(task, mode, sandbox)
    for turn, texts in enumerate(turns):
        allowed = allowed_names(task, mode, turn)
        for text in texts:
            decoded = decode_reply(text, allowed, decode_limits)
            if decoded.kind == "rejected":
                scorer.add_unavailable(unavailable_calls(text, allowed, decode_limits))
            calls = [c for c in decoded.calls if c.name != DONE_NAME]
            for call, result in zip(calls, sandbox.run_many(calls), strict=True):
                scorer.add(call, result)
        scorer.end_turn()
    return scorer.finish(truncated)
