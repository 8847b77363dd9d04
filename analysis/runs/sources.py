"""Where runs are: the run folders below a root, and the finished runs of named experiments.

A table row, a verdict or a figure names an *experiment group*, e.g. ``cpu-grpo``: the
finished runs of one configuration, one per seed. A run folder belongs to group ``name`` when
its folder name is ``name`` or ``name-s<seed>`` (the trainer's ``{preset}-s{seed}``, the
campaign's ``sft-s0``), or its parent folder is named ``name``.

A :data:`Resolver` maps a group to its finished run folders. :func:`layout_resolver` scans a
folder tree (``--runs-root DIR``); a campaign's resolver, which locates its runs with their
current spec, is :func:`analysis.campaign.find.campaign_resolver`. A run counts only when finished
(:func:`analysis.runs.folder.is_finished`); a missing group is reported by name
(:class:`MissingRunsError`), never silently skipped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path

from analysis import REPO_ROOT
from analysis.runs.folder import is_finished
from rcgrpo.train.runlog import METRICS_FORMS, table_file

RUNS_ROOT = REPO_ROOT / "runs"
THEORY_REPORT = REPO_ROOT / "figures" / "theory_report.json"
RUN_KINDS = ("any", "rl", "sft")

Resolver = Callable[[str], list[Path]]


class MissingRunsError(RuntimeError):
    """Experiments a table needs have no finished run folder."""

    def __init__(self, missing: dict[str, list[str]]):
        self.missing = {k: sorted(set(v)) for k, v in missing.items()}
        names = sorted({e for exps in self.missing.values() for e in exps})
        detail = "; ".join(f"{t}: {', '.join(e)}" for t, e in sorted(self.missing.items()))
        super().__init__(
            f"missing finished runs for experiment(s) {', '.join(names)} (needed by {detail}); "
            "run them (make runs) or pass --allow-missing to print 'not yet run' rows"
        )


def is_run_folder(path: Path) -> bool:
    """A folder the trainer or Stage 1 wrote (``config.json`` + ``metrics.jsonl``, or
    ``metrics.jsonl.gz`` in a light copy)."""
    path = Path(path)
    logged = any((path / name).is_file() for name in METRICS_FORMS)
    return (path / "config.json").is_file() and logged


def run_kind(path: Path) -> str:
    """``rl`` (has the per-rollout table, plain or compressed) or ``sft`` (Stage 1)."""
    return "rl" if table_file(Path(path)) is not None else "sft"


def discover_runs(root: str | Path = RUNS_ROOT, kind: str = "any") -> list[Path]:
    """Every run folder below ``root`` (sorted; not descending into run folders)."""
    if kind not in RUN_KINDS:
        raise ValueError(f"kind must be one of {RUN_KINDS}, got {kind!r}")
    root = Path(root)
    if not root.is_dir():
        return []
    found: list[Path] = []
    stack = [root]
    while stack:
        folder = stack.pop()
        if is_run_folder(folder):
            if kind in ("any", run_kind(folder)):
                found.append(folder)
            continue
        stack.extend(p for p in folder.iterdir() if p.is_dir() and p.name != "checkpoints")
    return sorted(found)


def matches(experiment: str, folder: Path) -> bool:
    """Whether run ``folder`` belongs to ``experiment`` (module docstring)."""
    name = folder.name
    seeded = re.fullmatch(re.escape(experiment) + r"-s\d+", name) is not None
    return name == experiment or seeded or folder.parent.name == experiment


def layout_resolver(runs_root: str | Path = RUNS_ROOT) -> Resolver:
    """Resolve names by the on-disk layout (module docstring); finished runs only."""
    folders = [f for f in discover_runs(runs_root) if is_finished(f)]

    def resolve(experiment: str) -> list[Path]:
        return [f for f in folders if matches(experiment, f)]

    return resolve


def collect(experiments: Iterable[str], resolve: Resolver) -> dict[str, list[Path]]:
    """Experiment -> its finished run folders (an empty list when it has none)."""
    return {name: sorted(resolve(name)) for name in dict.fromkeys(experiments)}
