"""The collapse-pairs-map campaign's entry in the registry (:mod:`analysis.campaign.registry`).

``make campaign C=collapse-pairs-map`` trains what the walk calls for next
(:func:`analysis.campaigns.collapse_pairs_map.gates.status`): for the cell and seed it names,
the runs of the gates still missing (R: the RCTP-FT, then the diagnostic whose command it
prints; C: the row's matched SFT and pilot; C′: the cell's pilot), nothing once the map has
ended. ``--list`` shows every run the walk can call for; ``--runs NAME`` trains a named one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from analysis.campaign import mechanics as cp
from analysis.campaign.entry import Block, Entry
from analysis.campaigns.collapse_pairs_map import design

if TYPE_CHECKING:
    from analysis.campaigns.collapse_pairs_map.walk import Step

NEEDS = {"R": ("rctp",), "C": ("sft", "c"), "C′": ("cprime",)}
"""Gate -> the runs of :func:`~analysis.campaigns.collapse_pairs_map.design.cell_runs` it needs
(R also needs the diagnostic, which is not a run)."""


def first() -> dict[tuple[int, int], float]:
    """(k, seed) -> the weight of row k's first cell the walk runs at that seed (the cells whose
    RCTP-FT ran, else the next step's)."""
    from analysis.campaigns.collapse_pairs_map import gates
    from analysis.campaigns.collapse_pairs_map import walk as wk

    step = gates.status()
    out = {}
    for seed in (design.DESIGN_SEED, design.REPLICATION_SEED):
        ran = {(k, w) for k, w in design.CELLS if cp.locate(design.rctp(k, w, seed))}
        for k, w in wk.first_weights(ran, step, seed).items():
            out[(k, seed)] = w
    return out


def build():
    """Every run the walk can call for, each row's matched SFT on its first cell's mix."""
    return design.build(first())


def todo(step: Step, firsts: dict) -> list[str]:
    """The runs of ``step``'s missing gates (a run that is done is skipped by the launcher)."""
    k, w = step.cell
    runs = design.cell_runs(k, w, step.seed, firsts.get((k, step.seed), design.WEIGHTS[0]) == w)
    return [runs[r].name for gate in step.need for r in NEEDS[gate] if r in runs]


def run(names: list[str], jobs: int, force_train: bool, dry_run: bool) -> None:
    """Train the runs of the walk's next step when its experiment is among ``names``."""
    from analysis.campaigns.collapse_pairs_map import gates

    step = gates.status()
    if step.kind in ("found", "ended"):
        print(f"[collapse-pairs-map] the map has ended ({step.kind}); nothing to train")
        return
    firsts = first()
    camp = design.build(firsts)
    k, w = step.cell
    need = ", ".join(step.need)
    print(f"[collapse-pairs-map] next: {k} pairs, ×{w:g} at seed {step.seed}: {need}")
    wanted = design.experiment(k, w, step.seed) in names
    cp.run_all(camp, todo(step, firsts) if wanted else [], jobs, force_train, dry_run)
    if "R" in step.need:
        argv = design.transfer_command(k, w, step.seed)
        print(f"[collapse-pairs-map] then gate R and rho: {' '.join(argv)}")


ENTRY = Entry(
    design.ID,
    "the narrow region of minimal pairs on collapse1-d10: 5-20 pairs x decision weight "
    "1.5-3, gates R, C, C' in the protocol's walk (runs/collapse-pairs-map)",
    build,
    design.experiments,
    run,
    blocks=(Block("collapse-pairs-map", "gates:map_markdown"),),
)
