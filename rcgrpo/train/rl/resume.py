"""What ``--run.resume`` does to an RL run folder: the step count it trains to, and the record
of an extension.

A folder's *plan* is the step count its run was started for (``run.steps`` of its
``config.json``) or, once extended, the last extension's ``to``. With ``done`` steps
checkpointed and ``--run.steps`` given (asked) or not:

==============  ====================  ================================================
folder          asked                 outcome
==============  ====================  ================================================
finished        not given, <= done    nothing: :class:`RunFinished` (one line, exit 0)
finished        > done                an extension: trains to ``asked``
unfinished      not given, = plan     continues to the plan (never the preset's count)
unfinished      < plan                refused (:class:`ConfigError`), nothing changed
unfinished      > plan                an extension: trains to ``asked``
==============  ====================  ================================================

*Finished* means the folder holds ``summary.json`` and ``done`` reaches the plan. A resume
never rewrites ``config.json`` (the config the run was started with); ``summary.json`` is
written again only when an extension ends, with every extension in its ``extended`` list.
An extension is recorded when it starts as a marker row of ``metrics.jsonl`` at the step it
continues from, ``{"step": done, "time": t, "extended": {"from", "to", "commit", "dirty"}}``
(in a dirty checkout also ``"diff"``, the file beside holding its ``git diff HEAD``):
the log that holds the steps says where their count changed, a resume cut back to an
earlier checkpoint drops the extensions made after it, and a killed extension resumed
without ``--run.steps`` continues to its ``to``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

from rcgrpo.train.errors import ConfigError, RunFinished
from rcgrpo.train.provenance import git_record
from rcgrpo.train.runlog import RunPaths

MARKER = "extended"
"""Key of an extension's marker row in ``metrics.jsonl`` (and of the list in the summary)."""


@dataclass(frozen=True)
class Resume:
    """How a resumed run continues."""

    steps: int
    """The step count it trains to."""
    extended: list[dict] = field(default_factory=list)
    """The extensions of the run before this resume."""
    new: dict | None = None
    """The extension this resume starts, ``{"from", "to"}`` (None: it continues the plan);
    :func:`mark_extension` records it."""


def extensions(paths: RunPaths, done: int) -> list[dict]:
    """The extension records of the marker rows of ``metrics.jsonl`` at steps <= ``done``."""
    if not paths.metrics.exists():
        return []
    out = []
    for line in paths.metrics.read_text().splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line torn by a kill mid-write
        if MARKER in row and row.get("step", done + 1) <= done:
            out.append(row[MARKER])
    return out


def recorded_steps(paths: RunPaths) -> int | None:
    """``run.steps`` of the folder's ``config.json`` (None: no readable config)."""
    try:
        return int(json.loads(paths.config.read_text())["run"]["steps"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def plan_resume(paths: RunPaths, done: int, asked: int | None, default: int) -> Resume:
    """How the run of ``paths`` with ``done`` steps checkpointed continues (module docstring)
    when ``--run.steps`` is ``asked`` (None: not given); ``default`` is the plan of a folder
    without a readable ``config.json``. Raises before any file is touched."""
    extended = extensions(paths, done)
    recorded = recorded_steps(paths)
    plan = extended[-1]["to"] if extended else (recorded if recorded is not None else default)
    finished = (paths.root / "summary.json").exists() and done >= plan
    if finished and (asked is None or asked <= done):
        raise RunFinished(
            f"{paths.root} holds a finished run of {done} steps; nothing to resume, every file "
            f"left as it is (pass --run.steps N with N > {done} to train it on)"
        )
    if asked is None or asked == plan:
        return Resume(plan, extended)
    if asked < plan:
        raise ConfigError(
            f"run.steps {asked} would end {paths.root} before the {plan} steps it was started "
            f"for ({done} done); nothing was changed (resume without --run.steps to finish it, "
            "or pass more steps to extend it)"
        )
    return Resume(asked, extended, {"from": plan, "to": asked})


def mark_extension(paths: RunPaths, step: int, new: dict) -> dict:
    """Record the extension ``new`` (``{"from", "to"}``) continuing from ``step``: its marker
    row appended to ``metrics.jsonl``, with the commit (and, if dirty, its diff file
    ``git.extended-<from>-<to>.diff``). Returns the record."""
    diff = f"git.extended-{new['from']}-{new['to']}.diff"
    record = {**new, **(git_record(paths.root, diff) or {"commit": None, "dirty": None})}
    row = {"step": int(step), "time": round(time.time(), 3), MARKER: record}
    with paths.metrics.open("a") as fh:
        fh.write(json.dumps(row) + "\n")
    return record
