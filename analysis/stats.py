r"""Across-seed estimates: mean and 95% Student-t half-width.

A table cell summarises one quantity over the seeds of an experiment (one value per run):

.. math:: \bar x \pm t_{0.975,\,n-1}\, s/\sqrt{n},\qquad s^2=\tfrac{1}{n-1}\sum_i (x_i-\bar x)^2.

With one seed there is no interval (``half_width`` None); NaN values (a metric a run never
logged) are dropped and counted in ``dropped``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass

from scipy import stats as _scipy_stats


@dataclass(frozen=True)
class Estimate:
    """Mean over ``n`` runs with a two-sided ``level`` t-interval half-width."""

    mean: float
    half_width: float | None
    n: int
    dropped: int = 0


def mean_ci(values: Iterable[float], level: float = 0.95) -> Estimate | None:
    """Mean and Student-t half-width of the finite ``values``; None when none is finite."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    raw = [float(v) for v in values]
    finite = [v for v in raw if math.isfinite(v)]
    if not finite:
        return None
    n = len(finite)
    mean = math.fsum(finite) / n
    if n == 1:
        return Estimate(mean, None, 1, len(raw) - n)
    var = math.fsum((v - mean) ** 2 for v in finite) / (n - 1)
    t = _t_quantile(0.5 + level / 2.0, n - 1)
    return Estimate(mean, t * math.sqrt(var / n), n, len(raw) - n)


@functools.lru_cache(maxsize=1024)
def _t_quantile(q: float, df: int) -> float:
    """Student-t quantile ``q`` at ``df`` degrees of freedom, computed once per pair (a
    figure's band calls :func:`mean_ci` for every step of every curve, at a few df)."""
    return float(_scipy_stats.t.ppf(q, df=df))
