"""The CPU experiment campaign that the figures and the report read.

``python -m analysis.experiments [--only EXP ...] [--jobs N] [--dry-run] [--list]`` trains
every run of the named experiments (default: all) that is not done, at most ``--jobs`` at a
time, each as a real ``python -m rcgrpo ...`` subprocess (one torch thread each, ``nice``),
Stage 1 before the RL runs that start from it. How a run is found, resumed, judged stale and
exported (each light copy, with the Stage-1 checkpoints, goes to ``results/campaign`` as
soon as the run completes) is :mod:`analysis.campaign`. ``--force-train`` ignores the
committed copies; ``--export`` copies every complete run of ``runs/campaign`` again;
``--adopt NAME ...`` records the spec of runs trained by hand with the campaign's command.

One experiment per purpose (see ``docs/experiments.md``):

- ``stage1``: per seed, SFT of the tiny Qwen2 from scratch on the synth suite
  (``sft-synth-cpu``: length curriculum, warmup-stable-decay lr, 2.1 epochs) and RCTP-FT
  from it (``rctp-synth-cpu``; failures sampled from the SFT run's early ``weak`` snapshot).
- ``factorial``: the paper's 2×2 {SFT, RCTP-FT} × {GRPO, RC sampling}, per seed, each RL
  run starting from the Stage-1 checkpoints of the same seed. The RL experiments train the
  arms of :data:`rcgrpo.train.arms.ARMS` (regime ``pool``) that name them.
- ``baselines``: the other collapse fixes (DAPO, entropy bonus, higher temperature,
  Dr. GRPO) from the SFT checkpoint, on :data:`BASELINE_SEEDS`.
- ``stratified``: RC-GRPO with stratified goals (exactly round(p·G) high goals per group)
  from the RCTP-FT checkpoints, per seed: the i.i.d. draw of ``cpu-rcgrpo`` against it.
- ``rl-sweep``: the RL recipe sweep (:mod:`analysis.recipe_sweep`): SFT + GRPO settings from
  the SFT model of a seed the factorial does not use, judged by a criterion fixed in advance.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable
from pathlib import Path

from analysis import recipe_sweep as sw
from analysis.campaign import (
    Campaign,
    Checkpoint,
    RunSpec,
    export_results,
    locate,
    run_all,
    status,
)
from analysis.campaign_config import adopt, pinned
from rcgrpo.train.arms import arms

SEEDS = (0, 1, 2)
BASELINE_SEEDS = SEEDS
"""Seeds of the baseline runs (the same as the factorial's)."""
RECIPE = sw.POOL_FOLLOW_UP[0]
"""The RL recipe of every factorial, baseline and stratified run, carried by the ``cpu-*``
presets themselves (a test checks both): the setting :func:`analysis.recipe_sweep.choose`
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


def _check(camp: Campaign, experiments: Iterable[str]) -> list[str]:
    unknown = sorted(set(experiments) - set(camp.experiments))
    if unknown:
        raise ValueError(f"unknown experiment(s) {unknown}; have {sorted(camp.experiments)}")
    return [n for e in experiments for n in camp.experiments[e]]


def find_runs(experiments: Iterable[str]) -> dict[str, dict[str, Path | None]]:
    """Per experiment, each of its runs (campaign order) -> the folder of the run when it is
    done (runs/campaign or the committed results/campaign), else None. Never trains: that is
    ``make runs`` (:func:`main`)."""
    camp = build_campaign()
    _check(camp, experiments)
    return {e: {n: locate(camp.runs[n]) for n in camp.experiments[e]} for e in experiments}


def _list(camp: Campaign, force_train: bool) -> None:
    for exp, names in camp.experiments.items():
        for n in names:
            state, where = status(camp.runs[n], force_train)
            print(f"{exp:10s} {n:22s} {state}{': ' + str(where) if where else ''}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.experiments")
    parser.add_argument("--only", nargs="*", default=None, help="experiments to run (default: all)")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("RCGRPO_JOBS", "2")))
    parser.add_argument("--dry-run", action="store_true", help="print the commands only")
    parser.add_argument("--list", action="store_true", help="list experiments, runs and status")
    parser.add_argument("--force-train", action="store_true", help="ignore results/campaign")
    parser.add_argument("--export", action="store_true", help="copy finished runs to results/")
    parser.add_argument("--adopt", nargs="+", metavar="RUN", help="record the spec of hand runs")
    args = parser.parse_args(argv)
    camp = build_campaign()
    try:
        if args.list:
            _list(camp, args.force_train)
        elif args.adopt:
            unknown = sorted(set(args.adopt) - set(camp.runs))
            if unknown:
                raise ValueError(f"unknown run(s) {unknown}")
            for p in adopt(camp, args.adopt):
                print(f"adopted {p}")
        elif args.export:
            for p in export_results(camp):
                print(f"exported {p}")
        else:
            names = _check(camp, args.only or list(camp.experiments))
            run_all(camp, names, args.jobs, args.force_train, args.dry_run)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
