"""Structured results of the theory checks and the tolerances they use.

Every statement module returns a :class:`StatementResult`: the statement id, how many
configurations were tried, one :class:`Comparison` per predicted-vs-true number, and notes
(extra assumptions, counterexamples). A comparison states the paper's claim as
``true <relation> predicted`` with ``relation`` one of ``"=="``, ``">="``, ``"<="``:

- ``slack`` is signed so that ``slack >= 0`` means the claim holds exactly:
  ``true - predicted`` for ``">="``, ``predicted - true`` for ``"<="`` and
  ``-|true - predicted|`` for ``"=="``;
- a comparison is *violated* when ``slack < -tol``. ``tol`` is a floating-point tolerance
  for exact computations and a confidence half-width for Monte Carlo ones.

Monte Carlo half-widths are distribution-free: Hoeffding for a mean of ``n`` i.i.d. values
in a range of width ``b``, and the empirical Bernstein bound (Maurer & Pontil 2009, Thm 4)
when the sample variance is much smaller than ``b²``. Both hold with probability
``>= 1 - delta``; the default ``delta = 1e-9`` keeps the chance of a false alarm over the
~10⁴ Monte Carlo comparisons of one ``check`` run below 1e-5 (union bound).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

RELATIONS = ("==", ">=", "<=")
DELTA = 1e-9
EXACT_RTOL = 1e-12


def exact_tol(*values: float) -> float:
    """Floating-point tolerance for an exact (closed-form or enumerated) float64 value."""
    return EXACT_RTOL * max(1.0, *(abs(float(v)) for v in values))


def hoeffding_halfwidth(n: int, value_range: float, delta: float = DELTA) -> float:
    r"""Two-sided Hoeffding half-width :math:`b\sqrt{\ln(2/\delta)/(2n)}` for a mean of n values."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    return value_range * math.sqrt(math.log(2.0 / delta) / (2.0 * n))


def bernstein_halfwidth(samples: np.ndarray, value_range: float, delta: float = DELTA) -> float:
    r"""Two-sided empirical Bernstein half-width (Maurer & Pontil 2009, Thm 4).

    .. math:: \sqrt{2 V_n \ln(4/\delta)/n} + \tfrac{7 b \ln(4/\delta)}{3(n-1)}

    with :math:`V_n` the unbiased sample variance and ``b`` the width of the value range;
    never wider than Hoeffding's half-width, which is returned when it is smaller.
    """
    x = np.asarray(samples, dtype=np.float64).ravel()
    n = x.size
    if n < 2:
        raise ValueError(f"samples must hold at least 2 values, got {n}")
    log_term = math.log(4.0 / delta)
    bern = math.sqrt(2.0 * float(x.var(ddof=1)) * log_term / n)
    bern += 7.0 * value_range * log_term / (3.0 * (n - 1))
    return min(bern, hoeffding_halfwidth(n, value_range, delta))


@dataclass(frozen=True)
class Comparison:
    """One predicted-vs-true number: the claim is ``true <relation> predicted``."""

    quantity: str
    relation: str
    predicted: float
    true: float
    tol: float
    method: str
    config: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.relation not in RELATIONS:
            raise ValueError(f"relation must be one of {RELATIONS}, got {self.relation!r}")

    @property
    def slack(self) -> float:
        if self.relation == ">=":
            return float(self.true - self.predicted)
        if self.relation == "<=":
            return float(self.predicted - self.true)
        return -abs(float(self.true - self.predicted))

    @property
    def violated(self) -> bool:
        return not self.slack >= -self.tol  # NaN counts as a violation

    def to_dict(self) -> dict:
        return {
            "quantity": self.quantity,
            "relation": self.relation,
            "predicted": float(self.predicted),
            "true": float(self.true),
            "tol": float(self.tol),
            "slack": self.slack,
            "method": self.method,
            "config": _jsonable(self.config),
        }


@dataclass
class StatementResult:
    """What one statement predicts, what is true, and where they disagree."""

    statement: str
    title: str
    configs: int = 0
    comparisons: list[Comparison] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(
        self,
        quantity: str,
        relation: str,
        predicted: float,
        true: float,
        tol: float,
        method: str,
        config: dict,
    ) -> Comparison:
        """Record ``true <relation> predicted`` (within ``tol``) for one configuration."""
        comp = Comparison(
            quantity, relation, float(predicted), float(true), float(tol), method, config
        )
        self.comparisons.append(comp)
        return comp

    @property
    def violations(self) -> list[Comparison]:
        return [c for c in self.comparisons if c.violated]

    @property
    def status(self) -> str:
        return "VIOLATED" if self.violations else "ok"

    def worst_bound(self) -> Comparison | None:
        """The exact inequality comparison with the smallest slack (the tightest bound).

        Monte Carlo inequalities may sit slightly below 0 within their tolerance; they are
        used only when a statement has no exact inequality.
        """
        ineq = [c for c in self.comparisons if c.relation != "=="]
        exact = [c for c in ineq if c.method != "monte carlo"] or ineq
        return min(exact, key=lambda c: c.slack) if exact else None

    def worst_equality(self) -> Comparison | None:
        """The equality comparison with the largest error relative to its tolerance."""
        eq = [c for c in self.comparisons if c.relation == "=="]
        return max(eq, key=lambda c: -c.slack / max(c.tol, 1e-300)) if eq else None

    def to_dict(self, max_violations: int = 10) -> dict:
        worst, worst_eq = self.worst_bound(), self.worst_equality()
        return {
            "statement": self.statement,
            "title": self.title,
            "configs": self.configs,
            "comparisons": len(self.comparisons),
            "violations": len(self.violations),
            "worst_slack": None if worst is None else worst.slack,
            "worst_bound": None if worst is None else worst.to_dict(),
            "max_err_over_tol": None if worst_eq is None else -worst_eq.slack / worst_eq.tol,
            "worst_equality": None if worst_eq is None else worst_eq.to_dict(),
            "status": self.status,
            "notes": list(self.notes),
            "violation_examples": [c.to_dict() for c in self.violations[:max_violations]],
        }


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, (np.floating, np.integer, np.bool_)):
        return x.item()
    return x
