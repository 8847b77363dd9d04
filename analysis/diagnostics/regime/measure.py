r"""The regime diagnostic's measurements at a Stage-1 checkpoint: rollouts, per-task records
and the whole report that ``python -m analysis.diagnostics.regime`` writes (what it holds:
:mod:`analysis.diagnostics.regime.__main__`).

Rollouts go through the project's evaluation entry
(:func:`rcgrpo.policy.evaluate.evaluate_policy`: the batched engine, the environment's
reward) at the preset's rollout settings; greedy is τ = 0, the samples are at the preset's τ.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import time

import torch
from tqdm import tqdm

from analysis.diagnostics.regime.decisions import decision_section, tally
from analysis.diagnostics.regime.kinds import Decision, failure_kind
from analysis.diagnostics.regime.passk import summarise

SAMPLES = 8
CHUNK = 16
"""Tasks per sampled evaluation call (CHUNK × n rollouts, one progress tick)."""


def _rollouts(model, tokenizer, tasks, cond: str, cfg, temperature: float, seed: int) -> list:
    from rcgrpo.policy.evaluate import evaluate_policy

    rollout = cfg.rollout
    _, rollouts = evaluate_policy(
        model,
        tokenizer,
        tasks,
        condition=cond,
        mode=cfg.tasks.mode,
        prompt_style=cfg.tasks.prompt_style,
        temperature=temperature,
        top_p=rollout.top_p if temperature > 0 else 1.0,
        max_new_tokens=rollout.max_new_tokens,
        max_context=rollout.max_context,
        batch_size=rollout.max_batch,
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
            points = tally(task, g, samples)
            records.append(
                {
                    **({"decisions": points} if points else {}),
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
    """:func:`analysis.diagnostics.grad_noise.measure` at ``init`` under ``preset`` (fresh
    tasks of its training split, or of ``synth_preset``'s; ``train_tasks`` overrides the
    split's size: the ``cpu-*`` presets train on a 16-task pool, their whole distribution is
    6,000), with the cosine's mean and standard error."""
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
    """The whole report (:mod:`analysis.diagnostics.regime.__main__`)."""
    from analysis.campaigns.presets import preset
    from rcgrpo.policy.models import load_policy
    from rcgrpo.policy.task_sources import load_task_splits

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
            section = summarise(rows, args.samples)
            kinds = decision_section(rows, args.samples)
            if kinds:  # a suite with planted decision points (the collapse gates read it)
                section["decision_kinds"] = kinds
            report["conditions"][cond] = {**section, "per_task": rows}
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
