"""A run's resolved config and task suite against its campaign spec, and adopting runs trained
by hand.

:func:`pinned` is what a spec records beside its argv (``resolved`` in ``campaign.json``): the
config the command resolves to, without the values that name the machine's folders, and the
fingerprint of its task suite, so a changed preset value or task generator makes a committed
run stale by name (:func:`analysis.campaign.spec.same_spec`). These checks go through the
trainers' own CLI parsers (nothing runs). The tests use them on the committed light copies;
``--adopt`` uses them before it records the spec of a run trained outside the campaign with
the campaign's command.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from pathlib import Path
from typing import Any

from analysis.campaign import mechanics as cp
from analysis.campaign.mechanics import Campaign, Checkpoint, RunSpec, Where
from analysis.campaign.spec import differences
from analysis.runs import is_finished, load_run
from rcgrpo.train.config import upgrade_config

SUITE_PROBE = 200
"""Tasks per split that the suite fingerprint hashes (fewer when the split has fewer). A
synth task depends only on (split, seed, index, generator config), so the first tasks of each
split change with any change to the generator, its config or the families it draws from; the
task counts themselves are in the config."""
MACHINE_KEYS = ("run.root", "run.resume")
"""Config keys that name this machine's folders or state, besides each flag given a
checkpoint (``init``, ``model.path``, ``failures.policy``): not part of what a run is.
``sft.amp`` stays: the config holds what was asked (``auto``), what a machine resolved it to
is in the run's ``summary.json``."""


def _parse(spec: RunSpec, where: Where) -> Any:
    from rcgrpo.train.cli import parse_cli

    sub, *argv = spec.command(where, resume=False)[len(cp.LAUNCHER) :]
    return parse_cli(sub, argv)


def resolved_config(spec: RunSpec, where: Where) -> dict:
    """The ``config.json`` the spec's command writes: the config as asked, the same on every
    machine (``sft.amp`` unresolved; what a machine resolved it to is a fact of the run, in
    its ``summary.json``). The real CLI parsers; nothing runs."""
    return json.loads(json.dumps(dataclasses.asdict(_parse(spec, where))))


def machine_keys(spec: RunSpec) -> frozenset[str]:
    """Dotted config keys of :data:`MACHINE_KEYS` and of the flags given a checkpoint."""
    flags = [spec.argv[i - 1] for i, a in enumerate(spec.argv) if isinstance(a, Checkpoint)]
    return frozenset((*MACHINE_KEYS, *(str(f).lstrip("-").replace("-", "_") for f in flags)))


def _drop(data: dict, keys: frozenset[str], prefix: str = "") -> dict:
    out = {}
    for key, value in data.items():
        path = f"{prefix}{key}"
        if path not in keys:
            out[key] = _drop(value, keys, path + ".") if isinstance(value, dict) else value
    return out


@functools.lru_cache(maxsize=16)
def _fingerprint(tasks_json: str, synth_preset: str) -> str:
    from rcgrpo.policy.task_sources import load_task_splits
    from rcgrpo.train.config import TaskConfig

    fields = {f.name for f in dataclasses.fields(TaskConfig)}
    tasks = TaskConfig(**{k: v for k, v in json.loads(tasks_json).items() if k in fields})
    train, test = load_task_splits(tasks, synth_preset)
    digest = hashlib.sha256()
    for split in (train, test):
        rows = [dataclasses.asdict(t) for t in split]
        digest.update(json.dumps(rows, sort_keys=True, default=str).encode())
    return digest.hexdigest()


def suite_fingerprint(cfg: Any) -> str:
    """sha256 of the JSON of the first :data:`SUITE_PROBE` train and held-out tasks the config
    trains and evaluates on (``dataclasses.asdict`` of each task, keys sorted); the synth
    preset is ``sft.synth_preset`` (Stage 1) or ``tasks.synth_preset`` (RL)."""
    stage = getattr(cfg, "sft", None)
    synth = stage.synth_preset if stage is not None else cfg.tasks.synth_preset
    probe = dataclasses.replace(
        cfg.tasks,
        num_train=min(cfg.tasks.num_train, SUITE_PROBE),
        num_eval=min(cfg.tasks.num_eval, SUITE_PROBE),
    )
    return _fingerprint(json.dumps(dataclasses.asdict(probe), sort_keys=True), synth)


@functools.lru_cache(maxsize=256)
def pinned(spec: RunSpec) -> dict:
    """What ``spec`` resolves to, the same on every machine: ``config`` (the resolved config
    without :func:`machine_keys`) and ``suite`` (:func:`suite_fingerprint`)."""
    cfg = _parse(spec, lambda run: Path(run))
    config = json.loads(json.dumps(dataclasses.asdict(cfg)))
    return {"config": _drop(config, machine_keys(spec)), "suite": suite_fingerprint(cfg)}


def config_differences(have: dict, spec: RunSpec, where: Where) -> list[str]:
    """Dotted keys where a run's ``config.json`` (``have``) differs from the config the spec
    resolves to. Compared: the fields both hold, except :func:`machine_keys`; a field added
    to or removed from the code since the run was trained is not a difference, a renamed one
    is compared under its new name (:func:`rcgrpo.train.config.upgrade_config`)."""
    want = resolved_config(spec, where)
    return differences(upgrade_config(have), want, machine_keys(spec))


def adopt(camp: Campaign, names: list[str]) -> list[Path]:
    """Record the current spec for finished runs trained by hand with the campaign's command:
    in its training folder ``runs/<home>/<name>`` or, where only its light copy is (a run
    trained and committed by hand), in ``results/<home>/<name>``; refused where
    :func:`config_differences` finds a difference."""
    adopted = []
    for name in names:
        spec = camp.runs[name]
        folder = spec.folder if spec.folder.is_dir() else spec.copy
        if not is_finished(folder):
            raise ValueError(f"{folder} is not complete (its run has not finished)")
        have = load_run(folder).config
        if not have:
            raise ValueError(f"{folder} has no config.json")
        differ = config_differences(have, spec, lambda dep: camp.runs[dep].folder)
        if differ:
            raise ValueError(f"{folder}/config.json differs from run {name}'s spec in {differ}")
        (folder / cp.SPEC_FILE).write_text(json.dumps(spec.record(), indent=2) + "\n")
        adopted.append(folder)
    return adopted
