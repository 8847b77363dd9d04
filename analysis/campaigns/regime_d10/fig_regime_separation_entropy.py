r"""The regime suite's runs on the theory map: separation and entropy over RL.

The panels of :mod:`analysis.campaigns.pool.fig_rl_separation_entropy`, drawn by its code, on the
committed runs of the new regime's factorial
(:func:`analysis.campaigns.regime_d10.fig_regime_factorial.committed_runs`; no baselines yet): (a, b) per
Stage-1 start, each arm's seed-mean trajectory of (pooled mode separation, token entropy)
over the guaranteed :math:`E[\sigma_g^2]` at the runs' G and p; (c) the observed mean group
variance per step against Prop. 4.3's bound :math:`\kappa\hat\varepsilon^2`.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from analysis.campaigns.pool import fig_rl_separation_entropy as pool
from analysis.campaigns.regime_d10 import fig_regime_factorial as factorial

REQUIRES: tuple[str, ...] = ()
INPUTS = factorial.INPUTS
"""Files the figure reads (repository-relative)."""
CAPTION = (
    "The regime suite's runs over theory (every committed seed but the reserved 7-10, n in the legend): (a, b) "
    "per Stage-1 start, each arm's seed-mean trajectory of pooled mode separation and token "
    "entropy over RL (circle = start, square = end; dotted: entropy of the high-goal "
    "rollouts) over the guaranteed E[sigma_g^2] of the two-mode model at the runs' G and p; "
    "arms without two goals in a group sit at separation 0; (c) observed mean group variance "
    "per step against the Prop. 4.3 bound kappa * eps^2 from the measured separation."
)


def make_figure(runs: dict) -> Figure:
    return pool.make_figure({"factorial": factorial.require_runs(), "baselines": []})
