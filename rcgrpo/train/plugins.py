"""Presets from other packages: the entry-point group "rcgrpo.presets".

A package adds presets to ``python -m rcgrpo sft | rctp | train | trl`` by declaring an entry
point in its ``pyproject.toml`` (installed with ``pip install -e .`` or any install)::

    [project.entry-points."rcgrpo.presets"]
    mine = "my_package.presets:PRESETS"

``PRESETS`` maps a preset name to its config object; each command takes the presets of its
config class (an :class:`~rcgrpo.train.stage1.config.SFTConfig` for ``sft``, an
:class:`~rcgrpo.train.stage1.config.RCTPConfig` for ``rctp``, a
:class:`~rcgrpo.train.config.TrainConfig` for ``train``, a
:class:`~rcgrpo.train.config.TRLConfig` for ``trl``). A mapping with a ``descriptions``
attribute (name -> one line; :class:`PresetTable` is such a dict) gives ``--help`` a line per
preset.

The method's own presets come first and are looked up without loading any plugin; plugins are
loaded once, when a name is not an own preset or when presets are listed. A plugin preset named
like an own preset or like another plugin's is an error (:class:`ConfigError`); a plugin that
fails to load is reported in one line on stderr and skipped (another checkout sharing the
virtual environment may not hold its module).

:data:`ENV` adds references loaded the same way without an install, as ``PYTEST_PLUGINS`` does
for pytest (the tests set it when the entry point is not installed).
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from collections.abc import Iterable, Mapping
from importlib.metadata import entry_points
from typing import Any

from rcgrpo.train.errors import ConfigError

GROUP = "rcgrpo.presets"
"""The entry-point group a package registers its presets under."""
ENV = "RCGRPO_PRESET_PLUGINS"
"""Environment variable: comma-separated ``module:NAME`` references, read as entry points."""


class PresetTable(dict):
    """A plugin's presets (name -> config object) with a one-line description of each."""

    def __init__(self, presets: Mapping[str, Any], descriptions: Mapping[str, str]):
        super().__init__(presets)
        self.descriptions = dict(descriptions)
        """Preset name -> its line in ``--help``."""


def references() -> list[tuple[str, str]]:
    """(name, ``module:NAME``) of every plugin: the entry points of :data:`GROUP`, then those
    of :data:`ENV`; a reference given twice is kept once."""
    refs = [(ep.name, ep.value) for ep in entry_points(group=GROUP)]
    refs += [(ENV, ref) for ref in os.environ.get(ENV, "").replace(" ", "").split(",") if ref]
    seen: set[str] = set()
    return [r for r in refs if not (r[1] in seen or seen.add(r[1]))]


def _load(value: str) -> Mapping[str, Any]:
    module, _, attr = value.partition(":")
    obj = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    if not isinstance(obj, Mapping):
        raise TypeError(f"{value} is a {type(obj).__name__}, not a mapping name -> config")
    return obj


@functools.cache
def loaded() -> tuple[dict[str, Any], dict[str, str]]:
    """(name -> config, name -> description) of every plugin that loads (module docstring);
    a name two plugins give is an error."""
    presets: dict[str, Any] = {}
    descriptions: dict[str, str] = {}
    source: dict[str, str] = {}
    for name, value in references():
        try:
            table = _load(value)
        except Exception as err:  # a plugin must not stop the command; say why it is skipped
            print(f"rcgrpo: preset plugin {name} ({value}) skipped: {err!r}", file=sys.stderr)
            continue
        for preset in table:
            if preset in source:
                raise ConfigError(
                    f"preset plugin {name}: {preset!r} is also a preset of plugin {source[preset]}"
                )
            source[preset] = name
        presets |= table
        descriptions |= {k: v for k, v in getattr(table, "descriptions", {}).items() if k in table}
    return presets, descriptions


def plugin_presets(cls: type | tuple[type, ...], own: Iterable[str]) -> dict[str, Any]:
    """The plugins' presets whose config is an instance of ``cls``, in plugin order; a plugin
    preset named like one of ``own`` (the caller's own preset names) is an error."""
    presets = loaded()[0]
    clash = sorted(set(own) & set(presets))
    if clash:
        raise ConfigError(f"preset plugins: {', '.join(clash)} would replace rcgrpo's own")
    return {name: cfg for name, cfg in presets.items() if isinstance(cfg, cls)}


def descriptions() -> dict[str, str]:
    """The plugins' preset descriptions (name -> one line)."""
    return loaded()[1]
