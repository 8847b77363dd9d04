"""Every campaign's presets, handed to ``python -m rcgrpo`` as the plugin ``campaigns`` of the
entry-point group "rcgrpo.presets" (pyproject.toml; :mod:`rcgrpo.train.plugins`), so
``python -m rcgrpo train --preset NAME`` runs a campaign arm with the argv its committed runs
recorded.

Each campaign folder's ``presets.py`` gives what it adds (:mod:`analysis.campaign.entry`):
``BASE``, its regime's base (GRPO from its SFT checkpoint), with ``INITS``, its Stage-1
checkpoints by an arm's ``start``, and ``SUITE``, the synth suite its arms' descriptions name
(a folder whose arms run in another campaign's regime has none of the three); ``CHANGES``, per
arm its values against its regime's base; ``STAGE1``, its Stage-1 presets, and
``DESCRIPTIONS``, their ``--help`` lines. Gathered over the campaign folders
(:func:`analysis.campaign.registry.folders`), in their order:

- :data:`RL`: one RL preset per arm of :func:`analysis.campaign.arms.arms`, in its order: its
  regime's base, the Stage-1 checkpoint of its ``start`` and its changes;
- :data:`STAGE1`: the campaigns' Stage-1 presets;
- :data:`PRESETS`: both, with a one-line description each for ``--help``.
"""

from __future__ import annotations

import copy
from types import ModuleType
from typing import Any

from analysis.campaign import registry
from analysis.campaign.arms import Arm, arms
from rcgrpo.train.config import TrainConfig, from_dict
from rcgrpo.train.plugins import PresetTable
from rcgrpo.train.presets import merge
from rcgrpo.train.stage1.config import SFTConfig


def modules() -> dict[str, ModuleType]:
    """Campaign id -> its folder's ``presets.py``, for every folder that has one."""
    found = {i: registry.folder_module(pkg, "presets") for i, pkg in registry.folders()}
    return {i: m for i, m in found.items() if m is not None}


def regimes() -> dict[str, ModuleType]:
    """Each regime (:data:`analysis.campaign.arms.REGIMES`) -> the presets module holding its
    base (``BASE``), its Stage-1 checkpoints (``INITS``) and its suite (``SUITE``)."""
    return {i: m for i, m in modules().items() if hasattr(m, "BASE")}


def gathered(name: str) -> dict[str, Any]:
    """The dicts ``name`` (``CHANGES``, ``STAGE1``, ``DESCRIPTIONS``) of every folder, merged."""
    out: dict[str, Any] = {}
    for m in modules().values():
        out.update(getattr(m, name, {}))
    return out


CHANGES: dict[str, dict[str, dict[str, Any]]] = gathered("CHANGES")
"""Per arm: its values against its regime's base."""


def arm_sections(arm: Arm, changes: dict[str, Any] | None = None) -> dict[str, Any]:
    """The preset of ``arm`` as config sections: its regime's base, the Stage-1 checkpoint
    of its ``start``, its changes (``changes``, default :data:`CHANGES`)."""
    changes = CHANGES if changes is None else changes
    if arm.preset not in changes:
        raise ValueError(f"arm {arm.preset} has no preset values in its campaign's CHANGES")
    module = regimes()[arm.regime]
    return merge(module.BASE, init=module.INITS[arm.start], **changes[arm.preset])


def build() -> PresetTable:
    """Every campaign preset of the campaigns found now, with its description (an arm's from
    its record: start, method, its regime's suite)."""
    changes, suites = gathered("CHANGES"), {i: m.SUITE for i, m in regimes().items()}
    rl = {
        a.preset: from_dict(TrainConfig, {**arm_sections(a, changes), "preset": a.preset})
        for a in arms()
    }
    descriptions = {a.preset: f"{a.init} + {a.method} ({suites[a.regime]})" for a in arms()}
    return PresetTable({**rl, **gathered("STAGE1")}, {**descriptions, **gathered("DESCRIPTIONS")})


PRESETS: PresetTable = build()
"""What the entry point hands to rcgrpo: every campaign preset with its description."""
STAGE1: dict[str, SFTConfig] = gathered("STAGE1")
"""The campaigns' Stage-1 presets (SFT and RCTP-FT)."""
RL: dict[str, TrainConfig] = {k: v for k, v in PRESETS.items() if k not in STAGE1}
"""The arms' RL presets (module docstring)."""


def preset(name: str) -> Any:
    """A fresh copy of preset ``name``: a campaign's (RL or Stage 1) or one of rcgrpo's own
    (found without the installed entry point)."""
    from rcgrpo.train import presets as own_rl
    from rcgrpo.train.stage1 import config as own_stage1

    found = {**PRESETS, **own_rl.PRESETS, **own_rl.TRL_PRESETS, **own_stage1.PRESETS}
    if name not in found:
        raise ValueError(f"no preset {name!r}; one of {list(found)}")
    return copy.deepcopy(found[name])
