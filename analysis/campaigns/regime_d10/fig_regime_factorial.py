r"""The new regime's factorial: {SFT, RCTP-FT} × {GRPO, RC sampling} on the regime suite.

Reads the committed runs ``results/regime/<arm>-s<seed>`` of the ``regime-factorial`` arms
(:data:`analysis.campaign.arms.ARMS`) on every seed the registered verdicts count (the RCTP-FT arms
on the admitted seeds :data:`analysis.campaigns.regime_d10.population.ADMITTED`, not the intention-to-treat
runs; the reserved seeds :data:`analysis.verdicts.rules.RESERVED_SEEDS` never enter); an arm
with no run yet is left out and the legend gives each arm's n. (a) greedy held-out success
against the RL step (RC arms under the high goal; 1,000 tasks at the first and last
evaluation, 200 between; the SFT + GRPO proof runs of seeds 0–2 are evaluated at steps 0, 100
and 200 only), seed mean with 95% t band; (b) held-out
success at step 0 (hatched) and at the end (filled); (c) the share of collapsed groups
(σ_g = 0) over training; (d) the share of *informative* groups, whose same-goal rollouts have
mixed rewards (:mod:`analysis.verdicts.groups`; under GRPO informative = not collapsed). Bars:
seed mean with 95% t-CI, dots are seeds.
"""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from analysis import REPO_ROOT
from analysis.campaign.arms import arms
from analysis.campaigns.regime_d10.population import counts
from analysis.figures import dynamics as dyn
from analysis.figures import style as fs
from analysis.runs.folder import is_finished, light_globs
from analysis.verdicts import groups as rg

REQUIRES: tuple[str, ...] = ()
ROOT = "results/regime"
ARMS = tuple(a.preset for a in arms("regime-d10", "regime-factorial"))


def committed_runs(presets: tuple[str, ...] = ARMS) -> list[Path]:
    """The finished committed runs ``<arm>-s<seed>`` of ``presets`` (default: the factorial
    arms) on the seeds that count in the registered (admitted) population, in that order (what
    the regime's dynamics figures read; :func:`analysis.campaigns.regime_d10.population.counts`)."""
    out = []
    for arm in presets:
        for path in sorted((REPO_ROOT / ROOT).glob(f"{arm}-s*")):
            seed = re.fullmatch(re.escape(arm) + r"-s(\d+)", path.name)
            if seed and counts(arm, int(seed[1]), "admitted") and is_finished(path):
                out.append(path)
    return out


INPUTS: tuple[str, ...] = tuple(
    g for p in committed_runs() for g in light_globs(p.relative_to(REPO_ROOT).as_posix(), REPO_ROOT)
)
"""Files the figure reads (repository-relative): the light files of :func:`committed_runs`."""
CAPTION = (
    "The regime suite's factorial (tiny Qwen2, CPU; every committed seed but the reserved "
    "7-10, n per arm in the legend): (a) greedy held-out success against the RL step, RC arms "
    "under the high goal (1,000 tasks at the first and last evaluation, 200 between; the SFT "
    "+ GRPO proof runs of seeds 0-2 at steps 0, 100, 200), seed mean with 95% t band; (b) "
    "held-out success at step 0 (hatched) and at the end (filled); (c) collapsed groups "
    "(sigma_g = 0) and (d) informative groups (same-goal rollouts with mixed rewards) over "
    "training. Bars: seed mean with 95% t-CI, dots are seeds."
)


INTERVALS = (
    "Intervals over seeds (n per arm in the legend of a): (a) band = 95% t-interval of the "
    "seed mean; (b)-(d) bar = seed mean, error bar = 95% t-interval, dots = seeds"
)
"""The interval types, written under the panels."""


def require_runs() -> list[Path]:
    """:func:`committed_runs`; FileNotFoundError when there is none."""
    paths = committed_runs()
    if not paths:
        raise FileNotFoundError(
            f"no committed factorial run under {ROOT} (docs/results/regime-d10.md)"
        )
    return paths


def groups_by_arm() -> dict[str, list]:
    """Arm -> its committed runs on the factorial seeds, in :data:`ARMS` order."""
    return dyn.by_preset(require_runs())


def _group_share(share):
    return lambda run: share(rg.group_table(run.rollouts))


def make_figure(runs: dict) -> Figure:
    groups = groups_by_arm()
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, 4, figsize=(16, 3.4), constrained_layout=True)
        ax = axes[0]
        for preset, rs in groups.items():
            dyn.plot_band(ax, rs, "reward/eval_success", preset, smooth=1, marker="o", ms=3)
        ax.set_xlabel("RL step")
        ax.set_ylabel("greedy held-out success")
        ax.set_ylim(0, 1)
        ax.legend(fontsize=6.5, loc="lower right")
        for key, x0, hatch, tag in (
            (dyn.first_value, -0.2, "//", "step 0"),
            (dyn.last_value, 0.2, None, "end"),
        ):
            dyn.seed_bars(
                axes[1],
                groups,
                lambda r, f=key: f(r, "reward/eval_success"),
                "held-out success",
                x0=x0,
                width=0.38,
                hatch=hatch,
                tag=tag,
            )
        axes[1].set_ylim(0, 1.15)
        axes[1].legend(loc="upper center", ncol=2)
        dyn.seed_bars(axes[2], groups, _group_share(rg.collapse_share), "collapsed groups")
        dyn.seed_bars(axes[3], groups, _group_share(rg.informative_share), "informative groups")
        for ax in axes[2:]:
            ax.set_ylim(0, 1)
        for ax, letter in zip(axes, "abcd", strict=True):
            fs.panel_label(ax, letter)
        fig.supxlabel(INTERVALS, fontsize=7.5)
    return fig
