"""The collapse campaign: the factorial and the mechanism arms on ``collapse1-d10``, the suite
where SFT + GRPO collapses (rules: ``docs/protocols/collapse-campaign.md``; design:
``docs/lab-notes/2026-12-collapse-design.md``).

Its runs train in ``runs/collapse`` and are committed to ``results/collapse`` (home
:data:`HOME`, the ``collapse`` row of ``results/INDEX.toml``); ``make campaign C=collapse``
(``python -m analysis.campaign --campaign collapse``) trains what is not done. Experiments:

- ``stage1``: per seed of :data:`SEEDS`, the SFT ``sft-collapse-s<seed>`` (Stage-1 preset
  ``sft-collapse``) from the pool SFT ``sft-s3``, as the design seeds' SFT, and RCTP-FT
  ``rctp-collapse-s<seed>`` (``rctp-collapse``) from it, its failures sampled from it;
- ``collapse-factorial``: the four cells {SFT, RCTP-FT} × {GRPO, RC sampling} on every seed;
- ``collapse-mechanisms``: the anchored low mode, within-goal normalisation and the
  rollout-matched GRPO (G = 3) from the same RCTP-FT checkpoints;
- ``collapse-control`` (``docs/protocols/collapse-control.md``): RCTP-FT + GRPO from
  ``rctp-collapse-shuffled-s<seed>``, RCTP-FT with its goal labels permuted (Stage-1 preset
  ``rctp-collapse-shuffled``; its Stage 1 is in ``stage1``, after the seeds' SFT and RCTP-FT).

No admission by outcome: every seed's Stage 1 is trained and every arm runs on it. The
factorial's runs come before the mechanism arms'; a part of the campaign is a ``--runs`` list
(``docs/protocols/collapse-campaign.md`` names the parts). No pass@k or proof report follows a
run: the outcomes are the run's own held-out evaluations and group metrics.
"""

from __future__ import annotations

from analysis.campaign import mechanics as cp
from analysis.campaign.arms import arms
from analysis.campaign.config import pinned
from analysis.campaign.find import run_names
from analysis.campaign.mechanics import Campaign, Checkpoint, RunSpec
from analysis.campaigns.pool import driver as pool
from analysis.campaigns.regime_d10 import driver as regime

ID = "collapse"
"""The campaign's id (``--campaign``), also its arms' regime (:data:`analysis.campaign.arms.REGIMES`)."""
HOME = "collapse"
SEEDS = (3, 4, 5, 6, 11)
"""The factorial's seeds, registered with the gates before any design run
(``docs/protocols/collapse-testbed.md``; the design seeds 31 and 32 are never among them)."""


def stage1(seed: int) -> dict[str, RunSpec]:
    """The pool SFT ``sft-s3``, the seed's SFT and RCTP-FT from it (module docstring)."""
    start = pool.stage1(3)["sft"]
    sft_argv = ("sft", "--preset", "sft-collapse", "--run.seed", str(seed))
    sft = RunSpec(
        f"sft-collapse-s{seed}",
        (*sft_argv, "--model.path", Checkpoint(start)),
        pin=pinned,
        home=HOME,
    )
    rctp_argv = ("rctp", "--preset", "rctp-collapse", "--run.seed", str(seed))
    rctp_argv += ("--model.path", Checkpoint(sft), "--failures.policy", Checkpoint(sft))
    rctp = RunSpec(f"rctp-collapse-s{seed}", rctp_argv, pin=pinned, home=HOME)
    shuffled_argv = ("rctp", "--preset", "rctp-collapse-shuffled", *rctp_argv[3:])
    shuffled = RunSpec(f"rctp-collapse-shuffled-s{seed}", shuffled_argv, pin=pinned, home=HOME)
    return {"pool": start, "sft": sft, "rctp": rctp, "rctp-shuffled": shuffled}


def rl(preset: str, init: RunSpec, seed: int) -> RunSpec:
    """RL preset ``preset`` as it is from the final model of ``init``."""
    argv = ("train", "--preset", preset, "--run.seed", str(seed), "--init", Checkpoint(init))
    return RunSpec(f"{preset}-s{seed}", argv, pin=pinned, home=HOME)


def build() -> Campaign:
    """Every run of the campaign: Stage 1 of every seed, then every arm on every seed."""
    camp = Campaign()
    starts = {s: stage1(s) for s in SEEDS}
    regime.add_stage1(camp, starts)
    for s in SEEDS:
        camp.add("stage1", starts[s]["rctp-shuffled"])
    for e in dict.fromkeys(a.experiment for a in arms(ID)):
        camp.experiments.setdefault(e, [])
    for s in SEEDS:
        for a in arms(ID):
            camp.add(a.experiment, rl(a.preset, starts[s][a.start], s))
    return camp


def experiments(camp: Campaign) -> list[str]:
    """Every experiment but ``pool``, Stage 1 first."""
    return [e for e in camp.experiments if e != "pool"]


def run(names: list[str], jobs: int, force_train: bool, dry_run: bool) -> None:
    """Train the runs of the experiments ``names`` that are not done (and what they start
    from), Stage 1 first."""
    camp = build()
    todo = run_names(camp, list(dict.fromkeys(names)))
    cp.run_all(camp, todo, jobs, force_train, dry_run)
