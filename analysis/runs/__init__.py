"""Run data, the lowest layer of :mod:`analysis`: the only reader of run folders.

================================  ===========================================================
module                            concern
================================  ===========================================================
:mod:`~analysis.runs.folder`      one run folder: its files, :func:`is_finished` (the one
                                  completion test), :class:`Run` (config, summary, metrics,
                                  rollouts, evaluations, conversations), its seed, file
                                  digests
:mod:`~analysis.runs.sources`     run folders below a root; experiment groups -> finished runs
:mod:`~analysis.runs.extractors`  one run -> one number (tables, verdicts and figures)
:mod:`~analysis.runs.pack`        compress a finished folder's per-rollout table in place
:mod:`~analysis.runs.restore`     bring back a committed run folder from git (``make restore``)
:mod:`~analysis.runs.storage`     what ``results/`` holds: its size in git's index, its
                                  checkpoint folders, the records that start from them
================================  ===========================================================

Every other module reads a run through this package (``from analysis.runs import load_run``)
and imports nothing above it; the layers above are the campaign, the diagnostics, statistics
and verdicts, figures, the report and the notebook helpers (:mod:`analysis`).
"""

from analysis.runs.folder import (
    COMPLETE,
    GROUP_KEYS,
    SAMPLE_CONVERSATIONS,
    SAMPLE_SOURCE,
    Run,
    is_finished,
    load_run,
    load_runs,
    metrics_frame,
    seed_of,
)

__all__ = [
    "COMPLETE",
    "GROUP_KEYS",
    "SAMPLE_CONVERSATIONS",
    "SAMPLE_SOURCE",
    "Run",
    "is_finished",
    "load_run",
    "load_runs",
    "metrics_frame",
    "seed_of",
]
