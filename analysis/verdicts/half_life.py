r"""Measured mode separation of a run and its separation half-life (issue 46).

- :func:`separation_blocks`: the training separation :math:`\hat\varepsilon_b=\bar s_h-\bar s_l`
  in blocks of ``block`` steps (``reward/success_high`` − ``reward/success_low`` averaged over
  the block's steps 1 + b·block … (b + 1)·block), with the binomial noise floor of each block,
  :math:`\mathrm{sd}_b^2=\tfrac{1}{m^2}\sum_{t\in b}\big(\tfrac{s_h(1-s_h)}{n_h}
  +\tfrac{s_l(1-s_l)}{n_l}\big)`, :math:`n_h=` ``reward/high_frac`` · B, B = P·G rollouts.
- :func:`half_life`: steps until a run's metric (default ``group/between_frac``, the share of
  group variance explained by the goal), smoothed by a trailing mean over ``window`` steps,
  first reaches ``level`` — the goal-blind arm's level, :func:`goal_blind_level`, the mean of
  the metric over every step of the SFT + RC runs (``regime-sft-rc-s*``), whose goal token
  means nothing. NaN when never reached.
- :func:`arm_half_life`: per-run half-lives of an arm and their mean with a 95% Student-t
  interval across seeds (:func:`analysis.stats.mean_ci`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analysis.runs import Run
from analysis.runs.extractors import series
from analysis.stats import Estimate, mean_ci

BETWEEN = "group/between_frac"


def separation_blocks(run: Run, block: int = 10) -> pd.DataFrame:
    """Per block b: ``step`` (last step), ``eps`` and ``sd`` (noise floor), from training steps."""
    high, low = series(run, "reward/success_high"), series(run, "reward/success_low")
    frac = series(run, "reward/high_frac")
    batch = rollouts_per_step(run)
    df = pd.concat({"h": high, "l": low, "f": frac}, axis=1).dropna()
    var = binomial_var(df["h"], df["f"] * batch) + binomial_var(df["l"], (1 - df["f"]) * batch)
    return step_blocks(df["h"] - df["l"], var, block).rename(columns={"mean": "eps"})


def rollouts_per_step(run: Run) -> int:
    """B = P·G, the rollouts of one training step (from the run's config)."""
    rollout = run.config["rollout"]
    return rollout["prompts_per_step"] * rollout["group_size"]


def binomial_var(s: pd.Series, n: pd.Series) -> pd.Series:
    """s(1 − s)/n, the variance of a success rate s measured on n rollouts."""
    return s * (1 - s) / n


def step_blocks(values: pd.Series, var: pd.Series, block: int) -> pd.DataFrame:
    """Per complete block of ``block`` training steps (index: step, from 1): ``step`` (its last
    step), ``mean`` of ``values`` and ``sd`` = sqrt(Σ var) / block, the sd of that mean."""
    b = (values.index.to_numpy() - 1) // block
    out = pd.DataFrame({"b": b, "v": values.to_numpy(), "var": var.to_numpy()})
    g = out.groupby("b")
    res = pd.DataFrame({"mean": g["v"].mean(), "sd": np.sqrt(g["var"].sum()) / g.size()})
    res["step"] = (res.index + 1) * block
    return res[g.size() == block].reset_index(drop=True)


def half_life(values: pd.Series, level: float, window: int = 10) -> float:
    """First step at which the trailing ``window``-step mean of ``values`` is <= ``level``."""
    smooth = values.sort_index().rolling(window, min_periods=window).mean()
    hit = smooth[smooth <= level]
    return float(hit.index[0]) if len(hit) else math.nan


def goal_blind_level(runs: list[Run], metric: str = BETWEEN) -> float:
    """Mean of ``metric`` over every training step of the goal-blind ``runs``."""
    values = pd.concat([series(r, metric) for r in runs])
    if values.empty:
        raise ValueError(f"no goal-blind run logs {metric!r}")
    return float(values.mean())


def arm_half_life(
    runs: list[Run], level: float, metric: str = BETWEEN, window: int = 10
) -> tuple[list[float], Estimate | None]:
    """(per-run half-lives in steps, their mean and 95% t-interval over the runs)."""
    values = [half_life(series(r, metric), level, window) for r in runs]
    return values, mean_ci(values)
