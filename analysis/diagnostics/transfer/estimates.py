r"""The statistics of the transfer diagnostic: pure functions of lists of floats.

Every interval is a two-sided 95% t interval with :math:`n-1` degrees of freedom
(:math:`t = t_{0.975,\,n-1}`); with fewer than 2 values its ends are NaN.

- :func:`t_interval`: :math:`\bar x \pm t\,s/\sqrt n`, s the sample standard deviation.
- :func:`paired_difference`: per task i the shares :math:`h_i, l_i` under the two goals and
  :math:`d_i = h_i - l_i`; the difference is :math:`\bar d` with :func:`t_interval` over the
  :math:`d_i` (pairing by task removes the between-task variance from the interval).
- :func:`ratio_of_means`: :math:`\hat\rho = \bar a / \bar b` over paired values
  :math:`(a_k, b_k)` with the delta-method standard error

  .. math::
      \widehat{\mathrm{se}}(\hat\rho) = \frac{1}{|\bar b|}
      \sqrt{\frac{s^2_{a} - 2\hat\rho\, s_{ab} + \hat\rho^2 s^2_{b}}{n}}
      = \frac{s(a - \hat\rho\, b)}{|\bar b|\sqrt n},

  s the sample (co)variances (divisor n − 1), and the interval :math:`\hat\rho \pm t\,
  \widehat{\mathrm{se}}` (first order in :math:`1/\bar b`: it is honest while
  :math:`|\bar b|` is several standard errors from 0, which :func:`ratio_of_means` reports
  as ``den_t``).
- :func:`mean_of_ratios`: :math:`\overline{a_k / b_k}` with :func:`t_interval` over the ratios
  (heavy-tailed when some :math:`b_k` is near 0: the report's second estimate).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from scipy.stats import t as student_t

LEVEL = 0.95
"""Two-sided coverage of every interval."""


def _quantile(n: int) -> float:
    """:math:`t_{0.975, n-1}`."""
    return float(student_t.ppf(0.5 + LEVEL / 2, n - 1))


def _mean(x: Sequence[float]) -> float:
    return sum(x) / len(x) if x else math.nan


def _sd(x: Sequence[float]) -> float:
    if len(x) < 2:
        return math.nan
    m = _mean(x)
    return math.sqrt(sum((v - m) ** 2 for v in x) / (len(x) - 1))


def t_interval(values: Sequence[float]) -> dict[str, float | list[float] | int]:
    """``{"mean", "ci": [lo, hi], "se", "n"}`` of ``values`` (module docstring)."""
    n, m = len(values), _mean(values)
    se = _sd(values) / math.sqrt(n) if n >= 2 else math.nan
    half = _quantile(n) * se if n >= 2 else math.nan
    return {"mean": m, "ci": [m - half, m + half], "se": se, "n": n}


def paired_difference(high: Sequence[float], low: Sequence[float]) -> dict:
    """``{"p_high", "p_low", "diff", "ci", "se", "n"}``: the task means of the two goals'
    shares and their paired difference (module docstring)."""
    if len(high) != len(low):
        raise ValueError(f"high and low must pair by task, got {len(high)} and {len(low)}")
    diff = t_interval([h - lo for h, lo in zip(high, low, strict=True)])
    return {
        "p_high": _mean(high),
        "p_low": _mean(low),
        "diff": diff["mean"],
        "ci": diff["ci"],
        "se": diff["se"],
        "n": diff["n"],
    }


def ratio_of_means(num: Sequence[float], den: Sequence[float]) -> dict:
    """``{"estimate", "ci", "se", "n", "den_t"}``: :math:`\\bar a/\\bar b` and its
    delta-method interval (module docstring); ``den_t`` = :math:`\\bar b` over its standard
    error."""
    if len(num) != len(den):
        raise ValueError(f"num and den must pair, got {len(num)} and {len(den)}")
    n, a, b = len(num), _mean(num), _mean(den)
    rho = a / b if b != 0 else math.nan
    if n < 2 or math.isnan(rho):
        nan = math.nan
        return {"estimate": rho, "ci": [nan, nan], "se": nan, "n": n, "den_t": nan}
    se = _sd([x - rho * y for x, y in zip(num, den, strict=True)]) / (abs(b) * math.sqrt(n))
    half = _quantile(n) * se
    den_se = _sd(den) / math.sqrt(n)
    return {
        "estimate": rho,
        "ci": [rho - half, rho + half],
        "se": se,
        "n": n,
        "den_t": b / den_se if den_se > 0 else math.inf,
    }


def mean_of_ratios(num: Sequence[float], den: Sequence[float]) -> dict:
    """:func:`t_interval` of the ratios :math:`a_k / b_k` (pairs with :math:`b_k = 0` left
    out), plus the ratios themselves."""
    ratios = [x / y for x, y in zip(num, den, strict=True) if y != 0]
    return {**t_interval(ratios), "ratios": ratios}
