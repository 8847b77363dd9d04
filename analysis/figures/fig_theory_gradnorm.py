r"""Theory figure: the GRPO policy-gradient norm vanishes as :math:`\varepsilon_{sft}\to0`.

Tabular softmax policies on peaked trees (every node puts :math:`e^{-\varepsilon_{sft}}` on
action 0, reward 1 only on :math:`\tau^*`), G = 5, :math:`\varepsilon_{stab}=10^{-6}`.
(a) T = 2, A = 3: :math:`E\|g\|` and :math:`\|E g\|` exact (all multisets of 5 leaves).
(b) T = 4, A = 4 (256 trajectories): :math:`E\|g\|` by Monte Carlo (16 000 groups, 5σ bars).
Both with the bounds :math:`\sqrt{2T}(1-P(R_1=\dots=R_G))` and :math:`\sqrt{2T}\,GT\varepsilon_{sft}`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.figure import Figure

from analysis.figures import style as fs
from analysis.theory.peaked import gradient_norm_bound
from analysis.theory.tree_policy import (
    grpo_gradient_exact,
    grpo_gradient_mc,
    leaf_probabilities,
    make_tree_policy,
)

REQUIRES: tuple[str, ...] = ()
CAPTION = (
    "Expected norm of the GRPO policy gradient of one group (G = 5) for tabular softmax "
    "policies on peaked trees vs the per-step KL eps_sft: exact for T = 2, A = 3, Monte Carlo "
    "for T = 4, A = 4; it vanishes linearly, under sqrt(2T)(1 - P(rewards equal)) <= "
    "sqrt(2T) G T eps_sft."
)

GROUP = 5
EPS = np.logspace(-3, 0, 16)


def _setup(depth: int, actions: int, eps: float):
    tree = make_tree_policy(depth, actions, np.full(depth, eps), off_path="peaked")
    rewards = np.zeros(tree.num_leaves)
    rewards[0] = 1.0
    p_success = leaf_probabilities(tree)[0]
    p_equal = p_success**GROUP + (1 - p_success) ** GROUP
    return tree, rewards, gradient_norm_bound(depth, p_equal)


def _bounds(ax, depth: int, bounds: list[float]) -> None:
    ax.plot(EPS, bounds, color=fs.BOUND, label=r"$\sqrt{2T}\,(1-P(R_1=\dots=R_G))$")
    ax.plot(
        EPS,
        np.sqrt(2 * depth) * GROUP * depth * EPS,
        color=fs.BOUND_2,
        ls="--",
        label=r"$\sqrt{2T}\,GT\varepsilon_{sft}$",
    )


def _panel_exact(ax, depth: int = 2, actions: int = 3) -> None:
    mean_norm, norm_mean, bounds = [], [], []
    for eps in EPS:
        tree, rewards, bound = _setup(depth, actions, eps)
        ex = grpo_gradient_exact(tree, rewards, GROUP)
        mean_norm.append(ex["mean_norm"])
        norm_mean.append(ex["norm_of_mean"])
        bounds.append(bound)
    ax.plot(EPS, mean_norm, "o-", color=fs.EXACT, ms=3.5, label=r"$E\,\|g\|$ (exact)")
    ax.plot(EPS, norm_mean, "s-", color=fs.SKY, ms=3.0, label=r"$\|E\,g\|$ (exact)")
    _bounds(ax, depth, bounds)
    ax.set_title(rf"exact: $T={depth}$, $A={actions}$, $G={GROUP}$")


def _panel_mc(ax, depth: int = 4, actions: int = 4, num_groups: int = 16_000) -> None:
    gen = torch.Generator().manual_seed(0)
    means, errs, bounds = [], [], []
    for eps in EPS:
        tree, rewards, bound = _setup(depth, actions, eps)
        norms = grpo_gradient_mc(tree, rewards, GROUP, num_groups, gen)
        means.append(norms.mean())
        errs.append(5 * norms.std(ddof=1) / np.sqrt(num_groups))
        bounds.append(bound)
    means, errs = np.array(means), np.array(errs)
    ax.errorbar(
        EPS,
        means,
        yerr=np.minimum(errs, means * 0.999),
        fmt="o-",
        color=fs.MC,
        ms=3.5,
        capsize=2,
        lw=1.2,
        label=r"$E\,\|g\|$ (MC, $\pm5\sigma$)",
    )
    _bounds(ax, depth, bounds)
    ax.set_title(rf"Monte Carlo: $T={depth}$, $A={actions}$ ($256$ trajectories)")


def make_figure(runs: dict) -> Figure:
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, 2, figsize=(8.6, 3.5), sharey=True, layout="constrained")
        _panel_exact(axes[0])
        _panel_mc(axes[1])
        for ax, letter in zip(axes, "ab", strict=True):
            ax.set(
                xscale="log",
                yscale="log",
                xlim=(EPS[0], EPS[-1]),
                ylim=(2e-3, 30),
                xlabel=r"per-step KL on the optimal path $\varepsilon_{sft}$",
            )
            ax.legend(loc="lower right")
            fs.panel_label(ax, letter)
        axes[0].set_ylabel(r"GRPO gradient norm")
    return fig
