r"""Theory figure: group reward variance over mode separation × policy entropy.

Worst case (a) and best case (b) of :math:`E[\sigma_g^2]` over all reward-conditioned
policies with separation :math:`\Delta=\mu_h-\mu_l` and mean conditional entropy
:math:`\bar H` (binary reward, G = 5, p = ½, 8 equivalent trajectories per outcome; see
:mod:`analysis.theory.separation_entropy`). White contours: levels of :math:`E[\sigma_g^2]`.
Grey: no policy has that (Δ, H̄).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from analysis.figures import style as fs
from analysis.theory.separation_entropy import variance_envelope

REQUIRES: tuple[str, ...] = ()
CAPTION = (
    "Worst-case (left) and best-case (right) expected group reward variance over all "
    "reward-conditioned policies with mode separation Delta and mean conditional entropy H "
    "(binary reward, G = 5, p = 1/2, 8 equivalent trajectories per outcome): the guaranteed "
    "variance grows with Delta and does not depend on entropy; at Delta = 0 (no separation) "
    "no entropy guarantees any variance."
)

GROUP, P, PARAPHRASES = 5, 0.5, 8


def make_figure(runs: dict) -> Figure:
    delta = np.linspace(0.0, 1.0, 241)
    h_max = np.log(2) + np.log(PARAPHRASES)
    entropy = np.linspace(0.0, h_max, 241)
    lo, hi = variance_envelope(delta, entropy, GROUP, P, PARAPHRASES)
    vmax = (GROUP - 1) / GROUP * 0.25
    with plt.rc_context(fs.RC | {"axes.grid": False}):
        fig, axes = plt.subplots(1, 2, figsize=(8.8, 3.6), sharey=True, layout="constrained")
        titles = ("guaranteed: min over policies", "attainable: max over policies")
        for ax, data, title, letter in zip(axes, (lo, hi), titles, "ab", strict=True):
            ax.set_facecolor("0.88")
            mesh = ax.pcolormesh(
                delta,
                entropy,
                data,
                cmap="viridis",
                vmin=0.0,
                vmax=vmax,
                shading="auto",
                rasterized=True,
            )
            levels = [0.02, 0.05, 0.1, 0.15, 0.19]
            cs = ax.contour(
                delta,
                entropy,
                np.ma.masked_invalid(data),
                levels=levels,
                colors="white",
                linewidths=0.7,
            )
            ax.clabel(cs, fmt="%.2f", fontsize=6.5)
            ax.set(
                xlim=(0, 1),
                ylim=(0, h_max),
                xlabel=r"mode separation $\Delta=\mu_h-\mu_l$",
                title=title,
            )
            fs.panel_label(ax, letter)
        axes[0].set_ylabel(r"mean conditional entropy $\bar H$ (nats)")
        axes[0].annotate(
            "no separation:\nno guaranteed variance\nat any entropy",
            xy=(0.005, 1.6),
            xytext=(0.09, 0.8),
            color="white",
            fontsize=7.5,
            va="center",
            arrowprops={"arrowstyle": "->", "color": "white", "lw": 0.8},
        )
        cbar = fig.colorbar(mesh, ax=axes, shrink=0.9, pad=0.02)
        cbar.set_label(r"$E[\sigma_g^2]$  ($G=5$, $p=1/2$)")
    return fig
