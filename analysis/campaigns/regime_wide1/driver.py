"""The regime-wide1 campaign: the 2×2 factorial on ``regime-wide1-d10``, the chosen design
(variant 17, ``docs/regime.md``).

The regime-d10 campaign's machinery (:mod:`analysis.campaigns.regime_d10.driver`) in the same home
(:data:`HOME`: it trains in ``runs/regime`` and is committed to ``results/regime``, the
``regime-wide1`` row of ``results/INDEX.toml``); ``make campaign C=regime-wide1`` (``python -m
analysis.campaign --campaign regime-wide1``) trains what is not done. Experiments:

- ``stage1``: per seed of :data:`SEEDS`, the regime SFT ``sft-wide1-s<seed>`` (Stage-1 preset
  ``sft-regime-wide1``) from the pool's SFT that seed's regime SFT starts from
  (:func:`analysis.campaigns.regime_d10.driver.pool_start`: ``sft-s3`` for every seed here, as the design
  seeds 7 and 21), and RCTP-FT ``rctp-wide1-s<seed>`` (``rctp-regime-wide1``) from it, its
  failures sampled from it;
- ``regime-wide1-factorial``: the four arms of :func:`analysis.campaign.arms.arms`
  ``("regime-wide1")`` on every seed, each preset as it is from the Stage 1 of its seed.

No admission: every seed's RCTP-FT arms run. Each RL run is followed by the pass@k of its final
checkpoint and, for SFT + GRPO, its proof report (:func:`analysis.campaigns.regime_d10.driver.finished`).
The pool SFT (experiment ``pool``) is committed and never trained here.
"""

from __future__ import annotations

from analysis.campaign import mechanics as cp
from analysis.campaign.arms import arms
from analysis.campaign.config import pinned
from analysis.campaign.find import run_names
from analysis.campaign.mechanics import Campaign, Checkpoint, RunSpec
from analysis.campaigns.regime_d10 import driver as regime

ID = "regime-wide1"
"""The campaign's id (``--campaign``), also its arms' regime (:data:`analysis.campaign.arms.REGIMES`)."""
HOME = regime.HOME
SEEDS = (3, 4, 5, 6, 11)
"""The campaign's seeds: the regime-d10 campaign's first five after its proof seeds (7–10 are
reserved for design and calibration; 0–2 are the proof seeds of ``regime-wide1-d10``)."""


def stage1(seed: int) -> dict[str, RunSpec]:
    """The pool SFT ``seed`` starts from, its regime SFT and RCTP-FT (module docstring)."""
    start = regime.pool_start(seed)
    sft_argv = ("sft", "--preset", "sft-regime-wide1", "--run.seed", str(seed))
    sft = RunSpec(
        f"sft-wide1-s{seed}", (*sft_argv, "--model.path", Checkpoint(start)), pin=pinned, home=HOME
    )
    rctp_argv = ("rctp", "--preset", "rctp-regime-wide1", "--run.seed", str(seed))
    rctp_argv += ("--model.path", Checkpoint(sft), "--failures.policy", Checkpoint(sft))
    rctp = RunSpec(f"rctp-wide1-s{seed}", rctp_argv, pin=pinned, home=HOME)
    return {"pool": start, "sft": sft, "rctp": rctp}


def build() -> Campaign:
    """Every run of the campaign: Stage 1 of every seed, then the four arms of every seed."""
    camp = Campaign()
    starts = {s: stage1(s) for s in SEEDS}
    regime.add_stage1(camp, starts)
    for s in SEEDS:
        for a in arms(ID):
            camp.add(a.experiment, regime.rl(a.preset, starts[s][a.start], s))
    return camp


def experiments(camp: Campaign) -> list[str]:
    """Every experiment but ``pool``, Stage 1 first."""
    return [e for e in camp.experiments if e != "pool"]


def run(names: list[str], jobs: int, force_train: bool, dry_run: bool) -> None:
    """Train the runs of the experiments ``names`` that are not done (and what they start
    from), Stage 1 first, each RL run followed by :func:`analysis.campaigns.regime_d10.driver.finished`."""
    camp = build()
    todo = run_names(camp, list(dict.fromkeys(names)))
    cp.run_all(camp, todo, jobs, force_train, dry_run, on_done=regime.finished)
