"""The ``regime-wide1`` campaign's presets: its Stage-1 presets ``sft-regime-wide1`` /
``rctp-regime-wide1`` and one RL preset per arm of ``arms.py`` here (built by
:mod:`analysis.campaigns.presets` from :data:`BASE`, :data:`INITS` and :data:`CHANGES`).

The ``regime-wide1-*`` arms (:data:`analysis.campaigns.regime_wide1.arms.FACTORIAL`) are the
factorial's four cells on ``regime-wide1-d10``, the regime suites' chosen design (variant 17):
each is its ``regime-d10`` cell with ``tasks.synth_preset`` ``regime-wide1-d10`` and the
Stage-1 checkpoints of the Stage-1 presets ``sft-regime-wide1`` / ``rctp-regime-wide1``.
"""

from __future__ import annotations

from typing import Any

from analysis.campaign.presets import HIGH, RC
from analysis.campaigns.regime_d10 import presets as regime
from rcgrpo.train.presets import merge
from rcgrpo.train.stage1.config import RCTPConfig, SFTConfig, with_overrides

SFT_INIT = "runs/regime/sft-regime-wide1/final"
"""Stage-1 SFT checkpoint of the ``regime-wide1-*`` presets (``sft-regime-wide1``)."""
RCTP_INIT = "runs/regime/rctp-regime-wide1/final"
"""Stage-1 RCTP-FT checkpoint of the ``regime-wide1-*`` presets (``rctp-regime-wide1``)."""
INITS = {"sft": SFT_INIT, "rctp": RCTP_INIT}
"""The Stage-1 checkpoints, by an arm's ``start``."""
SUITE = "regime-wide1-d10 suite"
"""The synth suite its arms run on, as their presets' descriptions name it."""

BASE = merge(regime.BASE, init=SFT_INIT, tasks={"synth_preset": "regime-wide1-d10"})
"""The base of the ``regime-wide1`` arms: the ``regime-d10`` base on the synth suite
``regime-wide1-d10`` (the regime suites' chosen design, variant 17; docs/regime.md), the
recipe its proof runs ``regime-wide1-grpo-s0``–``s2`` ran with ``--preset regime-grpo
--tasks.synth_preset regime-wide1-d10`` (a test checks)."""

CHANGES: dict[str, dict[str, dict[str, Any]]] = {
    "regime-wide1-grpo": {},
    "regime-wide1-sft-rc": {"algo": RC},
    "regime-wide1-rctp-grpo": {"algo": HIGH},
    "regime-wide1-rcgrpo": {"algo": RC},
}
"""Per arm of ``arms.py`` here: its values against :data:`BASE`."""

# The regime suites' chosen design, variant 17 on "regime-wide1-d10" (docs/regime.md), as its
# changes to the regime presets: SFT as variant 15 (the regime SFT on the suite, fp32); RCTP-FT
# from that SFT model (model.path and failures.policy both), fp32, 4 epochs, the four swap kinds
# left out of the mix but for a seeded 0.4% of their tasks, goal rows 0.6 median row norms
# apart. The committed Stage-1 runs of the design are these presets
# (tests/unit/train/test_stage1_wide1.py).
SFT_REGIME_WIDE1: SFTConfig = with_overrides(
    regime.SFT_SYNTH_REGIME,
    sft={"synth_preset": "regime-wide1-d10", "amp": "fp32"},
    run={"name": "sft-regime-wide1"},
)
RCTP_REGIME_WIDE1: RCTPConfig = with_overrides(
    regime.RCTP_SYNTH_REGIME,
    model={"path": SFT_INIT},
    sft={"synth_preset": "regime-wide1-d10", "amp": "fp32", "epochs": 4.0},
    failures={
        "policy": SFT_INIT,
        "skip_decisions": ("rename_copy", "resolve_close", "comment_post", "delete_view"),
        "skip_keep": 0.004,
    },
    goals={"spread": 0.6},
    run={"name": "rctp-regime-wide1"},
)

STAGE1 = {"sft-regime-wide1": SFT_REGIME_WIDE1, "rctp-regime-wide1": RCTP_REGIME_WIDE1}
"""The Stage-1 presets, each stated as its changes to the ``regime-d10`` ones."""
DESCRIPTIONS = {
    "sft-regime-wide1": "SFT on the regime-wide1-d10 suite (design variant 17), fp32",
    "rctp-regime-wide1": "RCTP-FT on regime-wide1-d10 from sft-regime-wide1, swap kinds left out",
}
"""Stage-1 preset -> its line in ``--help``."""
