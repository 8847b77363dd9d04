"""The committed runs of the collapse campaign the collapse figures read.

``results/collapse/<arm>-s<seed>`` for the arms of an experiment of the ``collapse`` regime
(:func:`analysis.campaign.arms.arms`) on the campaign's seeds
(:data:`analysis.campaigns.collapse.driver.SEEDS`). No admission: every finished run of a registered
(:func:`analysis.campaign.arms.arms`) on the campaign's seeds
seed counts, so a figure shows what the verdicts count (``docs/protocols/collapse-campaign.md``);
an arm with no run yet is left out and the legend gives each arm's n.
"""

from __future__ import annotations

from pathlib import Path

from analysis import REPO_ROOT
from analysis.campaign.arms import arms
from analysis.campaigns.collapse.driver import HOME, SEEDS
from analysis.runs.folder import is_finished, light_globs

ROOT = f"results/{HOME}"
FACTORIAL = tuple(a.preset for a in arms("collapse", "collapse-factorial"))
"""The 2×2 {SFT, RCTP-FT} × {GRPO, RC sampling}, in the registry's order."""


def committed_runs(presets: tuple[str, ...] = FACTORIAL) -> list[Path]:
    """The finished committed runs of ``presets`` on :data:`SEEDS`, arm by arm."""
    paths = (REPO_ROOT / ROOT / f"{arm}-s{seed}" for arm in presets for seed in SEEDS)
    return [p for p in paths if is_finished(p)]


def require_runs(presets: tuple[str, ...] = FACTORIAL) -> list[Path]:
    """:func:`committed_runs`; FileNotFoundError when there is none."""
    paths = committed_runs(presets)
    if not paths:
        raise FileNotFoundError(f"no committed run of {presets} under {ROOT}")
    return paths


def inputs(presets: tuple[str, ...] = FACTORIAL) -> tuple[str, ...]:
    """The light files of :func:`committed_runs` (repository-relative globs)."""
    return tuple(
        g
        for p in committed_runs(presets)
        for g in light_globs(p.relative_to(REPO_ROOT).as_posix(), REPO_ROOT)
    )
