"""Per-run extractors: functions that reduce ONE run folder to one number.

An :data:`Extractor` takes a :class:`~analysis.runs.Run` and returns a float (``nan`` when
the run did not log what it needs), e.g. the last held-out success or the mean of a metric
over the training steps. Tables (:mod:`analysis.report.runtable`), verdict rules
(:mod:`analysis.verdicts`) and figures reduce runs through them. Training rows are those
with ``step >= 1`` (step 0 of an RL run is the evaluation of the starting policy).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd
from scipy import stats as scipy_stats

from analysis.runs.folder import Run

Extractor = Callable[[Run], float]


def series(run: Run, metric: str, training: bool = True) -> pd.Series:
    """Non-null values of ``metric`` by step (training steps only when ``training``)."""
    df = run.metrics
    if metric not in df or "step" not in df:
        return pd.Series(dtype=float)
    rows = df[df["step"] >= 1] if training else df
    return rows.set_index("step")[metric].dropna().astype(float)


def last(metric: str) -> Extractor:
    """The last logged value (e.g. the final held-out evaluation)."""
    return lambda run: float(s.iloc[-1]) if len(s := series(run, metric, False)) else math.nan


def cpu_seconds(run: Run) -> float:
    """CPU seconds of the whole run (``summary.json`` ``cpu_s``; Stage 1 records it): the one
    source of what a Stage-1 seed costs, in the findings page's and the paper's Stage-1 tables."""
    return float(run.summary.get("cpu_s", math.nan))


def first(metric: str) -> Extractor:
    """The first logged value (RL: step 0 = the starting policy's evaluation)."""
    return lambda run: float(s.iloc[0]) if len(s := series(run, metric, False)) else math.nan


def mean_over_training(metric: str) -> Extractor:
    """Mean over every training step."""
    return lambda run: float(s.mean()) if len(s := series(run, metric)) else math.nan


def _part_mean(metric: str, part: str, fraction: float) -> Extractor:
    """Mean over ``k = max(1, ceil(fraction * n))`` of a run's ``n`` training steps: the
    first k (``early``), the last k (``late``) or the k centred on the middle (``middle``)."""

    def extract(run: Run) -> float:
        s = series(run, metric)
        if not len(s):
            return math.nan
        k = max(1, math.ceil(fraction * len(s)))
        start = {"early": 0, "late": len(s) - k, "middle": max(0, (len(s) - k) // 2)}[part]
        return float(s.iloc[start : start + k].mean())

    return extract


def window(metric: str, part: str, fraction: float = 0.1) -> Extractor:
    """Mean over the first (``part="early"``) or last (``"late"``) ``fraction`` of steps
    (at least one step)."""
    if part not in ("early", "late") or not 0 < fraction <= 1:
        raise ValueError(f"part must be early|late and fraction in (0, 1], got {part}, {fraction}")
    return _part_mean(metric, part, fraction)


def middle(metric: str, fraction: float = 0.1) -> Extractor:
    """Mean over the ``fraction`` of training steps centred on the middle (at least one)."""
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must lie in (0, 1], got {fraction}")
    return _part_mean(metric, "middle", fraction)


def spearman(a: str, b: str) -> Extractor:
    """Spearman ρ over the training steps where both metrics are logged (NaN if constant)."""

    def extract(run: Run) -> float:
        x, y = series(run, a), series(run, b)
        steps = x.index.intersection(y.index)
        if len(steps) < 3:
            return math.nan
        xs, ys = x.loc[steps].to_numpy(), y.loc[steps].to_numpy()
        if np.ptp(xs) == 0 or np.ptp(ys) == 0:
            return math.nan
        return float(scipy_stats.spearmanr(xs, ys).statistic)

    return extract


def training_success(part: str, fraction: float = 0.1) -> Extractor:
    """Training success over the first / last ``fraction`` of steps (:func:`window`) under
    the goal the held-out evaluation uses: the high-goal rollouts
    (``reward/success_high``) where the run draws goals, else every rollout
    (``reward/success_rate``)."""
    high, every = (
        window("reward/success_high", part, fraction),
        window("reward/success_rate", part, fraction),
    )
    return lambda run: value if math.isfinite(value := high(run)) else every(run)


def difference(a: Extractor, b: Extractor) -> Extractor:
    """``a(run) - b(run)`` (e.g. final minus starting success)."""
    return lambda run: a(run) - b(run)


def frac_steps_at_least(metric: str, bound: str) -> Extractor:
    """Fraction of training steps where ``metric >= bound`` (steps with both logged)."""

    def extract(run: Run) -> float:
        both = pd.concat([series(run, metric), series(run, bound)], axis=1).dropna()
        if both.empty:
            return math.nan
        return float(np.mean(both.iloc[:, 0].to_numpy() >= both.iloc[:, 1].to_numpy()))

    return extract
