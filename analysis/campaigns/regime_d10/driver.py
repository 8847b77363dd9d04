"""The regime-d10 campaign (rules: ``docs/protocols/regime-d10.md``): its runs, each seed's
admission, the pass@k of every final RL checkpoint and the proof report of every SFT + GRPO run.

Its runs train in ``runs/regime`` and are committed to ``results/regime`` (home
:data:`HOME`, :mod:`analysis.campaign.mechanics`); ``make campaign C=regime-d10`` (``python -m
analysis.campaign --campaign regime-d10``) trains what is not done. Experiments:

- ``stage1``: per seed, the regime SFT ``sft-v3-s<seed>`` (``sft-synth-regime`` from the
  pool's SFT of the same seed; seeds ≥ 3 have none and start from ``sft-s3``, as the design
  seeds did) and RCTP-FT ``rctp-v11-s<seed>`` from it (variant 11: 3 epochs, failures
  sampled from that SFT model, the ``resolve_close`` decision left out of them);
- ``proof``: SFT + GRPO on :data:`PROOF_SEEDS` (issue 25's proof runs; evaluated every 100
  steps);
- one per arm experiment of :func:`analysis.campaign.arms.arms` ``("regime-d10")``: each arm's
  preset as it is, from the Stage 1 of its seed. The RCTP-FT arms run on the admitted seeds
  (:func:`rl_seeds`), the SFT arms on every seed after the proof seeds with a Stage 1;
- ``itt``: the RCTP-FT arms on :data:`ITT_SEEDS`, the seeds whose RCTP-FT was *not* admitted
  (the intention-to-treat runs of ``docs/protocols/regime-d10-reanalysis.md``);
- ``pool``: the pool's SFT runs a regime SFT starts from (committed; never trained here).

**Admission** (written before seeds 1 and 2 were admitted or not, in the campaign's plan,
``docs/lab-notes/2026-12-regime-d10-campaign.md`` "More seeds"; the rule as reference:
``docs/regime.md``): an RCTP-FT checkpoint is admitted when its goals separate, pass@1 under the
high goal minus pass@1 under the low goal ≥ :data:`SEPARATION` on the 200-task diagnostic
``results/diagnostics/regime-regime-rctp-v11-s<seed>.json`` (:func:`admission_command`).
Seeds are taken in :data:`SEED_ORDER` until :data:`TARGET` are admitted; a seed that is not
admitted is reported, not retrained. :func:`stage1_seeds` holds every seed decided so far and
as many undecided ones as admissions are still missing, so two seeds' Stage 1 can train at
once.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from analysis import REPO_ROOT as ROOT
from analysis.campaign import mechanics as cp
from analysis.campaign.arms import arm, arms
from analysis.campaign.config import pinned
from analysis.campaign.find import run_names
from analysis.campaign.mechanics import Campaign, Checkpoint, RunSpec, locate
from analysis.campaigns.pool import driver as pool

ID = "regime-d10"
"""The campaign's id (``--campaign``), also its arms' regime (:data:`analysis.campaign.arms.REGIMES`)."""
HOME = "regime"
SEED_ORDER = (0, 1, 2, 3, 4, 5, 6, 11, 12, 13, 14, 15, 16)
"""The pre-registered order (seeds 7–10 are reserved for design and calibration)."""
TARGET = 5
"""Admitted seeds the plan wants (MDE ≤ 5 points for T1)."""
SEPARATION = 0.10
"""Admission threshold on pass@1 high − low: G4's separation clause (``G4_SEPARATION`` of
:mod:`analysis.campaigns.regime_design.gates`; a test checks they agree)."""
PROOF_SEEDS = (0, 1, 2)
ITT_SEEDS = (6, 12, 13, 14)
"""Seeds whose RCTP-FT was tried and not admitted and whose checkpoint is committed: the
RCTP-FT arms run on them too, for the intention-to-treat estimates
(``docs/protocols/regime-d10-reanalysis.md``; seeds 0–2 were not admitted either, but their
RCTP-FT checkpoints were not kept)."""
POOL_START = {0: 0, 1: 1, 2: 2}
"""Seed -> the pool SFT seed its regime SFT starts from (other seeds: 3)."""
AUTO_AMP_SEEDS = (0, 1)
"""Regime SFT seeds trained with ``sft.amp auto`` (their config.json); the others ask fp32."""
DIAGNOSTICS = ROOT / "results" / "diagnostics"
DIAGNOSTIC: tuple[str, ...] = (sys.executable, "-m", "analysis.diagnostics.regime")
"""The command prefix of the admission and pass@k diagnostics (the tests put a fake here)."""
PROOF: tuple[str, ...] = (sys.executable, "-m", "analysis.diagnostics.regime.proof")
"""The command prefix of the proof report (issue 25's criterion; the tests put a fake here)."""


def pool_start(seed: int) -> RunSpec:
    """The pool's SFT run the regime SFT of ``seed`` starts from (:data:`POOL_START`, else
    ``sft-s3``; committed, never trained by a regime campaign)."""
    return pool.stage1(POOL_START.get(seed, 3))["sft"]


def stage1(seed: int) -> dict[str, RunSpec]:
    """The regime SFT of ``seed`` and RCTP-FT from it (module docstring)."""
    start = pool_start(seed)
    amp = () if seed in AUTO_AMP_SEEDS else ("--sft.amp", "fp32")
    sft_argv = ("sft", "--preset", "sft-synth-regime", "--run.seed", str(seed))
    sft = RunSpec(
        f"sft-v3-s{seed}",
        (*sft_argv, "--model.path", Checkpoint(start), *amp),
        pin=pinned,
        home=HOME,
    )
    rctp_argv = ("rctp", "--preset", "rctp-synth-regime", "--run.seed", str(seed))
    rctp_argv += ("--model.path", Checkpoint(sft), "--failures.policy", Checkpoint(sft))
    rctp_argv += ("--sft.epochs", "3.0", "--sft.amp", "fp32")
    rctp_argv += ("--failures.skip_decisions", "resolve_close")
    # final/ is kept whether or not the seed is admitted: the admission is measured on it
    rctp = RunSpec(f"rctp-v11-s{seed}", rctp_argv, pin=pinned, home=HOME, keep=("final",))
    return {"pool": start, "sft": sft, "rctp": rctp}


def rl(preset: str, init: RunSpec, seed: int, *flags: str) -> RunSpec:
    """RL preset ``preset`` as it is (plus ``flags``) from the final model of ``init``."""
    argv = ("train", "--preset", preset, "--run.seed", str(seed), *flags)
    return RunSpec(f"{preset}-s{seed}", (*argv, "--init", Checkpoint(init)), pin=pinned, home=HOME)


def admission_path(seed: int) -> Path:
    return DIAGNOSTICS / f"regime-regime-rctp-v11-s{seed}.json"


def separation(report: dict) -> float:
    """pass@1 under the high goal minus pass@1 under the low goal of a diagnostic report."""
    high, low = (report["conditions"][c]["pass_at_k"]["overall"][0] for c in ("high", "low"))
    return float(high) - float(low)


def admitted(seed: int) -> bool | None:
    """Whether seed's RCTP-FT separates its goals by :data:`SEPARATION` (None: not measured)."""
    path = admission_path(seed)
    if not path.is_file():
        return None
    return separation(json.loads(path.read_text())) >= SEPARATION - 1e-12


def stage1_seeds() -> tuple[int, ...]:
    """Seeds decided so far, then the first undecided ones, as many as admissions are missing."""
    outcome = {s: admitted(s) for s in SEED_ORDER}
    missing = TARGET - sum(bool(ok) for ok in outcome.values())
    pending = [s for s, ok in outcome.items() if ok is None][: max(0, missing)]
    return tuple(s for s, ok in outcome.items() if ok is not None or s in pending)


def rl_seeds() -> tuple[int, ...]:
    """The first :data:`TARGET` admitted seeds: the RCTP-FT arms' seeds."""
    return tuple(s for s in SEED_ORDER if admitted(s))[:TARGET]


def add_stage1(camp: Campaign, starts: dict[int, dict[str, RunSpec]]) -> None:
    """Add each seed's Stage 1 (experiment ``stage1``) and the pool SFTs they start from
    (``pool``, once each) to ``camp``; ``starts``: seed -> a :func:`stage1`-shaped dict."""
    for start in starts.values():
        if start["pool"].name not in camp.runs:
            camp.add("pool", start["pool"])
        camp.add("stage1", start["sft"])
        camp.add("stage1", start["rctp"])


def build() -> Campaign:
    """Every run of the campaign as far as the admissions so far decide; each experiment is
    there even when it has no run yet."""
    camp = Campaign()
    experiments = (
        "pool",
        "stage1",
        "proof",
        *dict.fromkeys(a.experiment for a in arms(ID)),
    )
    for e in (*experiments, "itt"):
        camp.experiments[e] = []
    starts = {s: stage1(s) for s in stage1_seeds()}
    add_stage1(camp, starts)
    for s in PROOF_SEEDS:
        camp.add("proof", rl("regime-grpo", starts[s]["sft"], s, "--run.eval-every", "100"))
    for kind, seeds in (("rctp", rl_seeds()), ("sft", [s for s in starts if s not in PROOF_SEEDS])):
        for s in seeds:  # the RCTP-FT arms of every seed first: T1 pairs them by seed
            for a in (a for a in arms(ID) if a.start == kind):
                camp.add(a.experiment, rl(a.preset, starts[s][a.start], s))
    for s in (s for s in ITT_SEEDS if s in starts and s not in rl_seeds()):
        for a in arms(ID, "regime-factorial"):
            if a.start == "rctp":
                camp.add("itt", rl(a.preset, starts[s]["rctp"], s))
    return camp


def experiments(camp: Campaign) -> list[str]:
    """Every experiment but ``pool``, Stage 1 first."""
    return [e for e in camp.experiments if e != "pool"]


def _diagnose(argv: list[str], out: Path, log: Path, prefix: tuple[str, ...] = ()) -> None:
    """One diagnostic subprocess (one torch thread, ``nice``; ``prefix`` defaults to
    :data:`DIAGNOSTIC`), writing ``out``."""
    prefix = prefix or DIAGNOSTIC
    cmd = [*prefix, *argv, "--out", str(out)]
    print(f"[campaign] diagnose: {' '.join(cmd[len(prefix) - 1 :])}", flush=True)
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a") as handle:
        done = subprocess.run(
            ["nice", "-n", "5", *cmd],
            stdout=handle,
            stderr=subprocess.STDOUT,
            env=cp._env(),
            cwd=ROOT,
        )
    if done.returncode != 0:
        raise RuntimeError(f"diagnostic for {out.name} failed (exit {done.returncode}); see {log}")


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def admission_command(rctp: Path, seed: int) -> list[str]:
    """The admission diagnostic of an RCTP-FT run folder (200 held-out tasks, 8 samples)."""
    return [
        "--init",
        _rel(rctp / "final"),
        "--preset",
        "regime-rcgrpo",
        "--synth-preset",
        "regime-d10",
        "--conditions",
        "high",
        "low",
        "--seed",
        str(seed),
    ]


def admit(camp: Campaign) -> dict[int, bool]:
    """Measure the admission of every seed whose RCTP-FT is done and has none yet; each
    seed's outcome (measured now or before)."""
    out = {}
    for seed in stage1_seeds():
        folder = locate(camp.runs[stage1(seed)["rctp"].name])
        if folder is not None and admitted(seed) is None:
            log = cp.runs_dir(HOME) / f"admit-s{seed}.log"
            _diagnose(admission_command(folder, seed), admission_path(seed), log)
        if admitted(seed) is not None:
            out[seed] = bool(admitted(seed))
    return out


def passk_path(name: str) -> Path:
    return DIAGNOSTICS / f"regime-final-{name}.json"


def passk(spec: RunSpec) -> None:
    """pass@k of a finished RL run's final checkpoint, under its preset's evaluation goal
    (``algo.eval_condition``: none for SFT + GRPO, high for the others), at its own seed, on
    its preset's suite; kept beside the admission reports."""
    from analysis.campaigns.presets import preset as rl_preset
    from rcgrpo.train.checkpoint import list_checkpoints

    if spec.argv[0] != "train" or passk_path(spec.name).is_file():
        return
    ckpt = (list_checkpoints(spec.folder / "checkpoints") or [None])[-1]
    if ckpt is None:
        print(f"[campaign] no checkpoint in {spec.folder}: no pass@k", file=sys.stderr)
        return
    preset, seed = spec.argv[2], spec.argv[4]
    goal = rl_preset(preset).algo.eval_condition
    argv = ["--init", _rel(ckpt), "--preset", preset, "--conditions", goal, "--seed", seed]
    _diagnose(argv, passk_path(spec.name), spec.folder.parent / f"{spec.name}.passk.log")


def proof_path(name: str) -> Path:
    return DIAGNOSTICS / f"regime-proof-{name}.json"


def is_proof_run(spec: RunSpec) -> bool:
    """Every SFT + GRPO run of a regime campaign (the arm of role ``sft_grpo``:
    ``regime-grpo``, ``regime-wide1-grpo``) is a proof run."""
    a = arm(str(spec.argv[2])) if spec.argv[:2] == ("train", "--preset") else None
    return a is not None and a.role == "sft_grpo" and a.regime != "pool"


def proof(spec: RunSpec) -> None:
    """The proof report of a finished proof run (:func:`is_proof_run`), read from its
    committed copy (``analysis.diagnostics.regime.proof``, a layer above this one, so it runs
    as a subprocess)."""
    if not is_proof_run(spec) or proof_path(spec.name).is_file():
        return
    log = spec.folder.parent / f"{spec.name}.proof.log"
    _diagnose([_rel(spec.copy)], proof_path(spec.name), log, prefix=PROOF)


def finished(spec: RunSpec) -> None:
    """What follows a finished run: its pass@k, then its proof report if it is a proof run."""
    passk(spec)
    proof(spec)


def run(names: list[str], jobs: int, force_train: bool, dry_run: bool) -> None:
    """Stage 1 of the named experiments first, then the admission of its seeds, again until
    the seeds to train are settled (a seed not admitted brings in the next one); then the RL
    runs (the campaign built again: admissions decide which exist), each followed by its
    pass@k and, for SFT + GRPO, its proof report (:func:`finished`)."""
    camp = build()
    unknown = sorted(set(names) - set(camp.experiments))
    if unknown:
        raise ValueError(f"unknown experiment(s) {unknown}; have {sorted(camp.experiments)}")
    names = list(dict.fromkeys(names))
    first = [e for e in names if e in ("pool", "stage1")]
    seeds = None
    while first and seeds != stage1_seeds():
        seeds, camp = stage1_seeds(), build()
        cp.run_all(camp, run_names(camp, first), jobs, force_train, dry_run)
        if dry_run:
            break
        for seed, ok in admit(camp).items():
            print(f"[campaign] seed {seed}: {'admitted' if ok else 'not admitted'}", flush=True)
    camp = build()
    rest = [e for e in names if e not in first and e in camp.experiments]
    cp.run_all(camp, run_names(camp, rest), jobs, force_train, dry_run, on_done=finished)
