r"""Group statistics of the regime's verdicts, from a run's per-rollout table.

A *group* is the G rollouts of one prompt at one training step: the rows of
``rollouts.jsonl`` sharing ``(step, round, prompt)``; only ``round == 0`` (the groups as
sampled, before a group filter resamples) and training steps ``step >= 1`` count. A rollout's
*goal* c is its ``reward_token`` (``high`` / ``low``; ``none`` when the prompt carries no
token: GRPO from SFT). For group g with rewards :math:`r_j` and goal classes of sizes
:math:`n_c` (:math:`\sum_c n_c = G`), the law of total variance (Lemma A.3, population
weights) splits the group variance

.. math:: \sigma_g^2 = \underbrace{\frac1G\sum_c\sum_{j\in c}(r_j-\mu_c)^2}_{\text{within-goal}}
   + \underbrace{\frac1G\sum_c n_c(\mu_c-\mu_g)^2}_{\text{between-goal}} .

- *collapsed*: :math:`\sigma_g = 0` (every reward equal; Def. 4.1);
- *informative* (mixed same-goal rewards): some goal class c holds two different rewards,
  i.e. the group says something about which behaviour is right *under one goal*. A group
  whose only variance is high goal vs low goal is not informative; under GRPO (one class)
  informative = not collapsed.

With binary rewards and population std (``adv_ddof`` 0) a group with k successes has
advantage spread :math:`\max_j A_j - \min_j A_j = 1/\sigma_g = G/\sqrt{k(G-k)}`, so the mean
spread over a batch is :math:`(1-z)\,\bar c` with z the collapse share and
:math:`\bar c\in[2, G/\sqrt{G-1}]` (:func:`spread_range`): the spread restates z.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analysis.runs import GROUP_KEYS

NO_GOAL = "none"
"""The goal class of rollouts without a reward token."""
GROUP_COLUMNS = (
    "step",
    "size",
    "n_high",
    "collapsed",
    "informative",
    "var_total",
    "var_within",
    "var_between",
)
"""The columns of :func:`group_table`."""


def spread_range(group_size: int) -> tuple[float, float]:
    """[c_min, c_max] of the spread 1/σ_g = G/√(k(G−k)) over k = 1…G−1 (module docstring):
    c_min = 2 (k = G/2, or the nearest k), c_max = G/√(G−1) (k = 1). G 5: [2.041, 2.5];
    G 8: [2, 3.024]."""
    if group_size < 2:
        raise ValueError(f"group_size must be >= 2, got {group_size}")
    c = [group_size / math.sqrt(k * (group_size - k)) for k in range(1, group_size)]
    return min(c), max(c)


def _training_rows(rollouts: pd.DataFrame) -> pd.DataFrame:
    missing = {"step", "prompt", "reward"} - set(rollouts.columns)
    if missing:
        raise ValueError(f"rollouts table lacks columns {sorted(missing)}")
    df = rollouts[rollouts["step"] >= 1]
    if "round" in df:
        df = df[df["round"] == 0]
    df = df.assign(round=0) if "round" not in df else df
    token = df["reward_token"] if "reward_token" in df else pd.Series(None, index=df.index)
    return df.assign(goal=token.fillna(NO_GOAL).astype(str), reward=df["reward"].astype(float))


def group_table(rollouts: pd.DataFrame) -> pd.DataFrame:
    """One row per training group (module docstring) with :data:`GROUP_COLUMNS`."""
    df = _training_rows(rollouts)
    keys = list(GROUP_KEYS)
    if df.empty:
        return pd.DataFrame(columns=list(GROUP_COLUMNS))
    df = df.assign(sq=df["reward"] ** 2)
    cls = df.groupby([*keys, "goal"]).agg(
        n=("reward", "size"),
        total=("reward", "sum"),
        sq=("sq", "sum"),
        lo=("reward", "min"),
        hi=("reward", "max"),
    )
    cls = cls.reset_index()
    # Σ_j∈c (r_j − μ_c)² = Σ r² − (Σ r)²/n_c, clipped at 0 against rounding
    cls["ssw"] = (cls["sq"] - cls["total"] ** 2 / cls["n"]).clip(lower=0.0)
    cls["mixed"] = cls["lo"] != cls["hi"]
    cls["high"] = np.where(cls["goal"] == "high", cls["n"], 0)
    per = cls.groupby(keys).agg(
        size=("n", "sum"),
        n_high=("high", "sum"),
        ssw=("ssw", "sum"),
        total=("total", "sum"),
        sq=("sq", "sum"),
        informative=("mixed", "any"),
        lo=("lo", "min"),
        hi=("hi", "max"),
    )
    per["var_total"] = (per["sq"] / per["size"] - (per["total"] / per["size"]) ** 2).clip(lower=0)
    per["collapsed"] = per["lo"] == per["hi"]
    per["var_total"] = per["var_total"].where(~per["collapsed"], 0.0)
    per["var_within"] = per["ssw"] / per["size"]
    per["var_between"] = (per["var_total"] - per["var_within"]).clip(lower=0.0)
    out = per.reset_index()
    out["informative"] = out["informative"].astype(bool)
    out["collapsed"] = out["collapsed"].astype(bool)
    return out[list(GROUP_COLUMNS)]


def collapse_share(groups: pd.DataFrame) -> float:
    """Share of groups with σ_g = 0 (NaN without groups)."""
    return float(groups["collapsed"].mean()) if len(groups) else math.nan


def informative_share(groups: pd.DataFrame) -> float:
    """Share of groups whose same-goal rollouts have mixed rewards (NaN without groups)."""
    return float(groups["informative"].mean()) if len(groups) else math.nan


def within_variance(groups: pd.DataFrame) -> float:
    """Mean over groups of the within-goal part of σ_g² (NaN without groups)."""
    return float(groups["var_within"].mean()) if len(groups) else math.nan


def high_share(groups: pd.DataFrame) -> float:
    """Share of rollouts conditioned on the high goal: Σ n_high / Σ G."""
    return float(groups["n_high"].sum() / groups["size"].sum()) if len(groups) else math.nan


def exact_half_share(groups: pd.DataFrame) -> float:
    """Share of groups with exactly G/2 high-goal rollouts (0 for odd G)."""
    if not len(groups):
        return math.nan
    return float((2 * groups["n_high"] == groups["size"]).mean())


def spread_in_range(
    gap_mean: np.ndarray, zero_var_frac: np.ndarray, group_size: int, rtol: float = 1e-4
) -> np.ndarray:
    """Per step: whether the logged mean spread lies in (1 − z)·[c_min, c_max].

    ``rtol`` is relative: ε_stab (1e-6) shrinks each spread by ε/(σ_g + ε) ≤ 1e-5 at G ≤ 64,
    and float32 advantages round at ~1e-7; 1e-4 covers both on any CPU.
    """
    gap, z = np.asarray(gap_mean, dtype=float), np.asarray(zero_var_frac, dtype=float)
    lo, hi = spread_range(group_size)
    alive = 1.0 - z
    return (gap >= alive * lo * (1 - rtol)) & (gap <= alive * hi * (1 + rtol))
