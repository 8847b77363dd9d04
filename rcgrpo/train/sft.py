"""Stage 1 training loop: ``python -m rcgrpo sft`` (and ``rctp``, :mod:`rcgrpo.train.rctp`).

Reads top to bottom as the run does::

    setup      seed, torch threads, run folder (config.json), JSONL + TensorBoard logger
    tasks      training / held-out tasks (synth suite or the BFCL 720 / 80 split)
    policy     a tiny Qwen2 FROM SCRATCH (BPE trained on the training tasks and their
               rendered expert conversations) or a checkpoint
    data       SFT: expert trajectories executed on the real backends, one per task and mode;
               RCTP-FT: the 1:1 success / failure mix with the reward goal of the actual reward
    train      AdamW, linear warm-up then a decay of ``rcgrpo.schedules.SCHEDULES``, token-mean
               cross-entropy (``rcgrpo.losses.sft_loss``) on assistant tokens only (the loss
               mask of ``ChatEncoder.encode_conversation``), length-bucketed padded batches
    evaluate   ``evaluate_policy`` on held-out tasks (greedy) every ``run.eval_every`` steps
               and at the end, in every ``sft.eval_modes`` mode and condition
    save       ``checkpoints/step_N`` (save_pretrained + optimizer + RNG) and ``final/``
"""

from __future__ import annotations

import json
import math
import random
import resource
import time
from collections.abc import Sequence
from pathlib import Path

import torch

from rcgrpo.losses import sft_loss
from rcgrpo.metrics import validate_metric_names
from rcgrpo.schedules import lr_factor
from rcgrpo.train.checkpoint import latest_checkpoint, load_trainer_state, save_checkpoint
from rcgrpo.train.config import save_config, to_dict
from rcgrpo.train.runlog import RunLogger, RunPaths, due
from rcgrpo.train.sft_config import SFTConfig
from rcgrpo.train.sft_data import BatchStream, encode_examples, expert_data, init_policy
from rcgrpo.train.trajectories import Example, load_task_splits


# --------------------------------------------------------------------------- setup
def setup_run(cfg: SFTConfig) -> tuple[RunPaths, RunLogger, Path | None]:
    """Seeds, threads, the run folder and its logger; the checkpoint to resume, if any."""
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # one "Writing model shards" bar per save is noise
    random.seed(cfg.run.seed)
    torch.manual_seed(cfg.run.seed)
    if cfg.sft.threads > 0:
        torch.set_num_threads(cfg.sft.threads)
    paths = RunPaths(Path(cfg.run.root) / cfg.run.name).make()
    resume = latest_checkpoint(paths.checkpoints) if cfg.run.resume else None
    # resumed before its first checkpoint: restart at step 0 and drop the stale rows
    step = load_trainer_state(resume)["step"] if resume else (0 if cfg.run.resume else None)
    save_config(cfg, paths.config)
    logger = RunLogger(
        paths, tensorboard=cfg.run.tensorboard, validate=validate_metric_names, resume_step=step
    )
    return paths, logger, resume


# --------------------------------------------------------------------------- evaluate
def evaluate(cfg: SFTConfig, model, tokenizer, tasks: Sequence, conditions: Sequence[str]):
    """Held-out success per (mode, condition): (metrics, {"<mode>/<condition>": summary})."""
    from rcgrpo.policy.evaluate import evaluate_policy

    start, summaries, metrics = time.perf_counter(), {}, {}
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for mode in cfg.sft.eval_modes:
            for cond in conditions:
                summary, _ = evaluate_policy(
                    model,
                    tokenizer,
                    tasks,
                    cond,
                    mode,
                    cfg.tasks.prompt_style,
                    cfg.sft.eval_temperature,
                    1.0,
                    cfg.sft.eval_max_new_tokens,
                    cfg.sft.eval_max_context,
                    cfg.sft.eval_batch_size,
                    cfg.run.seed,
                )
                summaries[f"{mode}/{cond}"] = summary
                suffix = "_low" if cond == "low" else ""
                metrics[f"sft/eval_{mode}{suffix}"] = summary["overall"]["reward"]["mean"]
    model.train(was_training)
    first, main = cfg.sft.eval_modes[0], conditions[0]
    metrics["reward/eval_success"] = summaries[f"{first}/{main}"]["overall"]["reward"]["mean"]
    if "low" in conditions:
        metrics["reward/eval_success_low"] = metrics[f"sft/eval_{first}_low"]
    metrics["perf/time_eval_s"] = time.perf_counter() - start
    return metrics, summaries


# --------------------------------------------------------------------------- train
def train_step(
    model,
    optimizer,
    batch: dict[str, torch.Tensor],
    lr: float,
    max_grad_norm: float,
    prompt_weight: float = 0.0,
    amp: str = "none",
) -> dict:
    """One AdamW update on one batch; skipped (not applied) if loss or gradient is non-finite.

    Optimised: L = CE(assistant tokens) + ``prompt_weight`` · CE(other real tokens), each a
    token mean (``sft.prompt_loss_weight``; 0 = assistant tokens only, as the paper).
    ``amp="bf16"``: the forward runs under ``torch.autocast`` (the loss in float32).
    """
    for group in optimizer.param_groups:
        group["lr"] = lr
    device = next(model.parameters()).device
    ids, attn = batch["input_ids"].to(device), batch["attention_mask"].to(device)
    mask = batch["loss_mask"].to(device)
    with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp == "bf16"):
        logits = model(input_ids=ids, attention_mask=attn.long()).logits
    loss, n, correct = sft_loss(logits, ids, mask)
    total, prompt = loss, torch.zeros(())
    if prompt_weight > 0:
        prompt, _, _ = sft_loss(logits, ids, attn & ~mask)
        total = loss + prompt_weight * prompt
    optimizer.zero_grad(set_to_none=True)
    total.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    finite = bool(torch.isfinite(total)) and bool(torch.isfinite(norm))
    if finite:
        optimizer.step()
    return {
        "ce_sum": float(loss.detach()) * int(n),
        "n": int(n),
        "correct": int(correct),
        "prompt_loss": float(prompt.detach()),
        "grad_norm": float(norm),
        "finite": finite,
        "tokens": int(attn.sum()),
    }


def cpu_seconds() -> float:
    """User + system CPU time of this process (all threads) so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def window_metrics(window: list[dict], seconds: float, lr: float, epoch: float) -> dict:
    """Registry metrics of the steps since the last log line."""
    n = sum(s["n"] for s in window)
    return {
        "loss/sft": sum(s["ce_sum"] for s in window) / max(n, 1),
        "sft/token_acc": sum(s["correct"] for s in window) / max(n, 1),
        "sft/prompt_loss": sum(s.get("prompt_loss", 0.0) for s in window) / len(window),
        "loss/active_tokens": n / len(window),
        "loss/nonfinite": float(not all(s["finite"] for s in window)),
        "policy/grad_norm": sum(s["grad_norm"] for s in window) / len(window),
        "policy/lr": lr,
        "sft/tokens_per_s": sum(s["tokens"] for s in window) / max(seconds, 1e-9),
        "sft/epoch": epoch,
        "perf/cpu_time_s": cpu_seconds(),
        "perf/peak_rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
    }


def save_step(cfg: SFTConfig, paths: RunPaths, step: int, model, tokenizer, optimizer) -> Path:
    return save_checkpoint(
        paths.checkpoints,
        step,
        model,
        tokenizer,
        optimizer,
        data_state={"step": step},
        extra={"stage": cfg.stage},
        keep_last=cfg.run.keep_checkpoints,
    )


def start_optimizer(cfg: SFTConfig, model, resume: Path | None):
    """(AdamW, first step): fresh, or restored with the RNG states from ``resume``."""
    from rcgrpo.train.checkpoint import set_rng_state

    o = cfg.optim
    opt = torch.optim.AdamW(model.parameters(), lr=o.lr, betas=o.betas, weight_decay=o.weight_decay)
    if resume is None:
        return opt, 0
    state = load_trainer_state(resume)
    opt.load_state_dict(state["optimizer"])
    set_rng_state(state["rng"])
    return opt, int(state["step"])


def train(
    cfg: SFTConfig,
    model,
    tokenizer,
    examples: list[Example],
    eval_tasks,
    conditions,
    paths: RunPaths,
    logger: RunLogger,
    resume: Path | None = None,
) -> dict:
    """The optimisation loop (module docstring); returns the last logged metrics."""
    from tqdm.auto import tqdm

    from rcgrpo.policy.models import save_policy

    o = cfg.optim
    stream = BatchStream(
        examples,
        cfg.sft.batch_size,
        cfg.run.seed,
        tokenizer.pad_token_id,
        cfg.sft.length_curriculum,
    )
    total = cfg.run.steps or math.ceil(cfg.sft.epochs * stream.per_epoch)
    opt, step = start_optimizer(cfg, model, resume)
    weak_step = round(cfg.sft.weak_snapshot_frac * total) or None
    window, bad, metrics, t0 = [], 0, {}, time.perf_counter()
    model.train()
    bar = tqdm(total=total, initial=step, desc=cfg.stage, disable=not cfg.run.progress)
    while step < total:
        s = cfg.sft
        lr = o.lr * lr_factor(step, total, o.warmup_steps, s.schedule, s.min_lr_ratio, s.decay_frac)
        window.append(
            train_step(model, opt, stream(step), lr, o.max_grad_norm, s.prompt_loss_weight, s.amp)
        )
        bad = 0 if window[-1]["finite"] else bad + 1
        if bad >= cfg.run.max_nonfinite:
            raise FloatingPointError(f"{bad} consecutive non-finite steps at step {step}")
        step += 1
        bar.update(1)
        if due(step, cfg.run.log_every, total):
            metrics = window_metrics(window, time.perf_counter() - t0, lr, step / stream.per_epoch)
            bar.set_postfix(
                loss=f"{metrics['loss/sft']:.3f}", acc=f"{metrics['sft/token_acc']:.3f}"
            )
            if due(step, cfg.run.eval_every, total):
                metrics |= evaluate(cfg, model, tokenizer, eval_tasks, conditions)[0]
            logger.log(step, metrics)
            window, t0 = [], time.perf_counter()
        if step == weak_step:
            save_policy(model, tokenizer, paths.root / "weak")
        if due(step, cfg.run.checkpoint_every, total):
            save_step(cfg, paths, step, model, tokenizer, opt)
    bar.close()
    save_policy(model, tokenizer, paths.root / "final")
    return metrics


# --------------------------------------------------------------------------- run
def run_sft(cfg: SFTConfig) -> dict:
    """Plain SFT on expert trajectories (no reward token); returns the run summary."""
    cfg.validate()
    cpu0, wall0 = cpu_seconds(), time.perf_counter()
    paths, logger, resume = setup_run(cfg)
    train_tasks, eval_tasks = load_task_splits(cfg.tasks, cfg.sft.synth_preset)
    model, tokenizer = init_policy(cfg, train_tasks, resume)
    trajs = expert_data(cfg, train_tasks, tokenizer)
    experts = [t for t in trajs if t.reward == 1]
    examples, dropped = encode_examples(experts, tokenizer, False, cfg.sft.max_length)
    data = {
        "expert_trajectories": len(trajs),
        "expert_reward_0": len(trajs) - len(experts),
        "examples": len(examples),
        "dropped_too_long": dropped,
    }
    metrics = train(cfg, model, tokenizer, examples, eval_tasks, ("none",), paths, logger, resume)
    return finish(cfg, paths, logger, data, metrics, cpu0, wall0)


def finish(
    cfg: SFTConfig,
    paths: RunPaths,
    logger: RunLogger,
    data: dict,
    metrics: dict,
    cpu0: float,
    wall0: float,
) -> dict:
    """Write ``summary.json`` (data counts, final metrics, CPU and wall time); close the logger."""
    logger.close()
    summary = {
        "stage": cfg.stage,
        "run": str(paths.root),
        "final_model": str(paths.root / "final"),
        "data": data,
        "final_metrics": metrics,
        "cpu_s": cpu_seconds() - cpu0,
        "wall_s": time.perf_counter() - wall0,
        "config": to_dict(cfg),
    }
    (paths.root / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def parse_cli(argv: list[str], stage: str, prog: str) -> SFTConfig:
    """``--preset NAME`` → ``--config FILE`` → flags (module docstring of sft_config)."""
    import tyro

    from rcgrpo.train.config import load_json_config
    from rcgrpo.train.sft_config import PRESETS, preset

    rest, name, config_file = [], f"{stage}-synth-cpu", None
    it = iter(argv)
    for arg in it:
        if arg in ("--preset", "--config"):
            value = next(it, None)
            if value is None:
                raise SystemExit(f"{prog}: {arg} needs a value")
            name, config_file = (value, config_file) if arg == "--preset" else (name, value)
        else:
            rest.append(arg)
    if "-h" in rest or "--help" in rest:
        print(
            f"--preset NAME   one of {sorted(PRESETS)} (default {name})\n"
            f"--config FILE   JSON overrides (strict keys)\n"
        )
    base = preset(name)
    if config_file:
        base = load_json_config(SFTConfig, config_file, base=base)
    cfg = tyro.cli(SFTConfig, args=rest, default=base, prog=prog)
    if cfg.stage != stage:
        raise SystemExit(f"{prog}: the config has stage={cfg.stage!r}; use the {cfg.stage} command")
    return cfg.validate()


def print_summary(summary: dict) -> None:
    m = summary["final_metrics"]
    evals = {k: round(v, 4) for k, v in m.items() if k.startswith(("sft/eval", "reward/eval"))}
    print(
        json.dumps(
            {
                "run": summary["run"],
                "final_model": summary["final_model"],
                "cpu_s": round(summary["cpu_s"], 1),
                "data": summary["data"],
                **evals,
            }
        )
    )


def main(argv: list[str]) -> int:
    """``python -m rcgrpo sft [--preset NAME] [--config FILE] [--section.field VALUE ...]``."""
    print_summary(run_sft(parse_cli(argv, "sft", "python -m rcgrpo sft")))
    return 0
