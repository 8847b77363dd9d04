r"""The between/within-goal split of the advantage, per step, for any run folder.

New runs log ``adv/between_share`` etc. every step (:mod:`rcgrpo.train.rl.step_metrics`).
Runs trained before that have the inputs in their per-rollout table (``rollouts.jsonl``:
``step, round, prompt, group, reward_token, advantage, kept``): :func:`split_by_step`
recomputes the same metrics from it with the SAME pure function,
:func:`rcgrpo.advantage_split.advantage_split`, on the same groups (the kept ones, with the
advantage each rollout was trained with), so logged and recomputed values agree exactly.

A group is the G rollouts of one ``(step, round, prompt)``, ordered by ``group`` (the
rollout's index in it). Rows without a reward goal (GRPO, no conditioning) and dropped groups
(``kept`` false, no advantage) do not enter; a step left with no group is absent.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd
import torch

from analysis.runs import Run
from rcgrpo.advantage_split import SPLIT_METRICS, advantage_split, split_summaries

NEEDED = ("step", "round", "prompt", "group", "reward_token", "advantage", "kept")


def two_goals(run: Run) -> bool:
    """The run draws both goals inside a group (i.i.d. or stratified sampling)."""
    return run.config.get("algo", {}).get("conditioning") in ("iid", "stratified")


def group_grid(part: pd.DataFrame) -> tuple[torch.Tensor, torch.Tensor]:
    """([N, G] advantages, [N, G] bool high goals) of one step's kept rows, groups in
    ``(round, prompt)`` order; ValueError if the groups differ in size."""
    part = part.sort_values(["round", "prompt", "group"])
    sizes = part.groupby(["round", "prompt"]).size()
    if sizes.nunique() != 1:
        raise ValueError(f"groups of step {part['step'].iloc[0]} differ in size: {set(sizes)}")
    g = int(sizes.iloc[0])
    adv = torch.tensor(part["advantage"].to_numpy(dtype=float), dtype=torch.float64)
    high = torch.tensor((part["reward_token"] == "high").to_numpy(dtype=bool))
    return adv.view(-1, g), high.view(-1, g)


def step_grids(rows: pd.DataFrame) -> Iterator[tuple[int, torch.Tensor, torch.Tensor]]:
    """(step, advantages, high goals) of :func:`group_grid` for every step of ``rows`` in
    step order, from one sort of the whole table (a run has hundreds of steps; the per-step
    slices of it sorted by ``(step, round, prompt, group)`` are the rows group_grid sorts)."""
    if rows.empty:
        return
    rows = rows.sort_values(["step", "round", "prompt", "group"])
    sizes = rows.groupby(["step", "round", "prompt"], sort=True).size()
    steps = rows["step"].to_numpy()
    adv = rows["advantage"].to_numpy(dtype=float)
    high = (rows["reward_token"] == "high").to_numpy(dtype=bool)
    bounds = np.flatnonzero(steps[1:] != steps[:-1]) + 1
    for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, len(steps)], strict=True):
        step = steps[lo]
        per_group = sizes.loc[step]
        if per_group.nunique() != 1:
            raise ValueError(f"groups of step {step} differ in size: {set(per_group)}")
        g = int(per_group.iloc[0])
        a = torch.tensor(adv[lo:hi], dtype=torch.float64)
        yield int(step), a.view(-1, g), torch.tensor(high[lo:hi]).view(-1, g)


def split_by_step(rollouts: pd.DataFrame) -> pd.DataFrame:
    """Per step (index), the :data:`~rcgrpo.advantage_split.SPLIT_METRICS` of the kept
    groups of a per-rollout table (module docstring); empty without reward goals."""
    missing = [k for k in NEEDED if k not in rollouts]
    if missing:
        raise ValueError(f"the rollout table lacks columns {missing}")
    rows = rollouts[rollouts["kept"].astype(bool) & rollouts["reward_token"].notna()]
    out = {}
    for step, adv, high in step_grids(rows):
        stats = split_summaries(*advantage_split(adv, high), high)
        out[step] = {k: float(v) for k, v in stats.items()}
    frame = pd.DataFrame.from_dict(out, orient="index", columns=list(SPLIT_METRICS))
    frame.index.name = "step"
    return frame.astype(float)


def run_split(run: Run) -> pd.DataFrame:
    """The split per step: the logged metrics when the run logged all of them, else the
    recomputation from its rollout table (``source`` column: ``logged`` / ``recomputed``)."""
    df = run.metrics
    if all(k in df for k in SPLIT_METRICS) and "step" in df:
        logged = df[df["step"] >= 1].set_index("step")[list(SPLIT_METRICS)]
        return logged.astype(float).assign(source="logged")
    if run.rollouts.empty:
        return pd.DataFrame(columns=[*SPLIT_METRICS, "source"])
    return split_by_step(run.rollouts).assign(source="recomputed")


def max_abs_difference(run: Run) -> float:
    """max |logged - recomputed| over the split metrics and steps both have (NaN = NaN)."""
    if not all(k in run.metrics for k in SPLIT_METRICS):
        raise ValueError(f"run {run.name} did not log the split metrics")
    logged = run.metrics.set_index("step")[list(SPLIT_METRICS)].astype(float)
    recomputed = split_by_step(run.rollouts)
    both = logged.loc[logged.index.intersection(recomputed.index)]
    diff = (both - recomputed.loc[both.index]).abs().to_numpy()
    same_nan = np.isnan(both.to_numpy()) & np.isnan(recomputed.loc[both.index].to_numpy())
    return float(np.where(same_nan, 0.0, diff).max()) if diff.size else float("nan")


def null_between_share(rollouts: pd.DataFrame, draws: int = 20, seed: int = 0) -> pd.Series:
    """Per step, the mean ``adv/between_share`` over ``draws`` random re-assignments of the
    goals inside each group (counts kept): the share a goal that carries no information
    about the reward would get from the sampling noise of μ_h, μ_l in a group of G."""
    if draws < 1:
        raise ValueError(f"draws must be >= 1, got {draws}")
    rows = rollouts[rollouts["kept"].astype(bool) & rollouts["reward_token"].notna()]
    gen = torch.Generator().manual_seed(seed)
    out = {}
    for step, adv, high in step_grids(rows):
        n, g = adv.shape
        # all draws at once: [draws * N, G] with each group's goals permuted independently
        order = torch.argsort(torch.rand((draws * n, g), generator=gen), dim=1)
        shuffled = torch.gather(high.repeat(draws, 1), 1, order)
        b, w = advantage_split(adv.repeat(draws, 1), shuffled)
        between = b.abs().view(draws, -1).sum(dim=1)
        total = between + w.abs().view(draws, -1).sum(dim=1)
        shares = torch.where(total > 0, between / total.clamp(min=1e-300), torch.nan)
        out[step] = float(torch.nanmean(shares)) if bool(total.gt(0).any()) else np.nan
    return pd.Series(out, name="null_between_share", dtype=float).rename_axis("step")
