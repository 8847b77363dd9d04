"""Where the report's inputs live: run folders of named experiments, the theory report.

A table row names an *experiment group*, e.g. ``cpu-grpo``: the finished runs of one
configuration, one per seed. A run folder belongs to group ``name`` when its folder name is
``name`` or ``name-s<seed>`` (the trainer's ``{preset}-s{seed}``, the campaign's
``sft-s0``), or its parent folder is named ``name``.

By default runs come from the experiment campaign (:mod:`analysis.experiments`: complete
runs with the current spec in ``runs/campaign/`` first, then the committed light copies in
``results/campaign/``), located with its own ``build_campaign`` / ``locate`` — this never
starts a run, and a stale folder (trained from another spec) never counts. ``--runs-root DIR`` instead scans a folder tree (:func:`layout_resolver`).
A run counts only when finished (``summary.json`` written at its end, or the campaign's
``.complete`` marker); a missing group is reported by name, never silently skipped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path

from analysis import REPO_ROOT
from analysis.campaign import RESULTS

RUNS_ROOT = REPO_ROOT / "runs"
COMMITTED = RESULTS
"""The campaign's committed light copies (the runs the README reports)."""
THEORY_REPORT = REPO_ROOT / "figures" / "theory_report.json"
RUN_KINDS = ("any", "rl", "sft")
CAMPAIGN_MARKER = ".complete"

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
    """The run reached its end (``summary.json`` is written last; or the campaign marker)."""
    path = Path(path)
    done = (path / "summary.json").is_file() or (path / CAMPAIGN_MARKER).is_file()
    return is_run_folder(path) and done


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


def campaign_resolver() -> Resolver:
    """Resolve groups among the campaign's runs (``analysis.experiments``), complete only."""
    from analysis.campaign import locate
    from analysis.experiments import build_campaign

    specs = build_campaign().runs

    def resolve(group: str) -> list[Path]:
        found = (locate(s) for n, s in specs.items() if matches(group, Path(n)))
        return [p for p in found if p is not None and is_finished(p)]

    return resolve


def default_resolver(runs_root: str | Path | None = None) -> Resolver:
    """:func:`layout_resolver` of ``runs_root`` when given, else :func:`campaign_resolver`."""
    return layout_resolver(runs_root) if runs_root is not None else campaign_resolver()


def collect(experiments: Iterable[str], resolve: Resolver) -> dict[str, list[Path]]:
    """Experiment -> its finished run folders (an empty list when it has none)."""
    return {name: sorted(resolve(name)) for name in dict.fromkeys(experiments)}
