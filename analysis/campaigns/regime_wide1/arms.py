"""The ``regime-wide1`` campaign's RL arms: the cells of the ``regime-d10`` factorial on the
synth suite ``regime-wide1-d10``. Record: :class:`analysis.campaign.arms.Arm`; their presets:
``presets.py`` here."""

from __future__ import annotations

from dataclasses import replace

from analysis.campaign.arms import Arm
from analysis.campaigns.regime_d10.arms import ARMS as REGIME_D10

FACTORIAL = (
    "regime-wide1-grpo",
    "regime-wide1-sft-rc",
    "regime-wide1-rctp-grpo",
    "regime-wide1-rcgrpo",
)
"""The ``regime-wide1`` arms: the cells of the ``regime-d10`` factorial, in its order, with their
labels, colours and roles, on the synth suite ``regime-wide1-d10`` (the presets differ only in
the suite and the Stage-1 checkpoints)."""
ARMS: tuple[Arm, ...] = tuple(
    replace(a, preset=p, experiment="regime-wide1-factorial", regime="regime-wide1")
    for a, p in zip(
        (a for a in REGIME_D10 if a.experiment == "regime-factorial"), FACTORIAL, strict=True
    )
)
"""The arms, in the order of legends, bars and table rows."""
