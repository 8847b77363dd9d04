"""The campaigns, one per folder: ``python -m analysis.campaign --campaign ID`` (``make campaign
C=ID``), the arms, the presets, the figures, the docs' generated blocks and the report all find
a campaign here, and nothing else names one.

The folders are the packages below those of :data:`SEARCH` (``analysis/campaigns/<pkg>/``,
``<pkg>`` the campaign's ``results/INDEX.toml`` id with ``-`` as ``_``), in INDEX order, a
folder the index does not list yet after them (:func:`folders`). A folder whose
``campaign.py`` defines ``ENTRY`` (an :class:`~analysis.campaign.entry.Entry`) is a campaign
(:func:`entries`); a folder without ``campaign.py`` is not one yet. This module is the loader:
it is the only module outside the campaign folders that imports theirs
(:func:`folder_module`), and it imports a folder's ``campaign.py``, a block's module or its
``arms.py`` only when asked.

A new campaign is one new folder: its driver, blocks, tables and INDEX fields in
``campaign.py``, its arms in ``arms.py``, its presets in ``presets.py``, its figures in
``fig_<name>.py``.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import pkgutil
from collections.abc import Callable
from dataclasses import replace
from types import ModuleType
from typing import Any

from analysis.campaign.entry import Entry
from analysis.runs import index

PACKAGE = "analysis.campaigns"
"""Where the campaign folders are."""
SEARCH: tuple[str, ...] = (PACKAGE,)
"""The packages whose sub-packages are campaign folders (a test puts its own here)."""


def package(campaign_id: str) -> str:
    """The folder (Python package) of the campaign ``campaign_id`` in :data:`PACKAGE`."""
    return f"{PACKAGE}.{campaign_id.replace('-', '_')}"


@functools.cache
def _folders(search: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    found = []
    for parent in search:
        path = importlib.import_module(parent).__path__
        for m in pkgutil.iter_modules(path):
            if m.ispkg and importlib.util.find_spec(f"{parent}.{m.name}.campaign"):
                found.append((m.name.replace("_", "-"), f"{parent}.{m.name}"))
    order = {s.id: i for i, s in enumerate(index.studies())}
    return tuple(sorted(found, key=lambda f: (order.get(f[0], len(order)), f[0])))


def folders() -> tuple[tuple[str, str], ...]:
    """(id, package) of every campaign folder on :data:`SEARCH` (one with ``campaign.py``), in
    ``results/INDEX.toml`` order, then the others by id. Imports no folder's module."""
    return _folders(SEARCH)


def folder_module(pkg: str, name: str) -> ModuleType | None:
    """Module ``name`` of folder ``pkg`` (None when the folder has none)."""
    full = f"{pkg}.{name}"
    return importlib.import_module(full) if importlib.util.find_spec(full) else None


_loading: list[str] = []


@functools.cache
def _entries(search: tuple[str, ...]) -> dict[str, Entry]:
    if _loading:
        raise RuntimeError(
            f"{_loading[-1]}.campaign reaches the registry while it loads: import what needs "
            "the campaigns (their arms, presets, entries) inside a function"
        )
    out = {}
    for campaign_id, pkg in _folders(search):
        _loading.append(pkg)
        try:
            entry = getattr(folder_module(pkg, "campaign"), "ENTRY", None)
        finally:
            _loading.pop()
        if not isinstance(entry, Entry):
            raise ValueError(f"{pkg}.campaign defines no ENTRY = Entry(...)")
        if entry.id != campaign_id:
            raise ValueError(f"{pkg}.campaign: ENTRY has id {entry.id!r}, its folder {pkg!r}")
        out[campaign_id] = replace(entry, package=pkg)
    return out


def entries() -> dict[str, Entry]:
    """Every campaign by id, in :func:`folders` order (loaded once per :data:`SEARCH`)."""
    return _entries(SEARCH)


def campaigns() -> dict[str, Entry]:
    """The campaigns that train (have a driver), by id in :func:`entries` order."""
    return {i: e for i, e in entries().items() if e.trains}


def data_only() -> dict[str, str]:
    """For every campaign without a driver, the one line ``--campaign ID`` prints: its id, its
    INDEX status and why it trains nothing."""
    status = {s.id: s.status for s in index.studies()}
    return {
        i: f"{i}: data only ({status.get(i, 'not in results/INDEX.toml')}); {e.data_only}"
        for i, e in entries().items()
        if not e.trains
    }


def campaign(campaign_id: str) -> Entry:
    """The campaign ``campaign_id`` that trains (ValueError naming the ids)."""
    found = campaigns()
    if campaign_id not in found:
        raise ValueError(f"campaign must be one of {', '.join(found)}, got {campaign_id!r}")
    return found[campaign_id]


def trainer(entry: Entry) -> Entry | None:
    """The campaign whose driver trains ``entry``'s runs: itself, or its ``trained_by``."""
    if entry.trains:
        return entry
    return campaigns().get(entry.trained_by) if entry.trained_by else None


def function(entry: Entry, ref: str) -> Callable[..., Any]:
    """The function ``"module:function"`` of ``entry``'s folder."""
    module, _, name = ref.partition(":")
    found = folder_module(entry.package, module)
    if found is None or not hasattr(found, name):
        raise ValueError(f"campaign {entry.id}: no function {ref!r} in {entry.package}")
    return getattr(found, name)


def figure_modules(pkg: str) -> tuple[str, ...]:
    """The figure modules of folder ``pkg``, ``fig_<name>.py``, by name."""
    path = importlib.import_module(pkg).__path__
    names = sorted(m.name for m in pkgutil.iter_modules(path))
    return tuple(f"{pkg}.{n}" for n in names if n.startswith("fig_"))


def owner(module: str) -> Entry | None:
    """The campaign whose folder holds module ``module`` (None: no campaign's)."""
    return next((e for e in entries().values() if module.startswith(e.package + ".")), None)
