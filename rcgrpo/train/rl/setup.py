"""Set-up, evaluation and checkpoints of the RL trainer (:mod:`rcgrpo.train.rl.loop`).

``setup(cfg)`` returns an :class:`RLRun` holding everything a step needs: the process's
place in the job, the run folder and its logger, the tasks, the policy π_θ, the frozen
reference π_ref (= the starting checkpoint ``init``), AdamW, the prompt stream, the goal
draws and the rollout engine. With ``run.resume`` every piece is restored from the newest
valid checkpoint (model, optimizer, RNG states, prompt position, the goal scheme's state,
non-finite streak, step), and
the run folder's logs are cut back to that step, so the resumed run writes exactly what an
uninterrupted run would have written. The step count it trains to, and when it does nothing,
is :mod:`rcgrpo.train.rl.resume`'s; ``config.json`` is written only by a run starting at
step 0, so a resume never rewrites it.
"""

from __future__ import annotations

import copy
import functools
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from rcgrpo.metrics import validate_metric_names
from rcgrpo.policy.lora import trainable_parameters
from rcgrpo.train.checkpoint import load_trainer_state, save_checkpoint
from rcgrpo.train.config import TrainConfig, save_config
from rcgrpo.train.distributed import DistInfo, barrier, init_distributed
from rcgrpo.train.model_start import start_model
from rcgrpo.train.rl.resume import Resume, mark_extension, plan_resume, recorded_steps
from rcgrpo.train.rollouts import GoalDraws, PromptStream, derive_seed
from rcgrpo.train.run_folder import (
    RESUME_KEYS,
    check_folder,
    check_same_run,
    resume_from,
    seed_all,
)
from rcgrpo.train.runlog import RunLogger, RunPaths, truncate_jsonl
from rcgrpo.train.validate import ConfigError, validate_config, validate_world

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from rcgrpo.env.tasks import Task
    from rcgrpo.policy.rollout import RolloutEngine

INIT_COPY = "init"  # run-folder copy of a from-scratch start (π_ref on resume)


@dataclass
class RLRun:
    """The state of a running RL job (module docstring)."""

    cfg: TrainConfig
    info: DistInfo
    paths: RunPaths
    logger: RunLogger
    train_tasks: list[Task]
    eval_tasks: list[Task]
    model: PreTrainedModel
    """π_θ, the policy being trained."""
    ref_model: PreTrainedModel
    """π_ref: the starting policy, frozen."""
    tokenizer: PreTrainedTokenizerBase
    optimizer: torch.optim.Optimizer
    stream: PromptStream
    goals: GoalDraws
    """The reward goals of each round (``algo.conditioning``) and the scheme's state."""
    engine: RolloutEngine
    """Samples rollouts from ``model`` at the training temperature."""
    start_step: int = 0
    nonfinite_streak: int = 0
    ref_source: str = ""
    latest: dict = field(default_factory=dict)
    """The last step's metrics (logged or not; the progress bar reads them)."""
    extended: list[dict] = field(default_factory=list)
    """Every extension of the run's step count (:mod:`rcgrpo.train.rl.resume`)."""


RESUMABLE_CHANGES = (*RESUME_KEYS, "run.steps")
"""Config keys a resumed RL run may change (e.g. extend ``run.steps``); any other change
would make the resumed run differ from the one it continues."""


def _run_folder(
    cfg: TrainConfig, info: DistInfo, steps_given: bool
) -> tuple[RunPaths, dict | None]:
    """The run folder and the trainer state to resume (None: fresh start). A resume sets
    ``cfg.run.steps`` to the count it trains to (``steps_given``: ``run.steps`` was asked
    for, else the folder's own; :func:`~rcgrpo.train.rl.resume.plan_resume`) and puts the
    plan under ``state["resume"]``."""
    paths = RunPaths(Path(cfg.run.root) / cfg.run.name)
    found = resume_from(paths) if cfg.run.resume else None
    state = load_trainer_state(found) if found else None
    if cfg.run.resume and not steps_given and state is None:  # restarts at step 0
        cfg.run.steps = recorded_steps(paths) or cfg.run.steps
    if state is not None:
        state["path"] = str(found)
        check_same_run(cfg, paths, RESUMABLE_CHANGES)
        asked = cfg.run.steps if steps_given else None
        state["resume"] = plan_resume(paths, int(state["step"]), asked, cfg.run.steps)
        cfg.run.steps = state["resume"].steps
    check_folder(paths, cfg.run.resume)
    barrier(info)  # every rank looked before rank 0 writes anything
    if state is None and cfg.run.resume and info.is_main:  # killed before its 1st checkpoint
        for log in (paths.metrics, paths.rollouts, paths.conversations):
            truncate_jsonl(log, -1)
    return paths, state


def _start_policy(cfg: TrainConfig, paths: RunPaths, info: DistInfo, state: dict | None):
    """(model, tokenizer, ref_source): the checkpoint to resume, ``init``, or a tiny preset."""
    from rcgrpo.policy.models import PRESETS, build_tiny_policy, load_policy

    dtype = getattr(torch, cfg.model.dtype)
    if state is not None:
        model, tokenizer, _ = load_policy(state["path"], dtype, info.device)
        ref = state["extra"]["ref"]
        if Path(ref).name == INIT_COPY and (paths.root / INIT_COPY).is_dir():
            ref = str(paths.root / INIT_COPY)  # its own copy, also in a folder copied and renamed
        return model, tokenizer, ref
    if cfg.init in PRESETS:  # random initialisation (tests); kept in the run as π_ref
        model, tokenizer = build_tiny_policy(cfg.init, seed=cfg.run.seed)
        model = model.to(device=info.device, dtype=dtype)
        if info.is_main:
            from rcgrpo.policy.models import save_policy

            save_policy(model, tokenizer, paths.root / INIT_COPY)
        return model, tokenizer, str(paths.root / INIT_COPY)
    try:
        model, tokenizer, _ = load_policy(cfg.init, dtype, info.device, key="init")
    except OSError as err:
        raise ConfigError(f"config: init cannot be loaded from {cfg.init!r} ({err})") from None
    return model, tokenizer, cfg.init


def check_init(cfg: TrainConfig) -> None:
    """A local-looking ``init`` (:func:`rcgrpo.policy.models.looks_local`: not a Hub id
    ``namespace/name``, not a preset) must exist; checked before anything is written."""
    from rcgrpo.policy.models import PRESETS, check_model_path, looks_local
    from rcgrpo.policy.named import is_named

    init = cfg.init
    if is_named(init):
        check_model_path(init, "init")
        return
    if init in PRESETS and cfg.lora.r:
        raise ConfigError(
            f"lora.r: {cfg.lora.r} adapters on a randomly initialised model ({init!r}); "
            "LoRA adapts a pretrained model (--init), or set lora.r 0"
        )
    if init not in PRESETS and looks_local(init) and not Path(init).expanduser().exists():
        raise ConfigError(
            f"config: init has no checkpoint folder at {init!r} "
            f"(Stage 1 makes it: {stage1_commands(init)}; or pass --init PATH)"
        )


def stage1_commands(init: str) -> str:
    """The Stage-1 commands that write checkpoint folder ``init``: the chain of Stage-1 presets
    whose ``<run.root>/<run.name>/final`` it is (rctp after the sft it starts from), else the
    ``sft`` / ``rctp`` commands for a folder ``<root>/{sft,rctp}/final`` (docs/own-task.md)."""
    from rcgrpo.train.stage1.config import PRESETS as STAGE1

    writers: dict[Path, tuple] = {}
    for name, cfg in STAGE1.items():
        writers.setdefault(Path(cfg.run.root, cfg.run.name, "final"), (name, cfg))
    chain, path = [], Path(init)
    while path in writers and len(chain) < len(STAGE1):
        name, cfg = writers[path]
        chain.insert(0, f"python -m rcgrpo {cfg.stage} --preset {name}")
        path = Path(cfg.model.path)
    if chain:
        return ", then ".join(chain)
    root, stage = Path(init).parent.parent, Path(init).parent.name
    sft = f"python -m rcgrpo sft … --run.root {root}"
    if Path(init).name == "final" and stage in ("sft", "rctp"):
        rctp = f", then python -m rcgrpo rctp … --run.root {root}" if stage == "rctp" else ""
        return f"{sft}{rctp}, as docs/own-task.md shows"
    return (
        "python -m rcgrpo sft … or python -m rcgrpo rctp … "
        "(each writes <run.root>/<run.name>/final)"
    )


def _frozen(model):
    ref = copy.deepcopy(model).eval()
    for p in ref.parameters():
        p.requires_grad_(False)
    return ref


def _reference(cfg: TrainConfig, model, source: str, state: dict | None, info: DistInfo):
    """π_ref: the starting policy, frozen (a copy of ``model`` on a fresh start)."""
    from rcgrpo.policy.models import load_policy

    if state is None:
        return _frozen(model)
    ref, _, _ = load_policy(source, getattr(torch, cfg.model.dtype), info.device)
    return _frozen(ref)


def make_engine(cfg: TrainConfig, model, tokenizer):
    """The batched rollout engine sampling from ``model`` at the training temperature."""
    from rcgrpo.env import Episode
    from rcgrpo.policy import ChatEncoder, ModelPolicy, RolloutEngine

    rollout = cfg.rollout
    if rollout.max_context > model.config.max_position_embeddings:
        raise ConfigError(
            f"config: rollout.max_context must be <= the model's max_position_embeddings "
            f"{model.config.max_position_embeddings}, got {rollout.max_context}"
        )
    encoder = ChatEncoder(tokenizer)
    policy = ModelPolicy(
        model, sorted(encoder.stop_ids), rollout.temperature, rollout.top_p, tokenizer.pad_token_id
    )
    episode = functools.partial(Episode, max_steps_per_turn=rollout.max_steps_per_turn)
    return RolloutEngine(
        policy,
        encoder,
        episode,
        mode=cfg.tasks.mode,
        prompt_style=cfg.tasks.prompt_style,
        max_new_tokens=rollout.max_new_tokens,
        max_context=rollout.max_context,
        max_batch=rollout.max_batch,
    )


def setup(cfg: TrainConfig, steps_given: bool = True) -> RLRun:
    """Validate, join the job, open the run folder, load tasks, models and optimizer;
    ``steps_given``: ``cfg.run.steps`` was asked for (the CLI: ``--run.steps`` given), so a
    resume trains to it rather than to the folder's own count."""
    from rcgrpo.policy.task_sources import load_task_splits

    validate_config(cfg)
    if not (cfg.run.progress and sys.stderr.isatty()):  # quiet in a log file
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # weight loading / saving bars
    info = init_distributed(cfg.model.device)
    validate_world(cfg, info.world_size)
    check_init(cfg)
    seed_all(cfg.run.seed)
    paths, state = _run_folder(cfg, info, steps_given)
    train_tasks, eval_tasks = load_task_splits(cfg.tasks, cfg.tasks.synth_preset)
    model, tokenizer, ref_source = _start_policy(cfg, paths, info, state)
    # config.json keeps tasks.prompt_style as asked (auto), so a resumed run's config equals it
    model = start_model(model, tokenizer, cfg.init, cfg)
    step = int(state["step"]) if state else None  # the run folder is written from here on
    logger = RunLogger(
        paths,
        enabled=info.is_main,
        tensorboard=cfg.run.tensorboard,
        validate=validate_metric_names,
        resume_step=step,
    )
    resume: Resume | None = state["resume"] if state else None
    if info.is_main and resume is None:  # a run starting at step 0
        save_config(cfg, paths.config)
    extended = list(resume.extended) if resume is not None else []
    if info.is_main and resume is not None and resume.new is not None:
        extended.append(mark_extension(paths, step, resume.new))
    ref_model = _reference(cfg, model, ref_source, state, info)
    optim = cfg.optim
    optimizer = torch.optim.AdamW(
        trainable_parameters(model), lr=optim.lr, betas=optim.betas, weight_decay=optim.weight_decay
    )
    stream = PromptStream(len(train_tasks), cfg.run.seed)
    run = RLRun(
        cfg,
        info,
        paths,
        logger,
        train_tasks,
        eval_tasks,
        model,
        ref_model,
        tokenizer,
        optimizer,
        stream,
        GoalDraws(cfg.algo.conditioning, cfg.algo.p_high),
        make_engine(cfg, model, tokenizer),
        ref_source=ref_source,
    )
    if state is not None:
        _restore(run, state)
    run.extended = extended
    return run


def _restore(run: RLRun, state: dict) -> None:
    from rcgrpo.train.checkpoint import set_rng_state

    run.optimizer.load_state_dict(state["optimizer"])
    set_rng_state(state["rng"])
    run.stream.load_state_dict(state["data"]["stream"])
    if "goals" in state["data"]:  # checkpoints written before goal schemes could keep state
        run.goals.load_state_dict(state["data"]["goals"])
    run.nonfinite_streak = int(state["data"]["nonfinite_streak"])
    run.start_step = int(state["step"])


def save_step(run: RLRun, step: int) -> None:
    """Checkpoint ``step`` atomically (rank 0 writes; every rank waits for it)."""
    if run.info.is_main:
        save_checkpoint(
            run.paths.checkpoints,
            step,
            run.model,
            run.tokenizer,
            run.optimizer,
            data_state={
                "stream": run.stream.state_dict(),
                "goals": run.goals.state_dict(),
                "nonfinite_streak": run.nonfinite_streak,
            },
            extra={"preset": run.cfg.preset, "init": run.cfg.init, "ref": run.ref_source},
            keep_last=run.cfg.run.keep_checkpoints,
        )
    barrier(run.info)


def evaluate(run: RLRun, step: int) -> dict[str, float]:
    """Held-out evaluation (rank 0): ``eval/step_<N>.json`` and the reward/eval_* metrics.
    Step 0 and the last step use every held-out task, the steps between the first
    ``tasks.num_eval_between`` of them (0 = all)."""
    from rcgrpo.policy.evaluate import evaluate_policy

    cfg, out, summaries = run.cfg, {}, {}
    if not run.info.is_main:
        return out
    between = 0 < step < cfg.run.steps and cfg.tasks.num_eval_between
    tasks = run.eval_tasks[: cfg.tasks.num_eval_between] if between else run.eval_tasks
    conditions = [cfg.algo.eval_condition]
    if cfg.algo.eval_low and "low" not in conditions:
        conditions.append("low")
    rollout = cfg.rollout
    run.model.eval()
    with torch.no_grad():
        for cond in conditions:
            summaries[cond], _ = evaluate_policy(
                run.model,
                run.tokenizer,
                tasks,
                condition=cond,
                mode=cfg.tasks.mode,
                prompt_style=cfg.tasks.prompt_style,
                temperature=rollout.eval_temperature,
                top_p=rollout.top_p,
                max_new_tokens=rollout.max_new_tokens,
                max_context=rollout.max_context,
                batch_size=rollout.max_batch,
                seed=derive_seed(cfg.run.seed, "eval", step),
                progress=cfg.run.progress,
            )
    main = summaries[conditions[0]]["overall"]
    out["reward/eval_success"] = main["reward"]["mean"]
    rewards = [t["reward"] for t in summaries[conditions[0]]["per_task"]]
    out["reward/eval_mean"] = sum(rewards) / len(rewards)
    if "low" in summaries and conditions[0] != "low":
        out["reward/eval_success_low"] = summaries["low"]["overall"]["reward"]["mean"]
    report = {
        "step": step,
        "preset": cfg.preset,
        "num_tasks": len(tasks),
        "mode": cfg.tasks.mode,
        "temperature": rollout.eval_temperature,
        "conditions": summaries,
    }
    path = run.paths.eval_dir / f"step_{step}.json"
    path.write_text(json.dumps(report, indent=1) + "\n")
    return out
