r"""Reward-token modes during RL (the mechanism of Prop. 4.3).

(a) Training success under each token, :math:`\mu_h` (solid) and :math:`\mu_l` (dashed),
for the arms that sample tokens; (b) the between-mode share of the group variance,
:math:`\sum_g \mathrm{between}_g / \sum_g \sigma_g^2` (Lemma A.3); (c) held-out success
at the end of RL under ``<|high_reward|>`` and ``<|low_reward|>`` (greedy), seed mean
with 95% t-CI and one dot per seed.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from analysis.campaign.arms import roles
from analysis.figures import dynamics as dyn
from analysis.figures import style as fs

REQUIRES: tuple[str, ...] = ("factorial",)
CAPTION = (
    "Reward-token modes in RL: (a) training success under the high (solid) and low "
    "(dashed) token; (b) share of the group reward variance that lies between the two "
    "token modes; (c) held-out success after RL conditioned on the high token (filled) and "
    "the low token (hatched), mean over seeds with 95% t-CI."
)

TOKEN_ARMS = (roles("pool")["sft_rc"], roles("pool")["rctp_rc"])
"""The arms with i.i.d. reward goals (:data:`analysis.campaign.arms.ARMS`, by role)."""


def make_figure(runs: dict) -> Figure:
    groups = dyn.by_preset(runs["factorial"])
    tok = {p: rs for p, rs in groups.items() if p in TOKEN_ARMS}
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, 3, figsize=(12, 3.3), constrained_layout=True)
        ax = axes[0]
        for preset, rs in tok.items():
            dyn.plot_band(ax, rs, "reward/success_high", preset)
            dyn.plot_band(ax, rs, "reward/success_low", preset, ls="--", label=None)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("RL step")
        ax.set_ylabel("training success (— high, -- low)")
        ax.legend(loc="best")
        ax = axes[1]
        for preset, rs in tok.items():
            dyn.plot_band(ax, rs, "group/between_frac", preset)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("RL step")
        ax.set_ylabel("between-mode share of variance")
        ax = axes[2]
        ev = {
            p: rs
            for p, rs in groups.items()
            if any("reward/eval_success_low" in r.metrics for r in rs)
        } or tok
        dyn.seed_bars(
            ax,
            ev,
            lambda r: dyn.last_value(r, "reward/eval_success"),
            "held-out success after RL",
            x0=-0.2,
            width=0.38,
            tag="high token",
        )
        dyn.seed_bars(
            ax,
            ev,
            lambda r: dyn.last_value(r, "reward/eval_success_low"),
            "held-out success after RL",
            x0=0.2,
            width=0.38,
            hatch="//",
            tag="low token",
        )
        ax.set_ylim(0, 1.02)
        ax.legend(loc="upper left")
        for k, a in enumerate(axes):
            fs.panel_label(a, "abc"[k])
    return fig
