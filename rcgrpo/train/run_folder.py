"""The life cycle of a run folder, the same for Stage 1 (``sft``, ``rctp``) and RL (``train``).

A run starts in a folder ``run.root / run.name`` and

1. seeds every generator the trainers draw from (:func:`seed_all`: ``random``, NumPy, torch);
2. refuses a folder that already holds a run (:func:`check_folder`: a metrics log with rows,
   a checkpoint or a ``summary.json``) unless ``run.resume`` is set, so that a mistyped
   command cannot overwrite a finished run;
3. when resuming, refuses a config that differs from the one the folder's run was started
   with (:func:`check_same_run`; the keys of ``resumable`` aside, e.g. the folder's name, so
   a copied folder resumes under its new one, and ``run.steps`` for RL:
   :mod:`rcgrpo.train.rl.resume`),
   continues from the newest checkpoint that verifies (:func:`resume_from`; a folder whose
   checkpoints are all corrupt is refused rather than restarted at step 0, which would drop
   its logged steps) and stops without touching a file when the run already finished
   (:func:`check_unfinished`; RL: :func:`rcgrpo.train.rl.resume.plan_resume`);
4. writes ``config.json`` (the config as asked) when it starts at step 0, never on a resume,
   and, at the end, ``summary.json`` (:func:`write_summary`, the one writer of both stages,
   with the commit of the code and, from a dirty checkout, ``git.diff`` beside).
"""

from __future__ import annotations

import json
import random
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch

from rcgrpo.train.checkpoint import latest_checkpoint, list_checkpoints
from rcgrpo.train.config import to_dict, upgrade_config
from rcgrpo.train.errors import RunFinished
from rcgrpo.train.provenance import git_record
from rcgrpo.train.runlog import RunPaths
from rcgrpo.train.validate import ConfigError

RESUME_KEYS = ("run.resume", "run.progress", "run.tensorboard", "run.root", "run.name")
"""Keys every resumed run may change: they do not change what the run computes (a run
folder copied under another name or root resumes in place there)."""


def seed_all(seed: int) -> None:
    """Seed ``random``, NumPy's global generator and torch (CPU and every CUDA device)."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def flat(d: dict, prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}}`` -> ``{"a.b": 1}``."""
    out: dict[str, Any] = {}
    for key, value in d.items():
        dotted = f"{prefix}{key}"
        out.update(flat(value, dotted + ".") if isinstance(value, dict) else {dotted: value})
    return out


def holds_run(paths: RunPaths) -> bool:
    """Whether the folder holds a run: logged rows, a checkpoint or a summary."""
    logged = paths.metrics.exists() and paths.metrics.stat().st_size > 0
    summary = (paths.root / "summary.json").exists()
    return logged or summary or bool(list_checkpoints(paths.checkpoints))


def check_folder(paths: RunPaths, resume: bool) -> None:
    """Refuse to start a fresh run in a folder that holds one (module docstring, 2)."""
    if not resume and holds_run(paths):
        raise ConfigError(
            f"config: run.name folder {paths.root} already holds a run; pass --run.resume "
            "to continue it or choose another --run.name"
        )


def check_same_run(cfg: Any, paths: RunPaths, resumable: tuple[str, ...] = RESUME_KEYS) -> None:
    """A resumed run must have the config it was started with (``resumable`` keys aside); a
    key the config no longer has cannot change the run, a renamed one is read under its new
    name (:func:`~rcgrpo.train.config.upgrade_config`)."""
    if not paths.config.exists():
        return
    old = flat(upgrade_config(json.loads(paths.config.read_text())))
    new = flat(to_dict(cfg))
    for key in sorted(new):
        if key not in resumable and old.get(key) != new[key]:
            raise ConfigError(
                f"config: {key} is {new[key]!r} but the run being resumed used "
                f"{old.get(key)!r}; resume with the same config or start a new --run.name"
            )


def resume_from(paths: RunPaths) -> Path | None:
    """The checkpoint a resumed run continues from: the newest that verifies (a corrupt newer
    one is skipped with a warning; the logs are later cut back to its step). None when the
    folder has no checkpoint (killed before the first). ConfigError, nothing changed, when it
    has checkpoints and none verifies."""
    found = list_checkpoints(paths.checkpoints)
    with warnings.catch_warnings(record=True) as skipped:
        warnings.simplefilter("always")
        good = latest_checkpoint(paths.checkpoints)
    for warning in skipped:  # one line each, without warnings' source line
        print(f"rcgrpo: {warning.message}", file=sys.stderr)
    if found and good is None:
        names = ", ".join(p.name for p in found)
        raise ConfigError(
            f"run.resume: no checkpoint of {paths.checkpoints} verifies ({names}); nothing was "
            "changed (delete them to restart the run at step 0)"
        )
    return good


def check_unfinished(paths: RunPaths) -> None:
    """Stop a Stage-1 resume with :class:`RunFinished` (exit 0, no file touched) when the
    folder's run wrote its ``summary.json`` (RL: :func:`rcgrpo.train.rl.resume.plan_resume`)."""
    summary = paths.root / "summary.json"
    if summary.exists():
        raise RunFinished(
            f"{paths.root} holds a finished run ({summary.name}); nothing to resume, every "
            "file left as it is"
        )


def write_summary(paths: RunPaths, summary: dict) -> Path:
    """Write ``summary.json`` (indented, one trailing newline) with the ``git`` record of the
    code that trained the run (:func:`rcgrpo.train.provenance.git_record`: commit, dirty, and
    ``git.diff`` beside when dirty); a folder whose ``summary.json`` has one already (an
    extended run: each extension records its own) keeps it. Returns its path."""
    path = paths.root / "summary.json"
    summary = {**summary, "git": _recorded_git(path) or git_record(paths.root)}
    path.write_text(json.dumps(summary, indent=2) + "\n")
    return path


def _recorded_git(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text()).get("git")
    except (OSError, ValueError, AttributeError):
        return None
