r"""Each swap decision of the collapse testbed, right under each goal over RL, per arm.

The panels of :mod:`analysis.campaigns.regime_d10.fig_regime_decision_kinds`, drawn by its code, on the
committed runs of every arm of the collapse campaign
(:func:`analysis.campaigns.collapse.runs.committed_runs`; ``collapse1-d10``, G = 5, lr 1e-5): per
swap kind (:data:`rcgrpo.env.synth_demo.SWAP_DECISIONS`), the share of its held-out
occurrences decided right, greedy (``decisions.per_kind`` of each ``eval/step_N.json``),
against the RL step, under the high goal (solid; the SFT-start GRPO arm, which has no goal
token, at its one condition) and the low goal (dotted). Where SFT + GRPO collapses, it is these
decisions the demonstrator got wrong (0.98 of its demonstrations) that a run must learn, one
kind at a time (``docs/lab-notes/2026-12-collapse-design.md``). Seed mean with 95% t band;
1,000 held-out tasks at steps 0 and 200, 200 between.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from analysis.campaign.arms import arms
from analysis.campaigns.collapse import runs as collapse_runs
from analysis.campaigns.regime_d10 import fig_regime_decision_kinds as kinds
from rcgrpo.env.synth_demo import SWAP_DECISIONS

REQUIRES: tuple[str, ...] = ()
ARMS = tuple(a.preset for a in arms("collapse"))
"""Every arm of the campaign: the factorial, then the mechanism arms."""
INPUTS = collapse_runs.inputs(ARMS)
"""Files the figure reads (repository-relative)."""
TITLES = {
    "delete_view": "delete_view: delete, not view",
    "rename_copy": "rename_copy: mv, not cp",
    "resolve_close": "resolve_close: resolve, not close",
    "comment_post": "comment_post: comment, not post",
}
CAPTION = (
    "The collapse testbed's swap decisions over RL (collapse1-d10, tiny Qwen2, CPU, G = 5, lr "
    "1e-5; n per arm in the legend): per swap kind, the share of its held-out occurrences "
    "decided right, greedy, under the high goal (solid; SFT + GRPO, which has no goal token, at "
    "its one condition) and the low goal (dotted); seed mean with 95% t band; 1,000 held-out "
    "tasks at steps 0 and 200, 200 between."
)


def make_figure(runs: dict) -> Figure:
    return kinds.draw(
        collapse_runs.require_runs(ARMS),
        {k: TITLES[k] for k in SWAP_DECISIONS},
        width=16,
        key="upper left",
    )
