"""``python -m rcgrpo trl``: RC-GRPO on TRL's ``GRPOTrainer`` from the one config.

::

    python -m rcgrpo trl --init runs/stage1/rctp-synth/final --tasks.num-train 64 \\
        --rollout.group-size 5 --rollout.prompts-per-step 8 --run.steps 100
    accelerate launch --config_file zero3.yaml --num_processes 8 -m rcgrpo trl \\
        --preset trl-paper --init <RCTP-FT Qwen2.5-7B-Instruct>

The options are the fields of :class:`rcgrpo.train.config.TRLConfig` (``--help`` lists
them with their documentation), loaded as every training command loads its config
(:mod:`rcgrpo.train.cli`: ``--preset`` of :data:`rcgrpo.train.presets.TRL_PRESETS`,
``--config FILE``, flags) and validated against the library's registries. Writes
``metrics.jsonl`` (TRL's log history: TRL's metrics and ours, one row per log step),
``rollouts.jsonl`` (one row per rollout), ``config.json`` and the trained policy ``final/``
to ``run.root/run.name``. ``tasks.prompt_style`` ``auto`` is the model's own style
(:func:`rcgrpo.policy.render.resolve_prompt_style`, resolved by the trainer).
:func:`grpo_kwargs` maps the config to ``GRPOConfig``; the preset ``trl-paper`` holds the
paper's §4 values, and every other choice there is ours, documented in docs/trl.md.

``init`` is anything :func:`rcgrpo.policy.models.load_policy` loads: a checkpoint folder, a
Hub id, a name of :mod:`rcgrpo.policy.named` (``smollm2-135m-instruct``) or an adapter
checkpoint; the reward-goal tokens are added if missing (:func:`load_model`). With
``--lora.r N`` (N > 0) the model goes to TRL wrapped by
:func:`rcgrpo.policy.lora.with_adapters` (LoRA on ``lora.targets``, the reward-goal token
rows trainable, the base frozen); an adapter checkpoint as ``init`` is continued, as
``python -m rcgrpo train`` does.
π_ref is then the starting policy exactly: TRL's frozen copy of the adapter as it starts
(:mod:`rcgrpo.integrations.trl_peft`). ``final/`` then holds the adapter only
(:func:`rcgrpo.policy.models.save_policy`), never the base weights.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from rcgrpo.integrations.trl_rollout import RolloutSettings
from rcgrpo.policy.task_sources import load_train_tasks
from rcgrpo.train.cli import parse_cli
from rcgrpo.train.config import TRLConfig, save_config
from rcgrpo.train.errors import ConfigError
from rcgrpo.validation import check_positive_int


def output_dir(cfg: TRLConfig) -> Path:
    return Path(cfg.run.root) / cfg.run.name


def grpo_kwargs(cfg: TRLConfig, num_processes: int) -> dict[str, Any]:
    """``GRPOConfig`` keyword arguments of ``cfg`` on ``num_processes`` processes.

    One optimizer step per generation round of B = P·G rollouts (P =
    ``rollout.prompts_per_step`` over all processes): ``per_device_train_batch_size`` =
    ``trl.per_device_batch`` (0 = B / processes) and ``gradient_accumulation_steps = B /
    (per_device_train_batch_size · num_processes)`` (must be whole), ``steps_per_generation``
    left to TRL (= the accumulation steps) and one iteration, so the importance ratio is
    exactly 1 as in ``python -m rcgrpo train``. Choices the paper leaves open follow
    ``python -m rcgrpo train``: token-mean loss (``dapo``), k3 KL without TRL's ratio
    weighting, constant lr after the warm-up.
    """
    check_positive_int("num_processes", num_processes)
    rollout, algo, optim, trl = cfg.rollout, cfg.algo, cfg.optim, cfg.trl
    rollouts = rollout.prompts_per_step * rollout.group_size
    per_device = trl.per_device_batch or max(1, rollouts // num_processes)
    per_pass = per_device * num_processes
    if rollouts % per_pass:
        raise ValueError(
            f"{rollouts} rollouts per step are not a multiple of {per_pass} "
            f"(trl.per_device_batch x processes)"
        )
    return {
        "output_dir": str(output_dir(cfg)),
        "seed": cfg.run.seed,
        "max_steps": cfg.run.steps,
        "num_generations": rollout.group_size,
        "per_device_train_batch_size": per_device,
        "gradient_accumulation_steps": rollouts // per_pass,
        "num_iterations": 1,
        "temperature": rollout.temperature,
        "max_completion_length": rollout.max_new_tokens,
        "beta": algo.kl_beta,
        "epsilon": algo.clip_low,
        "loss_type": "dapo",
        "scale_rewards": "group",
        "use_bias_correction_kl": False,
        "learning_rate": optim.lr,
        "weight_decay": optim.weight_decay,
        "adam_beta1": optim.betas[0],
        "adam_beta2": optim.betas[1],
        "max_grad_norm": optim.max_grad_norm,
        "warmup_steps": optim.warmup_steps,
        "lr_scheduler_type": "constant_with_warmup" if optim.warmup_steps else "constant",
        "logging_steps": 1,
        "report_to": [],
        "save_strategy": "no",
        "disable_tqdm": True,
        "bf16": trl.bf16,
        "use_cpu": not (trl.vllm or trl.bf16),
        "gradient_checkpointing": trl.gradient_checkpointing,
        "use_vllm": trl.vllm,
        "vllm_mode": "colocate",
    }


def training_tasks(cfg: TRLConfig) -> list:
    """The tasks ``cfg`` trains on: the training half of every command's task loader."""
    return load_train_tasks(cfg.tasks, cfg.tasks.synth_preset)


def load_model(cfg: TRLConfig) -> tuple[Any, Any]:
    """(π_θ at step 0, tokenizer) of ``cfg.init`` (module docstring), float32.

    Without adapters and with β > 0, TRL rebuilds π_ref from the model's folder, so a model
    whose reward-goal tokens were only just added (a pretrained base) is a one-line
    ConfigError: that π_ref would lack them.
    """
    from rcgrpo.policy.lora import is_peft, with_adapters
    from rcgrpo.policy.models import load_policy
    from rcgrpo.policy.render import record_prompt_style, resolve_prompt_style
    from rcgrpo.policy.tokenizer import record_goals

    model, tokenizer, added = load_policy(cfg.init, key="init")
    model = with_adapters(model, tokenizer, cfg.init, **dataclasses.asdict(cfg.lora))
    if added and not is_peft(model) and cfg.algo.kl_beta:
        raise ConfigError(
            f"init: {cfg.init!r} has no reward-goal tokens, and TRL would rebuild pi_ref from "
            "its folder without them: pass --lora.r 8 (LoRA), a Stage-1 checkpoint, or "
            "--algo.kl-beta 0"
        )
    # final/ records the style it was trained with, which auto then reads (eval, train)
    record_prompt_style(tokenizer, resolve_prompt_style(cfg.tasks.prompt_style, tokenizer))
    record_goals(tokenizer, True)  # every rollout of this path carries a goal
    return model, tokenizer


def save_final(model: Any, tokenizer: Any, path: Path) -> Path:
    """The trained policy into ``path`` (adapter only under LoRA; TRL's ``ref`` copy of the
    adapter is dropped first: it is ``init``'s adapter, already on disk)."""
    from rcgrpo.integrations.trl_peft import drop_reference_adapter
    from rcgrpo.policy.models import save_policy

    drop_reference_adapter(model)
    return save_policy(model, tokenizer, path)


def rollout_settings(cfg: TRLConfig) -> RolloutSettings:
    return RolloutSettings(
        scheme=cfg.algo.conditioning,
        p_high=cfg.algo.p_high,
        mode=cfg.tasks.mode,
        prompt_style=cfg.tasks.prompt_style,
        max_new_tokens=cfg.rollout.max_new_tokens,
        max_context=cfg.rollout.max_context,
        seed=cfg.run.seed,
        backend="vllm" if cfg.trl.vllm else "transformers",
    )


def main(argv: list[str]) -> int:
    cfg = parse_cli("trl", argv)
    from accelerate import PartialState
    from trl import GRPOConfig

    from rcgrpo.integrations.trl import RCGRPOTrainer

    args = GRPOConfig(**grpo_kwargs(cfg, PartialState().num_processes))
    model, tokenizer = load_model(cfg)
    out = output_dir(cfg)
    (out / "rollouts.jsonl").unlink(missing_ok=True)
    trainer = RCGRPOTrainer(
        model,
        args,
        training_tasks(cfg),
        tokenizer,
        rollout_settings(cfg),
        rollout_log=out / "rollouts.jsonl",
        adv_estimator=cfg.algo.adv_estimator,
    )
    trainer.train()
    if trainer.accelerator.is_main_process:
        save_final(trainer.accelerator.unwrap_model(trainer.model), tokenizer, out / "final")
        save_config(cfg, out / "config.json")
        with (out / "metrics.jsonl").open("w") as fh:
            for row in trainer.state.log_history:
                fh.write(json.dumps(row) + "\n")
    return 0
