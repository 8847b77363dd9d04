r"""The regime suite: where the RC-GRPO update comes from (between/within-goal split).

The panels of :mod:`analysis.campaigns.pool.fig_rl_advantage_split`, drawn by its code, on the
committed runs of the new regime's factorial
(:func:`analysis.campaigns.regime_d10.fig_regime_factorial.committed_runs`) that sample reward goals:
(a) share of the advantage weight carried by the between-goal part :math:`b_j`, dotted with
the goals shuffled inside each group; (b) within-goal share of the high-goal rollouts'
advantage weight; (c) mean :math:`|b_j|` (dashed) and :math:`|w_j|` (solid).
"""

from __future__ import annotations

from matplotlib.figure import Figure

from analysis.campaigns.pool import fig_rl_advantage_split as pool
from analysis.campaigns.regime_d10 import fig_regime_factorial as factorial
from analysis.figures import dynamics as dyn

REQUIRES: tuple[str, ...] = ()
INPUTS = factorial.INPUTS
"""Files the figure reads (repository-relative)."""
CAPTION = (
    "The regime suite, where the update comes from: (a) share of the advantage weight "
    "carried by the between-goal part (mu_r - mu_g)/(sigma_g + eps), dotted: with the goals "
    "shuffled inside each group; (b) within-goal share of the high-goal rollouts' advantage "
    "weight; (c) mean |between| (dashed) and |within| (solid) parts, for the factorial arms "
    "that sample reward goals (every committed seed but the reserved 7-10, n in the legend). Seed mean with 95% "
    f"t-bands, {dyn.SMOOTH}-step trailing mean."
)


def make_figure(runs: dict) -> Figure:
    return pool.make_figure({"factorial": factorial.require_runs()})
