r"""Theory figure: where reward-conditioned sampling can add learning speed, by transfer ρ.

The predicted relative gain in the high goal's learning speed of RC-GRPO over RCTP-FT + GRPO,
:math:`\dot s_h^{RC}/\dot s_h^{GRPO}-1`, over the start (s_h, s_l), G = 5, p = ½, for
ρ ∈ {0, ½, 1} (:func:`analysis.theory.transfer.learning_speed`); top: the expected update
(plain gradient ascent), bottom: noise-bound (Adam in a noise-dominated regime, speed / √V).
The black contour is 0: inside it RC sampling can add speed. The dashed line is s_l = s_h
(an inert token sits on it, where ρ = 1 gives exactly GRPO); below it, left of s_h = ½, no ρ
gains (the statement ``transfer`` of ``python -m analysis.theory check``).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure

from analysis.figures import style as fs
from analysis.theory.transfer import learning_speed

REQUIRES: tuple[str, ...] = ()
CAPTION = (
    "Predicted relative gain in the high goal's learning speed of RC-GRPO over RCTP-FT + GRPO "
    "over the start (s_h, s_l), G = 5, p = 1/2, for transfer rho = 0, 1/2, 1; top: expected "
    "update, bottom: noise-bound (Adam-like); black contour: zero gain."
)
RHOS = (0.0, 0.5, 1.0)
GRID = np.linspace(0.03, 0.97, 33)


def relative_gain(rho: float, noise: bool, grid: np.ndarray = GRID) -> np.ndarray:
    """[len(grid) (s_l), len(grid) (s_h)] ṡ_h(RC-GRPO) / ṡ_h(RCTP-FT + GRPO) − 1."""
    out = np.empty((grid.size, grid.size))
    for i, s_low in enumerate(grid):
        for j, s_high in enumerate(grid):
            rc = learning_speed("rc_grpo", s_high, s_low, rho, noise=noise)[0]
            grpo = learning_speed("rctp_grpo", s_high, s_low, rho, noise=noise)[0]
            out[i, j] = rc / grpo - 1.0
    return out


def _panel(ax, gain: np.ndarray, title: str):
    norm = TwoSlopeNorm(vmin=-1.0, vcenter=0.0, vmax=1.0)
    mesh = ax.pcolormesh(
        GRID, GRID, np.clip(gain, -1.0, 1.0), cmap="RdBu", norm=norm, shading="nearest"
    )
    if gain.min() < 0 < gain.max():
        ax.contour(GRID, GRID, gain, levels=[0.0], colors=fs.BLACK, linewidths=1.2)
    ax.plot([0, 1], [0, 1], color=fs.BLACK, ls="--", lw=0.8)
    ax.axvline(0.5, color=fs.BLACK, ls=":", lw=0.6)
    ax.set(xlim=(0, 1), ylim=(0, 1), xlabel=r"$s_h$", ylabel=r"$s_l$", title=title)
    return mesh


def make_figure(runs: dict) -> Figure:
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(2, 3, figsize=(10.5, 6.6), layout="constrained")
        mesh = None
        for row, (noise, label) in enumerate(((False, "expected update"), (True, "noise-bound"))):
            for col, rho in enumerate(RHOS):
                title = rf"{label}, $\rho={rho:g}$"
                mesh = _panel(axes[row, col], relative_gain(rho, noise), title)
        for ax, letter in zip(axes.ravel(), "abcdef", strict=True):
            fs.panel_label(ax, letter)
        fig.colorbar(mesh, ax=axes, shrink=0.8, label="RC-GRPO / RCTP-FT + GRPO speed − 1")
    return fig
