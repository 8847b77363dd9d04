"""Stage 1 training loop: ``python -m rcgrpo sft`` (and ``rctp``,
:mod:`rcgrpo.train.stage1.rctp`).

Reads top to bottom as the run does::

    setup      validate, resolve ``sft.amp`` (printed), seed, torch threads, run folder
               (config.json), JSONL + TensorBoard logger (``rcgrpo.train.stage1.setup.open_run``)
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
    save       ``checkpoints/step_N`` (save_pretrained + optimizer + RNG), ``final/`` and
               ``summary.json`` (with the precision and its reason)
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from pathlib import Path

import torch

from rcgrpo.losses import sft_loss
from rcgrpo.schedules import lr_factor
from rcgrpo.train.cli import parse_cli, run_command
from rcgrpo.train.errors import NonFiniteError
from rcgrpo.train.progress import EpisodeTally, advance, close, open_bar
from rcgrpo.train.resources import cpu_seconds, peak_rss_gib
from rcgrpo.train.runlog import due
from rcgrpo.train.stage1.config import SFTConfig
from rcgrpo.train.stage1.data import BatchStream, encode_examples, expert_data, random_goals
from rcgrpo.train.stage1.setup import (
    Stage1Run,
    finish,
    open_run,
    print_summary,
    save_step,
    start_optimizer,
)
from rcgrpo.train.stage1.trajectories import Example


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
                desc = f"eval {mode}/{cond}"
                bar = open_bar(len(tasks), desc, cfg.run.progress, unit="episode")
                summary, _ = evaluate_policy(
                    model,
                    tokenizer,
                    tasks,
                    condition=cond,
                    mode=mode,
                    prompt_style=cfg.tasks.prompt_style,
                    temperature=cfg.sft.eval_temperature,
                    max_new_tokens=cfg.sft.eval_max_new_tokens,
                    max_context=cfg.sft.eval_max_context,
                    batch_size=cfg.sft.eval_batch_size,
                    seed=cfg.run.seed,
                    on_done=EpisodeTally(bar),
                )
                close(bar)
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
    token mean (``sft.prompt_loss_weight``; 0 = assistant tokens only, as the paper); the
    batch's ``loss_weight`` (minimal pairs' decision tokens, ``failures.pair_weight``) weighs
    the first term's tokens.
    ``amp="bf16"``: the forward runs under ``torch.autocast`` (the loss in float32).
    """
    for group in optimizer.param_groups:
        group["lr"] = lr
    device = next(model.parameters()).device
    ids, attn = batch["input_ids"].to(device), batch["attention_mask"].to(device)
    mask = batch["loss_mask"].to(device)
    with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp == "bf16"):
        logits = model(input_ids=ids, attention_mask=attn.long()).logits
    weight = batch.get("loss_weight")
    loss, n, correct = sft_loss(logits, ids, mask, None if weight is None else weight.to(device))
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
        "perf/peak_rss_gib": peak_rss_gib(),
    }


def train(run: Stage1Run, examples: list[Example], conditions: Sequence[str]) -> dict:
    """The optimisation loop (module docstring); returns the last logged metrics."""
    from rcgrpo.policy.models import save_policy

    cfg, model, tokenizer, paths = run.cfg, run.model, run.tokenizer, run.paths
    optim = cfg.optim
    stream = BatchStream(
        examples,
        cfg.sft.batch_size,
        cfg.run.seed,
        tokenizer.pad_token_id,
        cfg.sft.length_curriculum,
    )
    total = cfg.run.steps or math.ceil(cfg.sft.epochs * stream.per_epoch)
    opt, step = start_optimizer(cfg, model, run.resume)
    weak_step = round(cfg.sft.weak_snapshot_frac * total) or None
    window, bad, metrics, t0 = [], 0, {}, time.perf_counter()
    model.train()
    bar = open_bar(total, f"{cfg.stage} step", cfg.run.progress, initial=step, unit="step")
    while step < total:
        sft = cfg.sft
        lr = optim.lr * lr_factor(
            step, total, optim.warmup_steps, sft.schedule, sft.min_lr_ratio, sft.decay_frac
        )
        window.append(
            train_step(
                model,
                opt,
                stream(step),
                lr,
                optim.max_grad_norm,
                sft.prompt_loss_weight,
                run.precision.amp,
            )
        )
        bad = 0 if window[-1]["finite"] else bad + 1
        if bad >= cfg.run.max_nonfinite:
            raise NonFiniteError(
                f"stopping at step {step + 1}: {bad} consecutive steps with a non-finite loss or "
                f"gradient (run.max_nonfinite = {cfg.run.max_nonfinite}; updates were skipped)"
            )
        step += 1
        advance(bar)
        if due(step, cfg.run.log_every, total):
            metrics = window_metrics(window, time.perf_counter() - t0, lr, step / stream.per_epoch)
            loss, acc = metrics["loss/sft"], metrics["sft/token_acc"]
            advance(bar, f"loss {loss:.3f} | acc {acc:.3f}", steps=0)
            if due(step, cfg.run.eval_every, total):
                metrics |= evaluate(cfg, model, tokenizer, run.eval_tasks, conditions)[0]
            run.logger.log(step, metrics)
            window, t0 = [], time.perf_counter()
        if step == weak_step:
            save_policy(model, tokenizer, paths.root / "weak")
        if due(step, cfg.run.checkpoint_every, total):
            save_step(cfg, paths, step, model, tokenizer, opt)
    close(bar)
    save_policy(model, tokenizer, paths.root / "final")
    return metrics


# --------------------------------------------------------------------------- run
def mix_successes(source: str) -> list:
    """The reward-1 rows of an RCTP-FT mix (``sft.successes_of``): ``source`` is the run folder
    (its ``trajectories.jsonl``, or ``.jsonl.gz`` as a light copy keeps it) or the file. A
    missing mix is a :class:`~rcgrpo.train.errors.ConfigError` naming the paths tried."""
    import gzip

    from rcgrpo.train.errors import ConfigError
    from rcgrpo.train.stage1.trajectories import rows_to_trajectories

    path = Path(source)
    tried = (
        [path] if path.is_file() else [path / "trajectories.jsonl", path / "trajectories.jsonl.gz"]
    )
    found = next((p for p in tried if p.is_file()), None)
    if found is None:
        names = ", ".join(str(p) for p in tried)
        raise ConfigError(f"sft.successes_of: no RCTP-FT mix at {names}")
    raw = found.read_bytes()
    text = (gzip.decompress(raw) if found.suffix == ".gz" else raw).decode()
    return [t for t in rows_to_trajectories(text) if t.reward == 1]


def run_sft(cfg: SFTConfig) -> dict:
    """Plain SFT on expert trajectories (reward 1), or on every demonstration of the synth
    suite's demonstrator (``sft.demonstrations``); no reward token, except the goals drawn
    independently of the reward for ``sft.random_goals``. Returns the run summary."""
    run = open_run(cfg)
    sft = run.cfg.sft
    if sft.successes_of:
        trajs = mix_successes(sft.successes_of)
    else:
        trajs = expert_data(run.cfg, run.train_tasks, run.tokenizer)
    experts = trajs if sft.demonstrations == "demo" else [t for t in trajs if t.reward == 1]
    goals = random_goals(len(experts), sft.random_goals, run.cfg.run.seed)
    examples, dropped = encode_examples(
        experts, run.tokenizer, False, sft.max_length, goals, run.cfg.run.progress
    )
    data = {
        "expert_trajectories": len(trajs),
        "expert_reward_0": sum(t.reward == 0 for t in trajs),
        "examples": len(examples),
        "dropped_too_long": dropped,
        "random_goals": {"high": goals.count(True), "low": goals.count(False)},
    }
    return finish(run, data, train(run, examples, ("none",)))


def main(argv: list[str]) -> int:
    """``python -m rcgrpo sft [--preset NAME] [--config FILE] [--section.field VALUE ...]``;
    exit 2 on a config error, 3 on a non-finite stop (:mod:`rcgrpo.train.cli`)."""
    return run_command("sft", lambda: print_summary(run_sft(parse_cli("sft", argv))))
