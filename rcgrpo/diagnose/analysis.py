"""From a run's steps of groups to the report's numbers: one row per step and the run's
summary. No I/O (the readers are :mod:`rcgrpo.diagnose.sources`, the writers
:mod:`rcgrpo.diagnose.report`).

Advantages: a run folder of this repository is recomputed with the run's own estimator
(``config.json``; the trainer logs its group metrics over every generated group with it, so
the recomputation reproduces ``metrics.jsonl``); otherwise the recorded advantages are used
when every rollout has one, else :func:`rcgrpo.group_advantages` with the options'
estimator, ε and ddof. An estimator gets the inputs it declares (goals, task ids, lengths:
:data:`rcgrpo.advantages.INPUTS`) from the records; records without one it reads are an
error naming it. The advantage split (``adv/*_share``) uses the groups the run trained
on (``kept``; all groups if not recorded), with advantages recomputed on that grid as the
trainer does, and is left out for an estimator it does not apply to
(:func:`rcgrpo.advantage_split.split_applies`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from rcgrpo.advantage_split import split_applies
from rcgrpo.advantages import group_advantages
from rcgrpo.diagnose.groups import StepGroups
from rcgrpo.diagnose.instruments import step_instruments
from rcgrpo.diagnose.sources import RunSettings
from rcgrpo.diagnose.verdict import RULE, verdict


@dataclass(frozen=True)
class Options:
    """How to read rewards and advantages the records do not settle."""

    estimator: str = "grpo"
    """A name of :data:`rcgrpo.advantages.ADV_ESTIMATORS` (when advantages are not recorded)."""
    eps_stab: float = 1e-6
    """ε added to the group std (paper: unstated; verl 1e-6, TRL 1e-4)."""
    ddof: int = 0
    """0 = population std (paper), 1 = Bessel-corrected (TRL, verl)."""
    p: float | None = None
    """P(high goal) of an i.i.d. draw: enables Prop. 4.3's bound κ ε² (needs goals)."""
    success_value: float = 1.0
    """The reward that counts as a pass."""
    fail_value: float = 0.0
    """The reward that counts as a fail."""


def _recomputed(sg: StepGroups, rewards: torch.Tensor, est: tuple, groups=None) -> torch.Tensor:
    """``est`` = (estimator, ε, ddof) on the step's groups (those ``groups`` [P] bool selects),
    with the inputs the records hold."""
    rows = slice(None) if groups is None else groups
    inputs = {
        "goals": None if sg.high is None else sg.high[rows],
        "group_ids": None if sg.group_ids is None else sg.group_ids[rows],
        "lengths": None if sg.lengths is None else sg.lengths[rows],
    }
    return group_advantages(rewards[rows], est[0], eps_stab=est[1], ddof=est[2], **inputs)


def _advantages(sg: StepGroups, rewards: torch.Tensor, est: tuple, recompute: bool):
    if sg.advantages is not None and not recompute:
        return sg.advantages
    return _recomputed(sg, rewards, est)


def step_row(sg: StepGroups, opts: Options, settings: RunSettings) -> dict[str, float]:
    """The instruments of one step (``step``, ``groups`` P, ``group_size`` G and the
    registry names of :func:`rcgrpo.diagnose.instruments.step_instruments`)."""
    recompute = settings.estimator is not None
    est = (
        (settings.estimator, settings.eps_stab, settings.ddof)
        if recompute
        else (opts.estimator, opts.eps_stab, opts.ddof)
    )
    rewards = sg.rewards.to(getattr(torch, settings.dtype))
    adv = _advantages(sg, rewards, est, recompute)
    p = (settings.p if recompute else opts.p) if sg.high is not None else None
    kept_adv = kept_high = None
    if sg.high is not None and split_applies(est[0]):
        kept = sg.kept if sg.kept is not None else torch.ones(len(rewards), dtype=torch.bool)
        kept_high = sg.high[kept]
        kept_adv = _recomputed(sg, rewards, est, kept)
    row = {"step": sg.step, "groups": rewards.shape[0], "group_size": rewards.shape[1]}
    row.update(
        step_instruments(
            rewards,
            adv,
            sg.high,
            p,
            success_value=opts.success_value,
            fail_value=opts.fail_value,
            kept_advantages=kept_adv,
            kept_high=kept_high,
        )
    )
    if sg.kept is not None:
        row["group/kept_frac"] = float(sg.kept.double().mean())
    return row


def _mean(rows: list[dict], key: str) -> float | None:
    values = [r[key] for r in rows if key in r and math.isfinite(r[key])]
    return sum(values) / len(values) if values else None


def summarise(rows: list[dict], rule: dict | None = None) -> dict:
    """Run-level numbers: every per-step key averaged over steps (NaN steps left out) and
    the verdict (:func:`rcgrpo.diagnose.verdict.verdict`)."""
    keys = [k for k in rows[0] if "/" in k]
    means = {k: _mean(rows, k) for k in keys}
    return {
        "steps": len(rows),
        "first_step": rows[0]["step"],
        "last_step": rows[-1]["step"],
        "means": means,
        "verdict": verdict(rows, **{**RULE, **(rule or {})}),
    }
