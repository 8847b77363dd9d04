r"""Does a checkpoint read its reward goal, and does a low-goal update reach the high goal?

Two instruments on any checkpoint of a synth suite with planted decisions, one JSON::

    OMP_NUM_THREADS=1 python -m analysis.diagnostics.transfer \
        --init results/collapse/rctp-collapse-s3/final --synth-preset collapse1-d10 --seed 3 \
        --tasks 100 --samples 32 --batches 8 --out results/diagnostics/transfer-<run>.json

- ``goal_effect`` (:mod:`~analysis.diagnostics.transfer.goal_effect`): on the first
  ``--tasks`` held-out tasks with a decision point, ``--samples`` goal-paired samples per task:
  per decision kind P(right | high), P(right | low), their paired difference with a 95% t
  interval over tasks, the share of samples identical under both goals, and per goal the
  start's collapse: the zero-variance share of G-groups of those samples against the i.i.d.
  prediction s̄^G + (1 − s̄)^G (:mod:`~analysis.diagnostics.transfer.start_collapse`).
- ``transfer`` (:mod:`~analysis.diagnostics.transfer.probe`), on the decisions' log-odds at
  their decision token over a fixed probe set of ``--batches`` × ``--prompts`` training tasks:
  ``gradient``, the coupling in gradient form (per task and pooled: ⟨∇z_h, ∇z_l⟩, both norms,
  the cosine and the gain ratio ‖∇z_l‖ / ‖∇z_h‖, bootstrap intervals over tasks seeded
  ``--seed``); and ρ̂ = mean Δz_high / mean Δz_low after one SGD step of the trainer's loss on
  each of ``--batches`` low-goal batches of ``--prompts`` tasks × G rollouts, its interval, and
  the finite-difference check of the step.

Sampling, group size, advantage estimator and loss are those of the RL preset ``--preset``
(default: the RC-GRPO preset of the suite, :data:`RL_PRESETS`). Provenance: checkpoint,
presets, seed, sizes, the command line (``command``), ``git rev-parse HEAD`` and whether the
tree was dirty, the host (:func:`rcgrpo.precision.probe_host`), wall seconds per section.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import time
from pathlib import Path

import torch

RL_PRESETS = {
    "collapse": "collapse-rcgrpo",
    "regime-wide1": "regime-wide1-rcgrpo",
    "regime": "regime-rcgrpo",
}
"""Synth preset name prefix -> the RL preset whose settings the diagnostic uses (longest
prefix first)."""
PROG = "python -m analysis.diagnostics.transfer"
"""The command the report records, with its arguments (``command``)."""
STEPS = (1e-6, 1e-4)
"""Default SGD step sizes: 1e-6 gives ρ̂ (first-order relative error of the decision token's z
at most 1.4e-4 on ``rctp-collapse-s3``); 1e-4, about one Adam step of the collapse preset in
norm, is reported beside it (relative error up to 0.005 there)."""


def rl_preset(synth_preset: str) -> str:
    """The RC-GRPO preset of ``synth_preset`` (:data:`RL_PRESETS`)."""
    for prefix, name in RL_PRESETS.items():
        if synth_preset.startswith(prefix):
            return name
    raise ValueError(f"no RL preset known for synth preset {synth_preset!r}: pass --preset")


def decision_tasks(tasks_cfg, split: str, n: int) -> list:
    """The first ``n`` tasks of ``split`` that carry a planted decision point."""
    from rcgrpo.policy.task_sources import load_task_splits

    count = 2 * n
    while True:
        cfg = dataclasses.replace(tasks_cfg, num_train=count, num_eval=count)
        train, test = load_task_splits(cfg, cfg.synth_preset)
        found = [t for t in (train if split == "train" else test) if t.meta.get("decisions")]
        if len(found) >= n or count > 64 * n:
            return found[:n]
        count *= 2


def provenance() -> dict:
    """The git commit, whether the tree was dirty, and the host."""
    from rcgrpo.precision import probe_host

    def git(*args: str) -> str:
        out = subprocess.run(["git", *args], capture_output=True, text=True, check=False)
        return out.stdout.strip()

    return {
        "git_commit": git("rev-parse", "HEAD"),
        "git_dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
        "host": probe_host("cpu").facts(),
        "torch": torch.__version__,
    }


def run_transfer(model, tokenizer, cfg, args) -> dict:
    """The ``transfer`` block (:mod:`~analysis.diagnostics.transfer.probe`)."""
    from analysis.diagnostics.transfer.logodds import encode_items
    from analysis.diagnostics.transfer.probe import (
        Probe,
        batch_effect,
        loss_gradient,
        sample_batch,
        transfer_section,
    )
    from rcgrpo.policy.chat import ChatEncoder
    from rcgrpo.policy.render import resolve_prompt_style
    from rcgrpo.train.rl.setup import make_engine

    p = args.prompts
    tasks = decision_tasks(cfg.tasks, "train", args.batches * p)
    style = resolve_prompt_style(cfg.tasks.prompt_style, tokenizer)  # auto: the model's own
    items = encode_items(tasks, ChatEncoder(tokenizer), style)
    probe = Probe.at(model, items, cfg.rollout.temperature)
    engine, records = make_engine(cfg, model, tokenizer), []
    for b in range(args.batches):
        part = tasks[b * p : (b + 1) * p]
        with torch.no_grad():
            rollouts, adv, attempts = sample_batch(engine, part, cfg, args.seed, b)
        grads = loss_gradient(model, rollouts, adv, cfg, tokenizer.pad_token_id)
        effect = batch_effect(probe, grads, args.steps, {t.id for t in part})
        rewards = torch.tensor([r.reward for r in rollouts]).view(p, -1)
        records.append(
            {
                "batch": b,
                "tasks": [t.id for t in part],
                "attempts": attempts,
                "mean_reward": float(rewards.mean()),
                "informative_groups": int((rewards.amax(1) != rewards.amin(1)).sum()),
                **effect,
            }
        )
        print(f"batch {b}: {json.dumps({k: effect.get(k) for k in ('ratio', 'lr')})}")
    return transfer_section(records, probe, args.steps, args.seed)


def diagnose(args: argparse.Namespace) -> dict:
    """The whole report (module docstring)."""
    from analysis.campaigns.presets import preset
    from analysis.diagnostics.transfer.goal_effect import goal_effect, paired_records
    from rcgrpo.policy.models import load_policy
    from rcgrpo.train.rl.setup import make_engine

    cfg = preset(args.preset)
    cfg.tasks = dataclasses.replace(cfg.tasks, synth_preset=args.synth_preset)
    if cfg.tasks.mode != "combined":
        raise ValueError(f"only the combined mode is supported, preset has {cfg.tasks.mode}")
    cfg.rollout.group_size = args.group_size or cfg.rollout.group_size
    args.prompts = args.prompts or cfg.rollout.prompts_per_step
    model, tokenizer, added = load_policy(args.init)
    report = {"checkpoint": args.init, "preset": args.preset, "synth_preset": args.synth_preset}
    report.update(seed=args.seed, added_reward_tokens=list(added), time_s={})
    report["sizes"] = {
        "goal_effect_tasks": args.tasks,
        "samples": args.samples,
        "batches": args.batches,
        "prompts_per_batch": args.prompts,
        "group_size": cfg.rollout.group_size,
        "steps": args.steps,
    }
    report["rollout"] = dataclasses.asdict(cfg.rollout)
    start = time.perf_counter()
    tasks = decision_tasks(cfg.tasks, "test", args.tasks)
    with torch.no_grad():
        records = paired_records(make_engine(cfg, model, tokenizer), tasks, args.samples, args.seed)
    report["goal_effect"] = goal_effect(records, args.samples, cfg.rollout.group_size, args.seed)
    report["time_s"]["goal_effect"] = time.perf_counter() - start
    start = time.perf_counter()
    report["transfer"] = run_transfer(model, tokenizer, cfg, args)
    report["time_s"]["transfer"] = time.perf_counter() - start
    return report


def _print_summary(report: dict) -> None:
    for kind, row in report["goal_effect"]["kinds"].items():
        print(
            f"{kind:<14} n {row['n']:>4}  P(right|high) {row['p_high']:.3f}  "
            f"P(right|low) {row['p_low']:.3f}  diff {row['diff']:+.4f} "
            f"[{row['ci'][0]:+.4f}, {row['ci'][1]:+.4f}]  "
            f"identical {row['identical_share']['identical']:.3f}"
        )
    t = report["transfer"]
    grad = t["gradient"]
    print(
        f"rho {t['estimate']:.4f} [{t['ci'][0]:.4f}, {t['ci'][1]:.4f}] over "
        f"{t['informative_batches']} batches; finite-difference max rel err "
        f"{t['finite_difference']['max_rel_err']:.2e}"
    )
    for name in ("cosine", "gain_ratio", "rho_low"):
        row = grad[name]
        print(f"{name:<10} {row['estimate']:.4f} [{row['ci'][0]:.4f}, {row['ci'][1]:.4f}]")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    parser.add_argument("--init", required=True, help="checkpoint folder")
    parser.add_argument("--synth-preset", required=True, help="the synth suite, e.g. collapse1-d10")
    parser.add_argument("--preset", default=None, help="RL preset (default: the suite's RC-GRPO)")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--tasks", type=int, default=100, help="held-out decision tasks")
    parser.add_argument("--samples", type=int, default=32, help="goal pairs per task")
    parser.add_argument("--batches", type=int, default=8, help="low-goal batches (>= 2)")
    parser.add_argument("--prompts", type=int, default=None, help="tasks per batch (preset's)")
    parser.add_argument("--group-size", type=int, default=None, help="G (preset's)")
    parser.add_argument(
        "--steps",
        type=float,
        nargs="+",
        default=list(STEPS),
        help="SGD step sizes ‖Δθ‖ / ‖θ‖: the first gives ρ̂, the others are compared",
    )
    parser.add_argument("--out", type=Path, default=None, help="JSON report")
    args = parser.parse_args(argv)
    if min(args.tasks, args.samples, args.batches) < 2 or not min(args.steps) > 0:
        parser.error("--tasks, --samples, --batches must be >= 2 and every step > 0")
    args.preset = args.preset or rl_preset(args.synth_preset)
    torch.set_num_threads(1)
    start = time.perf_counter()
    head = provenance()
    report = diagnose(args)
    command = [*PROG.split(), *(sys.argv[1:] if argv is None else argv)]
    report = {**report, **head, "command": command}
    report["time_s"]["total"] = time.perf_counter() - start
    _print_summary(report)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
