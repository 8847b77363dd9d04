"""Every campaign's presets, handed to ``python -m rcgrpo`` as the plugin ``campaigns`` of the
entry-point group "rcgrpo.presets" (pyproject.toml; :mod:`rcgrpo.train.plugins`), so
``python -m rcgrpo train --preset NAME`` runs a campaign arm with the argv its committed runs
recorded.

- :data:`RL`: one RL preset per arm of :func:`analysis.campaign.arms.arms`, in its order: its
  regime's base (``BASE`` of the folder in :data:`REGIME_PRESETS`), the Stage-1 checkpoint of
  its ``start`` (that folder's ``INITS``) and its changes (``CHANGES`` of its campaign's
  ``presets.py``);
- :data:`STAGE1`: the campaigns' Stage-1 presets (``STAGE1`` of each folder);
- :data:`PRESETS`: both, with a one-line description each for ``--help``.
"""

from __future__ import annotations

import copy
from typing import Any

from analysis.campaign.arms import Arm, arms
from analysis.campaigns.collapse import presets as collapse
from analysis.campaigns.pool import presets as pool
from analysis.campaigns.regime_d10 import presets as regime_d10
from analysis.campaigns.regime_separation import presets as separation
from analysis.campaigns.regime_wide1 import presets as wide1
from rcgrpo.train.config import TrainConfig, from_dict
from rcgrpo.train.plugins import PresetTable
from rcgrpo.train.presets import merge
from rcgrpo.train.stage1.config import SFTConfig

REGIME_PRESETS = {
    "pool": pool,
    "regime-d10": regime_d10,
    "regime-wide1": wide1,
    "collapse": collapse,
}
"""Each regime (:data:`analysis.campaign.arms.REGIMES`) -> the presets module holding its base
(GRPO from its SFT checkpoint, ``BASE``) and its Stage-1 checkpoints (``INITS``)."""
CHANGES: dict[str, dict[str, dict[str, Any]]] = {
    **pool.CHANGES,
    **regime_d10.CHANGES,
    **separation.CHANGES,
    **wide1.CHANGES,
    **collapse.CHANGES,
}
"""Per arm: its values against its regime's base."""
SUITES = {
    "pool": "cpu suite, 16-task pool",
    "regime-d10": "regime-d10 suite",
    "regime-wide1": "regime-wide1-d10 suite",
    "collapse": "collapse1-d10 suite",
}
"""An arm's regime -> the synth suite (and pool) its description names."""


def arm_sections(arm: Arm) -> dict[str, Any]:
    """The preset of ``arm`` as config sections: its regime's base, the Stage-1 checkpoint
    of its ``start``, its changes (:data:`CHANGES`)."""
    if arm.preset not in CHANGES:
        raise ValueError(f"arm {arm.preset} has no preset values in its campaign's CHANGES")
    module = REGIME_PRESETS[arm.regime]
    return merge(module.BASE, init=module.INITS[arm.start], **CHANGES[arm.preset])


RL: dict[str, TrainConfig] = {
    a.preset: from_dict(TrainConfig, {**arm_sections(a), "preset": a.preset}) for a in arms()
}
"""The arms' RL presets (module docstring)."""
STAGE1: dict[str, SFTConfig] = {
    **pool.STAGE1,
    **regime_d10.STAGE1,
    **wide1.STAGE1,
    **collapse.STAGE1,
}
"""The campaigns' Stage-1 presets (SFT and RCTP-FT)."""
DESCRIPTIONS: dict[str, str] = {
    **{a.preset: f"{a.init} + {a.method} ({SUITES[a.regime]})" for a in arms()},
    **pool.DESCRIPTIONS,
    **regime_d10.DESCRIPTIONS,
    **wide1.DESCRIPTIONS,
    **collapse.DESCRIPTIONS,
}
"""Preset -> its line in ``--help``: an arm's from its record (start, method, suite)."""
PRESETS = PresetTable({**RL, **STAGE1}, DESCRIPTIONS)
"""What the entry point hands to rcgrpo: every campaign preset with its description."""


def preset(name: str) -> Any:
    """A fresh copy of preset ``name``: a campaign's (RL or Stage 1) or one of rcgrpo's own
    (found without the installed entry point)."""
    from rcgrpo.train import presets as own_rl
    from rcgrpo.train.stage1 import config as own_stage1

    found = {**PRESETS, **own_rl.PRESETS, **own_rl.TRL_PRESETS, **own_stage1.PRESETS}
    if name not in found:
        raise ValueError(f"no preset {name!r}; one of {list(found)}")
    return copy.deepcopy(found[name])
