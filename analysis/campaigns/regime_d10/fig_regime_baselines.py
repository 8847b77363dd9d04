r"""RC-GRPO against the regime's other arms from the same RCTP-FT start.

Every arm that starts from the RCTP-FT checkpoint: RCTP-FT + GRPO and RC-GRPO of the
factorial, then each other arm of the new regime with a committed run (DAPO dynamic sampling,
Dr. GRPO, the entropy-matched and stratified arms; :data:`analysis.campaign.arms.ARMS`), read from
``results/regime/<arm>-s<seed>`` on every seed but the reserved ones
(:func:`analysis.campaigns.regime_d10.fig_regime_factorial.committed_runs`), n per arm in the legend.
(a) greedy held-out success against the RL step (high goal; 1,000 tasks at the first and last
evaluation, 200 between), seed mean with 95% t band; (b) held-out success at the end;
(c) the share of zero-variance groups among the generated ones (``group/zero_var_frac``:
DAPO's before its filter) over training; (d) the high-goal-like token entropy
(:func:`analysis.campaigns.regime_d10.calibration.high_like_entropy`), the quantity the entropy-matched
arms are calibrated on. Bars: seed mean with 95% t-CI, dots are seeds.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from analysis import REPO_ROOT
from analysis.campaign.arms import arms
from analysis.campaigns.regime_d10 import population as pop
from analysis.campaigns.regime_d10.calibration import high_like_entropy
from analysis.campaigns.regime_d10.fig_regime_factorial import ROOT, committed_runs
from analysis.figures import dynamics as dyn
from analysis.figures import style as fs
from analysis.runs.folder import light_globs

REQUIRES: tuple[str, ...] = ()
OWN_FIGURE = ("regime-factorial", "regime-separation")
"""Experiments drawn by a figure of their own, not here."""
ARMS = (pop.RCTP_GRPO, pop.RCTP_RC) + tuple(
    a.preset for a in arms("regime-d10") if a.start == "rctp" and a.experiment not in OWN_FIGURE
)
"""RCTP-FT + GRPO, RC-GRPO, then the regime's other arms from the RCTP-FT start (the
mechanism arms of ``regime-separation`` excepted)."""
INPUTS: tuple[str, ...] = tuple(
    g
    for p in committed_runs(ARMS)
    for g in light_globs(p.relative_to(REPO_ROOT).as_posix(), REPO_ROOT)
)
"""Files the figure reads (repository-relative): the light files of the runs it draws."""
CAPTION = (
    "RC-GRPO against the regime suite's other arms from the same RCTP-FT start (tiny Qwen2, "
    "CPU, G 8; every committed seed but the reserved 7-10, n per arm in the legend): (a) "
    "greedy held-out success against the RL step (high goal), seed mean with 95% t band; (b) "
    "held-out success at the end; (c) zero-variance share of the generated groups (DAPO: "
    "before its filter) over training; (d) high-goal token entropy over training, the "
    "quantity the entropy-matched arms are calibrated on. Bars: seed mean with 95% t-CI, dots "
    "are seeds."
)


def make_figure(runs: dict) -> Figure:
    paths = committed_runs(ARMS)
    if not paths:
        raise FileNotFoundError(f"no committed run of {ARMS} under {ROOT}")
    groups = dyn.by_preset(paths)
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, 4, figsize=(16, 4.2), constrained_layout=True)
        # every arm starts from RCTP-FT: the bars name it without the init
        short = [dyn.label(p).removeprefix("RCTP-FT + ") for p in groups]
        for preset, rs in groups.items():
            dyn.plot_band(axes[0], rs, "reward/eval_success", preset, smooth=1, marker="o", ms=3)
        axes[0].set_xlabel("RL step")
        axes[0].set_ylabel("greedy held-out success")
        axes[0].set_ylim(0, 1)
        axes[0].legend(fontsize=6.5, loc="lower right")
        dyn.seed_bars(
            axes[1],
            groups,
            lambda r: dyn.last_value(r, "reward/eval_success"),
            "held-out success at the end",
            names=short,
        )
        axes[1].set_ylim(0, 1)
        dyn.seed_bars(
            axes[2],
            groups,
            lambda r: dyn.run_mean(r, "group/zero_var_frac"),
            "zero-variance groups (generated)",
            names=short,
        )
        axes[2].set_ylim(0, 1)
        dyn.seed_bars(
            axes[3],
            groups,
            lambda r: high_like_entropy(r.metrics),
            "high-goal token entropy (nats)",
            names=short,
        )
        for ax, letter in zip(axes, "abcd", strict=True):
            fs.panel_label(ax, letter)
    return fig
