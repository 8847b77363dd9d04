"""The campaigns, one record per id: ``python -m analysis.campaign --campaign ID`` (``make
campaign C=ID``) takes the id from :data:`CAMPAIGNS`.

A campaign is a set of runs by experiment (:class:`~analysis.campaign.mechanics.Campaign`)
and its own way of training them (Stage 1 first; the regime-d10 campaign admits seeds between
Stage 1 and RL). The ids of the campaigns under :mod:`analysis.campaign` are also the regimes of
their RL arms (:data:`analysis.campaign.arms.REGIMES`; a test checks they are the same ids in the same
order); a campaign of :mod:`analysis.campaigns` keeps its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from analysis.campaign import collapse, regime, wide1
from analysis.campaign import experiments as pool
from analysis.campaign.mechanics import Campaign, RunSpec
from analysis.campaigns.collapse_pairs import design as collapse_pairs


@dataclass(frozen=True)
class Entry:
    """One campaign (module docstring)."""

    id: str
    """``--campaign`` value; the regime of its arms."""
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


CAMPAIGNS: dict[str, Entry] = {
    e.id: e
    for e in (
        Entry(
            "pool",
            "the CPU campaign on the cpu suite: Stage 1, the 2x2 factorial, the collapse fixes "
            "(runs/campaign)",
            pool.build_campaign,
            lambda camp: list(camp.experiments),
            pool.run,
        ),
        Entry(
            regime.ID,
            "the regime-d10 campaign: Stage 1, admission, the arms, pass@k (runs/regime)",
            regime.build,
            regime.experiments,
            regime.run,
            regime.finished,
        ),
        Entry(
            wide1.ID,
            "the regime-wide1-d10 factorial (the regime suites' chosen design, variant 17): "
            "Stage 1, the four arms, pass@k (runs/regime)",
            wide1.build,
            wide1.experiments,
            wide1.run,
            regime.finished,
        ),
        Entry(
            collapse.ID,
            "the collapse1-d10 factorial and mechanism arms, where SFT + GRPO collapses: "
            "Stage 1, the seven arms (runs/collapse)",
            collapse.build,
            collapse.experiments,
            collapse.run,
        ),
        Entry(
            collapse_pairs.ID,
            "the fair test of RC sampling on collapse1-d10: matched Stage 1, minimal-pair "
            "RCTP-FT; its design runs now (runs/collapse-pairs)",
            collapse_pairs.build,
            collapse_pairs.experiments,
            collapse_pairs.run,
        ),
    )
}
"""Every campaign by id."""


def campaign(campaign_id: str) -> Entry:
    """The campaign ``campaign_id`` (ValueError naming the ids)."""
    if campaign_id not in CAMPAIGNS:
        raise ValueError(f"campaign must be one of {', '.join(CAMPAIGNS)}, got {campaign_id!r}")
    return CAMPAIGNS[campaign_id]
