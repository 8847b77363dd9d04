"""Set-up and wrap-up of the Stage-1 trainer (:mod:`rcgrpo.train.stage1.sft`,
:mod:`rcgrpo.train.stage1.rctp`).

``open_run(cfg)`` is the one start of both commands: validate, resolve ``sft.amp``
(:mod:`rcgrpo.precision`; the choice and its reason are printed, ``summary.json`` records
them with the host facts), seed, open the run folder (``config.json`` = the config as
asked, ``sft.amp`` unresolved) and its logger, load the tasks and the starting
policy, and find the checkpoint to resume. ``finish`` writes ``summary.json``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from rcgrpo.metrics import validate_metric_names
from rcgrpo.policy.lora import trainable_parameters
from rcgrpo.policy.task_sources import load_task_splits
from rcgrpo.precision import Precision, probe_host, resolve_amp
from rcgrpo.train.checkpoint import load_trainer_state, save_checkpoint
from rcgrpo.train.config import save_config, to_dict
from rcgrpo.train.errors import ConfigError
from rcgrpo.train.model_start import start_model
from rcgrpo.train.resources import cpu_seconds
from rcgrpo.train.run_folder import (
    check_folder,
    check_same_run,
    check_unfinished,
    resume_from,
    seed_all,
    write_summary,
)
from rcgrpo.train.runlog import RunLogger, RunPaths
from rcgrpo.train.stage1.config import SFTConfig
from rcgrpo.train.stage1.data import device_of, init_policy
from rcgrpo.train.validate import validate_config


@dataclass
class Stage1Run:
    """What both Stage-1 commands hold once the run is open (``open_run``)."""

    cfg: SFTConfig
    """The validated config as asked (as written to ``config.json``; ``sft.amp`` may be
    ``auto``; so may ``tasks.prompt_style``, which the tokenizer records resolved:
    :func:`rcgrpo.policy.render.record_prompt_style`)."""
    precision: Precision
    """``sft.amp`` resolved on this machine: ``precision.amp`` is what training uses."""
    paths: RunPaths
    logger: RunLogger
    resume: Path | None
    """The checkpoint this run continues from (None = a fresh start)."""
    train_tasks: list
    eval_tasks: list
    model: Any
    tokenizer: Any
    cpu0: float
    """Process CPU seconds at start (``summary.json`` reports the difference)."""
    wall0: float


def open_run(cfg: SFTConfig) -> Stage1Run:
    """Validate, resolve the precision (printed), open the run folder, load the tasks and
    the starting policy — the same start for SFT and RCTP-FT."""
    validate_config(cfg)
    check_model_paths(cfg)
    cpu0, wall0 = cpu_seconds(), time.perf_counter()
    precision = resolve_amp(cfg.sft.amp, probe_host(device_of(cfg)))
    line = f"precision {precision.amp} ({precision.requested}: {precision.reason})"
    print(f"rcgrpo {cfg.stage}: {line}", flush=True)
    paths, logger, resume = setup_run(cfg)
    train_tasks, eval_tasks = load_task_splits(cfg.tasks, cfg.sft.synth_preset)
    model, tokenizer = init_policy(cfg, train_tasks, resume)
    model = start_model(model, tokenizer, cfg.model.path, cfg)  # config.json: as asked
    return Stage1Run(
        cfg,
        precision,
        paths,
        logger,
        resume,
        train_tasks,
        eval_tasks,
        model,
        tokenizer,
        cpu0,
        wall0,
    )


def check_model_paths(cfg: SFTConfig) -> None:
    """Every local model folder the run reads exists (``model.path`` unless a from-scratch
    preset, RCTP-FT's ``failures.policy`` unless a resumed run reloads its mix): one line naming the key, before anything is
    created and without a Hub lookup (:func:`rcgrpo.policy.models.check_model_path`)."""
    from rcgrpo.policy.models import PRESETS, check_model_path

    if cfg.model.path not in PRESETS:
        check_model_path(cfg.model.path, "model.path")
    elif cfg.lora.r:
        raise ConfigError(
            f"lora.r: {cfg.lora.r} adapters on a model trained from scratch ({cfg.model.path!r}); "
            "LoRA adapts a pretrained model (model.path), or set lora.r 0"
        )
    policy = getattr(getattr(cfg, "failures", None), "policy", "")
    mix_saved = (Path(cfg.run.root) / cfg.run.name / "data.json").exists()
    if policy and not (cfg.run.resume and mix_saved):  # a resumed run reloads its mix
        check_model_path(policy, "failures.policy")


def setup_run(cfg: SFTConfig) -> tuple[RunPaths, RunLogger, Path | None]:
    """Seeds, threads, the run folder and its logger; the checkpoint to resume, if any
    (:mod:`rcgrpo.train.run_folder`: an occupied folder is refused without ``run.resume``,
    and a resumed run must have the config it was started with)."""
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # one "Writing model shards" bar per save is noise
    seed_all(cfg.run.seed)
    if cfg.sft.threads > 0:
        torch.set_num_threads(cfg.sft.threads)
    paths = RunPaths(Path(cfg.run.root) / cfg.run.name)
    check_folder(paths, cfg.run.resume)
    if cfg.run.resume:
        check_same_run(cfg, paths)
        check_unfinished(paths)
    resume = resume_from(paths) if cfg.run.resume else None
    paths.make()
    # resumed before its first checkpoint: restart at step 0 and drop the stale rows
    step = load_trainer_state(resume)["step"] if resume else (0 if cfg.run.resume else None)
    if resume is None:  # a run starting at step 0; a resume never rewrites config.json
        save_config(cfg, paths.config)
    logger = RunLogger(
        paths, tensorboard=cfg.run.tensorboard, validate=validate_metric_names, resume_step=step
    )
    return paths, logger, resume


def save_step(
    cfg: SFTConfig, paths: RunPaths, step: int, model, tokenizer, optimizer: torch.optim.Optimizer
) -> Path:
    """Checkpoint ``step`` (model, tokenizer, AdamW, RNG) under ``checkpoints/``."""
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


def start_optimizer(cfg: SFTConfig, model, resume: Path | None) -> tuple[torch.optim.AdamW, int]:
    """(AdamW, first step): fresh, or restored with the RNG states from ``resume``."""
    from rcgrpo.train.checkpoint import set_rng_state

    optim = cfg.optim
    opt = torch.optim.AdamW(
        trainable_parameters(model), lr=optim.lr, betas=optim.betas, weight_decay=optim.weight_decay
    )
    if resume is None:
        return opt, 0
    state = load_trainer_state(resume)
    opt.load_state_dict(state["optimizer"])
    set_rng_state(state["rng"])
    return opt, int(state["step"])


def finish(run: Stage1Run, data: dict, metrics: dict) -> dict:
    """Write ``summary.json`` (data counts, final metrics, precision, CPU and wall time, the
    resolved config); close the logger."""
    run.logger.close()
    summary = {
        "stage": run.cfg.stage,
        "run": str(run.paths.root),
        "final_model": str(run.paths.root / "final"),
        "data": data,
        "final_metrics": metrics,
        "precision": run.precision.as_dict(),
        "cpu_s": cpu_seconds() - run.cpu0,
        "wall_s": time.perf_counter() - run.wall0,
        "config": to_dict(run.cfg),
    }
    write_summary(run.paths, summary)
    return summary


def print_summary(summary: dict) -> None:
    """The run's one-line JSON result on stdout (run folder, CPU time, data, evaluations)."""
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
