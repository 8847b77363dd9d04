"""The campaigns, one per ``results/INDEX.toml`` id, found in their folders: ``python -m
analysis.campaign --campaign ID`` (``make campaign C=ID``) takes the id from :data:`CAMPAIGNS`.

Each INDEX id has a folder ``analysis/campaigns/<pkg>/`` (``<pkg>``: the id with ``-`` as
``_``). A folder whose ``campaign.py`` defines ``ENTRY`` (an
:class:`~analysis.campaign.entry.Entry`) trains: a set of runs by experiment
(:class:`~analysis.campaign.mechanics.Campaign`) and its own way of training them (Stage 1 first;
the regime-d10 campaign admits seeds between Stage 1 and RL). Any other folder is data only: its
``campaign.py`` may say in ``DATA_ONLY`` which id's driver trains its runs, and ``--campaign ID``
prints that line (:data:`DATA_ONLY`). A new campaign is one new folder and one INDEX row.

The ids of the campaigns whose arms are in :data:`analysis.campaign.arms.ARMS` are also the
regimes of their RL arms (:data:`analysis.campaign.arms.REGIMES`; a test checks they are the same
ids in the same order); collapse-pairs keeps its own records.
"""

from __future__ import annotations

import importlib
import importlib.util

from analysis.campaign.entry import Entry
from analysis.runs import index

PACKAGE = "analysis.campaigns"
"""Where the campaign folders are."""


def package(campaign_id: str) -> str:
    """The folder (Python package) of the campaign ``campaign_id``."""
    return f"{PACKAGE}.{campaign_id.replace('-', '_')}"


def _discover() -> tuple[dict[str, Entry], dict[str, str]]:
    entries, data_only = {}, {}
    for study in index.studies():
        name = f"{package(study.id)}.campaign"
        module = importlib.import_module(name) if importlib.util.find_spec(name) else None
        entry = getattr(module, "ENTRY", None)
        if entry is not None:
            if entry.id != study.id:
                raise ValueError(f"{name}.ENTRY has id {entry.id!r}, its INDEX id is {study.id!r}")
            entries[study.id] = entry
        else:
            why = getattr(module, "DATA_ONLY", "nothing to train")
            data_only[study.id] = f"{study.id}: data only ({study.status}); {why}"
    return entries, data_only


CAMPAIGNS, DATA_ONLY = _discover()
"""Every campaign that trains by id, in INDEX order; and for every other INDEX id, the one line
``--campaign ID`` prints."""


def campaign(campaign_id: str) -> Entry:
    """The campaign ``campaign_id`` (ValueError naming the ids)."""
    if campaign_id not in CAMPAIGNS:
        raise ValueError(f"campaign must be one of {', '.join(CAMPAIGNS)}, got {campaign_id!r}")
    return CAMPAIGNS[campaign_id]
