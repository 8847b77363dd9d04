r"""Group statistics recomputed offline from a run's per-rollout table.

The trainer logs group statistics per step (``metrics.jsonl``) from the reward grid of every
group it generated, and writes one row per generated rollout to ``rollouts.jsonl``. A
group is the G rollouts with the same ``(step, round, prompt)``. Recomputing the logged
statistics from the table — and finding them equal — checks that the table is complete
(every rollout of every round is there) and that the logged formulas are what the metric
registry says:

.. math::
    \sigma_g^2=\tfrac1G\sum_j(R_j-\bar R_g)^2\ (\text{ddof }0),\qquad
    \text{zero\_var}_g=1[\max_j R_j=\min_j R_j],

``group/var_mean`` = mean over groups of :math:`\sigma_g^2` (p50 / p90: linear quantiles,
as ``torch.quantile``), ``group/zero_var_frac`` etc. as in :mod:`rcgrpo.diagnostics`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.runs import GROUP_KEYS, Run

RECOMPUTED = (
    "reward/mean",
    "reward/success_rate",
    "reward/mean_high",
    "reward/mean_low",
    "group/var_mean",
    "group/var_p50",
    "group/var_p90",
    "group/zero_var_frac",
    "group/zero_var_success_frac",
    "group/zero_var_fail_frac",
    "group/no_token_diversity_frac",
)
"""Logged metrics :func:`step_table` recomputes (token metrics only when tokens were used)."""


def group_table(rollouts: pd.DataFrame) -> pd.DataFrame:
    """One row per generated group: size, reward mean and variance (ddof 0), collapse flags,
    and the number of high-token rollouts (NaN without tokens)."""
    missing = [k for k in (*GROUP_KEYS, "reward") if k not in rollouts]
    if missing:
        raise ValueError(f"rollouts lacks columns {missing}")
    df = rollouts.assign(
        success=rollouts["reward"] == 1.0,
        fail=rollouts["reward"] == 0.0,
        high=rollouts.get("reward_token", pd.Series(None, index=rollouts.index)) == "high",
        has_token=rollouts.get("reward_token", pd.Series(None, index=rollouts.index)).notna(),
    )
    g = df.groupby(list(GROUP_KEYS), sort=True)
    out = g.agg(
        size=("reward", "size"),
        reward_mean=("reward", "mean"),
        reward_var=("reward", lambda r: float(np.var(r.to_numpy(dtype=float)))),
        reward_min=("reward", "min"),
        reward_max=("reward", "max"),
        first_success=("success", "first"),
        first_fail=("fail", "first"),
        n_high=("high", "sum"),
        with_token=("has_token", "all"),
    ).reset_index()
    out["zero_var"] = out["reward_max"] == out["reward_min"]
    out.loc[out["zero_var"], "reward_var"] = 0.0  # exactly 0, as rcgrpo.diagnostics
    out["all_success"] = out["zero_var"] & out["first_success"]
    out["all_fail"] = out["zero_var"] & out["first_fail"]
    out["n_high"] = out["n_high"].where(out["with_token"])
    return out.drop(columns=["first_success", "first_fail"])


def _token_means(rollouts: pd.DataFrame) -> pd.DataFrame:
    tok = rollouts.dropna(subset=["reward_token"]) if "reward_token" in rollouts else None
    if tok is None or tok.empty:
        return pd.DataFrame()
    means = tok.pivot_table(index="step", columns="reward_token", values="reward", aggfunc="mean")
    means = means.reindex(columns=["high", "low"])  # NaN when a step has no rollout of a token
    return means.rename(columns={"high": "reward/mean_high", "low": "reward/mean_low"})


def step_table(rollouts: pd.DataFrame) -> pd.DataFrame:
    """Per step, the metrics of :data:`RECOMPUTED` computed from the rollout table."""
    groups = group_table(rollouts)
    per_step = groups.groupby("step")
    out = pd.DataFrame(
        {
            "group/var_mean": per_step["reward_var"].mean(),
            "group/var_p50": per_step["reward_var"].quantile(0.5),
            "group/var_p90": per_step["reward_var"].quantile(0.9),
            "group/zero_var_frac": per_step["zero_var"].mean(),
            "group/zero_var_success_frac": per_step["all_success"].mean(),
            "group/zero_var_fail_frac": per_step["all_fail"].mean(),
        }
    )
    if groups["with_token"].all():
        diverse = (groups["n_high"] > 0) & (groups["n_high"] < groups["size"])
        out["group/no_token_diversity_frac"] = (~diverse).groupby(groups["step"]).mean()
    by_row = rollouts.groupby("step")["reward"]
    out["reward/mean"] = by_row.mean()
    out["reward/success_rate"] = (rollouts["reward"] == 1.0).groupby(rollouts["step"]).mean()
    out = out.join(_token_means(rollouts))
    return out.astype(float)


def compare_with_logged(run: Run, metrics=RECOMPUTED) -> pd.DataFrame:
    """Long table ``step, metric, logged, recomputed, abs_err`` for the metrics both have
    (``abs_err`` is 0 where both are NaN, NaN where only one is)."""
    if run.rollouts.empty:
        raise ValueError(f"run {run.name} has no rollout table (rollouts.jsonl[.gz])")
    recomputed = step_table(run.rollouts)
    logged = run.metrics.set_index("step")
    rows = []
    for metric in metrics:
        if metric not in recomputed or metric not in logged:
            continue
        for step, value in recomputed[metric].items():
            if step in logged.index:
                rows.append(
                    {
                        "step": int(step),
                        "metric": metric,
                        "logged": float(logged.at[step, metric]),
                        "recomputed": value,
                    }
                )
    out = pd.DataFrame(rows, columns=["step", "metric", "logged", "recomputed"])
    both_nan = out["logged"].isna() & out["recomputed"].isna()  # e.g. no low-token rollout
    out["abs_err"] = (out["logged"] - out["recomputed"]).abs().mask(both_nan, 0.0)
    return out
