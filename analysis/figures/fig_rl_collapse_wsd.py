r"""The training dynamics of :mod:`analysis.figures.fig_rl_collapse` for experiment
``factorial-wsd``: the 2×2 started from the ``sft-synth-cpu-wsd`` Stage 1 (SFT held-out
≈ 0.6), where Def. 4.1's collapse has both an all-pass and an all-fail part."""

from __future__ import annotations

from matplotlib.figure import Figure

from analysis.figures import fig_rl_collapse

REQUIRES: tuple[str, ...] = ("factorial-wsd",)
CAPTION = (
    "RL dynamics of the 2x2 factorial from the curriculum + WSD Stage 1 (SFT held-out ~0.6; "
    "synth suite, tiny Qwen2, CPU): (a) fraction of zero-variance groups, observed (solid) and "
    "predicted from the batch success rate, s^G + (1-s)^G (dashed); (b) mean advantage gap; "
    "(c) mean group reward variance; (d) training success rate. Mean over seeds with 95% "
    "t-bands, 5-step trailing mean."
)


def make_figure(runs: dict) -> Figure:
    return fig_rl_collapse.make_figure(runs, experiment="factorial-wsd")
