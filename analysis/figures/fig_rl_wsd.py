r"""RL from the Stage 1 that meets the issue's targets: the factorial summary of
:mod:`analysis.figures.fig_rl_factorial` drawn for experiment ``factorial-wsd``.

Same panels as ``rl_factorial`` — (a) held-out success before (hatched) and after RL,
(b) mean zero-variance fraction, (c) mean advantage gap — but every arm starts from the
``sft-synth-cpu-wsd`` SFT checkpoint (held-out ≈ 0.6) or RCTP-FT from it, instead of the
campaign's Stage 1 (≈ 0.1), so groups can collapse to all-pass as well as all-fail.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from analysis.figures import fig_rl_factorial

REQUIRES: tuple[str, ...] = ("factorial-wsd",)
CAPTION = (
    "Factorial from the curriculum + WSD Stage 1 (SFT held-out ~0.6; synth suite, tiny "
    "Qwen2, CPU): (a) held-out success at RL step 0 (hatched) and at the last step (filled); "
    "(b) zero-variance group fraction and (c) advantage gap averaged over all RL steps. Seed "
    "mean with 95% t-CI, dots are seeds."
)


def make_figure(runs: dict) -> Figure:
    return fig_rl_factorial.make_figure(runs, experiment="factorial-wsd")
