"""The runs the report reads when no table names its own: every done run of the campaigns that
train (:mod:`analysis.campaign.registry`), or every finished run below ``--runs-root``."""

from __future__ import annotations

from pathlib import Path

from analysis.campaign import registry
from analysis.campaign.find import campaign_resolver
from analysis.runs.sources import Resolver, layout_resolver


def default_resolver(runs_root: str | Path | None = None, committed: bool = False) -> Resolver:
    """:func:`~analysis.runs.sources.layout_resolver` of ``runs_root`` when given, else the
    done runs of every campaign that trains (:func:`analysis.campaign.find.campaign_resolver`;
    ``committed``: their committed light copies only)."""
    if runs_root is not None:
        return layout_resolver(runs_root)
    camps = [e.build() for e in registry.campaigns().values()]
    return campaign_resolver(camps, committed=committed)
