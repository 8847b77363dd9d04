r"""The collapse testbed's runs on the theory map: mode separation against Prop. 4.3's bound.

The panels of :mod:`analysis.campaigns.pool.fig_rl_separation_entropy`, drawn by its code, on the
committed runs of the collapse campaign's factorial and mechanism arms
(:func:`analysis.campaigns.collapse.runs.committed_runs`; ``collapse1-d10``, G = 5, p = ½):
(a, b) per Stage-1 start, each arm's seed-mean trajectory of (pooled mode separation, token
entropy) over the guaranteed :math:`E[\sigma_g^2]` at the runs' G and p; (c) the observed mean
group variance per step against Prop. 4.3's bound :math:`\kappa\hat\varepsilon^2`
(κ = 0.2 at G = 5, p = ½) from the measured separation.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from analysis.campaign.arms import arms
from analysis.campaigns.collapse import runs as collapse_runs
from analysis.campaigns.pool import fig_rl_separation_entropy as pool

REQUIRES: tuple[str, ...] = ()
ARMS = collapse_runs.FACTORIAL + tuple(
    a.preset
    for a in arms("collapse", "collapse-mechanisms")
    if a.preset.startswith("collapse-rcgrpo")
)
"""The factorial and the RC mechanism arms (two goals in a group); the G = 3 arm has one."""
INPUTS = collapse_runs.inputs(ARMS)
"""Files the figure reads (repository-relative)."""
CAPTION = (
    "The collapse testbed's runs over theory (collapse1-d10, G = 5, p = 1/2; n in the legend): "
    "(a, b) per Stage-1 start, each arm's seed-mean trajectory of pooled mode separation and "
    "token entropy over RL (circle = start, square = end; dotted: entropy of the high-goal "
    "rollouts) over the guaranteed E[sigma_g^2] of the two-mode model; arms without two goals "
    "in a group sit at separation 0; (c) observed mean group variance per step against the "
    "Prop. 4.3 bound kappa * eps^2 from the measured separation (kappa = 0.2)."
)


def make_figure(runs: dict) -> Figure:
    return pool.make_figure({"factorial": collapse_runs.require_runs(ARMS), "baselines": []})
