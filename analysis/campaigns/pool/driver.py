"""The CPU experiment campaign that the figures and the report read.

:func:`build_campaign` is every run of the campaign (id ``pool``), by experiment; ``python -m
analysis.campaign`` (``make runs``, ``make campaign C=pool``; :mod:`analysis.campaign.__main__`)
trains those not done.
How a run is found, resumed, judged stale and exported is :mod:`analysis.campaign.mechanics`;
:mod:`analysis.campaign.find` finds the done runs of its experiments and never trains.

One experiment per purpose (see ``docs/experiments.md``):

- ``stage1``: per seed, SFT of the tiny Qwen2 from scratch on the synth suite
  (``sft-synth-cpu``: length curriculum, warmup-stable-decay lr, 2.1 epochs) and RCTP-FT
  from it (``rctp-synth-cpu``; failures sampled from the SFT run's early ``weak`` snapshot).
- ``factorial``: the paper's 2×2 {SFT, RCTP-FT} × {GRPO, RC sampling}, per seed, each RL
  run starting from the Stage-1 checkpoints of the same seed. The RL experiments train the
  arms of :data:`analysis.campaign.arms.ARMS` (regime ``pool``) that name them.
- ``baselines``: the other collapse fixes (DAPO, entropy bonus, higher temperature,
  Dr. GRPO) from the SFT checkpoint, on :data:`BASELINE_SEEDS`.
- ``stratified``: RC-GRPO with stratified goals (exactly round(p·G) high goals per group)
  from the RCTP-FT checkpoints, per seed: the i.i.d. draw of ``cpu-rcgrpo`` against it.
- ``rl-sweep``: the RL recipe sweep (:mod:`analysis.campaigns.rl_recipe.recipe_sweep`): SFT + GRPO
  settings from the SFT model of a seed the factorial does not use, judged by a criterion
  fixed in advance.
"""

from __future__ import annotations

from collections.abc import Iterable

from analysis.campaign.arms import arms
from analysis.campaign.config import pinned
from analysis.campaign.find import run_names
from analysis.campaign.mechanics import Campaign, Checkpoint, RunSpec, run_all
from analysis.campaigns.rl_recipe import recipe_sweep as sw

SEEDS = (0, 1, 2)
BASELINE_SEEDS = SEEDS
"""Seeds of the baseline runs (the same as the factorial's)."""
RECIPE = sw.POOL_FOLLOW_UP[0]
"""The RL recipe of every factorial, baseline and stratified run, carried by the ``cpu-*``
presets themselves (a test checks both): the setting :func:`analysis.campaigns.rl_recipe.recipe_sweep.choose`
picks from the committed sweep (a test checks they agree): lr 1e-4 on a pool of 16 training
tasks (``tasks.num_train``), 8 prompts x G 5 per step, β 0.1, 200 steps. Its Δ_train was
+0.107, held-out 0.595 -> 0.575 (seed 3). The presets also evaluate every 25 steps (and at
step 0): 200 held-out tasks, twice (high and low goal) for the RC arms."""


def stage1(seed: int) -> dict[str, RunSpec]:
    """SFT from scratch, then RCTP-FT from its final model with failures of its weak one."""
    sft_argv = ("sft", "--preset", "sft-synth-cpu", "--run.seed", str(seed))
    sft = RunSpec(f"sft-s{seed}", sft_argv, pin=pinned)
    rctp = RunSpec(
        f"rctp-s{seed}",
        ("rctp", "--preset", "rctp-synth-cpu", "--run.seed", str(seed))
        + ("--model.path", Checkpoint(sft), "--failures.policy", Checkpoint(sft, "weak")),
        pin=pinned,
    )
    return {"sft": sft, "rctp": rctp}


def rl(preset: str, init: RunSpec, seed: int) -> RunSpec:
    """RL preset ``preset`` as it is (it carries the :data:`RECIPE`) from the final model of
    Stage-1 run ``init``."""
    argv = ("train", "--preset", preset, "--run.seed", str(seed))
    return RunSpec(f"{preset}-s{seed}", (*argv, "--init", Checkpoint(init)), pin=pinned)


def sweep(setting: sw.Setting, init: RunSpec) -> RunSpec:
    """One setting of the recipe sweep: ``cpu-grpo`` plus the setting's flags."""
    steps = ("--run.steps", str(setting.steps), "--run.eval-every", str(sw.EVAL_EVERY))
    argv = ("train", "--preset", "cpu-grpo", "--run.seed", str(sw.SEED), *steps)
    argv = (*argv, *setting.flags(), "--init", Checkpoint(init))
    return RunSpec(f"sweep-{setting.tag}", argv, pin=pinned)


def build_campaign(seeds: Iterable[int] = SEEDS) -> Campaign:
    camp = Campaign()
    sweep_start = stage1(sw.SEED)["sft"]
    camp.add("rl-sweep", sweep_start)
    for setting in (*sw.CANDIDATES, *sw.DIAGNOSES):
        camp.add("rl-sweep", sweep(setting, sweep_start))
    for seed in seeds:
        start = stage1(seed)
        for spec in start.values():
            camp.add("stage1", spec)
        for arm in arms("pool"):
            if arm.experiment != "baselines" or seed in BASELINE_SEEDS:
                camp.add(arm.experiment, rl(arm.preset, start[arm.start], seed))
    return camp


def run(names: list[str], jobs: int, force_train: bool, dry_run: bool) -> None:
    """Train the runs of the experiments ``names`` that are not done (and what they start
    from), at most ``jobs`` at a time (:func:`analysis.campaign.mechanics.run_all`)."""
    camp = build_campaign()
    run_all(camp, run_names(camp, names), jobs, force_train, dry_run)
