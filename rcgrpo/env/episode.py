"""One tool-calling episode with BFCL's turn and step rules, for a batched rollout engine.

::

    ep = Episode(max_steps_per_turn=20, call_timeout_s=2.0)   # reusable
    messages = ep.reset(task, mode="multi_turn")              # user message(s), no system prompt
    while not ep.done:
        res = ep.step(assistant_text)                         # observations to append
    record = ep.score()                                       # RewardRecord

Per reply (:func:`rcgrpo.env.decode.decode_reply` decides the kind):

=================  =======================================  ===============================
reply kind         observations                             effect
=================  =======================================  ===============================
``calls``          one ``{"role": "tool"}`` per call, in    calls recorded in
                   order (result or ``Error during          ``calls_per_turn``; one step
                   execution: ...``)
``rejected``       one tool message ``Error during          nothing runs; one step (with
                   execution: <reason>``                    ``strict_decode`` it also ends
                                                            the turn, like BFCL's decoder);
                                                            calls of functions the turn
                                                            does not offer count for
                                                            ``bfcl_valid`` (reward module)
``no_calls``       the next turn's user message(s)          the turn ends (BFCL: a reply
                   (nothing after the last turn)            that decodes to no calls)
=================  =======================================  ===============================

Step limit (BFCL ``MAXIMUM_STEP_LIMIT``): a turn may take ``max_steps_per_turn`` steps; the
step after that is still executed, then the episode is force-quit (``truncated``; R = 0 and
BFCL fails the entry). Combined mode has one turn with a budget of
``max_steps_per_turn * task.num_turns`` steps and ends on a reply that calls ``done()``
(the reply's other calls run first) or on a reply without calls. miss_func reveals follow
:mod:`rcgrpo.env.turns`; ``available_functions`` always lists the docs currently offered.

An episode never raises on any assistant text; it raises ``RuntimeError`` if stepped before
``reset`` or after it is done (a rollout-engine bug, not a model behaviour).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rcgrpo.env.bfcl import MAXIMUM_STEP_LIMIT
from rcgrpo.env.decode import Decoded, DecodeLimits, decode_reply
from rcgrpo.env.executor import ERROR_PREFIX, Sandbox, is_error_result
from rcgrpo.env.ground_truth import ground_truth_run
from rcgrpo.env.reward import RewardRecord, TrajectoryScorer, score_trajectory, unavailable_calls
from rcgrpo.env.tasks import Task
from rcgrpo.env.turns import DONE_NAME, allowed_names, num_mode_turns, offered_docs, turn_messages
from rcgrpo.validation import check_positive_int

__all__ = ["Episode", "StepResult"]


@dataclass(frozen=True)
class StepResult:
    """What one assistant reply produced."""

    messages: list[dict[str, str]]
    """Messages to append after the reply: tool observations, then (when a turn ends and
    another follows) the next user message(s)."""
    done: bool
    """The episode is over."""
    info: dict[str, Any]
    """``turn``, ``kind`` (decode outcome), ``num_calls``, ``num_errors``, ``error``
    (rejection reason or None), ``turn_ended``, ``force_quit``, ``done_called``."""


class Episode:
    """A reusable episode object: ``reset`` starts a task, ``step`` consumes one reply."""

    def __init__(
        self,
        max_steps_per_turn: int = MAXIMUM_STEP_LIMIT,
        call_timeout_s: float | None = 2.0,
        decode_limits: DecodeLimits | None = None,
        strict_decode: bool = False,
    ):
        check_positive_int("max_steps_per_turn", max_steps_per_turn)
        if call_timeout_s is not None and not call_timeout_s > 0:
            raise ValueError(f"call_timeout_s must be > 0 or None, got {call_timeout_s!r}")
        self.max_steps_per_turn = max_steps_per_turn
        self.call_timeout_s = call_timeout_s
        self.decode_limits = decode_limits or DecodeLimits()
        self.strict_decode = strict_decode
        self.task: Task | None = None
        self.mode = "multi_turn"
        self.done = True
        self.truncated = False
        self.calls_per_turn: list[list[str]] = []  # executed call strings per turn
        # calls_per_turn plus the calls of functions the turn does not offer (never executed):
        # what score_trajectory replays to give score()'s record
        self.attempted_per_turn: list[list[str]] = []
        self.num_steps = 0
        self.num_tool_errors = 0
        self.turn_index = 0
        self.available_functions: list[dict[str, Any]] = []
        self._steps_in_turn = 0
        self._allowed: frozenset[str] = frozenset()
        self._sandbox: Sandbox | None = None
        self._scorer: TrajectoryScorer | None = None
        self._record: RewardRecord | None = None

    def reset(self, task: Task, mode: str = "multi_turn") -> list[dict[str, str]]:
        """Start ``task`` on fresh instances; returns the opening user message(s)."""
        if not isinstance(task, Task):
            raise ValueError(f"task must be a Task, got {type(task).__name__}")
        self._num_turns = num_mode_turns(task, mode)  # validates mode
        self.task, self.mode = task, mode
        self._sandbox = Sandbox(ground_truth_run(task).factory.fresh(), self.call_timeout_s)
        self._scorer = TrajectoryScorer(task, mode, self._sandbox)
        self._record: RewardRecord | None = None
        self.done, self.truncated = False, False
        self.num_steps = self.num_tool_errors = 0
        self.calls_per_turn, self.attempted_per_turn = [], []
        return self._begin_turn(0)

    def _begin_turn(self, turn: int) -> list[dict[str, str]]:
        self.turn_index, self._steps_in_turn = turn, 0
        self.calls_per_turn.append([])
        self.attempted_per_turn.append([])
        self.available_functions = offered_docs(self.task, self.mode, turn)
        self._allowed = allowed_names(self.task, self.mode, turn)
        return turn_messages(self.task, self.mode, turn)

    @property
    def step_limit(self) -> int:
        """Steps allowed in the current turn before the force-quit step."""
        factor = self.task.num_turns if self.task is not None and self.mode == "combined" else 1
        return self.max_steps_per_turn * factor

    def step(self, assistant_text: str) -> StepResult:
        """Consume one assistant reply (any ``str``); see the module docstring."""
        if self.task is None or self.done:
            raise RuntimeError("step() needs an episode in progress: call reset(task) first")
        if not isinstance(assistant_text, str):
            raise ValueError(f"assistant_text must be a str, got {type(assistant_text).__name__}")
        self.num_steps += 1
        decoded = decode_reply(assistant_text, self._allowed, self.decode_limits)
        info = {
            "turn": self.turn_index,
            "kind": decoded.kind,
            "num_calls": 0,
            "num_errors": 0,
            "error": decoded.error,
            "turn_ended": False,
            "force_quit": False,
            "done_called": False,
        }
        if decoded.kind == "no_calls":
            return StepResult(self._end_turn(info), self.done, info)
        messages = self._execute(decoded, info, assistant_text)
        self.num_tool_errors += info["num_errors"]
        self._steps_in_turn += 1
        if info["done_called"]:
            self.done, info["turn_ended"] = True, True
        elif self._steps_in_turn > self.step_limit:
            self.done = self.truncated = info["force_quit"] = True
        elif decoded.kind == "rejected" and self.strict_decode:
            messages += self._end_turn(info)
        return StepResult(messages, self.done, info)

    def _execute(self, decoded: Decoded, info: dict[str, Any], text: str) -> list[dict[str, str]]:
        """Observations of a rejected reply or of its executed calls (``done()`` skipped)."""
        if decoded.kind == "rejected":
            unavailable = unavailable_calls(text, self._allowed, self.decode_limits)
            self._scorer.add_unavailable(unavailable)
            self.attempted_per_turn[self.turn_index] += [call.source for call in unavailable]
            info["num_errors"] = 1
            return [{"role": "tool", "content": f"{ERROR_PREFIX}{decoded.error}"}]
        calls = [call for call in decoded.calls if call.name != DONE_NAME]
        info["done_called"] = len(calls) < len(decoded.calls)
        messages = []
        for call, result in zip(calls, self._sandbox.run_many(calls), strict=True):
            self._scorer.add(call, result)
            self.calls_per_turn[self.turn_index].append(call.source)
            self.attempted_per_turn[self.turn_index].append(call.source)
            messages.append({"role": "tool", "content": result})
            info["num_calls"] += 1
            info["num_errors"] += is_error_result(result)
        return messages

    def _end_turn(self, info: dict[str, Any]) -> list[dict[str, str]]:
        info["turn_ended"] = True
        self._scorer.end_turn()
        if self.turn_index + 1 >= self._num_turns:
            self.done = True
            return []
        return self._begin_turn(self.turn_index + 1)

    def score(self) -> RewardRecord:
        """Reward of the episode. A finished episode is scored from its own execution (no
        replay); one still running is replayed on fresh instances by
        :func:`score_trajectory` and counts as truncated. Both give the record
        ``score_trajectory(task, attempted_per_turn, mode, truncated=...)`` gives."""
        if self.task is None:
            raise RuntimeError("score() needs a task: call reset(task) first")
        if self.done:
            if self._record is None:
                self._record = self._scorer.finish(truncated=self.truncated)
            return self._record
        return score_trajectory(
            self.task,
            self.attempted_per_turn,
            self.mode,
            truncated=True,
            call_timeout_s=self.call_timeout_s,
            decode_limits=self.decode_limits,
        )
