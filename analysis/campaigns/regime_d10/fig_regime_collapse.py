r"""The regime suite's training dynamics of the factorial (the paper's Fig. 2 analogue).

The panels of :mod:`analysis.campaigns.pool.fig_rl_collapse`, drawn by its code, on the committed
runs of the new regime's factorial (:func:`analysis.campaigns.regime_d10.fig_regime_factorial.committed_runs`:
``results/regime/<arm>-s<seed>``, every seed but the reserved ones, n per arm in the legend):
(a) observed advantage collapse with the pooled Def. 4.1 prediction from the batch success
rate (dashed); (b) mean advantage gap; (c) mean within-group reward variance; (d) training
success under the evaluation goal (RC arms: high-goal rollouts; dotted: low-goal ones).
"""

from __future__ import annotations

from matplotlib.figure import Figure

from analysis.campaigns.pool import fig_rl_collapse as pool
from analysis.campaigns.regime_d10 import fig_regime_factorial as factorial
from analysis.figures import dynamics as dyn

REQUIRES: tuple[str, ...] = ()
INPUTS = factorial.INPUTS
"""Files the figure reads (repository-relative)."""
CAPTION = (
    "RL dynamics of the regime suite's factorial {SFT, RCTP-FT} x {GRPO, RC sampling} (tiny "
    "Qwen2, CPU, G 8, fresh training tasks every step; every committed seed but the reserved 7-10, n per arm in "
    "the legend): (a) fraction of zero-variance groups, observed (solid) and predicted from "
    "the batch success rate, s^G + (1-s)^G (dashed); (b) mean advantage gap; (c) mean group "
    "reward variance; (d) training success rate (RC arms: high-goal rollouts, dotted: "
    f"low-goal). Mean over seeds with 95% t-bands, {dyn.SMOOTH}-step trailing mean."
)


def make_figure(runs: dict) -> Figure:
    return pool.make_figure({"factorial": factorial.require_runs()})
