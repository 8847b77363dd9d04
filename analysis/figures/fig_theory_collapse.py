r"""Theory figure: collapse probability vs :math:`\varepsilon_{sft}` with Prop. 4.2's bounds.

(a) A peaked tree policy (T = 3 steps, A = 4 actions, G = 5; every node puts
:math:`e^{-\varepsilon_{sft}}` on action 0): the exact :math:`P(\tau_1=\dots=\tau_G)` (recursion over
the tree), :math:`P(\text{all}=\tau^*)` and the paper's bounds :math:`(1-T\varepsilon_{sft})^G` and
:math:`1-GT\varepsilon_{sft}`. (b) The counterexample of :mod:`analysis.theory.peaked`: past
:math:`T\varepsilon_{sft}=1` the middle bound is not a lower bound for even G.
(c) Def. 4.1 for binary rewards: :math:`s^G+(1-s)^G`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from analysis.figures import style as fs
from analysis.theory.collapse import collapse_probability_binary
from analysis.theory.peaked import linear_bound, power_bound
from analysis.theory.tree_policy import (
    TreePolicy,
    collapse_probability_tree,
    make_tree_policy,
    peaked_row,
)

REQUIRES: tuple[str, ...] = ()
CAPTION = (
    "Exact probability that a GRPO group of G = 5 rollouts is identical for a peaked tree "
    "policy (T = 3, A = 4) against the per-step KL eps_sft, with Prop. 4.2's bounds "
    "(1 - T eps)^G and 1 - G T eps; middle: the middle bound fails for T eps > 1 (G = 2, "
    "A = 101); right: Def. 4.1's s^G + (1 - s)^G for binary rewards."
)

DEPTH, ACTIONS, GROUP = 3, 4, 5


def _panel_tree(ax) -> None:
    eps = np.logspace(-4, 0, 160)
    trees = [make_tree_policy(DEPTH, ACTIONS, np.full(DEPTH, e), off_path="peaked") for e in eps]
    exact = [collapse_probability_tree(t, GROUP) for t in trees]
    ax.plot(eps, exact, color=fs.EXACT, lw=2.4, alpha=0.8, label=r"exact $P(\tau_1=\dots=\tau_G)$")
    ax.plot(
        eps,
        np.exp(-GROUP * DEPTH * eps),
        color=fs.BLACK,
        lw=1.0,
        ls="--",
        label=r"$P(\mathrm{all}=\tau^*)=e^{-GT\varepsilon_{sft}}$",
    )
    ax.plot(
        eps,
        [power_bound(DEPTH, e, GROUP) for e in eps],
        color=fs.BOUND,
        label=r"$(1-T\varepsilon_{sft})^G$",
    )
    lin = np.array([linear_bound(DEPTH, e, GROUP) for e in eps])
    ax.plot(eps[lin > -0.05], lin[lin > -0.05], color=fs.BOUND_2, label=r"$1-GT\varepsilon_{sft}$")
    ax.set(
        xscale="log",
        xlim=(eps[0], 1 / DEPTH),
        ylim=(-0.02, 1.02),
        xlabel=r"per-step KL on the optimal path $\varepsilon_{sft}$",
        ylabel=r"$P(\tau_1=\dots=\tau_G)$",
        title=rf"Prop. 4.2: peaked tree, $T={DEPTH}$, $A={ACTIONS}$, $G={GROUP}$",
    )
    ax.legend(loc="lower left")


def _panel_counterexample(ax) -> None:
    """T = 1, A = 101, pi(a*) = e^-eps, rest uniform, G = 2: (1 - eps)^2 fails past eps = 1."""
    eps = np.linspace(0.0, 3.0, 301)
    others = 100
    exact = [
        collapse_probability_tree(
            TreePolicy((peaked_row(np.exp(-e), np.ones(others))[None, :],)), 2
        )
        for e in eps
    ]
    ax.plot(eps, exact, color=fs.EXACT, lw=2.0, label=r"exact $P(\tau_1=\tau_2)$")
    ax.plot(eps, (1 - eps) ** 2, color=fs.BOUND, label=r"$(1-T\varepsilon_{sft})^G$")
    ax.plot(
        eps,
        np.maximum(0.0, 1 - eps) ** 2,
        color=fs.BOUND,
        lw=1.0,
        ls="--",
        label=r"$\max(0,1-T\varepsilon_{sft})^G$",
    )
    bad = (1 - eps) ** 2 > np.array(exact)
    ax.fill_between(eps, 0, 1.02, where=bad & (eps > 1), color=fs.BOUND, alpha=0.12, lw=0)
    ax.text(2.0, 0.62, "not a lower\nbound here", ha="center", fontsize=8, color=fs.BOUND)
    ax.set(
        xlim=(0, 3),
        ylim=(-0.02, 1.02),
        xlabel=r"$\varepsilon_{sft}$",
        ylabel=r"$P(\tau_1=\tau_2)$",
        title=r"needs $T\varepsilon_{sft}\leq 1$ ($T=1$, $A=101$, $G=2$)",
    )
    ax.legend(loc="upper right")


def _panel_binary(ax) -> None:
    s = np.linspace(0.0, 1.0, 401)
    for g, color in zip((2, 5, 8, 16), (fs.SKY, fs.BLUE, fs.GREEN, fs.BLACK), strict=True):
        ax.plot(s, [collapse_probability_binary(x, g) for x in s], color=color, label=rf"$G={g}$")
    ax.set(
        xlim=(0, 1),
        ylim=(0, 1.02),
        xlabel=r"success probability $s$",
        ylabel=r"$P(\sigma_g=0)=s^G+(1-s)^G$",
        title="Def. 4.1: binary reward",
    )
    ax.legend(loc="upper center")


def make_figure(runs: dict) -> Figure:
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(
            1, 3, figsize=(11.0, 3.4), width_ratios=(1.3, 1.0, 1.0), layout="constrained"
        )
        _panel_tree(axes[0])
        _panel_counterexample(axes[1])
        _panel_binary(axes[2])
        for ax, letter in zip(axes, "abc", strict=True):
            fs.panel_label(ax, letter)
    return fig
