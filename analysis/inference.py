r"""Tests on an estimate with a t reference: the two-sided p-value, Holm's family-wise
adjustment, the two one-sided tests of equivalence (TOST), and the area under a curve.

Every verdict table's estimate comes with its standard error :math:`SE` and degrees of
freedom :math:`\nu` (Student t over seeds, or Satterthwaite's ν for the task × seed design of
:mod:`analysis.paired_design`). With :math:`F_\nu` the t distribution function:

- **Against a threshold θ** (two-sided): :math:`p = 2\,(1 - F_\nu(|\hat\delta-\theta|/SE))`.
  :math:`p < \alpha` exactly when the :math:`1-\alpha` interval
  :math:`\hat\delta \mp t_{1-\alpha/2,\nu}SE` excludes θ.
- **Holm–Bonferroni** (Holm 1979) over a family of m p-values sorted ascending
  :math:`p_{(1)} \le \dots \le p_{(m)}`:
  :math:`\tilde p_{(i)} = \max_{j \le i} \min(1, (m - j + 1)\,p_{(j)})`; rejecting
  :math:`\tilde p < \alpha` controls the family-wise error rate at α under any dependence.
- **Equivalence within ±m** (Schuirmann 1987): the two one-sided tests
  :math:`H_0^-: \delta \le -m` and :math:`H_0^+: \delta \ge m`,
  :math:`p^- = 1 - F_\nu((\hat\delta + m)/SE)`, :math:`p^+ = F_\nu((\hat\delta - m)/SE)`,
  :math:`p_{\mathrm{TOST}} = \max(p^-, p^+)`. :math:`p_{\mathrm{TOST}} < \alpha` exactly when
  the :math:`1-2\alpha` interval lies inside :math:`(-m, m)`.
- **Learning speed**: the area under a held-out curve normalised by its span, the mean of
  :math:`y(t)` over the evaluation steps in :math:`[t_0, t_1]` (evaluations are evenly
  spaced, every 25 steps in the regime campaigns).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from scipy import stats as _st


def _check(se: float, df: float) -> None:
    if not (se > 0 and math.isfinite(se)):
        raise ValueError(f"se must be positive and finite, got {se}")
    if not df > 0:
        raise ValueError(f"df must be positive, got {df}")


def t_pvalue(estimate: float, se: float, df: float, theta: float = 0.0) -> float:
    """Two-sided p-value of ``estimate`` against ``theta`` (module docstring)."""
    _check(se, df)
    return float(2.0 * _st.t.sf(abs(estimate - theta) / se, df))


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in the order given (module docstring); NaN stays NaN and
    does not count towards m."""
    finite = [(p, i) for i, p in enumerate(pvalues) if math.isfinite(p)]
    for p, _ in finite:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p-values must lie in [0, 1], got {p}")
    out = [math.nan] * len(pvalues)
    m, running = len(finite), 0.0
    for rank, (p, i) in enumerate(sorted(finite)):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


def tost_pvalue(estimate: float, se: float, df: float, margin: float) -> float:
    """p-value of equivalence within ``±margin`` by two one-sided t tests (module
    docstring)."""
    _check(se, df)
    if not margin > 0:
        raise ValueError(f"margin must be positive, got {margin}")
    lower = _st.t.sf((estimate + margin) / se, df)
    upper = _st.t.cdf((estimate - margin) / se, df)
    return float(max(lower, upper))


def area_under_curve(curve: Mapping[int, float], first: int, last: int) -> float:
    """Mean of ``curve`` (step -> value) over its steps in ``[first, last]`` (module
    docstring); NaN when no step lies there."""
    if first > last:
        raise ValueError(f"first step {first} after last {last}")
    values = [v for step, v in curve.items() if first <= step <= last]
    return math.fsum(values) / len(values) if values else math.nan
