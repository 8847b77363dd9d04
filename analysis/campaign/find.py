"""The done runs of a campaign's experiments, found and never trained.

A campaign (:class:`~analysis.campaign.mechanics.Campaign`) names its runs by experiment; a run
is done when its folder is finished with the campaign's current spec, in ``runs/<home>`` first,
else as the committed light copy in ``results/<home>`` (:func:`~analysis.campaign.mechanics.locate`).
:func:`find_runs` gives the figures each run's folder by experiment; :func:`campaign_resolver`
gives verdicts and the report the finished folders of an experiment group
(:data:`analysis.runs.sources.Resolver`). Training is ``python -m analysis.campaign``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from analysis.campaign.mechanics import Campaign, RunSpec, is_current, locate
from analysis.runs.sources import Resolver, matches


def run_names(camp: Campaign, experiments: Iterable[str]) -> list[str]:
    """The runs of ``experiments`` in campaign order (ValueError naming an unknown one)."""
    unknown = sorted(set(experiments) - set(camp.experiments))
    if unknown:
        raise ValueError(f"unknown experiment(s) {unknown}; have {sorted(camp.experiments)}")
    return [n for e in experiments for n in camp.experiments[e]]


def find_runs(camp: Campaign, experiments: Iterable[str]) -> dict[str, dict[str, Path | None]]:
    """Per experiment, each of its runs (campaign order) -> the folder of the run when it is
    done, else None."""
    experiments = list(experiments)
    run_names(camp, experiments)
    return {e: {n: locate(camp.runs[n]) for n in camp.experiments[e]} for e in experiments}


def campaign_resolver(
    camps: Campaign | Iterable[Campaign],
    experiments: Iterable[str] | None = None,
    committed: bool = False,
) -> Resolver:
    """Resolve groups among the done runs of ``camps`` (one campaign or several; their
    ``experiments``, None: all): finished, with the current spec, where :func:`locate` finds
    them or, ``committed``, only as a committed light copy in ``results/<home>`` (never
    ``runs/``, so every clone resolves the same); in campaign order, a run two campaigns share
    once."""
    camps = [camps] if isinstance(camps, Campaign) else list(camps)
    specs: list[RunSpec] = []
    for camp in camps:
        names = camp.runs if experiments is None else run_names(camp, experiments)
        specs += [camp.runs[n] for n in names]

    def where(spec: RunSpec) -> Path | None:
        if not committed:
            return locate(spec)
        return spec.copy if is_current(spec.copy, spec) else None

    def resolve(group: str) -> list[Path]:
        found = (where(s) for s in specs if matches(group, Path(s.name)))
        return list(dict.fromkeys(p for p in found if p is not None))

    return resolve
