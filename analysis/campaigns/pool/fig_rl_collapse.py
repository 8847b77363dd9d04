r"""Training dynamics of the 2×2 factorial (the paper's Fig. 2 story, measured on CPU).

(a) Observed advantage collapse ``group/zero_var_frac`` (solid) with the pooled Def. 4.1
prediction :math:`\bar s^G + (1-\bar s)^G` from the batch success rate (dashed);
(b) mean advantage gap :math:`\max_j A_j - \min_j A_j`; (c) mean within-group reward
variance :math:`\sigma_g^2`; (d) success rate of the training rollouts under the goal the
held-out evaluation uses (RC arms: the high-goal rollouts; dotted: the low-goal ones). Seed
mean ± 95% t-band, trailing mean over ``dynamics.SMOOTH`` steps.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from analysis.figures import dynamics as dyn
from analysis.figures import style as fs

REQUIRES: tuple[str, ...] = ("factorial",)
CAPTION = (
    "RL dynamics of the 2x2 factorial {SFT, RCTP-FT} x {GRPO, RC sampling} on the synth "
    "suite (tiny Qwen2, CPU): (a) fraction of zero-variance groups, observed (solid) and "
    "predicted from the batch success rate, s^G + (1-s)^G (dashed); (b) mean advantage gap; "
    "(c) mean group reward variance; (d) training success rate (RC arms: high-goal rollouts, "
    "dotted: low-goal). Mean over seeds with 95% "
    f"t-bands, {dyn.SMOOTH}-step trailing mean."
)

PANELS = (
    ("group/zero_var_frac", "zero-variance groups"),
    ("adv/gap_mean", "advantage gap  max A - min A"),
    ("group/var_mean", r"group reward variance $\sigma_g^2$"),
    ("reward/success_rate", "training success rate"),
)
HIGH, LOW = "reward/success_high", "reward/success_low"
STYLE_KEYS = {
    0: (("-", "observed"), ("--", "predicted  $s^G + (1-s)^G$")),
    3: (("-", "high goal (GRPO arms: all rollouts)"), (":", "low goal (RC arms)")),
}
"""Panel -> (line style, meaning) of its curves, keyed below the panel (grey: any arm)."""
BAND_KEY = f"seed mean, 95% t-band; {dyn.SMOOTH}-step trailing mean"


def _logged(runs: list, key: str) -> bool:
    return any(key in r.metrics and r.metrics[key].notna().any() for r in runs)


def _keys(fig: Figure, axes, n_arms: int) -> None:
    """Every line style and band on the figure: the arms (colour) and the band under the
    panels, each panel's line styles below its axis (:data:`STYLE_KEYS`)."""
    for k, styles in STYLE_KEYS.items():
        handles = [Line2D([], [], color="0.3", ls=ls, lw=1.2, label=t) for ls, t in styles]
        axes[k].legend(
            handles=handles,
            fontsize=7,
            ncol=2,
            loc="upper center",
            bbox_to_anchor=(0.5, -0.2),
            handlelength=2.4,
        )
    handles, labels = axes[1].get_legend_handles_labels()
    band = Patch(color="0.3", alpha=0.15, lw=0, label=BAND_KEY)
    fig.legend([*handles, band], [*labels, BAND_KEY], loc="outside lower center", ncol=n_arms + 1)


def make_figure(runs: dict) -> Figure:
    groups = dyn.by_preset(runs["factorial"])
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, 4, figsize=(13.5, 3.2), constrained_layout=True)
        for k, (ax, (key, ylabel)) in enumerate(zip(axes, PANELS, strict=True)):
            for preset, rs in groups.items():
                if key == "reward/success_rate":  # under the evaluation goal, as the tables
                    dyn.plot_band(ax, rs, HIGH if _logged(rs, HIGH) else key, preset)
                    dyn.plot_band(ax, rs, LOW, preset, ls=":", lw=1.0, label=None, show_band=False)
                else:
                    dyn.plot_band(ax, rs, key, preset)
                if key == "group/zero_var_frac":
                    dyn.plot_band(
                        ax,
                        rs,
                        "group/zero_var_predicted_pooled",
                        preset,
                        ls="--",
                        lw=1.0,
                        label=None,
                        show_band=False,
                    )
            ax.set_xlabel("RL step")
            ax.set_ylabel(ylabel)
            fs.panel_label(ax, "abcd"[k])
        axes[0].set_ylim(-0.02, 1.02)
        axes[3].set_ylim(-0.02, 1.02)
        for ax in axes[1:3]:  # the t-band of 3 seeds may reach below 0; the values cannot
            ax.set_ylim(bottom=0)
        _keys(fig, axes, len(groups))
    return fig
