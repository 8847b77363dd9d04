"""What a campaign folder gives the registry: :class:`Entry`, the record of a campaign that
trains (``analysis/campaigns/<pkg>/campaign.py`` defines ``ENTRY = Entry(...)``), or, for a
folder whose runs are data only, ``DATA_ONLY``: the one line ``--campaign ID`` prints instead
(:mod:`analysis.campaign.registry`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from analysis.campaign.mechanics import Campaign, RunSpec


@dataclass(frozen=True)
class Entry:
    """One campaign that trains (module docstring)."""

    id: str
    """``--campaign`` value: its ``results/INDEX.toml`` id; the regime of its arms."""
    summary: str
    """What it trains, in one line (``--ids``)."""
    build: Callable[[], Campaign]
    """Every run of the campaign, by experiment (``--list``, ``--runs``, ``--export``)."""
    experiments: Callable[[Campaign], list[str]]
    """The experiments it trains when ``--only`` is not given, in order."""
    run: Callable[[list[str], int, bool, bool], None]
    """Train the runs of the named experiments that are not done: ``(experiments, jobs,
    force_train, dry_run)``."""
    on_done: Callable[[RunSpec], None] | None = None
    """What follows each run ``--runs`` trains (the pass@k and proof reports of the regime
    campaigns)."""
