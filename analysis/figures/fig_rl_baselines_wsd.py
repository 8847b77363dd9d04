r"""The collapse fixes of :mod:`analysis.figures.fig_rl_baselines` from the ``stage1-wsd``
SFT checkpoint (experiments ``factorial-wsd`` and ``baselines-wsd``): DAPO, entropy bonus,
higher temperature and Dr. GRPO where GRPO's zero-variance groups are partly all-pass."""

from __future__ import annotations

from matplotlib.figure import Figure

from analysis.figures import fig_rl_baselines

REQUIRES: tuple[str, ...] = ("factorial-wsd", "baselines-wsd")
CAPTION = (
    "Other fixes for advantage collapse from the curriculum + WSD Stage 1 (SFT held-out ~0.6) "
    "against GRPO and RC-GRPO (same seed): (a) zero-variance fraction of the generated groups "
    "(DAPO: before filtering); (b) advantage gap; (c) policy entropy of the sampled tokens; "
    "(d) held-out success (greedy)."
)


def make_figure(runs: dict) -> Figure:
    return fig_rl_baselines.make_figure(runs, "factorial-wsd", "baselines-wsd")
