"""R_action's matching of ground-truth calls to executed calls (RC-GRPO §2).

R_action = 1 iff every ground-truth call a* is matched by an executed call a with the same
name and, for every argument of a*, an equal value (Python ``==``; extra arguments in a
allowed; an argument a omits takes the method signature's default). The paper does not
say whether one executed call may serve two ground-truth calls; we make the matching
one-to-one (a ground-truth call repeated k times needs k executed calls) and maximum
(augmenting paths, Kuhn's algorithm), so the outcome never depends on call order.

Cost: candidates are grouped by name, so the work is sum over names of
|gt_name| * |executed_name| coverage checks plus the augmenting search (tiny here).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from rcgrpo.env.decode import Call

__all__ = ["covers", "match_actions", "signature_defaults"]

_MISSING = object()


@functools.cache
def signature_defaults(cls: type, method: str) -> dict[str, Any]:
    """Default argument values of ``cls.method``."""
    params = inspect.signature(getattr(cls, method)).parameters.values()
    return {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}


def covers(gt: Call, call: Call, defaults: dict[str, Any]) -> bool:
    """``call`` has ``gt``'s name and, for every argument of ``gt``, an equal value."""
    if gt.name != call.name:
        return False
    for key, value in gt.kwargs.items():
        got = call.kwargs.get(key, defaults.get(key, _MISSING))
        if got is _MISSING or not bool(got == value):
            return False
    return True


def match_actions(
    gt_calls: Sequence[Call],
    executed: Sequence[Call],
    defaults_of: Callable[[str], dict[str, Any]] | None = None,
) -> list[int]:
    """Indices of ``gt_calls`` left unmatched by a maximum one-to-one matching.

    ``defaults_of(name)`` gives the default argument values of function ``name``
    (none if omitted). R_action = 1 iff the result is empty.
    """
    by_name: dict[str, list[int]] = {}
    for j, call in enumerate(executed):
        by_name.setdefault(call.name, []).append(j)
    candidates = []
    for gt in gt_calls:
        defaults = defaults_of(gt.name) if defaults_of is not None else {}
        pool = by_name.get(gt.name, ())
        candidates.append([j for j in pool if covers(gt, executed[j], defaults)])
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
