r"""Each planted decision kind of regime-d10, right under the high and the low goal over RL.

Per decision kind (:data:`rcgrpo.env.synth_demo.REGIME_DECISIONS`: ``rename_copy``,
``resolve_close``, ``stop_early``), the share of its held-out occurrences decided right
(``decisions.per_kind`` of each ``eval/step_N.json``: successes / n, greedy) against the RL
step, under the high goal (solid) and the low goal (dotted), for RC-GRPO and every arm of the
separation study (``docs/protocols/regime-d10-separation.md``) with a committed run, read
from ``results/regime/<arm>-s<seed>`` on the admitted seeds
(:func:`analysis.campaigns.regime_d10.fig_regime_factorial.committed_runs`). An arm evaluated under the
high goal only (no ``algo.eval_low``: the GRPO arms) has the solid curve alone, and its
legend entry says so. Seed mean with 95% t band; 1,000 held-out tasks at the first and last
evaluation, 200 between, so the number of occurrences behind a point differs by step.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from analysis import REPO_ROOT
from analysis.campaign.arms import arms
from analysis.campaigns.regime_d10 import population as pop
from analysis.campaigns.regime_d10.fig_regime_factorial import ROOT, committed_runs
from analysis.figures import dynamics as dyn
from analysis.figures import style as fs
from analysis.runs import Run
from analysis.runs.folder import light_globs
from rcgrpo.env.synth_demo import REGIME_DECISIONS

REQUIRES: tuple[str, ...] = ()
ARMS = (pop.RCTP_RC, *(a.preset for a in arms("regime-d10", "regime-separation")))
"""RC-GRPO, then the separation study's arms (those with a committed run are drawn)."""
INPUTS: tuple[str, ...] = tuple(
    g
    for p in committed_runs(ARMS)
    for g in light_globs(p.relative_to(REPO_ROOT).as_posix(), REPO_ROOT)
)
"""Files the figure reads (repository-relative): the light files of the runs it draws."""
KINDS = REGIME_DECISIONS
TITLES = {
    "rename_copy": "rename_copy: mv, not cp",
    "resolve_close": "resolve_close: resolve, not close",
    "stop_early": "stop_early: every requested step",
}
GOALS = (("high", "-", "high goal"), ("low", ":", "low goal"))
"""Evaluation condition key, line style, its meaning in the key."""
BAND_KEY = "seed mean, 95% t-band"
CAPTION = (
    "The planted decisions of regime-d10 over RL (tiny Qwen2, CPU; admitted seeds, n per arm "
    "in the legend): per decision kind (rename_copy, resolve_close, stop_early), the share of "
    "its held-out occurrences decided right, greedy, under the high goal (solid) and the low "
    "goal (dotted), for RC-GRPO and each arm of the separation study with a committed run "
    "(arms evaluated under the high goal only: solid alone); seed mean with 95% t band; "
    "1,000 held-out tasks at the first and last evaluation, 200 between."
)


def kind_rates(evaluation: Mapping, goal: str) -> dict[str, float]:
    """Kind -> share right (successes / n; NaN when n = 0) in one held-out evaluation
    (an ``eval/step_N.json``) under condition ``goal``; {} when it has no such condition."""
    cond = evaluation.get("conditions", {}).get(goal)
    if cond is None:
        return {}
    per_kind = cond.get("decisions", {}).get("per_kind", {})
    return {k: r["successes"] / r["n"] if r.get("n") else math.nan for k, r in per_kind.items()}


def kind_curves(run: Run, goal: str) -> dict[str, pd.Series]:
    """Kind -> share right by evaluation step under ``goal`` (kinds the run never evaluated
    under it are absent); under ``high``, a run with no goal token (an SFT start, condition
    ``none``) counts as evaluated at its one condition."""
    rows: dict[str, dict[int, float]] = {}
    for step, evaluation in run.step_evals.items():
        rates = kind_rates(evaluation, goal)
        if not rates and goal == "high":
            rates = kind_rates(evaluation, "none")
        for kind, rate in rates.items():
            rows.setdefault(kind, {})[step] = rate
    return {k: pd.Series(v, dtype=float).sort_index() for k, v in rows.items()}


def _draw_arm(axes, preset: str, runs: list[Run], kinds: tuple[str, ...]) -> bool:
    """The arm's curves on every panel; True when it has a low-goal evaluation."""
    low = False
    for goal, ls, _ in GOALS:
        curves = [kind_curves(r, goal) for r in runs]
        for ax, kind in zip(axes, kinds, strict=True):
            b = dyn.band_of([c[kind] for c in curves if kind in c])
            if b.empty:
                continue
            low |= goal == "low"
            ax.plot(b.index, b["mean"], color=dyn.color(preset), ls=ls, marker="o", ms=2.5)
            if (b["hi"] > b["lo"]).any():
                ax.fill_between(b.index, b["lo"], b["hi"], color=dyn.color(preset), alpha=0.12)
    return low


def _goal_blind(runs: list[Run]) -> bool:
    """Whether the runs were evaluated without a goal token (condition ``none``)."""
    return any("none" in e.get("conditions", {}) for r in runs for e in r.step_evals.values())


def _keys(fig: Figure, axes, entries: list[tuple[str, str]], loc: str) -> None:
    """The arms (colour, n) in panel (a) at ``loc``; the goals' line styles and the band below."""
    arm_handles = [Line2D([], [], color=c, lw=1.6, label=t) for t, c in entries]
    axes[0].legend(handles=arm_handles, fontsize=6.5, loc=loc)
    styles = [Line2D([], [], color="0.3", ls=ls, lw=1.2, label=t) for _, ls, t in GOALS]
    band = Patch(facecolor="0.3", alpha=0.15, label=BAND_KEY)
    fig.legend(handles=[*styles, band], loc="lower center", ncol=3, bbox_to_anchor=(0.5, -0.06))


def draw(
    paths: list, titles: Mapping[str, str], width: float = 13, key: str = "lower right"
) -> Figure:
    """One panel per decision kind of ``titles`` (kind -> panel title), every arm of the run
    folders ``paths`` on each (module docstring), the arms' key at ``key`` in panel (a)."""
    kinds = tuple(titles)
    groups = dyn.by_preset(paths)
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, len(kinds), figsize=(width, 3.6), constrained_layout=True)
        entries = []
        for preset, rs in groups.items():
            low = _draw_arm(axes, preset, rs, kinds)
            tag = "" if low else ", no goal token" if _goal_blind(rs) else ", high goal only"
            entries.append((f"{dyn.label(preset)} (n={len(rs)}{tag})", dyn.color(preset)))
        for ax, kind, letter in zip(axes, kinds, "abcdefgh"[: len(kinds)], strict=True):
            ax.set_title(titles[kind])
            ax.set_xlabel("RL step")
            ax.set_ylim(0, 1.02)
            fs.panel_label(ax, letter)
        axes[0].set_ylabel("held-out decisions right (greedy)")
        _keys(fig, axes, entries, key)
    return fig


def make_figure(runs: dict) -> Figure:
    paths = committed_runs(ARMS)
    if not paths:
        raise FileNotFoundError(f"no committed run of {ARMS} under {ROOT}")
    return draw(paths, {k: TITLES[k] for k in KINDS})
