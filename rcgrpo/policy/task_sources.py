"""Task sources by name: where evaluation (and any other consumer) gets its ``Task`` lists.

A source is a function ``(split, seed, limit, **options) -> list[Task]``; register more with
:func:`register_task_source`, or name one on the command line as ``module:function`` or
``path/to/file.py:function`` (``--tasks.source my_tasks:make_tasks``, in ``eval`` too):
:func:`resolve_task_source` imports it on first use and registers it under that spec, so every
consumer of the registry sees it (``docs/own-task.md``, ``examples/my_tasks.py``). Built in:

- ``bfcl``: the 800 BFCL v4 multi-turn tasks, split by scenario id (``rcgrpo.env``):
  ``train`` (720) | ``test`` (80) | ``all``; ``seed`` is the split seed.
- ``synth``: the procedural suite (``rcgrpo.env.synth.generate_synth_tasks``): ``train`` |
  ``test``; ``seed`` is the generator seed, ``limit`` the number of tasks (default
  :data:`SYNTH_DEFAULT_COUNT`); ``options``: ``preset`` (a name of ``SYNTH_PRESETS``,
  default ``default``) and ``SynthConfig`` field overrides (lists become tuples), e.g.
  ``{"preset": "tiny", "turns": (1, 1)}``; on the command line ``--tasks.synth-preset``,
  ``--tasks.max-turns`` and ``--tasks.max-calls-per-turn`` (:func:`synth_options`).

Training (both stages) and the campaign take a run's (train, held-out) pair from its
``tasks`` config section with :func:`load_task_splits`, the TRL path its training tasks with
:func:`load_train_tasks` (the same first half), both through :func:`load_tasks`.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rcgrpo.validation import check_choice

TaskSource = Callable[..., list]
SYNTH_DEFAULT_COUNT = 200


def _bfcl(split: str, seed: int = 0, limit: int | None = None, **options: Any) -> list:
    from rcgrpo.env import load_bfcl_tasks, split_tasks

    if options:
        raise ValueError(f"options: the bfcl source takes none, got {sorted(options)}")
    check_choice("split", split, ("train", "test", "all"))
    tasks = load_bfcl_tasks()
    if split != "all":
        train, test = split_tasks(tasks, test_fraction=0.1, seed=seed)
        tasks = train if split == "train" else test
    return tasks[:limit] if limit is not None else tasks


def _synth(split: str, seed: int = 0, limit: int | None = None, **options: Any) -> list:
    from rcgrpo.env.synth import SYNTH_PRESETS, generate_synth_tasks

    check_choice("split", split, ("train", "test"))
    preset = options.pop("preset", "default")
    check_choice("preset", preset, SYNTH_PRESETS)
    knobs = {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}
    count = SYNTH_DEFAULT_COUNT if limit is None else limit
    return generate_synth_tasks(count, split, seed, SYNTH_PRESETS[preset], **knobs)


TASK_SOURCES: dict[str, TaskSource] = {"bfcl": _bfcl, "synth": _synth}


def register_task_source(name: str, source: TaskSource) -> None:
    """Make ``source`` available as ``--tasks.source name`` (replaces an existing entry)."""
    if not name or not callable(source):
        raise ValueError("register_task_source needs a name and a callable source")
    TASK_SOURCES[name] = source


def _import_spec(spec: str) -> TaskSource:
    """The function ``spec`` (``module:function`` | ``file.py:function``) names; ValueError in
    one line naming ``spec`` when it cannot be imported or is no callable."""
    where, _, name = spec.rpartition(":")
    if not where or not name.isidentifier():
        raise ValueError(
            f"tasks source {spec!r}: a task source is a registered name "
            f"({', '.join(sorted(TASK_SOURCES))}) or module:function / path/file.py:function"
        )
    try:
        if where.endswith(".py"):
            loader = importlib.util.spec_from_file_location(Path(where).stem, where)
            if loader is None or not Path(where).is_file():
                raise ImportError(f"no file {where}")
            module = importlib.util.module_from_spec(loader)
            sys.modules.setdefault(loader.name, module)
            loader.loader.exec_module(module)
        else:
            module = importlib.import_module(where)
    except Exception as err:  # any import-time error, in one line
        raise ValueError(f"tasks source {spec!r}: cannot import {where!r} ({err})") from None
    source = getattr(module, name, None)
    if not callable(source):
        raise ValueError(f"tasks source {spec!r}: {where!r} has no function {name!r}")
    return source


def resolve_task_source(source: str) -> TaskSource:
    """The source named ``source``: a registered one, or a ``module:function`` /
    ``path/file.py:function`` spec, imported and registered under ``source`` on first use
    (module docstring); ValueError in one line otherwise."""
    if source not in TASK_SOURCES:
        if ":" not in source:
            check_choice("source", source, TASK_SOURCES)
        register_task_source(source, _import_spec(source))
    return TASK_SOURCES[source]


def load_tasks(
    source: str, split: str, seed: int = 0, limit: int | None = None, **options: Any
) -> list:
    """Tasks of ``source`` / ``split`` (first ``limit`` of them if given)."""
    resolve_task_source(source)
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValueError(f"limit must be an integer >= 1 or None, got {limit!r}")
    return TASK_SOURCES[source](split, seed=seed, limit=limit, **options)


def synth_options(
    synth_preset: str, max_turns: int | None = None, max_calls_per_turn: int | None = None
) -> dict[str, Any]:
    """The synth source's options: preset ``synth_preset`` with its turn and call ranges
    ending at ``max_turns`` / ``max_calls_per_turn`` (starting at the preset's low end, or
    at the cap when that is lower); None keeps the preset's own range (``eval``'s default)."""
    from rcgrpo.env.synth import SYNTH_PRESETS

    if synth_preset not in SYNTH_PRESETS:
        raise ValueError(f"synth_preset must be one of {sorted(SYNTH_PRESETS)}")
    base, out = SYNTH_PRESETS[synth_preset], {"preset": synth_preset}
    if max_turns is not None:
        out["turns"] = (min(base.turns[0], max_turns), max_turns)
    if max_calls_per_turn is not None:
        out["calls_per_turn"] = (
            min(base.calls_per_turn[0], max_calls_per_turn),
            max_calls_per_turn,
        )
    return out


def _synth_options(tasks: Any, synth_preset: str) -> dict[str, Any]:
    """:func:`synth_options` with a tasks config section's ``max_turns`` / ``max_calls_per_turn``."""
    return synth_options(synth_preset, tasks.max_turns, tasks.max_calls_per_turn)


def _load_split(tasks: Any, split: str, count: int, synth_preset: str) -> list:
    """``split`` of a tasks config section: bfcl its whole fixed split, synth ``count``
    tasks with the options of :func:`_synth_options`, another source its first ``count``
    tasks (0 = all)."""
    seed = tasks.split_seed
    if tasks.source == "bfcl":  # a fixed split: num_train / num_eval do not apply
        return load_tasks("bfcl", split, seed)
    if tasks.source == "synth":
        return load_tasks("synth", split, seed, count, **_synth_options(tasks, synth_preset))
    return load_tasks(tasks.source, split, seed, count or None)


def load_train_tasks(tasks: Any, synth_preset: str = "tiny") -> list:
    """Training tasks of a :class:`~rcgrpo.train.config.TrainingTaskConfig` (the TRL path),
    exactly the first of :func:`load_task_splits`' pair: bfcl its 720-task train split;
    synth ``num_train`` train-split tasks of preset ``synth_preset``; any other registered
    source the first ``num_train`` of its ``train`` split (0 = all)."""
    return _load_split(tasks, "train", tasks.num_train, synth_preset)


def load_task_splits(tasks: Any, synth_preset: str = "tiny") -> tuple[list, list]:
    """(train, held-out) tasks of a :class:`~rcgrpo.train.config.TaskConfig`, from the task
    source registry (:func:`load_tasks`, seed ``split_seed``).

    bfcl: the 720 / 80 id-level split; synth: ``num_train`` train-split and ``num_eval``
    test-split tasks of preset ``synth_preset`` (:func:`_synth_options`); any other
    registered source: its ``train`` and ``test`` splits, ``num_train`` / ``num_eval`` tasks.
    """
    return load_train_tasks(tasks, synth_preset), _load_split(
        tasks, "test", tasks.num_eval, synth_preset
    )
