r"""The regime diagnostic of a Stage-1 checkpoint (issue 25): can RL sharpen what it samples?

At a checkpoint, on the held-out tasks of an RL preset (its ``tasks`` section: synth ``cpu``
test split, 200 tasks, combined mode) and with the preset's rollout settings (temperature τ,
``max_new_tokens``, ``max_context``, batch), for each reward goal asked for (``none`` |
``high`` | ``low``):

- greedy success (τ = 0, as the trainer's held-out evaluation) and its failure kinds;
- n = 8 samples per task at τ: unbiased pass@k for k = 1…8 (:mod:`analysis.regime_stats`),
  both per synth category; the share of tasks that fail greedily but succeed in ≥ 1 sample;
- failure kinds of the samples, and for each kind of greedy failure P(right | sampled)
  against chance (:mod:`analysis.regime_kinds`);

and, with ``--grad-steps S > 0``, the gradient noise scale and step cosines of the preset's
policy gradient over fresh tasks of its whole training distribution (S steps × P prompts,
:func:`analysis.grad_noise.measure`). Rollouts go through the project's evaluation entry
(:func:`rcgrpo.policy.evaluate.evaluate_policy`: the batched engine, the environment's
reward). The gates (:mod:`analysis.regime_gates`) read the JSON this writes::

    OMP_NUM_THREADS=1 python -m analysis.regime --init results/campaign/sft-s0/final \
        --conditions none high --grad-steps 32 --grad-train-tasks 6000 \
        --out results/diagnostics/regime-sft-s0.json
    python -m analysis.regime --gates results/diagnostics/regime-sft-s0.json \
        results/diagnostics/regime-rctp-s0.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
from pathlib import Path

import torch
from tqdm import tqdm

from analysis.regime_kinds import Decision, failure_kind
from analysis.regime_stats import summarise

SAMPLES = 8
CHUNK = 16
"""Tasks per sampled evaluation call (CHUNK × n rollouts, one progress tick)."""


def _rollouts(model, tokenizer, tasks, cond: str, cfg, temperature: float, seed: int) -> list:
    from rcgrpo.policy.evaluate import evaluate_policy

    r = cfg.rollout
    _, rollouts = evaluate_policy(
        model,
        tokenizer,
        tasks,
        condition=cond,
        mode=cfg.tasks.mode,
        prompt_style=cfg.tasks.prompt_style,
        temperature=temperature,
        top_p=r.top_p if temperature > 0 else 1.0,
        max_new_tokens=r.max_new_tokens,
        max_context=r.max_context,
        batch_size=r.max_batch,
        seed=seed,
    )
    return rollouts


def task_records(model, tokenizer, tasks, cond: str, cfg, n: int, seed: int) -> list[dict]:
    """Per task: greedy outcome and kind, successes among ``n`` samples at the preset's τ,
    the samples' kinds, and how many get the greedy failure's decision right."""
    from rcgrpo.train.rollouts import derive_seed

    mode, tau = cfg.tasks.mode, cfg.rollout.temperature
    greedy = _rollouts(model, tokenizer, tasks, cond, cfg, 0.0, derive_seed(seed, cond, "greedy"))
    records = []
    chunks = range(0, len(tasks), CHUNK)
    for start in tqdm(chunks, desc=f"samples [{cond}]", unit="chunk"):
        part = tasks[start : start + CHUNK]
        jobs = [t for t in part for _ in range(n)]
        sampled = _rollouts(model, tokenizer, jobs, cond, cfg, tau, derive_seed(seed, cond, start))
        for i, task in enumerate(part):
            g, samples = greedy[start + i], sampled[i * n : (i + 1) * n]
            kind = failure_kind(task, g, mode)
            decision = None if kind is None else Decision(task, g, kind, mode)
            kinds: dict[str, int] = {}
            for s in samples:
                k = failure_kind(task, s, mode)
                if k is not None:
                    kinds[k] = kinds.get(k, 0) + 1
            records.append(
                {
                    "task_id": task.id,
                    "category": task.category,
                    "greedy": g.reward == 1.0,
                    "greedy_kind": kind,
                    "successes": sum(s.reward == 1.0 for s in samples),
                    "right": 0 if decision is None else sum(map(decision.right, samples)),
                    "chance": None if decision is None else decision.chance,
                    "sample_kinds": kinds,
                }
            )
    return records


def grad_noise_section(
    init: str,
    preset: str,
    seed: int,
    steps: int,
    synth_preset: str | None = None,
    train_tasks: int | None = None,
) -> dict:
    """:func:`analysis.grad_noise.measure` at ``init`` under ``preset`` (fresh tasks of its
    training split, or of ``synth_preset``'s; ``train_tasks`` overrides the split's size: the
    ``cpu-*`` presets train on a 16-task pool, their whole distribution is 6,000), with the
    cosine's mean and standard error."""
    from analysis.diagnostics.grad_noise import measure

    argv = ["--preset", preset, "--run.seed", str(seed), "--init", init]
    if synth_preset:
        argv += ["--tasks.synth_preset", synth_preset]
    if train_tasks:
        argv += ["--tasks.num_train", str(train_tasks)]
    out = measure(argv, steps)
    cos = out["step_cosines"]
    mean = sum(cos) / len(cos)
    sd = math.sqrt(sum((c - mean) ** 2 for c in cos) / (len(cos) - 1))
    out.update(cosine_mean=mean, cosine_se=sd / math.sqrt(len(cos)), preset=preset, seed=seed)
    return out


def diagnose(args: argparse.Namespace) -> dict:
    """The whole report (module docstring)."""
    from rcgrpo.policy.models import load_policy
    from rcgrpo.policy.task_sources import load_task_splits
    from rcgrpo.train.presets import preset

    cfg = preset(args.preset)
    if args.synth_preset:
        cfg = dataclasses.replace(
            cfg, tasks=dataclasses.replace(cfg.tasks, synth_preset=args.synth_preset)
        )
    tasks_cfg = dataclasses.replace(cfg.tasks, num_train=1, num_eval=args.tasks)
    _, tasks = load_task_splits(tasks_cfg, tasks_cfg.synth_preset)
    model, tokenizer, added = load_policy(args.init)
    report = {
        "checkpoint": args.init,
        "preset": args.preset,
        "tasks": {**dataclasses.asdict(tasks_cfg), "split": "test", "num_train": None},
        "rollout": {
            "temperature": cfg.rollout.temperature,
            "top_p": cfg.rollout.top_p,
            "max_new_tokens": cfg.rollout.max_new_tokens,
            "max_context": cfg.rollout.max_context,
            "samples": args.samples,
        },
        "seed": args.seed,
        "added_reward_tokens": list(added),
        "conditions": {},
        "time_s": {},
    }
    with torch.no_grad():
        for cond in args.conditions:
            start = time.perf_counter()
            rows = task_records(model, tokenizer, tasks, cond, cfg, args.samples, args.seed)
            report["conditions"][cond] = {**summarise(rows, args.samples), "per_task": rows}
            report["time_s"][cond] = time.perf_counter() - start
    if args.grad_steps > 0:
        start = time.perf_counter()
        grad_preset = args.grad_preset or args.preset
        report["grad_noise"] = grad_noise_section(
            args.init,
            grad_preset,
            args.seed,
            args.grad_steps,
            args.synth_preset,
            args.grad_train_tasks,
        )
        report["time_s"]["grad_noise"] = time.perf_counter() - start
    return report


def print_gates(paths: list[Path], stage1: Path | None = None) -> None:
    """Gate verdicts from an SFT report and, optionally, an RCTP-FT report; with ``stage1``
    (the SFT run folder) the precondition G0 first."""
    from analysis.regime_gates import g0_fit, gates

    sft, *rest = [json.loads(p.read_text()) for p in paths]
    fit = []
    if stage1 is not None:
        lines = (stage1 / "metrics.jsonl").read_text().splitlines()
        fit = [g0_fit([json.loads(line) for line in lines if line.strip()])]
    for gate in fit + gates(sft, rest[0] if rest else None):
        verdict = {True: "holds", False: "FAILS", None: "not measured"}[gate.holds]
        values = ", ".join(
            f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in gate.values.items()
        )
        print(f"{gate.name:<18} {verdict:<13} {values}   [{gate.threshold}]")


def _print_summary(report: dict) -> None:
    for cond, c in report["conditions"].items():
        ks = " ".join(f"{x:.3f}" for x in c["pass_at_k"]["overall"])
        h = c["headroom"]
        print(
            f"[{cond}] greedy {c['greedy']['overall']:.3f}  pass@1..8 {ks}\n"
            f"  greedy fail, >=1 sample succeeds: {h['greedy_fail_sample_success']} of "
            f"{h['greedy_failures']} greedy failures ({h['share_of_tasks']:.3f} of tasks)"
        )
        for kind, s in c["support"].items():
            chance = "n/a" if s["chance"] is None else f"{s['chance']:.3f}"
            print(
                f"  {kind:<16} {s['tasks']:>3} tasks ({s['share_of_failures']:.2f})  "
                f"P(right|sampled) {s['p_right']:.3f}  chance {chance}"
            )
    if "grad_noise" in report:
        g = report["grad_noise"]
        print(
            f"grad noise: {g['groups']} groups, B_noise {g['b_noise']:.1f}, "
            f"cosine {g['cosine_mean']:+.3f} ± {g['cosine_se']:.3f} (SE)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.regime", description=__doc__)
    parser.add_argument("--init", help="Stage-1 checkpoint folder")
    parser.add_argument("--preset", default="cpu-grpo", help="RL preset: tasks and rollouts")
    parser.add_argument(
        "--conditions", nargs="+", default=["none"], choices=["none", "high", "low"]
    )
    parser.add_argument("--tasks", type=int, default=200, help="held-out tasks")
    parser.add_argument(
        "--synth-preset", default=None, help="the synth suite (default: the preset's)"
    )
    parser.add_argument("--samples", type=int, default=SAMPLES, help="samples per task at tau")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--grad-steps", type=int, default=0, help="grad-noise steps (0: skip)")
    parser.add_argument("--grad-preset", default=None, help="RL preset of the gradient")
    parser.add_argument(
        "--grad-train-tasks", type=int, default=None, help="training tasks of the gradient"
    )
    parser.add_argument("--out", type=Path, default=None, help="JSON report")
    parser.add_argument("--gates", nargs="+", type=Path, help="print gates of SFT [RCTP] reports")
    parser.add_argument(
        "--stage1", type=Path, help="with --gates: the SFT run folder, for the precondition G0"
    )
    args = parser.parse_args(argv)
    if args.gates:
        print_gates(args.gates, args.stage1)
        return 0
    if not args.init:
        parser.error("--init is required (or --gates)")
    if args.samples < 8:
        parser.error(f"--samples must be >= 8 (pass@1..8), got {args.samples}")
    if args.grad_steps == 1:
        parser.error("--grad-steps must be 0 or >= 2 (the jackknife leaves one step out)")
    torch.set_num_threads(1)
    start = time.perf_counter()
    report = diagnose(args)
    report["time_s"]["total"] = time.perf_counter() - start
    _print_summary(report)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
