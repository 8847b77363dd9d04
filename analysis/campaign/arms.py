"""The RL arms: the record every campaign types its arms in, and the registry that gathers them.

An *arm* is one Stage-2 configuration that experiments compare: its RL preset (whose name is
also the experiment group and the run-name prefix, ``<preset>-s<seed>``), the Stage-1 model
it starts from, how figures and tables name and colour it, the campaign experiment that
trains it and the role the verdict rules read it under. Each campaign types its records in
its folder, ``ARMS`` of its ``arms.py`` (:mod:`analysis.campaign.registry`); this module
gathers them, in the order of the folders (:func:`analysis.campaign.registry.folders`):

- :mod:`analysis.campaigns.presets` builds each arm's preset from its regime's base, the
  Stage-1 checkpoint of ``start`` and the arm's changes (``CHANGES`` of its folder's
  ``presets.py``) and hands them to ``python -m rcgrpo train`` (entry point
  "rcgrpo.presets");
- the campaign of its regime trains it, one run per seed, in ``experiment``;
- :mod:`analysis.figures.dynamics` takes ``label`` and ``colour`` (a name of
  ``analysis.figures.style.PALETTE``), in this order;
- :mod:`analysis.campaigns.pool.tables` and :mod:`analysis.campaigns.pool.dynamics_tables` name rows by
  ``start`` and ``method`` and find an arm by ``role``;
- the verdict rules read a campaign's arms by ``role``.

Adding an arm is one record in its campaign's ``arms.py`` plus its changes in that folder's
``presets.py``; a verdict on it needs a rule written before its runs.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

from analysis.campaign import registry

STARTS = {"sft": "SFT", "rctp": "RCTP-FT", "rctp-shuffled": "RCTP-FT, shuffled goals"}
"""Stage-1 model an arm starts from -> its name in tables."""
COLOURS = ("black", "orange", "sky", "green", "yellow", "blue", "vermilion", "purple")
"""Okabe-Ito colour names (``analysis.figures.style.PALETTE`` holds their values)."""


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
    regime: str = ""
    """The campaign whose regime it runs in, a name of :data:`REGIMES` ("": the campaign whose
    ``arms.py`` holds it)."""
    tex: str = ""
    """``method`` in LaTeX where it differs (the report's baselines table)."""

    def __post_init__(self) -> None:
        for key, value, options in (
            ("start", self.start, tuple(STARTS)),
            ("colour", self.colour, COLOURS),
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


@functools.cache
def _regimes(search: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(
        campaign_id
        for campaign_id, pkg in registry.folders()
        if hasattr(registry.folder_module(pkg, "presets"), "BASE")
    )


def regimes() -> tuple[str, ...]:
    """The campaigns an arm can run in, those whose ``presets.py`` gives a ``BASE`` (GRPO from
    their SFT checkpoint), in folder order."""
    return _regimes(registry.SEARCH)


@functools.cache
def _gathered(search: tuple[str, ...]) -> tuple[Arm, ...]:
    out = []
    for campaign_id, pkg in registry.folders():
        module = registry.folder_module(pkg, "arms")
        for a in getattr(module, "ARMS", ()):
            out.append(a if a.regime else dataclasses.replace(a, regime=campaign_id))
    known = regimes()
    for a in out:
        if a.regime not in known:
            raise ValueError(f"arm {a.preset}: regime must be one of {known}, got {a.regime!r}")
    return tuple(out)


def gather() -> tuple[Arm, ...]:
    """Every campaign's arms (``ARMS`` of its ``arms.py``, an arm's empty ``regime`` set to
    its campaign), in folder order; an arm of no regime is an error."""
    return _gathered(registry.SEARCH)


def __getattr__(name: str):
    # ARMS and REGIMES, gathered at each read from the campaigns found now
    if name == "ARMS":
        return gather()
    if name == "REGIMES":
        return regimes()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def arms(regime: str | None = None, experiment: str | None = None) -> tuple[Arm, ...]:
    """The arms of ``regime`` and/or ``experiment`` (default: all), in :data:`ARMS` order;
    read at call time, so an arm registered later is included. An unknown ``regime`` is an
    error (a renamed regime must not select nothing)."""
    if regime is not None and regime not in (known := regimes()):
        raise ValueError(f"unknown regime {regime!r}; one of {known}")
    return tuple(
        a
        for a in gather()
        if (regime is None or a.regime == regime)
        and (experiment is None or a.experiment == experiment)
    )


def arm(preset: str) -> Arm | None:
    """The arm of RL preset ``preset`` (None: not an arm, e.g. ``paper-qwen7b``)."""
    return next((a for a in gather() if a.preset == preset), None)


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
