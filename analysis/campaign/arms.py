"""The RL arms: the record every campaign types its arms in, and the registry that gathers them.

An *arm* is one Stage-2 configuration that experiments compare: its RL preset (whose name is
also the experiment group and the run-name prefix, ``<preset>-s<seed>``), the Stage-1 model
it starts from, how figures and tables name and colour it, the campaign experiment that
trains it and the role the verdict rules read it under. Each campaign types its records in
its folder, ``analysis/campaigns/<pkg>/arms.py`` (:data:`CAMPAIGNS`); this module gathers
them, in that order:

- :mod:`analysis.campaigns.presets` builds each arm's preset from its regime's base, the
  Stage-1 checkpoint of ``start`` and the arm's changes (``CHANGES`` of its folder's
  ``presets.py``) and hands them to ``python -m rcgrpo train`` (entry point
  "rcgrpo.presets");
- the campaign of its regime trains it, one run per seed, in ``experiment``
  (:mod:`analysis.campaigns.pool.driver`, :mod:`analysis.campaigns.regime_d10.driver`,
  :mod:`analysis.campaigns.regime_wide1.driver`);
- :mod:`analysis.figures.dynamics` takes ``label`` and ``colour`` (a name of
  ``analysis.figures.style.PALETTE``), in this order;
- :mod:`analysis.report.tables` and :mod:`analysis.report.dynamics_tables` name rows by
  ``start`` and ``method`` and find an arm by ``role``;
- the verdict rules read a campaign's arms by ``role``.

Adding an arm is one record in its campaign's ``arms.py`` plus its changes in that folder's
``presets.py``; a verdict on it needs a rule written before its runs.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass

REGIMES = ("pool", "regime-d10", "regime-wide1", "collapse")
"""The campaigns an arm belongs to, by their ids of ``python -m analysis.campaign --campaign
ID`` (a test checks they are the same): ``pool``, the CPU campaign on the ``cpu`` synth suite
(16-task training pool); ``regime-d10``, the regime campaign on ``regime-d10``;
``regime-wide1``, the factorial on ``regime-wide1-d10``, the regime suites' chosen design
(docs/regime.md);
``collapse``, the factorial and the mechanism arms on ``collapse1-d10``, where SFT + GRPO
collapses (docs/protocols/collapse-campaign.md)."""
STARTS = {"sft": "SFT", "rctp": "RCTP-FT", "rctp-shuffled": "RCTP-FT, shuffled goals"}
"""Stage-1 model an arm starts from -> its name in tables."""
COLOURS = ("black", "orange", "sky", "green", "yellow", "blue", "vermilion", "purple")
"""Okabe-Ito colour names (``analysis.figures.style.PALETTE`` holds their values)."""
CAMPAIGNS = ("pool", "regime_d10", "regime_separation", "regime_wide1", "collapse")
"""The campaign folders (``analysis/campaigns/<pkg>``) whose ``arms.py`` holds arms, in the
order :data:`ARMS` gathers them: within a regime, the order of legends, bars and table rows
(the ``regime-separation`` arms belong to regime ``regime-d10``, after its own)."""


@dataclass(frozen=True)
class Arm:
    """One RL arm (module docstring)."""

    preset: str
    """RL preset name = experiment group = run-name prefix."""
    start: str
    """Stage-1 model it starts from: a key of :data:`STARTS`."""
    label: str
    """Figure legend, e.g. ``RCTP-FT + GRPO``."""
    method: str
    """Stage-2 method in tables, beside the start: ``GRPO (high goal)``."""
    colour: str
    """Figure colour: a name of :data:`COLOURS`."""
    experiment: str
    """Campaign experiment that trains it (``factorial``, ``baselines``, ...)."""
    role: str
    """Name the report's tables and the verdict rules read it under, unique in its regime."""
    regime: str = "pool"
    """A name of :data:`REGIMES`."""
    tex: str = ""
    """``method`` in LaTeX where it differs (the report's baselines table)."""

    def __post_init__(self) -> None:
        for key, value, options in (
            ("start", self.start, tuple(STARTS)),
            ("colour", self.colour, COLOURS),
            ("regime", self.regime, REGIMES),
        ):
            if value not in options:
                raise ValueError(
                    f"arm {self.preset}: {key} must be one of {options}, got {value!r}"
                )

    @property
    def init(self) -> str:
        """The start as tables name it (``SFT`` / ``RCTP-FT``)."""
        return STARTS[self.start]

    @property
    def method_tex(self) -> str:
        return self.tex or self.method


def gather() -> tuple[Arm, ...]:
    """Every campaign's arms (``ARMS`` of ``analysis/campaigns/<pkg>/arms.py``), in
    :data:`CAMPAIGNS` order."""
    return tuple(
        a
        for pkg in CAMPAIGNS
        for a in importlib.import_module(f"analysis.campaigns.{pkg}.arms").ARMS
    )


def __getattr__(name: str):
    # ARMS is gathered on first use: the campaigns' arms.py import Arm from here
    if name == "ARMS":
        value = gather()
        globals()["ARMS"] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _all() -> tuple[Arm, ...]:
    """:data:`ARMS` as the module holds it now (a test may have replaced it)."""
    return sys.modules[__name__].ARMS


def arms(regime: str | None = None, experiment: str | None = None) -> tuple[Arm, ...]:
    """The arms of ``regime`` and/or ``experiment`` (default: all), in :data:`ARMS` order;
    read at call time, so an arm registered later is included. An unknown ``regime`` is an
    error (a renamed regime must not select nothing)."""
    if regime is not None and regime not in REGIMES:
        raise ValueError(f"unknown regime {regime!r}; one of {REGIMES}")
    return tuple(
        a
        for a in _all()
        if (regime is None or a.regime == regime)
        and (experiment is None or a.experiment == experiment)
    )


def arm(preset: str) -> Arm | None:
    """The arm of RL preset ``preset`` (None: not an arm, e.g. ``paper-qwen7b``)."""
    return next((a for a in _all() if a.preset == preset), None)


def roles(regime: str) -> dict[str, str]:
    """Role -> preset of the arms of ``regime``; a role held twice is an error."""
    out: dict[str, str] = {}
    for a in arms(regime):
        if a.role in out:
            raise ValueError(
                f"role {a.role!r} of regime {regime} is held by {out[a.role]} and {a.preset}"
            )
        out[a.role] = a.preset
    return out
