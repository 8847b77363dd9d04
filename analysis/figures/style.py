"""Shared look of every figure (theory, RL and Stage-1 figures in ``analysis/figures/``).

One rc dictionary (serif text with Computer-Modern mathtext so symbols match the paper,
light grid, no top/right spines) and one colour per quantity family. Figure modules use
``with plt.rc_context(RC): ...`` so nothing leaks into other figures.
"""

from __future__ import annotations

RC: dict = {
    "font.family": "serif",
    "font.serif": ["DejaVu Serif"],
    "mathtext.fontset": "cm",
    "font.size": 9,
    "axes.titlesize": 9.5,
    "axes.labelsize": 9.5,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.25,
    "grid.linewidth": 0.6,
    "lines.linewidth": 1.6,
    "legend.frameon": False,
    "figure.dpi": 100,
    "savefig.dpi": 200,
}

# Okabe-Ito palette (colour-blind safe)
BLACK, ORANGE, SKY, GREEN, YELLOW, BLUE, VERMILION, PURPLE = (
    "#000000",
    "#E69F00",
    "#56B4E9",
    "#009E73",
    "#F0E442",
    "#0072B2",
    "#D55E00",
    "#CC79A7",
)
PALETTE = {
    "black": BLACK,
    "orange": ORANGE,
    "sky": SKY,
    "green": GREEN,
    "yellow": YELLOW,
    "blue": BLUE,
    "vermilion": VERMILION,
    "purple": PURPLE,
}
"""Colour name (an arm's ``colour``, :data:`analysis.campaign.arms.COLOURS`) -> value."""
EXACT = BLUE  # exact values
BOUND = VERMILION  # the paper's bounds
BOUND_2 = ORANGE  # a second / derived bound
MC = BLACK  # Monte Carlo estimates
STRATIFIED = GREEN

METHOD_COLORS = {
    "grpo": BLACK,
    "grpo_tau2": ORANGE,
    "grpo_entropy": PURPLE,
    "rctp_grpo": SKY,
    "rc_grpo": VERMILION,
    "rc_grpo_unsep": VERMILION,
}


def panel_label(ax, letter: str) -> None:
    """Bold (a), (b), ... in the top-left corner outside the axes."""
    ax.text(-0.14, 1.04, f"({letter})", transform=ax.transAxes, fontweight="bold", va="bottom")
