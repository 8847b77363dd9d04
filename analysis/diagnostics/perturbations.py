"""Task-agnostic perturbations of a ground truth, scored by R and by BFCL's rule.

Each perturbation takes a task and its ground-truth calls per turn (keyword form, as
:class:`rcgrpo.env.Task` stores them) and returns a changed copy, or None when it does not
apply (e.g. no second turn to move a call into). :func:`perturbation_table` scores every
(task, perturbation) with :func:`rcgrpo.env.score_trajectory`, so a notebook can show where
the paper's R = R_state·R_action and BFCL's per-turn validity agree and where they differ
(the table of disagreements in ``docs/environment.md`` is the hand-made version of this).

Values are edited through :mod:`ast` on the call strings (``ast.parse`` + ``ast.unparse``);
nothing is ever evaluated.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Sequence

import pandas as pd

from rcgrpo.env import Task, score_trajectory

Calls = list[list[str]]
Perturbation = Callable[[Task, Calls], Calls | None]


def _last_nonempty(calls: Calls) -> int | None:
    return next((t for t in range(len(calls) - 1, -1, -1) if calls[t]), None)


def drop_last_call(task: Task, calls: Calls) -> Calls | None:
    """Remove the last call of the last turn that has one."""
    t = _last_nonempty(calls)
    if t is None:
        return None
    out = copy.deepcopy(calls)
    out[t].pop()
    return out


def duplicate_last_call(task: Task, calls: Calls) -> Calls | None:
    """Issue the last call of the last non-empty turn twice (an extra call)."""
    t = _last_nonempty(calls)
    if t is None:
        return None
    out = copy.deepcopy(calls)
    out[t].append(out[t][-1])
    return out


def swap_first_two(task: Task, calls: Calls) -> Calls | None:
    """Swap the first two calls of the first turn with at least two (order matters?)."""
    t = next((t for t, turn in enumerate(calls) if len(turn) >= 2), None)
    if t is None:
        return None
    out = copy.deepcopy(calls)
    out[t][0], out[t][1] = out[t][1], out[t][0]
    return out


def _edit_value(value: object) -> object | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        return value + "_x"
    if isinstance(value, (int, float)):
        return value + 1
    return None


def _edit_first(calls: Calls, edit: Callable[[ast.expr], bool]) -> Calls | None:
    """``calls`` with the first call (turn by turn, call by call) that ``edit`` changes in
    place replaced by its edited source; None when ``edit`` changes no call."""
    for t, turn in enumerate(calls):
        for i, src in enumerate(turn):
            call = ast.parse(src, mode="eval").body
            if edit(call):
                out = copy.deepcopy(calls)
                out[t][i] = ast.unparse(call)
                return out
    return None


def wrong_value(task: Task, calls: Calls) -> Calls | None:
    """Change the first literal str / number argument (``'a'`` -> ``'a_x'``, ``n`` -> ``n+1``)."""

    def edit(call: ast.expr) -> bool:
        for kw in getattr(call, "keywords", []):
            if isinstance(kw.value, ast.Constant):
                new = _edit_value(kw.value.value)
                if new is not None:
                    kw.value = ast.Constant(new)
                    return True
        return False

    return _edit_first(calls, edit)


def wrong_function(task: Task, calls: Calls) -> Calls | None:
    """Call another offered function (alphabetically first other name) with the same arguments."""
    held = {name for names in task.missed_functions.values() for name in names}
    offered = sorted({d["name"] for d in task.function_docs} - held)

    def edit(call: ast.expr) -> bool:
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
            return False
        other = next((n for n in offered if n != call.func.id), None)
        if other is not None:
            call.func = ast.Name(other)
        return other is not None

    return _edit_first(calls, edit)


def drop_last_turn(task: Task, calls: Calls) -> Calls | None:
    """Stop before the last turn (a truncated episode); needs at least two turns."""
    return copy.deepcopy(calls[:-1]) if len(calls) >= 2 else None


def shift_call_earlier(task: Task, calls: Calls) -> Calls | None:
    """Move the first call of the last non-empty turn (t >= 1) to the end of turn t - 1."""
    t = _last_nonempty(calls)
    if t is None or t == 0:
        return None
    out = copy.deepcopy(calls)
    out[t - 1].append(out[t].pop(0))
    return out


PERTURBATIONS: dict[str, Perturbation] = {
    "drop_last_call": drop_last_call,
    "duplicate_last_call": duplicate_last_call,
    "swap_first_two": swap_first_two,
    "wrong_value": wrong_value,
    "wrong_function": wrong_function,
    "drop_last_turn": drop_last_turn,
    "shift_call_earlier": shift_call_earlier,
}
"""Name -> perturbation, in the order tables show them."""


def _score_row(task: Task, name: str, calls: Calls, mode: str) -> dict:
    if mode == "combined":
        calls = [[c for turn in calls for c in turn]]
    record = score_trajectory(task, calls, mode=mode)
    return {
        "task_id": task.id,
        "category": task.category,
        "perturbation": name,
        "state": int(record.state),
        "action": int(record.action),
        "reward": float(record.reward),
        "bfcl_valid": bool(record.bfcl_valid),
        "failure_reason": record.failure_reason,
    }


def perturbation_table(
    tasks: Sequence[Task],
    perturbations: dict[str, Perturbation] | None = None,
    mode: str = "multi_turn",
) -> pd.DataFrame:
    """One row per (task, applicable perturbation), plus the unperturbed ``ground_truth``.

    In ``combined`` mode the (perturbed) calls of all turns are sent as one turn.
    """
    perturbations = PERTURBATIONS if perturbations is None else perturbations
    rows = []
    for task in tasks:
        truth = [list(turn) for turn in task.ground_truth]
        rows.append(_score_row(task, "ground_truth", truth, mode))
        for name, perturb in perturbations.items():
            changed = perturb(task, truth)
            if changed is not None and changed != truth:
                rows.append(_score_row(task, name, changed, mode))
    return pd.DataFrame(rows)


def perturbation_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per perturbation: tasks, mean R, fraction bfcl_valid, fraction where they disagree."""
    if table.empty:
        raise ValueError("table must not be empty")
    disagree = (table["reward"] == 1.0) != table["bfcl_valid"]
    out = (
        table.assign(disagree=disagree)
        .groupby("perturbation", sort=False)
        .agg(
            tasks=("task_id", "size"),
            reward=("reward", "mean"),
            bfcl_valid=("bfcl_valid", "mean"),
            disagree=("disagree", "mean"),
        )
    )
    return out
