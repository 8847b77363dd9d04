r"""Theory figure: Remark 4.4 on the exact two-mode model (GRPO vs RC-GRPO vs entropy raising).

Gradient ascent on the exact expected GRPO gradient (every group outcome enumerated),
G = 5, p = ½, lr = 1 (see :mod:`analysis.theory.dynamics`). (a) success probability of
the evaluated policy (high token, τ = 1); (b) norm of the update
:math:`\|\Delta z\|=\eta\|E[g]+\beta\nabla\bar H\|`; (c) expected group reward
variance with Prop. 4.3's κ; (d) the same variance against the mean conditional entropy of
the sampling policy along each run (○ start, □ end); grey: every policy without reward
tokens, :math:`\tfrac{G-1}{G}s(1-s)` against :math:`H_b(s)`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from analysis.figures import style as fs
from analysis.theory.dynamics import default_methods, simulate
from analysis.theory.two_mode import binary_entropy
from analysis.theory.variance_guarantee import kappa

REQUIRES: tuple[str, ...] = ()
CAPTION = (
    "Exact expected-gradient training of a two-mode policy (G = 5, p = 1/2): GRPO from a "
    "peaked start (success 0.002) stalls; temperature and an entropy bonus shorten the stall by "
    "raising entropy; RC-GRPO from a separated RCTP start keeps E[sigma_g^2] near kappa = 0.2 at "
    "low entropy, yet its update shrinks as its conditionals peak; without separation it stalls."
)

GROUP, P, STEPS = 5, 0.5, 400


def _reference_curve(ax) -> None:
    s = np.linspace(1e-6, 0.5, 400)
    ax.plot(
        binary_entropy(s),
        (GROUP - 1) / GROUP * s * (1 - s),
        color="0.6",
        lw=3.0,
        alpha=0.5,
        zorder=0,
    )


def make_figure(runs: dict) -> Figure:
    methods = default_methods()
    results = {name: simulate(m, STEPS) for name, m in methods.items()}
    steps = np.arange(STEPS)
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(2, 2, figsize=(8.6, 6.4), layout="constrained")
        (a, b), (c, d) = axes
        _reference_curve(d)
        for name, m in methods.items():
            out, color = results[name], fs.METHOD_COLORS[name]
            kw = {"color": color, "ls": m.style, "label": m.label}
            a.plot(steps, out["success"], **kw)
            b.plot(steps, out["update_norm"], **kw)
            c.plot(steps, out["variance"], **kw)
            d.plot(out["entropy"], out["variance"], color=color, ls=m.style, lw=1.2)
            d.plot(out["entropy"][0], out["variance"][0], "o", color=color, ms=4, mfc="white")
            d.plot(out["entropy"][-1], out["variance"][-1], "s", color=color, ms=4)
        k = kappa(GROUP, P)
        c.axhline(k, color=fs.BOUND, lw=0.8, ls="--")
        c.text(STEPS * 0.98, k + 0.004, rf"$\kappa={k:g}$", color=fs.BOUND, ha="right", fontsize=8)
        a.set(ylabel=r"success probability ($\tau=1$)", ylim=(-0.02, 1.02))
        b.set(ylabel=r"update norm $\|\Delta z\|$", yscale="log")
        c.set(ylabel=r"$E[\sigma_g^2]$", ylim=(0, 0.23))
        d.set(
            xlabel=r"mean conditional entropy $\bar H$ (nats)",
            ylabel=r"$E[\sigma_g^2]$",
            ylim=(0, 0.23),
            xlim=(0, 0.72),
        )
        for ax in (a, b, c):
            ax.set(xlabel="training step", xlim=(0, STEPS))
        d.text(
            0.04,
            0.178,
            "RC-GRPO: variance from\nseparation at low entropy",
            fontsize=7.5,
            color=fs.VERMILION,
            va="center",
        )
        d.annotate(
            "no reward token (all GRPO runs):\n"
            + r"$E[\sigma_g^2]=\frac{G-1}{G}s(1-s)$, set by $H_b(s)$",
            xy=(0.45, 0.12),
            xytext=(0.36, 0.05),
            fontsize=7.5,
            color="0.35",
            va="center",
            arrowprops={"arrowstyle": "->", "color": "0.5", "lw": 0.8},
        )
        for ax, letter in zip((a, b, c, d), "abcd", strict=True):
            fs.panel_label(ax, letter)
        handles, labels = a.get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=3)
    return fig
