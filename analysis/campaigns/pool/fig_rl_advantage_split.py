r"""Where the RC-GRPO update comes from: the between/within-goal split of the advantage.

Every advantage of a trained group is split as :math:`A_j=b_j+w_j` with the between-goal
part :math:`b_j=(\mu_{r_j}-\mu_g)/(\sigma_g+\varepsilon)` and the within-goal part
:math:`w_j=(R_j-\mu_{r_j})/(\sigma_g+\varepsilon)` (:mod:`rcgrpo.advantage_split`).
(a) Share of the advantage weight :math:`\sum|b|/(\sum|b|+\sum|w|)` carried by the
between-goal part; dotted: the same share with the goals shuffled inside each group (a goal
that says nothing about the reward still gets this much from the sampling noise of
:math:`\hat\mu_h,\hat\mu_l` in a group of G). (b) Within-goal share of the high-goal
rollouts' advantage weight: the part that improves behaviour under the goal evaluation
uses. (c) Mean :math:`|b_j|` (dashed) and :math:`|w_j|` (solid). Runs that did not log the
split are recomputed from their rollout tables with the same function
(:mod:`analysis.diagnostics.goal_split`). Seed mean ± 95% t-band, trailing mean over
``dynamics.SMOOTH`` steps.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from analysis.diagnostics.goal_split import null_between_share, run_split, two_goals
from analysis.figures import dynamics as dyn
from analysis.figures import style as fs

REQUIRES: tuple[str, ...] = ("factorial",)
CAPTION = (
    "Where the update comes from: (a) share of the advantage weight carried by the "
    "between-goal part (mu_r - mu_g)/(sigma_g + eps), dotted: with the goals shuffled inside "
    "each group; (b) within-goal share of the high-goal rollouts' advantage weight; "
    "(c) mean |between| (dashed) and |within| (solid) parts, for the arms that sample reward "
    f"goals. Seed mean with 95% t-bands, {dyn.SMOOTH}-step trailing mean."
)
NULL_DRAWS = 200


def smoothed(values: pd.Series) -> pd.Series:
    return values.dropna().rolling(dyn.SMOOTH, min_periods=1).mean()


def _draw(ax, per_run: list[pd.Series], preset: str, **kw) -> None:
    b = dyn.band_of([smoothed(s) for s in per_run])
    if b.empty:
        return
    kw.setdefault("color", dyn.color(preset))
    (line,) = ax.plot(b.index, b["mean"], **kw)
    if (b["hi"] > b["lo"]).any() and kw.get("ls", "-") == "-":
        ax.fill_between(b.index, b["lo"], b["hi"], color=line.get_color(), alpha=0.15, lw=0)


def make_figure(runs: dict) -> Figure:
    groups = {
        preset: rs
        for preset, rs in dyn.by_preset(runs["factorial"]).items()
        if any(not r.rollouts.empty and r.rollouts["reward_token"].notna().any() for r in rs)
    }
    splits: dict[str, list[pd.DataFrame]] = {
        p: [run_split(r) for r in rs] for p, rs in groups.items()
    }
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, 3, figsize=(12.5, 3.3), layout="constrained")
        for preset, rs in groups.items():
            parts = splits[preset]
            label = f"{dyn.label(preset)} (n={len(rs)})"
            _draw(axes[0], [s["adv/between_share"] for s in parts], preset, label=label)
            if all(two_goals(r) for r in rs):
                nulls = [null_between_share(r.rollouts, NULL_DRAWS, seed=0) for r in rs]
                _draw(axes[0], nulls, preset, ls=":", lw=1.1)
            _draw(axes[1], [s["adv/high_within_share"] for s in parts], preset)
            _draw(axes[2], [s["adv/within_abs_mean"] for s in parts], preset)
            _draw(axes[2], [s["adv/between_abs_mean"] for s in parts], preset, ls="--", lw=1.2)
        axes[0].plot([], [], ":", color="0.4", label="goals shuffled in each group")
        axes[0].set(ylabel="between-goal share", ylim=(-0.02, 1.02))
        axes[1].set(ylabel="within-goal share (high goal)", ylim=(-0.02, 1.02))
        axes[2].set(ylabel=r"mean $|b_j|$ (dashed), $|w_j|$ (solid)")
        axes[2].set_ylim(bottom=0)
        for k, ax in enumerate(axes):
            ax.set_xlabel("RL step")
            fs.panel_label(ax, "abc"[k])
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncol=len(handles))
    return fig
