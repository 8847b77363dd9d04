"""A run folder's ``config.json`` against its campaign spec, and adopting runs trained by hand.

The spec (:mod:`analysis.campaign`) names presets, not their values; these checks compare
the resolved config itself, through the trainers' own CLI parsers (nothing runs). The
tests use them on the committed light copies; ``--adopt`` uses them before it records the
spec of a run trained outside the campaign with the campaign's command.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from analysis import campaign as cp
from analysis.campaign import Campaign, Checkpoint, RunSpec, Where
from rcgrpo.train.config import upgrade_config


def resolved_config(spec: RunSpec, where: Where) -> dict:
    """The ``config.json`` the spec's command writes: the config as asked, the same on every
    machine (``sft.amp`` unresolved; what a machine resolved it to is a fact of the run, in
    its ``summary.json``). The real CLI parsers; nothing runs."""
    from rcgrpo.train.cli import parse_cli

    sub, *argv = spec.command(where, resume=False)[len(cp.LAUNCHER) :]
    return json.loads(json.dumps(dataclasses.asdict(parse_cli(sub, argv))))


def config_differences(have: dict, spec: RunSpec, where: Where) -> list[str]:
    """Dotted keys where a run's ``config.json`` (``have``) differs from the config the spec
    resolves to. Compared: the fields both hold, except the values that name this machine's
    folders (``run.root``, ``run.resume``, each flag given a checkpoint); a field added to
    or removed from the code since the run was trained is not a difference, a renamed one
    is compared under its new name (:func:`rcgrpo.train.config.upgrade_config`)."""
    have, want = upgrade_config(have), resolved_config(spec, where)
    flags = [spec.argv[i - 1] for i, a in enumerate(spec.argv) if isinstance(a, Checkpoint)]
    skip = {"run.root", "run.resume", *(str(f).lstrip("-").replace("-", "_") for f in flags)}

    def diff(a: dict, b: dict, prefix: str) -> list[str]:
        out = []
        for key, value in a.items():
            path = f"{prefix}{key}"
            if path in skip or key not in b:
                continue
            if isinstance(value, dict) and isinstance(b[key], dict):
                out += diff(value, b[key], path + ".")
            elif b[key] != value:
                out.append(path)
        return out

    return diff(have, want, "")


def adopt(camp: Campaign, names: list[str]) -> list[Path]:
    """Record the current spec for complete runs/campaign folders trained by hand with the
    campaign's command; refused where :func:`config_differences` finds a difference."""
    adopted = []
    for name in names:
        spec, folder = camp.runs[name], cp.CAMPAIGN / name
        if not cp.is_complete(folder):
            raise ValueError(f"{folder} is not complete (no {cp.MARKER})")
        have = json.loads((folder / "config.json").read_text())
        differ = config_differences(have, spec, lambda dep: cp.CAMPAIGN / dep)
        if differ:
            raise ValueError(f"{folder}/config.json differs from run {name}'s spec in {differ}")
        (folder / cp.SPEC_FILE).write_text(json.dumps(spec.record(), indent=2) + "\n")
        adopted.append(folder)
    return adopted
