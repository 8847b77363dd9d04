"""The three readings of a positive-control rule beside its registered prediction
(``docs/protocols/collapse-pairs-map.md``, part 2, "Readings"), as pure functions.

A rule's *gain* is its held-out verdict (Holm within its family): it appears exactly when the
verdict is ``holds``. Its *size* is compared on the model's scale: the measured contrast of
high-goal training success (mean over seeds with its 95% t interval, [m_lo, m_hi]) against
the prediction's interval [p_lo, p_hi] (the mean over seeds of each seed's low and high end):

- the gain appears and m_hi ≥ p_lo and m_lo ≤ p_hi (the intervals meet): :data:`WITHIN`;
- the gain appears and m_hi < p_lo: :data:`WRONG`, smaller than predicted; m_lo > p_hi: larger;
- any other verdict: :data:`NO_GAIN`, naming it.

Fewer than three seeds with every arm of the rule: not decided (n = k). A premise rule that
does not hold is named after the reading.
"""

from __future__ import annotations

from collections.abc import Sequence

MIN_SEEDS = 3
"""Seeds a rule needs before it is read (the protocol's *not decided (n = k)*)."""
WITHIN = "the gain appears and its size is within the prediction's interval"
WRONG = "the gain appears but the size is wrong"
NO_GAIN = "no gain"
READINGS = (WITHIN, WRONG, NO_GAIN)


def meets(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether the closed intervals ``a`` and ``b`` share a point."""
    return a[1] >= b[0] and a[0] <= b[1]


def reading(
    verdict: str,
    seeds: int,
    measured: tuple[float, float] | None,
    predicted: tuple[float, float] | None,
) -> str:
    """The reading of one rule (module docstring): ``verdict`` its held-out decision, ``seeds``
    how many seeds have every arm, ``measured`` the training-scale 95% interval and
    ``predicted`` the prediction's interval (either None: not available)."""
    if seeds < MIN_SEEDS:
        return f"not decided (n = {seeds})"
    if verdict != "holds":
        return f"{NO_GAIN} ({verdict})"
    if measured is None or predicted is None:
        missing = "measurement" if measured is None else "prediction"
        return f"the gain appears; its size is not compared (no {missing})"
    if meets(measured, predicted):
        return WITHIN
    side = "smaller" if measured[1] < predicted[0] else "larger"
    return f"{WRONG}: {side} than predicted"


def predicted_interval(per_seed: Sequence[tuple[float, float]]) -> tuple[float, float] | None:
    """[mean of the seeds' low ends, mean of their high ends] (None: no seed)."""
    if not per_seed:
        return None
    n = len(per_seed)
    return sum(lo for lo, _ in per_seed) / n, sum(hi for _, hi in per_seed) / n


def with_premise(text: str, failed: Sequence[str]) -> str:
    """``text`` with the premise rules that did not hold named after it."""
    return f"{text} (premise not met: {', '.join(failed)})" if failed else text
