"""The runs of ``collapse-pairs-map`` (``docs/protocols/collapse-pairs-map.md``, part 1): per
cell of the grid (k minimal pairs per swap kind, decision weight w) at the design seed, and at
the confirmation seed for a cell that passes there. Trained in ``runs/<home>`` and committed
under ``results/<home>``, home :data:`HOME`.

- ``rctp-k<k>-w<w>-s<seed>``: the minimal-pair RCTP-FT of ``collapse-pairs`` (``rctp-collapse``
  from the seed's collapse SFT, failures sampled from it, ``failures.skip_keep 0``) with
  ``failures.pairs k`` and ``failures.pair_weight w``;
- ``sft-k<k>-s<seed>``: the row's matched SFT, on the reward-1 rows of the mix of the row's
  first cell the walk runs (its ``mix/``; the mix does not depend on w), with RCTP-FT's recipe
  (:data:`analysis.campaigns.collapse_pairs.design.MATCHED`);
- ``pilot-c-k<k>-s<seed>``: ``collapse-grpo`` (G = 5) from the matched SFT, 50 steps (gate C,
  one per row);
- ``pilot-cprime-k<k>-w<w>-s<seed>``: ``collapse-rctp-grpo`` from the cell's RCTP-FT, 50 steps
  (gate C′; at the design seed only where R holds).

Gate R and ρ̂ come from ``python -m analysis.diagnostics.transfer`` on the cell's RCTP-FT
(:func:`transfer_command`). Which cell runs next: :mod:`analysis.campaigns.collapse_pairs_map.walk`.
"""

from __future__ import annotations

from collections.abc import Mapping

from analysis import REPO_ROOT
from analysis.campaign import mechanics as cp
from analysis.campaign.config import pinned
from analysis.campaign.mechanics import Campaign, Checkpoint, RunSpec
from analysis.campaigns.collapse_pairs.design import BASE, MATCHED, PILOT_STEPS

ID = "collapse-pairs-map"
HOME = "collapse-pairs-map"
DESIGN_SEED, REPLICATION_SEED = 31, 32
"""The seed the walk runs at, and the seed a passing cell is replicated at (bases: ``BASE``)."""
PAIRS = (5, 10, 20)
"""Minimal pairs per swap kind of the grid's rows, in the walk's order."""
WEIGHTS = (3.0, 2.0, 1.5)
"""Decision weights of a row's cells, in the walk's order."""
CELLS: tuple[tuple[int, float], ...] = tuple((k, w) for k in PAIRS for w in WEIGHTS)
"""(k, w) of every cell, in the walk's order: rows first, the largest weight first."""


def label(k: int, w: float) -> str:
    """``k5-w3``, ``k20-w1.5``: a cell in run names."""
    return f"k{k}-w{w:g}"


def rctp(k: int, w: float, seed: int) -> RunSpec:
    """The cell's minimal-pair RCTP-FT (module docstring)."""
    base = BASE[seed]
    argv = ("rctp", "--preset", "rctp-collapse", "--run.seed", str(seed), "--model.path", base)
    argv += ("--failures.policy", base, "--failures.pairs", str(k), "--failures.skip_keep", "0")
    argv += ("--failures.pair_weight", f"{w:g}")
    return RunSpec(f"rctp-{label(k, w)}-s{seed}", argv, pin=pinned, home=HOME)


def matched_sft(k: int, seed: int, source: RunSpec) -> RunSpec:
    """The row's matched SFT on the reward-1 rows of ``source``'s mix (module docstring)."""
    argv = ("sft", "--preset", "sft-collapse", "--run.seed", str(seed), "--model.path", BASE[seed])
    argv += ("--sft.successes_of", Checkpoint(source, "mix"))
    argv += tuple(x for flag in MATCHED for x in flag)
    return RunSpec(f"sft-k{k}-s{seed}", argv, pin=pinned, home=HOME)


def pilot(name: str, preset: str, start: RunSpec, seed: int) -> RunSpec:
    """A 50-step GRPO pilot of ``preset`` from ``start`` (gates C and C′)."""
    argv = ("train", "--preset", preset, "--run.seed", str(seed), "--init", Checkpoint(start))
    argv += ("--run.steps", str(PILOT_STEPS), "--run.eval_every", str(PILOT_STEPS))
    return RunSpec(name, argv, pin=pinned, home=HOME)


def cell_runs(k: int, w: float, seed: int, first: bool) -> dict[str, RunSpec]:
    """The cell's RCTP-FT and C′ pilot; with ``first`` (the row's first cell the walk runs),
    the row's matched SFT and C pilot too, the SFT on this cell's mix."""
    out = {"rctp": rctp(k, w, seed)}
    if first:
        out["sft"] = matched_sft(k, seed, out["rctp"])
        out["c"] = pilot(f"pilot-c-k{k}-s{seed}", "collapse-grpo", out["sft"], seed)
    name = f"pilot-cprime-{label(k, w)}-s{seed}"
    out["cprime"] = pilot(name, "collapse-rctp-grpo", out["rctp"], seed)
    return out


def experiment(k: int, w: float, seed: int) -> str:
    """``cell-k5-w3`` (design seed) or ``replication-k5-w3`` (confirmation seed)."""
    return f"{'cell' if seed == DESIGN_SEED else 'replication'}-{label(k, w)}"


def build(first: Mapping[tuple[int, int], float] | None = None) -> Campaign:
    """Every run the walk can call for, one experiment per cell and seed, in the walk's order.
    ``first`` maps (k, seed) to the weight of the row's first cell the walk runs (default: the
    largest, :data:`WEIGHTS` ``[0]``): its runs hold the row's matched SFT and C pilot."""
    first = first or {}
    camp = Campaign()
    for seed in (DESIGN_SEED, REPLICATION_SEED):
        for k, w in CELLS:
            is_first = first.get((k, seed), WEIGHTS[0]) == w
            for spec in cell_runs(k, w, seed, is_first).values():
                camp.add(experiment(k, w, seed), spec)
    return camp


def experiments(camp: Campaign) -> list[str]:
    """The experiments in the walk's order, the design seed's first."""
    return list(camp.experiments)


def transfer_command(k: int, w: float, seed: int) -> list[str]:
    """The goal-effect and transfer diagnostic of the cell's RCTP-FT (gate R and ρ̂), as
    ``collapse-pairs`` ran it."""
    spec = rctp(k, w, seed)
    folder = cp.locate(spec) or REPO_ROOT / "results" / HOME / spec.name
    out = REPO_ROOT / "results" / "diagnostics" / f"transfer-{spec.name}.json"
    return [
        *("python", "-m", "analysis.diagnostics.transfer", "--init", str(folder / "final")),
        *("--synth-preset", "collapse1-d10", "--seed", str(seed), "--tasks", "200"),
        *("--samples", "32", "--batches", "8", "--out", str(out)),
    ]
