r"""The paper's Fig. 2 in the regime it is about: the collapse testbed's factorial.

The panels of :mod:`analysis.campaigns.pool.fig_rl_spread_reward`, drawn by its code, on the
committed runs of the collapse campaign's factorial
(:func:`analysis.campaigns.collapse.runs.committed_runs`; ``collapse1-d10``, G = 5, p = ½,
lr 1e-5, 200 steps; n per arm in the legend): (a) within-group advantage spread
:math:`\max_j A_j-\min_j A_j`; (b) training reward (RC arms: both goals); (c) held-out
success at every evaluation step, RC arms under the high goal (1,000 tasks at steps 0 and
200, 200 between).
"""

from __future__ import annotations

from matplotlib.figure import Figure

from analysis.campaigns.collapse import runs as collapse_runs
from analysis.campaigns.pool import fig_rl_spread_reward as pool
from analysis.figures import dynamics as dyn

REQUIRES: tuple[str, ...] = ()
INPUTS = collapse_runs.inputs()
"""Files the figure reads (repository-relative)."""
CAPTION = (
    "Fig. 2 analogue where SFT + GRPO collapses (collapse1-d10, tiny Qwen2, CPU, G = 5, p = 1/2, "
    "lr 1e-5; n per arm in the legend): (a) within-group advantage spread max A - min A and "
    "(b) training reward over RL steps for the four factorial cells (seed mean, 95% t-band, "
    f"{dyn.SMOOTH}-step trailing mean); (c) held-out success at each evaluation step (RC arms "
    "under the high goal; 1,000 tasks at steps 0 and 200, 200 between; seed mean with 95% "
    "t-interval)."
)


def make_figure(runs: dict) -> Figure:
    return pool.make_figure({"factorial": collapse_runs.require_runs()})
