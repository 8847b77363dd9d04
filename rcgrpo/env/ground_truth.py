"""The ground-truth run of a task, computed once per task object and cached.

Executing the ground truth is deterministic given the task (fresh instances, seeded
backends), so the reward needs it only once: per turn the ground-truth results and a
snapshot of every instance after the turn (BFCL executes each turn's ground truth on the
instances left by the previous turns). The snapshots are read-only: the checkers only
compare them.

Cache: keyed by ``id(task)`` and holding a reference to the task, so an id cannot be
reused while its entry lives; least-recently used entries beyond ``MAX_CACHED`` are
dropped. Tasks are treated as immutable (mutating a cached task's config is a bug).
"""

from __future__ import annotations

import pickle
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from rcgrpo.env.decode import Call, DecodeLimits, decode_reply
from rcgrpo.env.executor import InstanceFactory, Sandbox
from rcgrpo.env.tasks import Task

__all__ = ["GroundTruthRun", "ground_truth_run"]

MAX_CACHED = 4096
_GT_LIMITS = DecodeLimits(max_chars=10**7, max_calls=10**4, max_depth=64)
_CACHE: OrderedDict[int, tuple[Task, GroundTruthRun]] = OrderedDict()
_LOCK = threading.Lock()


@dataclass(frozen=True)
class GroundTruthRun:
    """Everything the reward needs from the ground truth of one task."""

    factory: InstanceFactory
    """Fresh instances of the task (also used for the model's replay)."""
    calls: tuple[tuple[Call, ...], ...]
    """Decoded ground-truth calls per turn."""
    results: tuple[tuple[str, ...], ...]
    """Observation strings of the ground-truth calls per turn."""
    states: tuple[dict[str, Any], ...]
    """Instances after each turn (read-only snapshots)."""
    final: dict[str, Any]
    """Instances after the last turn (the target of R_state)."""


def _run(task: Task) -> GroundTruthRun:
    factory = InstanceFactory(task.involved_classes, task.initial_config, task.long_context)
    sandbox = Sandbox(factory.fresh(), call_timeout_s=None)
    calls, results, states = [], [], []
    for turn_index, turn in enumerate(task.ground_truth):
        turn_calls: list[Call] = []
        for text in turn:
            decoded = decode_reply(text, sandbox.method_names, _GT_LIMITS)
            if decoded.kind != "calls":
                raise ValueError(
                    f"{task.id}: ground-truth call {text!r} of turn {turn_index} does not "
                    f"decode ({decoded.kind}: {decoded.error})"
                )
            turn_calls.extend(decoded.calls)
        calls.append(tuple(turn_calls))
        results.append(tuple(sandbox.run(call) for call in turn_calls))
        states.append(pickle.loads(pickle.dumps(sandbox.instances, pickle.HIGHEST_PROTOCOL)))
    final = states[-1] if states else sandbox.instances
    return GroundTruthRun(factory, tuple(calls), tuple(results), tuple(states), final)


def ground_truth_run(task: Task) -> GroundTruthRun:
    """The (cached) ground-truth run of ``task``."""
    if not isinstance(task, Task):
        raise ValueError(f"task must be a Task, got {type(task).__name__}")
    with _LOCK:
        entry = _CACHE.get(id(task))
        if entry is not None and entry[0] is task:
            _CACHE.move_to_end(id(task))
            return entry[1]
    run = _run(task)
    with _LOCK:
        _CACHE[id(task)] = (task, run)
        while len(_CACHE) > MAX_CACHED:
            _CACHE.popitem(last=False)
    return run
