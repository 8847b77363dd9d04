r"""Shared helpers of the training-dynamics figures (``fig_rl_*``, ``fig_stage1``).

Runs are grouped by their preset (``config.json``), one run per seed. A curve is the
per-run metric, smoothed with a trailing moving average of ``SMOOTH`` logged steps (a CPU
step holds only 8 groups), then averaged over seeds with a 95% Student-t band

.. math:: \bar x_t \pm t_{0.975,\,n-1}\, s_t/\sqrt{n}

(no band with one seed). Nothing here trains: the figure builder hands in finished run
folders (:func:`analysis.campaign.find.find_runs`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.campaign.arms import arms
from analysis.figures import style as fs
from analysis.runs import Run, load_runs
from analysis.stats import mean_ci

SMOOTH = 10
"""Trailing moving-average window (logged steps) of the training curves."""


def styles() -> dict[str, tuple[str, str]]:
    """Preset -> (legend label, colour) of every arm (:data:`analysis.campaign.arms.ARMS`, read
    now), in the registry's order."""
    return {a.preset: (a.label, fs.PALETTE[a.colour]) for a in arms()}


def by_preset(paths: Iterable[Path | None]) -> dict[str, list[Run]]:
    """Runs grouped by ``config.json["preset"]`` in :func:`styles` order (missing paths skipped)."""
    groups: dict[str, list[Run]] = {}
    for run in load_runs(p for p in paths if p is not None):
        groups.setdefault(run.config.get("preset") or run.name, []).append(run)
    order = {name: i for i, name in enumerate(styles())}
    return dict(sorted(groups.items(), key=lambda kv: order.get(kv[0], len(order))))


def label(preset: str) -> str:
    return styles().get(preset, (preset, fs.BLACK))[0]


def color(preset: str) -> str:
    return styles().get(preset, (preset, fs.BLACK))[1]


def series(run: Run, key: str, smooth: int = SMOOTH) -> pd.Series:
    """``key`` by step (rows that logged it), trailing-mean smoothed; empty if never logged."""
    df = run.metrics
    if key not in df or "step" not in df:
        return pd.Series(dtype=float)
    s = df.set_index("step")[key].dropna()
    s = s[~s.index.duplicated(keep="last")]
    return s.rolling(smooth, min_periods=1).mean() if smooth > 1 else s


def band(runs: list[Run], key: str, smooth: int = SMOOTH) -> pd.DataFrame:
    """Across-seed ``mean``, ``lo``, ``hi`` and ``n`` per step, over the runs with a finite
    value at that step (``group/between_frac`` is NaN while every group is constant)."""
    return band_of([series(r, key, smooth) for r in runs])


def band_of(per_run: list[pd.Series]) -> pd.DataFrame:
    """:func:`band` of per-run series indexed by step (e.g. recomputed, not logged)."""
    table = pd.concat(per_run, axis=1, join="outer").sort_index() if per_run else pd.DataFrame()
    if table.empty:
        return pd.DataFrame(columns=["mean", "lo", "hi", "n"])
    rows = []
    for step, values in zip(table.index, table.to_numpy(), strict=True):  # as iterrows, faster
        est = mean_ci(values)
        half = est.half_width if est is not None and est.half_width is not None else 0.0
        mean = est.mean if est is not None else math.nan
        rows.append((step, mean, mean - half, mean + half, 0 if est is None else est.n))
    return pd.DataFrame(rows, columns=["step", "mean", "lo", "hi", "n"]).set_index("step")


def plot_band(
    ax, runs: list[Run], key: str, preset: str, smooth: int = SMOOTH, show_band: bool = True, **kw
) -> bool:
    """Draw the seed-mean curve of ``key`` with its CI band; False if no run logged it."""
    b = band(runs, key, smooth)
    if b.empty:
        return False
    kw.setdefault("color", color(preset))
    kw.setdefault("label", f"{label(preset)} (n={int(b['n'].max())})")
    (line,) = ax.plot(b.index, b["mean"], **kw)
    if show_band and (b["hi"] > b["lo"]).any():
        ax.fill_between(b.index, b["lo"], b["hi"], color=line.get_color(), alpha=0.15, lw=0)
    return True


def last_value(run: Run, key: str) -> float:
    """The last logged value of ``key`` (NaN if never logged)."""
    s = series(run, key, smooth=1)
    return float(s.iloc[-1]) if len(s) else math.nan


def first_value(run: Run, key: str) -> float:
    """The first logged value of ``key`` (NaN if never logged)."""
    s = series(run, key, smooth=1)
    return float(s.iloc[0]) if len(s) else math.nan


def run_mean(run: Run, key: str) -> float:
    """Mean of ``key`` over all logged training steps (NaN if never logged)."""
    s = series(run, key, smooth=1)
    s = s[s.index > 0]
    return float(s.mean()) if len(s) else math.nan


def seed_bars(
    ax,
    groups: dict[str, list[Run]],
    value,
    ylabel: str,
    x0: float = 0.0,
    width: float = 0.8,
    hatch: str | None = None,
    tag: str = "",
    names: list[str] | None = None,
) -> None:
    """One bar per preset: mean of ``value(run)`` over seeds, 95% t-CI, a dot per seed.
    ``names``: the bars' tick labels, rotated (default: each preset's label, on two lines)."""
    for i, (preset, runs) in enumerate(groups.items()):
        vals = np.array([value(r) for r in runs], dtype=float)
        est = mean_ci(vals)
        if est is None:
            continue
        x = i + x0
        yerr = None if est.half_width is None else [[est.half_width], [est.half_width]]
        ax.bar(
            x,
            est.mean,
            width,
            color=color(preset),
            alpha=0.75,
            hatch=hatch,
            yerr=yerr,
            capsize=3,
            edgecolor="black",
            linewidth=0.5,
            label=tag if i == 0 and tag else None,
        )
        finite = vals[np.isfinite(vals)]
        jitter = np.linspace(-width / 5, width / 5, len(finite)) if len(finite) > 1 else [0.0]
        ax.scatter(x + np.asarray(jitter), finite, s=10, color="black", zorder=3)
    if names is None:
        ticks = [label(p).replace(" + ", "\n+ ") for p in groups]
        ax.set_xticks(range(len(groups)), ticks, fontsize=7.5)
    else:
        ax.set_xticks(range(len(groups)), names, rotation=35, ha="right", fontsize=7)
    ax.set_ylabel(ylabel)
