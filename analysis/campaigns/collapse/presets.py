r"""The ``collapse`` campaign's presets: its Stage-1 presets ``sft-collapse`` /
``rctp-collapse`` / ``rctp-collapse-shuffled`` and one RL preset per arm of ``arms.py`` here
(built by :mod:`analysis.campaigns.presets` from :data:`BASE`, :data:`INITS` and
:data:`CHANGES`).

The ``collapse-*`` arms (:data:`analysis.campaigns.collapse.arms.REPEATS`; rules
``docs/protocols/collapse-campaign.md``) repeat the factorial and the separation arms on
``collapse1-d10``, the suite where SFT + GRPO collapses, from the Stage-1 checkpoints of
``sft-collapse`` / ``rctp-collapse``, at the design's RL recipe (``docs/lab-notes/
2026-12-collapse-design.md``, variant 4): G = 5 (the paper's), lr 1e-5 (at 1e-4 SFT + GRPO
learns the planted decision from a handful of successes within 50 steps; gate C). Each differs
from its ``regime-*`` arm only there; the rollout-matched arm runs G = 3 (RC-GRPO's mean 2.5
high-goal rollouts, rounded up). The control ``collapse-shuffled-grpo`` is
``collapse-rctp-grpo`` from another Stage-1 checkpoint: RCTP-FT trained with its goal labels
permuted within each mode (``rctp-collapse-shuffled``, ``goals.labels`` shuffled, so
:math:`P(g = high \mid r) = P(g = high)`); the comparison with ``collapse-rctp-grpo`` says
whether the RCTP-FT init's effect is the reward conditioning or its data
(``docs/protocols/collapse-control.md``).
"""

from __future__ import annotations

from typing import Any

from analysis.campaign.presets import HIGH, RC
from analysis.campaigns.regime_d10 import presets as regime
from analysis.campaigns.regime_wide1 import presets as wide1
from rcgrpo.train.presets import merge
from rcgrpo.train.stage1.config import RCTPConfig, SFTConfig, with_overrides

SFT_INIT = "runs/collapse/sft-collapse/final"
"""Stage-1 SFT checkpoint of the ``collapse-*`` presets (``sft-collapse``)."""
RCTP_INIT = "runs/collapse/rctp-collapse/final"
"""Stage-1 RCTP-FT checkpoint of the ``collapse-*`` presets (``rctp-collapse``)."""
SHUFFLED_INIT = "runs/collapse/rctp-collapse-shuffled/final"
"""Stage-1 checkpoint of ``collapse-shuffled-grpo``: RCTP-FT with its goal labels permuted
(``rctp-collapse-shuffled``)."""
INITS = {"sft": SFT_INIT, "rctp": RCTP_INIT, "rctp-shuffled": SHUFFLED_INIT}
"""The Stage-1 checkpoints, by an arm's ``start``."""
SUITE = "collapse1-d10 suite"
"""The synth suite its arms run on, as their presets' descriptions name it."""

BASE = merge(
    regime.BASE,
    init=SFT_INIT,
    tasks={"synth_preset": "collapse1-d10"},
    rollout={"group_size": 5},
    optim={"lr": 1e-5},
)
"""The base of the ``collapse`` arms: the ``regime-d10`` base on ``collapse1-d10`` at G = 5 and
lr 1e-5, the recipe of the design's pilots (``pilot-grpo-c4-s31``: ``--preset regime-grpo
--tasks.synth_preset collapse1-d10 --rollout.group_size 5 --optim.lr 1e-5``; a test checks)."""

CHANGES: dict[str, dict[str, dict[str, Any]]] = {
    "collapse-grpo": {},
    "collapse-sft-rc": {"algo": RC},
    "collapse-rctp-grpo": {"algo": HIGH},
    "collapse-rcgrpo": {"algo": RC},
    "collapse-rcgrpo-anchored": {"algo": {**RC, "low_goal_gradient": False}},
    "collapse-rcgrpo-goalnorm": {"algo": {**RC, "adv_scope": "goal"}},
    "collapse-rctp-grpo-g3": {"algo": HIGH, "rollout": {"group_size": 3}},
    "collapse-shuffled-grpo": {"algo": HIGH},
}
"""Per arm of ``arms.py`` here: its values against :data:`BASE`."""

# The collapse testbed (docs/lab-notes/2026-12-collapse-design.md, variants 2 and 5), as its
# changes to the regime-wide1 presets: the suite "collapse1-d10" (one swap per task, wrong in
# 0.98 of the demonstrations), from the pool SFT sft-s3 on every seed, trained in runs/collapse;
# RCTP-FT keeps 1% of the swap tasks in its mix (variant 5: the design's gate R fails, its goals
# do not differ on the swap; no share tried separates them short of all, variants 1, 3, 5, 6).
SFT_COLLAPSE: SFTConfig = with_overrides(
    wide1.SFT_REGIME_WIDE1,
    model={"path": "results/campaign/sft-s3/final"},
    sft={"synth_preset": "collapse1-d10"},
    run={"root": "runs/collapse", "name": "sft-collapse"},
)
RCTP_COLLAPSE: RCTPConfig = with_overrides(
    wide1.RCTP_REGIME_WIDE1,
    model={"path": SFT_INIT},
    sft={"synth_preset": "collapse1-d10"},
    failures={"policy": SFT_INIT, "skip_keep": 0.01},
    run={"root": "runs/collapse", "name": "rctp-collapse"},
)
# The control of the collapse campaign (docs/protocols/collapse-control.md): RCTP-FT's data,
# recipe and token format with its goal labels permuted, so the token says nothing of the reward.
RCTP_COLLAPSE_SHUFFLED: RCTPConfig = with_overrides(
    RCTP_COLLAPSE, goals={"labels": "shuffled"}, run={"name": "rctp-collapse-shuffled"}
)

STAGE1 = {
    "sft-collapse": SFT_COLLAPSE,
    "rctp-collapse": RCTP_COLLAPSE,
    "rctp-collapse-shuffled": RCTP_COLLAPSE_SHUFFLED,
}
"""The Stage-1 presets, each stated as its changes to the ``regime-wide1`` ones."""
DESCRIPTIONS = {
    "sft-collapse": "SFT on the collapse1-d10 suite, from the pool's sft-s3",
    "rctp-collapse": "RCTP-FT on collapse1-d10 from sft-collapse, 1% of the swap tasks kept",
    "rctp-collapse-shuffled": "rctp-collapse with its goal labels permuted (the control)",
}
"""Stage-1 preset -> its line in ``--help``."""
