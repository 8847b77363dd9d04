"""Where the report's inputs live: run folders of named experiments, the theory report.

An *experiment* is a name (e.g. ``cpu-grpo``) for a set of finished run folders, one per
seed. Until :mod:`analysis.experiments` provides ``find_runs(name) -> list[Path]`` (existing
folders only; it must never start a run), a name is resolved by the layout the trainer and
Stage 1 write (``run.name = {preset}-s{seed}`` under ``run.root``): a run folder below
``runs_root`` belongs to experiment ``name`` when

- its folder name is ``name`` (``runs/stage1/sft-synth``), or ``name-s<seed>``
  (``runs/cpu-grpo-s2``), or
- its parent folder is named ``name`` (``runs/cpu-grpo/s2``).

A run counts only when finished (``summary.json`` written at the end of a run); a missing
experiment is reported by name, never silently skipped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path

import analysis

REPO_ROOT = Path(analysis.__file__).resolve().parents[1]
"""The repository root (``analysis/`` is installed editable)."""
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
    """A folder the trainer or Stage 1 wrote (``config.json`` + ``metrics.jsonl``)."""
    path = Path(path)
    return (path / "config.json").is_file() and (path / "metrics.jsonl").is_file()


def is_finished(path: Path) -> bool:
    """The run reached its end (``summary.json`` is written last)."""
    return is_run_folder(path) and (Path(path) / "summary.json").is_file()


def run_kind(path: Path) -> str:
    """``rl`` (has the per-rollout table) or ``sft`` (Stage 1)."""
    return "rl" if (Path(path) / "rollouts.jsonl").is_file() else "sft"


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


def default_resolver(runs_root: str | Path = RUNS_ROOT) -> Resolver:
    """``analysis.experiments.find_runs`` when it exists, else :func:`layout_resolver`."""
    try:
        from analysis.experiments import find_runs  # type: ignore[attr-defined]
    except ImportError:
        return layout_resolver(runs_root)

    def resolve(experiment: str) -> list[Path]:
        return [Path(p) for p in find_runs(experiment) if is_finished(Path(p))]

    return resolve


def collect(experiments: Iterable[str], resolve: Resolver) -> dict[str, list[Path]]:
    """Experiment -> its finished run folders (an empty list when it has none)."""
    return {name: sorted(resolve(name)) for name in dict.fromkeys(experiments)}
