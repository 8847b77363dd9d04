"""The CPU experiment campaign that the figures and the report read.

``python -m analysis.experiments [--only EXP ...] [--jobs N] [--dry-run] [--list]`` runs every
missing run of the named experiments (default: all), at most ``--jobs`` at a time, each as a
real ``python -m rcgrpo ...`` subprocess (one torch thread each, ``nice``), in dependency
order: Stage 1 (SFT → RCTP-FT, per seed) before the Stage-2 runs that start from it.

A run is *complete* when its folder holds the marker ``.complete`` (written here after the
command exited 0). An incomplete folder (a killed campaign) is resumed with
``--run.resume``. Run folders live in ``runs/campaign/<name>/``; :data:`RESULTS` holds a
light copy of finished runs (logs, configs, eval JSON — no checkpoints) that is committed,
so ``make figures`` on a fresh clone reuses them instead of re-training for hours:
:func:`ensure_runs` looks in ``runs/campaign`` first, then in ``results/campaign``.
``--force-train`` ignores the committed copies.

Design of the campaign (see README "Experiments"):

- ``stage1``: per seed, SFT of the tiny Qwen2 from scratch on the synth suite
  (``sft-synth-cpu``) and RCTP-FT from it (``rctp-synth-cpu``; failures sampled from the
  SFT run's early ``weak`` snapshot).
- ``stage1-curriculum``: the same with ``sft-synth-cpu-curriculum`` (length warm-up, lr
  7e-4), which leaves the copying plateau within the 15-minute budget on every seed tried;
  RL does not start from it yet.
- ``stage1-wsd``: the curriculum recipe with a warmup-stable-decay lr schedule, AdamW
  beta2 0.95 and 2.1 epochs (``sft-synth-cpu-wsd``): the recipe that meets the Stage-1
  targets; ``factorial-wsd`` starts from it.
- ``factorial``: the paper's 2×2 {SFT, RCTP-FT} × {GRPO, RC-GRPO}, per seed, each RL run
  starting from the Stage-1 checkpoints of the same seed.
- ``factorial-wsd``: the same 2×2 from the ``stage1-wsd`` checkpoints (``WSD_RL_SEEDS``):
  RL from a Stage 1 in the intended regime (SFT ≈ 0.6).
- ``baselines``: the other collapse fixes (DAPO, entropy bonus, higher temperature,
  Dr. GRPO) from the SFT checkpoint.
- ``baselines-wsd``: the same from the ``stage1-wsd`` SFT checkpoint (``BASELINE_SEEDS``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CAMPAIGN = ROOT / "runs" / "campaign"
RESULTS = ROOT / "results" / "campaign"
MARKER = ".complete"
SEEDS = (0, 1, 2)
BASELINE_SEEDS = (0,)
"""Seeds of the baseline runs (one seed: the 2-core budget goes to the factorial first)."""
WSD_RL_SEEDS = (0, 1, 2)
"""Seeds of ``factorial-wsd`` (RL from the ``stage1-wsd`` checkpoints)."""
RL_STEPS = 30
"""RL steps per Stage-2 run of the campaign (the CPU presets' values otherwise): 16 runs of
~6-8 CPU minutes fit the 2-core budget next to Stage 1."""
RL_EVAL_EVERY = 0
"""Held-out evaluation of the campaign's RL runs: 0 = at step 0 and at the end only (each
evaluation is 200 tasks, twice for the RC arms: ~1 CPU minute)."""
LIGHT_FILES = ("config.json", "metrics.jsonl", "rollouts.jsonl", "summary.json", "data.json")
LIGHT_DIRS = ("eval",)


@dataclass(frozen=True)
class RunSpec:
    """One run: its folder name, the ``python -m rcgrpo`` arguments, and what it needs."""

    name: str
    argv: tuple[str, ...]
    needs: tuple[str, ...] = ()
    resume_flag: tuple[str, ...] = ("--run.resume",)

    def command(self, resume: bool) -> list[str]:
        base = [
            sys.executable,
            "-m",
            "rcgrpo",
            *self.argv,
            "--run.root",
            str(CAMPAIGN),
            "--run.name",
            self.name,
        ]
        return base + (list(self.resume_flag) if resume else [])


def _stage1(seed: int, sft_preset: str = "sft-synth-cpu", prefix: str = "") -> list[RunSpec]:
    sft, rctp = f"{prefix}sft-s{seed}", f"{prefix}rctp-s{seed}"
    return [
        RunSpec(sft, ("sft", "--preset", sft_preset, "--run.seed", str(seed))),
        RunSpec(
            rctp,
            (
                "rctp",
                "--preset",
                "rctp-synth-cpu",
                "--run.seed",
                str(seed),
                "--model.path",
                str(CAMPAIGN / sft / "final"),
                "--failures.policy",
                str(CAMPAIGN / sft / "weak"),
            ),
            needs=(sft,),
        ),
    ]


def _rl(preset: str, init_run: str, seed: int, prefix: str = "") -> RunSpec:
    return RunSpec(
        f"{prefix}{preset}-s{seed}",
        (
            "train",
            "--preset",
            preset,
            "--run.seed",
            str(seed),
            "--run.steps",
            str(RL_STEPS),
            "--run.eval-every",
            str(RL_EVAL_EVERY),
            "--init",
            str(CAMPAIGN / init_run / "final"),
        ),
        needs=(init_run,),
    )


FACTORIAL = {"cpu-grpo": "sft", "cpu-sft-rc": "sft", "cpu-rctp-grpo": "rctp", "cpu-rcgrpo": "rctp"}
BASELINES = ("cpu-dapo", "cpu-entropy", "cpu-hightemp", "cpu-drgrpo")


@dataclass
class Campaign:
    """Run specs by name and experiments as lists of run names."""

    runs: dict[str, RunSpec] = field(default_factory=dict)
    experiments: dict[str, list[str]] = field(default_factory=dict)

    def add(self, experiment: str, spec: RunSpec) -> None:
        self.runs[spec.name] = spec
        self.experiments.setdefault(experiment, []).append(spec.name)


def build_campaign(seeds: tuple[int, ...] = SEEDS) -> Campaign:
    camp = Campaign()
    for seed in seeds:
        for spec in _stage1(seed):
            camp.add("stage1", spec)
        for spec in _stage1(seed, "sft-synth-cpu-curriculum", prefix="cur-"):
            camp.add("stage1-curriculum", spec)
        for spec in _stage1(seed, "sft-synth-cpu-wsd", prefix="wsd-"):
            camp.add("stage1-wsd", spec)
        for preset, init in FACTORIAL.items():
            camp.add("factorial", _rl(preset, f"{init}-s{seed}", seed))
        for preset in BASELINES if seed in BASELINE_SEEDS else ():
            camp.add("baselines", _rl(preset, f"sft-s{seed}", seed))
        for preset, init in FACTORIAL.items() if seed in WSD_RL_SEEDS else ():
            camp.add("factorial-wsd", _rl(preset, f"wsd-{init}-s{seed}", seed, prefix="wsd-"))
        for preset in BASELINES if seed in BASELINE_SEEDS else ():
            camp.add("baselines-wsd", _rl(preset, f"wsd-sft-s{seed}", seed, prefix="wsd-"))
    return camp


def is_complete(folder: Path) -> bool:
    return (folder / MARKER).is_file()


def locate(name: str, force_train: bool = False) -> Path | None:
    """The folder of a complete run: ``runs/campaign`` first, then the committed results."""
    for base in (CAMPAIGN,) if force_train else (CAMPAIGN, RESULTS):
        if is_complete(base / name):
            return base / name
    return None


def closure(camp: Campaign, names: list[str]) -> list[str]:
    """``names`` plus everything they need, dependencies first."""
    order: list[str] = []

    def visit(n: str) -> None:
        if n in order:
            return
        for dep in camp.runs[n].needs:
            visit(dep)
        order.append(n)

    for n in names:
        visit(n)
    return order


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    return env


def run_all(
    camp: Campaign,
    names: list[str],
    jobs: int = 2,
    force_train: bool = False,
    dry_run: bool = False,
) -> None:
    """Run the missing runs of ``names`` (and their dependencies), ``jobs`` at a time."""
    from tqdm import tqdm

    todo = [n for n in closure(camp, names) if locate(n, force_train) is None]
    for n in todo:
        needs = [d for d in camp.runs[n].needs if d not in todo and locate(d, force_train) is None]
        if needs:
            raise RuntimeError(f"run {n} needs {needs}, which are neither done nor scheduled")
    if dry_run:
        for n in todo:
            print(" ".join(camp.runs[n].command(resume=(CAMPAIGN / n).exists())))
        return
    CAMPAIGN.mkdir(parents=True, exist_ok=True)
    running: dict[str, subprocess.Popen] = {}
    done = {n for n in camp.runs if locate(n, force_train) is not None}
    bar = tqdm(total=len(todo), desc="campaign", unit="run")
    while todo or running:
        for n in [n for n in todo if len(running) < jobs and set(camp.runs[n].needs) <= done]:
            if len(running) >= jobs:
                break
            todo.remove(n)
            resume = (CAMPAIGN / n).exists()
            log = open(CAMPAIGN / f"{n}.log", "a")  # noqa: SIM115 - closed with the process
            cmd = ["nice", "-n", "5", *camp.runs[n].command(resume)]
            bar.write(f"[campaign] start {n}: {' '.join(cmd[3:])}")
            running[n] = subprocess.Popen(
                cmd, stdout=log, stderr=subprocess.STDOUT, env=_env(), cwd=ROOT
            )
        time.sleep(2)
        for n, proc in list(running.items()):
            if proc.poll() is None:
                continue
            del running[n]
            if proc.returncode != 0:
                for other in running.values():
                    other.terminate()
                raise RuntimeError(
                    f"run {n} failed (exit {proc.returncode}); see {CAMPAIGN / (n + '.log')}"
                )
            (CAMPAIGN / n / MARKER).write_text(time.strftime("%Y-%m-%dT%H:%M:%S\n"))
            done.add(n)
            bar.update(1)
            bar.write(f"[campaign] done  {n}")
    bar.close()


def ensure_runs(experiments, force_train: bool = False, jobs: int = 2) -> dict[str, list[Path]]:
    """Folders of every run of ``experiments``, training the missing ones first."""
    camp = build_campaign()
    unknown = sorted(set(experiments) - set(camp.experiments))
    if unknown:
        raise ValueError(f"unknown experiment(s) {unknown}; have {sorted(camp.experiments)}")
    names = [n for e in experiments for n in camp.experiments[e]]
    run_all(camp, names, jobs=jobs, force_train=force_train)
    return {e: [locate(n, force_train) for n in camp.experiments[e]] for e in experiments}


def export_results(camp: Campaign) -> list[Path]:
    """Copy the light files of every complete run in ``runs/campaign`` to :data:`RESULTS`."""
    copied = []
    for name in camp.runs:
        src = CAMPAIGN / name
        if not is_complete(src):
            continue
        dst = RESULTS / name
        shutil.rmtree(dst, ignore_errors=True)
        dst.mkdir(parents=True)
        for f in LIGHT_FILES:
            if (src / f).is_file():
                shutil.copy2(src / f, dst / f)
        for d in LIGHT_DIRS:
            if (src / d).is_dir():
                shutil.copytree(src / d, dst / d)
        shutil.copy2(src / MARKER, dst / MARKER)
        copied.append(dst)
    return copied


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.experiments")
    parser.add_argument("--only", nargs="*", default=None, help="experiments to run (default: all)")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("RCGRPO_JOBS", "2")))
    parser.add_argument("--dry-run", action="store_true", help="print the commands only")
    parser.add_argument("--list", action="store_true", help="list experiments, runs and status")
    parser.add_argument("--force-train", action="store_true", help="ignore results/campaign")
    parser.add_argument("--export", action="store_true", help="copy finished runs to results/")
    args = parser.parse_args(argv)
    camp = build_campaign()
    if args.list:
        for exp, names in camp.experiments.items():
            for n in names:
                where = locate(n, args.force_train)
                print(f"{exp:10s} {n:22s} {'done: ' + str(where) if where else 'missing'}")
        return 0
    if args.export:
        for p in export_results(camp):
            print(f"exported {p}")
        return 0
    exps = args.only or list(camp.experiments)
    unknown = sorted(set(exps) - set(camp.experiments))
    if unknown:
        print(
            f"error: unknown experiment(s) {unknown}; have {sorted(camp.experiments)}",
            file=sys.stderr,
        )
        return 1
    run_all(
        camp,
        [n for e in exps for n in camp.experiments[e]],
        args.jobs,
        args.force_train,
        args.dry_run,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
