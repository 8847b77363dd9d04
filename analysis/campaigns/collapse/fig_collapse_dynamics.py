r"""The collapse testbed's factorial: observed collapse against its i.i.d. prediction.

The panels of :mod:`analysis.campaigns.pool.fig_rl_collapse`, drawn by its code, on the committed
runs of the collapse campaign's factorial
(:func:`analysis.campaigns.collapse.runs.committed_runs`; ``collapse1-d10``, G = 5, p = ½,
lr 1e-5; n per arm in the legend): (a) the share of zero-variance groups with the pooled
Def. 4.1 prediction :math:`\bar s^G + (1-\bar s)^G` from the batch success rate (dashed): a
share above the prediction means the success is concentrated on some tasks (all-fail groups
on the tasks whose decision the policy gets wrong), not spread evenly; (b) mean advantage gap;
(c) mean within-group reward variance; (d) training success under the evaluation goal (RC
arms: high-goal rollouts; dotted: low-goal ones).
"""

from __future__ import annotations

from matplotlib.figure import Figure

from analysis.campaigns.collapse import runs as collapse_runs
from analysis.campaigns.pool import fig_rl_collapse as pool
from analysis.figures import dynamics as dyn

REQUIRES: tuple[str, ...] = ()
INPUTS = collapse_runs.inputs()
"""Files the figure reads (repository-relative)."""
CAPTION = (
    "RL dynamics where SFT + GRPO collapses (collapse1-d10, tiny Qwen2, CPU, G = 5, p = 1/2, "
    "lr 1e-5; n per arm in the legend): (a) fraction of zero-variance groups, observed (solid) "
    "and predicted from the batch success rate, s^G + (1-s)^G (dashed); (b) mean advantage "
    "gap; (c) mean group reward variance; (d) training success rate (RC arms: high-goal "
    f"rollouts, dotted: low-goal). Mean over seeds with 95% t-bands, {dyn.SMOOTH}-step "
    "trailing mean."
)


def make_figure(runs: dict) -> Figure:
    return pool.make_figure({"factorial": collapse_runs.require_runs()})
