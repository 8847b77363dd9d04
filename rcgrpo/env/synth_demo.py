"""The synth suite's imperfect demonstrator: planted decision points and the mistakes made there.

A *decision point* is a choice that recurs across tasks, that the user text settles and that
the reward sees. The demonstrator answers every request with its ground-truth call except at
a decision point, where it takes the wrong option with probability ``expert_error``
(independently per point). Kinds (:data:`DECISIONS`):

=================  =====================================  =====================================
kind               where                                  the wrong option
=================  =====================================  =====================================
``rename_copy``    every ``fs_rename`` request            ``cp(source, destination)`` instead
                   (``Rename a.txt to b.txt.``)           of ``mv``: the source stays (R_state)
``resolve_close``  every ``tk_resolve`` request           ``close_ticket(ticket_id)`` instead of
                   (``Resolve ticket 7 with 'x'.``)       ``resolve_ticket``: status Closed
``comment_post``   every ``tw_comment`` request           ``post_tweet(content=comment_content)``
                   (``Reply to tweet 3 with 'x'.``)       instead of ``comment``: a new tweet
``delete_view``    every ``msg_delete`` request           ``view_messages_sent()`` instead of
                   (``Take back my newest message``)      ``delete_message``: nothing deleted
``stop_early``     the last request of a task with        the call is left out: the demonstrator
                   >= 2 requests                          stops after the earlier ones
=================  =====================================  =====================================

The regime suites of variants 2-13 plant the first two swaps and ``stop_early``
(``REGIME_DECISIONS``); ``regime-wide-d10`` plants all five, so that a swap point lies on most
tasks of every class (docs/lab-notes/2026-12-regime-design-wide.md, variant 14); ``regime-wide1-d10`` also plants no
``stop_early`` on a last call that carries a swap (``SynthConfig.stop_on_swaps``; variant 15).

The wrong option's function is OFFERED at every decision point whether or not the
demonstrator errs there (else the offer would give the mistake away). The draws come from
their own generator, ``random.Random("rcgrpo-synth-demo/<split>/<seed>/<index>")``, so a task's
requests, text, state and ground truth do not depend on the demonstrator's settings.

The demonstration is stored in ``Task.meta``: ``demonstration`` (call strings per turn, as
``ground_truth``) and ``decisions`` (one record per point: kind, turn, call index, erred). Its
reward is the environment's: 1 iff it made no mistake (``tests/unit/env_synth``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from rcgrpo.env.synth_families import FAMILY_BY_NAME

Render = Callable[[str, dict[str, Any]], str]
"""``(func, kwargs) -> call string`` (``rcgrpo.env.synth.render_call``)."""

_SWAPS: dict[str, tuple[str, str, tuple[tuple[str, str], ...]]] = {
    "rename_copy": ("fs_rename", "cp", (("source", "source"), ("destination", "destination"))),
    "resolve_close": ("tk_resolve", "close_ticket", (("ticket_id", "ticket_id"),)),
    "comment_post": ("tw_comment", "post_tweet", (("content", "comment_content"),)),
    "delete_view": ("msg_delete", "view_messages_sent", ()),
}
"""Swap kinds: kind -> (family, wrong function, its arguments as ``(argument, the request's
argument it takes the value of)`` pairs)."""
_PAIRS: tuple[frozenset[str], ...] = tuple(
    frozenset({FAMILY_BY_NAME[fam].func, wrong}) for fam, wrong, _ in _SWAPS.values()
)
"""The function pair of each swap: {right, wrong}."""
DECISIONS: tuple[str, ...] = (*_SWAPS, "stop_early")
"""Every decision kind (module docstring)."""
SWAP_DECISIONS: tuple[str, ...] = tuple(_SWAPS)
"""The swap kinds (every kind but ``stop_early``): the decisions of the collapse suite."""
SWAP_FAMILIES: dict[str, str] = {kind: family for kind, (family, _, _) in _SWAPS.items()}
"""Swap kind -> the family whose requests carry it."""
REGIME_DECISIONS: tuple[str, ...] = ("rename_copy", "resolve_close", "stop_early")
"""The kinds of the ``regime`` suites (variants 2-13), fixed so that those suites stay the same
task for task as kinds are added."""


def decision_points(
    plan: list[list[Any]], kinds: tuple[str, ...], stop_on_swaps: bool = True
) -> list[dict[str, Any]]:
    """The decision points of a planned task (``plan``: per turn, ``(Family, kwargs)``
    requests) for the enabled ``kinds``, in call order; each ``{kind, turn, call}``. With
    ``stop_on_swaps`` False a task whose last call carries a swap point has no ``stop_early``
    point (one decision per call: making that call right takes one choice, not two)."""
    points = []
    for t, turn in enumerate(plan):
        for j, (fam, _) in enumerate(turn):
            points += [
                {"kind": k, "turn": t, "call": j}
                for k in kinds
                if k in _SWAPS and _SWAPS[k][0] == fam.name
            ]
    last = (len(plan) - 1, len(plan[-1]) - 1) if plan else None
    on_last = any((p["turn"], p["call"]) == last for p in points)
    if "stop_early" in kinds and sum(map(len, plan)) >= 2 and (stop_on_swaps or not on_last):
        points.append({"kind": "stop_early", "turn": len(plan) - 1, "call": len(plan[-1]) - 1})
    return points


def wrong_functions(points: list[dict[str, Any]]) -> set[str]:
    """Functions of the wrong options at ``points`` (offered whether or not one is taken)."""
    return {_SWAPS[p["kind"]][1] for p in points if p["kind"] in _SWAPS}


def demonstrate(
    plan: list[list[Any]],
    kinds: tuple[str, ...],
    error: float | Callable[[str], float],
    rng: random.Random,
    render: Render,
    stop_on_swaps: bool = True,
) -> tuple[list[list[str]], list[dict[str, Any]]]:
    """(demonstration call strings per turn, decision records with ``erred``) of a task
    (``stop_on_swaps``: :func:`decision_points`). ``error``: the probability of the wrong
    option, one for every kind or a function of the kind; one draw per point either way, so
    a task's other draws do not depend on it."""
    points = decision_points(plan, kinds, stop_on_swaps)
    error_of = error if callable(error) else (lambda _kind: error)
    calls: list[list[str | None]] = [[render(f.func, kw) for f, kw in turn] for turn in plan]
    for p in points:
        p["erred"] = rng.random() < error_of(p["kind"])
        if not p["erred"]:
            continue
        t, j = p["turn"], p["call"]
        if p["kind"] == "stop_early":
            calls[t][j] = None
            continue
        _, func, keep = _SWAPS[p["kind"]]
        kwargs = plan[t][j][1]
        calls[t][j] = render(func, {arg: kwargs[src] for arg, src in keep})
    return [[c for c in turn if c is not None] for turn in calls], points


def flip_decision(task: Any, point: dict[str, Any], render: Render) -> list[list[str]]:
    """The ground truth of ``task`` (call strings per turn) with only the swap ``point``
    (``{kind, turn, call}``, one of ``task.meta["decisions"]``) taken wrong: its call replaced
    by the swap's wrong option with the request's values, as :func:`demonstrate` renders a
    mistake. The minimal pair of a decision: the expert trajectory and this one differ only
    there. The right call's arguments are read with :func:`rcgrpo.env.decode.decode_reply`
    (literals only, never ``eval``). ValueError for ``stop_early`` or a point that is not on a
    call of its family's function."""
    from rcgrpo.env.decode import decode_reply

    kind = point["kind"]
    if kind not in _SWAPS:
        raise ValueError(f"flip_decision: {kind!r} is not a swap kind {SWAP_DECISIONS}")
    family, func, keep = _SWAPS[kind]
    calls = [list(turn) for turn in task.ground_truth]
    right = calls[point["turn"]][point["call"]]
    decoded = decode_reply(right, {FAMILY_BY_NAME[family].func})
    if decoded.kind != "calls" or len(decoded.calls) != 1:
        raise ValueError(f"flip_decision: {task.id}: {right!r} is not a {family} call")
    kwargs = decoded.calls[0].kwargs
    calls[point["turn"]][point["call"]] = render(func, {arg: kwargs[src] for arg, src in keep})
    return calls


def _name(call: str) -> str:
    return call.split("(", 1)[0].strip()


def decision_outcomes(task: Any, executed: list[str]) -> list[dict[str, Any]]:
    """Whether a rollout took the right option at each decision point of ``task``.

    ``executed``: the rollout's executed call strings, all turns in order. Points are judged
    on function names (the choice, not the copy: a right choice with a wrong argument is
    right here). A swap (every kind but ``stop_early``) planted on the i-th ground-truth
    call of its function pair {right, wrong} is right iff the rollout's i-th call of that
    pair exists and is the right function; so a swap on a call the rollout leaves out is not
    right. ``stop_early`` is right iff the rollout makes at least as many calls of the last
    requested call's function or its pair partner (a choice judged by the swap) as the
    ground truth. A pair is both functions of a swap, whichever the call's family (``cp``
    is also ``fs_copy``'s right call). Returns one ``{kind, right}`` per point, in the order of
    ``task.meta["decisions"]`` (empty for a task without points)."""
    points = (getattr(task, "meta", None) or {}).get("decisions", ())
    if not points:
        return []
    have = [_name(c) for c in executed]
    gt = [[_name(c) for c in turn] for turn in task.ground_truth]
    flat = [c for turn in gt for c in turn]
    out = []
    for p in points:
        at = sum(len(t) for t in gt[: p["turn"]]) + p["call"]  # index of the point's call
        func = flat[at]
        pair = {func}.union(*(c for c in _PAIRS if func in c))
        if p["kind"] == "stop_early":
            right = sum(c in pair for c in have) >= sum(c in pair for c in flat)
        else:
            i = sum(c in pair for c in flat[:at])
            calls = [c for c in have if c in pair]
            right = i < len(calls) and calls[i] == func
        out.append({"kind": p["kind"], "right": right})
    return out


def decision_table() -> str:
    """Markdown table of the decision kinds (``docs/synth.md``, generated, test-checked)."""
    rows = ["| decision | family | right call | wrong option |", "|---|---|---|---|"]
    for kind, (family, func, keep) in _SWAPS.items():
        right = FAMILY_BY_NAME[family].func
        args = ", ".join(a if a == src else f"{a}={src}" for a, src in keep)
        rows.append(f"| `{kind}` | `{family}` | `{right}` | `{func}({args})` |")
    rows.append("| `stop_early` | any, last of >= 2 calls | the call | left out |")
    return "\n".join(rows)
