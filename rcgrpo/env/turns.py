"""What the model is offered and told in each turn, in both episode modes.

``multi_turn`` (BFCL's own protocol): one user message per turn; in miss_func the
functions held out for turn ``k`` are hidden (not offered, calls to them rejected) until
turn ``k``, whose user message is BFCL's prompting-mode reveal prompt
(``"<docs>\\nI have updated some more functions you can choose from. What about now?"``).

``combined`` (the paper's RL mode, §4): every turn's user text merged into one message,

    Step 1: <turn 1>
    Step 2: <turn 2>
    ...
    Complete all the steps above using the available tools. Call done() when you have finished.

Turns without user text (the miss_func reveal turns) are skipped in the numbering;
nothing is held out, and a ``done()`` pseudo-tool (no arguments) is offered last.
"""

from __future__ import annotations

import copy
from typing import Any

from rcgrpo.env.bfcl import reveal_prompt
from rcgrpo.env.tasks import Task

__all__ = [
    "DONE_DOC",
    "DONE_NAME",
    "MODES",
    "allowed_names",
    "combined_prompt",
    "num_mode_turns",
    "offered_docs",
    "turn_messages",
]

MODES = ("multi_turn", "combined")
DONE_NAME = "done"
DONE_DOC: dict[str, Any] = {
    "name": DONE_NAME,
    "description": "Call this when you have completed all the steps of the request.",
    "parameters": {"type": "dict", "properties": {}, "required": []},
}
COMBINED_SUFFIX = (
    "Complete all the steps above using the available tools. Call done() when you have finished."
)


def check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")


def num_mode_turns(task: Task, mode: str) -> int:
    """Turns of ``task`` in ``mode`` (1 in combined mode)."""
    check_mode(mode)
    return task.num_turns if mode == "multi_turn" else 1


def _hidden(task: Task, turn: int) -> set[str]:
    return {name for k, names in task.missed_functions.items() if k > turn for name in names}


def _gt_names_through(task: Task, turn: int) -> set[str]:
    return {call.split("(", 1)[0].strip() for gt in task.ground_truth[: turn + 1] for call in gt}


def offered_docs(task: Task, mode: str, turn: int) -> list[dict[str, Any]]:
    """Function docs offered in ``turn`` (a new list; the dicts are the task's own)."""
    check_mode(mode)
    if mode == "combined":
        return [*task.function_docs, copy.deepcopy(DONE_DOC)]
    hidden = _hidden(task, turn)
    return [doc for doc in task.function_docs if doc["name"] not in hidden]


def allowed_names(task: Task, mode: str, turn: int) -> frozenset[str]:
    """Names the model may call in ``turn`` (``done`` included in combined mode).

    The offered names, plus (BFCL data quirk) any held-out function that the task's own
    ground truth calls before its reveal turn: ``multi_turn_miss_func_49`` calls ``tail``
    in turn 1 though it is revealed in turn 3. BFCL's executor runs every public method,
    so its ground truth is valid there; we keep the doc hidden but accept the call from
    the turn the ground truth first uses it, so that the ground truth scores 1.
    """
    names = {doc["name"] for doc in offered_docs(task, mode, turn)}
    if mode == "multi_turn" and task.missed_functions:
        names |= _hidden(task, turn) & _gt_names_through(task, turn)
    return frozenset(names)


def combined_prompt(task: Task) -> str:
    """The paper's single user message merging all turns."""
    steps = []
    for turn in task.turns:
        text = "\n".join(m["content"] for m in turn if m.get("content"))
        if text:
            steps.append(f"Step {len(steps) + 1}: {text}")
    return "\n".join([*steps, COMBINED_SUFFIX])


def turn_messages(task: Task, mode: str, turn: int) -> list[dict[str, str]]:
    """User message(s) that open ``turn`` (fresh dicts)."""
    check_mode(mode)
    if mode == "combined":
        return [{"role": "user", "content": combined_prompt(task)}]
    if turn in task.missed_functions:
        by_name = {doc["name"]: doc for doc in task.function_docs}
        revealed = [by_name[name] for name in task.missed_functions[turn] if name in by_name]
        return [{"role": "user", "content": reveal_prompt(revealed)}]
    return [dict(m) for m in task.turns[turn]]
