r"""Held-out success paired by task and seed: estimate, 95% interval, MDE and planning.

The regime's verdicts on held-out success (:mod:`analysis.verdicts.rules`) compare arms on
the same T held-out tasks (one fixed list for every seed: ``tasks.split_seed`` does not
depend on ``run.seed``) over S seeds. For a contrast with weights :math:`w_k` over arms
(``+1, −1`` for a difference; ``±½`` for a factorial main effect) the per-cell value is

.. math:: d_{st} = \sum_k w_k\, y_{k,s,t},\qquad y_{k,s,t}\in\{0,1\}
   \ \text{(final success of arm } k \text{, seed } s \text{, task } t).

Model (crossed two-way random effects, one value per cell):
:math:`d_{st} = \delta + a_t + b_s + e_{st}` with task, seed and residual variances
:math:`\sigma_a^2, \sigma_b^2, \sigma_e^2`. The estimate is :math:`\hat\delta=\bar d` and

.. math:: \operatorname{Var}(\bar d) = \frac{\sigma_a^2}{T} + \frac{\sigma_b^2}{S}
   + \frac{\sigma_e^2}{TS}.

The components come from the two-way ANOVA mean squares
:math:`MS_A = \frac{S}{T-1}\sum_t(\bar d_{\cdot t}-\bar d)^2` (tasks, df T−1),
:math:`MS_B = \frac{T}{S-1}\sum_s(\bar d_{s\cdot}-\bar d)^2` (seeds, df S−1) and
:math:`MS_E` (residual, df (T−1)(S−1)), with :math:`E[MS_A]=\sigma_e^2+S\sigma_a^2`,
:math:`E[MS_B]=\sigma_e^2+T\sigma_b^2`, :math:`E[MS_E]=\sigma_e^2`:
:math:`\hat\sigma_a^2=\max(0,(MS_A-MS_E)/S)`, :math:`\hat\sigma_b^2=\max(0,(MS_B-MS_E)/T)`,
:math:`\hat\sigma_e^2 = MS_E`. Plugged in, :math:`\widehat{SE}^2 = \sum_k c_k MS_k/(TS)`
with :math:`c_A = [MS_A>MS_E]`, :math:`c_B=[MS_B>MS_E]`, :math:`c_E = 1-c_A-c_B`; its
degrees of freedom are Satterthwaite's
:math:`\nu = (\sum_k c_k MS_k)^2 / \sum_k (c_k MS_k)^2/\mathrm{df}_k`.
With a large seed component :math:`\nu \to S-1` (the pool regime's
:math:`t_{0.975,2}=4.30`); with none it grows with T.

95% interval: :math:`\bar d \mp t_{0.975,\nu}\,\widehat{SE}`. Minimum detectable effect
(two-sided level α = 0.05, power 0.80):

.. math:: \mathrm{MDE} = (t_{1-\alpha/2,\,\nu} + t_{\text{power},\,\nu})\; SE.

:func:`plan` evaluates SE and ν for a design (T, S) from pilot components through the
expected mean squares, and returns the fewest tasks (on a grid) per seed count with MDE ≤ 5 points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

ALPHA = 0.05
"""Two-sided level of every interval and test (95% intervals)."""
POWER = 0.80
"""Power at which the minimum detectable effect is stated."""
TARGET_MDE = 0.05
"""The issue's bound on each held-out test's MDE: 5 points of success."""


@dataclass(frozen=True)
class Components:
    """Variance components of a paired contrast (module docstring)."""

    task: float
    """σ_a²: between-task variance of the contrast."""
    seed: float
    """σ_b²: between-seed variance."""
    resid: float
    """σ_e²: task × seed residual variance."""


@dataclass(frozen=True)
class Paired:
    """A paired-by-task-and-seed estimate of a contrast."""

    mean: float
    """d̄ over the T × S cells."""
    se: float
    """Its standard error (module docstring)."""
    df: float
    """Satterthwaite degrees of freedom (inf when SE is 0)."""
    tasks: int
    seeds: int
    components: Components

    @property
    def interval(self) -> tuple[float, float]:
        """95% interval d̄ ∓ t_{0.975,ν} SE."""
        half = _t(1 - ALPHA / 2, self.df) * self.se
        return self.mean - half, self.mean + half

    @property
    def mde(self) -> float:
        """(t_{0.975,ν} + t_{0.80,ν}) SE at this design's own variance."""
        return mde(self.se, self.df)


def _t(q: float, df: float) -> float:
    return float(_st.norm.ppf(q)) if math.isinf(df) else float(_st.t.ppf(q, df))


def mde(se: float, df: float, alpha: float = ALPHA, power: float = POWER) -> float:
    """MDE = (t_{1−α/2,ν} + t_{power,ν}) · SE (normal quantiles when ν is infinite)."""
    if se < 0 or not df > 0:
        raise ValueError(f"se must be >= 0 and df > 0, got {se}, {df}")
    return (_t(1 - alpha / 2, df) + _t(power, df)) * se


def _mean_squares(d: np.ndarray) -> tuple[float, float, float]:
    s, t = d.shape
    grand = d.mean()
    task_m, seed_m = d.mean(axis=0), d.mean(axis=1)
    ms_a = s * float(((task_m - grand) ** 2).sum()) / (t - 1)
    ms_b = t * float(((seed_m - grand) ** 2).sum()) / (s - 1)
    resid = d - task_m[None, :] - seed_m[:, None] + grand
    ms_e = float((resid**2).sum()) / ((t - 1) * (s - 1))
    return ms_a, ms_b, ms_e


def _se_df(ms: Sequence[float], dfs: Sequence[float], cells: int) -> tuple[float, float]:
    """SE² = Σ c_k MS_k / (TS) with c from the truncation rule; Satterthwaite ν."""
    ms_a, ms_b, ms_e = ms
    c_a, c_b = float(ms_a > ms_e), float(ms_b > ms_e)
    terms = [c_a * ms_a, c_b * ms_b, (1.0 - c_a - c_b) * ms_e]
    var = math.fsum(terms) / cells
    denom = math.fsum(x * x / k for x, k in zip(terms, dfs, strict=True) if x != 0)
    df = math.inf if denom == 0 else math.fsum(terms) ** 2 / denom
    return math.sqrt(max(var, 0.0)), df


def paired(d: np.ndarray | Sequence[Sequence[float]]) -> Paired:
    """The estimate of module docstring from a [S, T] array of per-cell contrasts."""
    d = np.asarray(d, dtype=np.float64)
    if d.ndim != 2 or d.shape[0] < 2 or d.shape[1] < 2:
        raise ValueError(f"d must be [S, T] with S >= 2 seeds and T >= 2 tasks, got {d.shape}")
    if not np.isfinite(d).all():
        raise ValueError("d must be finite")
    s, t = d.shape
    ms_a, ms_b, ms_e = _mean_squares(d)
    comps = Components(max(0.0, (ms_a - ms_e) / s), max(0.0, (ms_b - ms_e) / t), ms_e)
    se, df = _se_df((ms_a, ms_b, ms_e), (t - 1, s - 1, (t - 1) * (s - 1)), s * t)
    return Paired(float(d.mean()), se, df, t, s, comps)


def planned(comps: Components, tasks: int, seeds: int) -> tuple[float, float]:
    """(SE, ν) of a design with ``tasks`` × ``seeds`` cells from pilot components, through
    the expected mean squares E[MS_A] = σ_e² + Sσ_a², E[MS_B] = σ_e² + Tσ_b², E[MS_E] = σ_e²."""
    if tasks < 2 or seeds < 2:
        raise ValueError(f"need >= 2 tasks and >= 2 seeds, got {tasks}, {seeds}")
    ms = (
        comps.resid + seeds * comps.task,
        comps.resid + tasks * comps.seed,
        comps.resid,
    )
    dfs = (tasks - 1, seeds - 1, (tasks - 1) * (seeds - 1))
    return _se_df(ms, dfs, tasks * seeds)


def planned_mde(comps: Components, tasks: int, seeds: int) -> float:
    """MDE of a (tasks, seeds) design from pilot components (module docstring)."""
    se, df = planned(comps, tasks, seeds)
    return mde(se, df)


def plan(
    comps: Components,
    target: float = TARGET_MDE,
    seeds: Sequence[int] = (3, 4, 5),
    max_tasks: int = 10_000,
    step: int = 50,
) -> dict[int, int | None]:
    """For each seed count, the fewest held-out tasks on the grid ``step, 2·step, …,
    max_tasks`` with MDE ≤ ``target``; None when none reaches it (the seed component alone
    sets a floor σ_b²/S on SE², and as T grows ν falls towards S − 1, so MDE need not fall
    monotonically in T: the grid is scanned, not bisected)."""
    out: dict[int, int | None] = {}
    for s in seeds:
        out[s] = next(
            (t for t in range(step, max_tasks + 1, step) if planned_mde(comps, t, s) <= target),
            None,
        )
    return out


def plan_largest(
    pilots: Sequence[Components], target: float = TARGET_MDE, seeds: Sequence[int] = (3, 4, 5)
) -> dict[int, int | None]:
    """:func:`plan` under every pilot, keeping for each seed count the most tasks any pilot
    needs (None when some pilot cannot reach ``target``): the largest-MDE rule."""
    if not pilots:
        raise ValueError("need at least one pilot")
    plans = [plan(c, target, seeds) for c in pilots]
    out: dict[int, int | None] = {}
    for s in seeds:
        needs = [p[s] for p in plans]
        out[s] = None if any(n is None for n in needs) else max(needs)
    return out
