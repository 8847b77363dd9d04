r"""Bookkeeping checks of the regime's verdicts (issue 27): labelled, never counted as claims.

In the pool regime several verdicts could not have come out otherwise; here they are checks
of the bookkeeping or of a rule's premise, each with its reason:

- **B1** (the pool's 3a): :math:`\overline{\sigma_g^2 - \kappa\hat\varepsilon^2} \ge 0` over
  training, ε̂ the mode separation of the same batch. With ε̂ from the batch itself this
  holds by the law of total variance up to the Jensen gap between groups; it checks the
  logged ``theory/var_bound_iid``, not Prop. 4.3.
- **B2** (the pool's 1b, 3b, 3c): with binary rewards and population std the mean advantage
  spread is (1 − z)·c̄, c̄ ∈ [2, G/√(G−1)] (:func:`analysis.verdicts.groups.spread_range`):
  it restates the collapse share z. Reported once: the share of training steps in that range
  and the realised c̄ = spread / (1 − z).
- **B3** (the premise behind the pool's 4b and 6a): the low goal is not a switch to garbage,
  i.e. RC-GRPO's low-goal training success is > 0 on every seed. If it fails, between-goal
  variance and "stratified collapses fewer groups" hold by construction again.
- **B4** (gate of the entropy rules): the arm's high-goal-like entropy is within ±10% of
  RC-GRPO's (:mod:`analysis.campaigns.regime_d10.calibration`).
- **B5** (gate of the stratified rules): the stratified arm has exactly G/2 high goals in
  every group (G even: no rounding), and the i.i.d. arm's share of high-goal rollouts lies in
  the binomial 99% interval :math:`0.5 \pm z_{0.995}\sqrt{0.25/N}` (N its rollouts), so the
  arms differ in the allocation within a group, not in how many rollouts get the high goal.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

from analysis.campaigns.regime_d10.calibration import ENTROPY_TOLERANCE, seed_mean_gap
from analysis.runs import Run
from analysis.verdicts.groups import exact_half_share, group_table, high_share, spread_in_range

BALANCE_LEVEL = 0.99
"""Level of the binomial interval of B5's i.i.d. high-goal share."""
Arm = Mapping[int, Run]
"""The finished runs of one arm, by seed."""


@dataclass(frozen=True)
class Check:
    """One bookkeeping check: ``passed`` with the value it read."""

    id: str
    label: str
    value: float
    passed: bool
    detail: str


def _training(run: Run, *names: str):
    df = run.metrics
    if "step" not in df or any(n not in df for n in names):
        return None
    return df[df["step"] >= 1][list(names)].dropna()


def bound_gap(runs: Arm) -> Check:
    """B1: per seed, mean over training of group/var_mean − theory/var_bound_iid; all ≥ 0."""
    gaps = []
    for seed in sorted(runs):
        rows = _training(runs[seed], "group/var_mean", "theory/var_bound_iid")
        if rows is not None and len(rows):
            gaps.append(float((rows["group/var_mean"] - rows["theory/var_bound_iid"]).mean()))
    ok = bool(gaps) and min(gaps) >= 0
    value = min(gaps) if gaps else math.nan
    return Check("B1", "σ_g² − κε̂² ≥ 0 (bookkeeping)", value, ok, f"{len(gaps)} seeds")


def population_std(run: Run) -> bool:
    """The run scales advantages by the group's population std (``algo.adv_estimator``
    ``grpo``, or the older ``adv_scale`` ``group``; ``adv_ddof`` 0): B2's premise."""
    algo = run.config.get("algo", {})
    scale = algo.get("adv_scale")
    est = algo.get("adv_estimator") or ("grpo" if scale in (None, "group") else scale)
    return est == "grpo" and algo.get("adv_ddof", 0) == 0


def spread_restates_collapse(runs: Arm) -> Check:
    """B2: share of training steps (all seeds) whose spread lies in (1 − z)[c_min, c_max],
    G from each run's ``rollout.group_size``; value = the realised c̄ over steps with z < 1.
    Runs that do not scale by the population std (:func:`population_std`) are skipped."""
    inside, cbar = [], []
    for seed in sorted(runs):
        rows = _training(runs[seed], "adv/gap_mean", "group/zero_var_frac")
        group_size = runs[seed].config.get("rollout", {}).get("group_size")
        if rows is None or group_size is None or not population_std(runs[seed]):
            continue
        gap, z = rows["adv/gap_mean"].to_numpy(), rows["group/zero_var_frac"].to_numpy()
        inside.extend(spread_in_range(gap, z, group_size).tolist())
        alive = z < 1
        cbar.extend((gap[alive] / (1 - z[alive])).tolist())
    share = float(np.mean(inside)) if inside else math.nan
    value = float(np.mean(cbar)) if cbar else math.nan
    return Check("B2", "spread = (1 − z)·c̄ (reported once)", value, share == 1.0, f"{share:.3f}")


def low_goal_alive(runs: Arm) -> Check:
    """B3: min over seeds of the mean low-goal training success (reward/success_low) > 0."""
    means = []
    for seed in sorted(runs):
        rows = _training(runs[seed], "reward/success_low")
        if rows is not None and len(rows):
            means.append(float(rows["reward/success_low"].mean()))
    value = min(means) if means else math.nan
    return Check("B3", "low goal succeeds sometimes", value, value > 0, f"{len(means)} seeds")


def entropy_matched(arm: Arm, rc: Arm, name: str) -> Check:
    """B4: |mean_s H_arm / mean_s H_RC − 1| ≤ 0.10 over the seeds both have."""
    gap, seeds = seed_mean_gap(arm, rc)
    ok = math.isfinite(gap) and abs(gap) <= ENTROPY_TOLERANCE
    return Check("B4", f"{name}: entropy within ±10% of RC-GRPO's", gap, ok, f"seeds {seeds}")


def binomial_half(n: int, level: float = BALANCE_LEVEL) -> tuple[float, float]:
    """0.5 ∓ z_{(1+level)/2} √(0.25/n): the normal interval of a fair coin's share."""
    half = float(_st.norm.ppf(0.5 + level / 2)) * math.sqrt(0.25 / n)
    return 0.5 - half, 0.5 + half


def goals_balanced(strat: Arm, iid: Arm) -> Check:
    """B5: every stratified group holds exactly G/2 high goals, and every i.i.d. run's
    high-goal share lies in its binomial interval; value = the smallest exact-half share."""
    exact, ok = [], True
    for run in strat.values():
        exact.append(exact_half_share(group_table(run.rollouts)))
    for run in iid.values():
        groups = group_table(run.rollouts)
        lo, hi = binomial_half(int(groups["size"].sum()))
        ok = ok and lo <= high_share(groups) <= hi
    value = min(exact) if exact else math.nan
    passed = ok and bool(exact) and bool(iid) and value == 1.0
    return Check("B5", "goals: exactly G/2 high (stratified), 1/2 (i.i.d.)", value, passed, "")
