"""Command line of the TRL integration, and the paper's Stage-2 settings as ``GRPOConfig`` fields.

::

    python -m rcgrpo trl --model runs/stage1/rctp-synth/final \\
        --tasks synth --num-tasks 64 --steps 100 --output-dir runs/trl/rc-synth
    accelerate launch --config_file zero3.yaml -m rcgrpo trl --paper \\
        --model <RCTP-FT Qwen2.5-7B-Instruct> --tasks bfcl --vllm --output-dir runs/trl/paper

Writes ``metrics.jsonl`` (TRL's log history: TRL's metrics and ours, one row per log step)
and ``rollouts.jsonl`` (one row per rollout) to ``--output-dir``. ``--paper`` maps §4 of
the paper (G 5, β 0.1, clip 0.2, lr 1e-6, 256 prompts per step, 400 steps) with
:func:`paper_stage2_kwargs`; every other choice there is ours and documented in docs/trl.md.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rcgrpo.advantages import ADV_ESTIMATORS
from rcgrpo.integrations.trl_rollout import SCHEMES, RolloutSettings
from rcgrpo.policy.rollout import MODES
from rcgrpo.policy.task_sources import TASK_SOURCES, load_tasks
from rcgrpo.validation import check_positive_int

PAPER_GROUP_SIZE = 5
PAPER_PROMPTS_PER_STEP = 256
PAPER_STEPS = 400


def paper_stage2_kwargs(num_processes: int, per_device_train_batch_size: int) -> dict[str, Any]:
    """``GRPOConfig`` keyword arguments of the paper's Stage 2 on ``num_processes`` GPUs.

    One optimizer step per generation round of 256 prompts x G 5 = 1280 rollouts:
    ``gradient_accumulation_steps = 1280 / (per_device_train_batch_size · num_processes)``
    (must be whole), ``steps_per_generation`` left to TRL (= the accumulation steps) and one
    iteration, so the importance ratio is exactly 1 as in ``python -m rcgrpo train``.
    Choices the paper leaves open follow ``python -m rcgrpo train``: token-mean loss
    (``dapo``), k3 KL without TRL's ratio weighting, constant lr, temperature 1.
    """
    check_positive_int("num_processes", num_processes)
    check_positive_int("per_device_train_batch_size", per_device_train_batch_size)
    rollouts = PAPER_PROMPTS_PER_STEP * PAPER_GROUP_SIZE
    per_pass = per_device_train_batch_size * num_processes
    if rollouts % per_pass:
        raise ValueError(
            f"{rollouts} rollouts per step are not a multiple of {per_pass} "
            f"(per_device_train_batch_size x num_processes)"
        )
    return {
        "num_generations": PAPER_GROUP_SIZE,
        "beta": 0.1,
        "epsilon": 0.2,
        "learning_rate": 1e-6,
        "max_steps": PAPER_STEPS,
        "per_device_train_batch_size": per_device_train_batch_size,
        "gradient_accumulation_steps": rollouts // per_pass,
        "num_iterations": 1,
        "loss_type": "dapo",
        "scale_rewards": "group",
        "use_bias_correction_kl": False,
        "temperature": 1.0,
        "lr_scheduler_type": "constant",
        "weight_decay": 0.0,
        "max_grad_norm": 1.0,
    }


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m rcgrpo trl", description=__doc__)
    arg = p.add_argument
    arg("--model", required=True, help="policy checkpoint folder (RCTP-FT for RC-GRPO)")
    arg("--output-dir", required=True, type=Path)
    arg("--tasks", default="synth", choices=list(TASK_SOURCES), help="task source (registry)")
    arg("--num-tasks", type=int, default=None, help="first N tasks of the split (all if unset)")
    arg("--synth-preset", default="tiny", help="synth difficulty preset")
    arg("--max-turns", type=int, default=1, help="synth: user turns per task (max)")
    arg("--max-calls-per-turn", type=int, default=1, help="synth: ground-truth calls per turn")
    arg("--task-seed", type=int, default=0, help="synth generator / bfcl split seed")
    arg("--mode", default="combined", choices=MODES)
    arg("--prompt-style", default="compact", choices=("compact", "bfcl", "bare"))
    arg("--scheme", default="iid", choices=SCHEMES, help="reward goal per rollout")
    arg("--p-high", type=float, default=0.5)
    arg(
        "--adv-estimator",
        default="grpo",
        choices=list(ADV_ESTIMATORS),
        help="advantage estimator, as algo.adv_estimator (TRL's std: ddof 1, eps 1e-4)",
    )
    arg("--group-size", type=int, default=4, help="G (num_generations)")
    arg("--prompts-per-step", type=int, default=2, help="P per process and optimizer step")
    arg("--steps", type=int, default=2)
    arg("--lr", type=float, default=1e-5)
    arg("--beta", type=float, default=0.1)
    arg("--temperature", type=float, default=1.0)
    arg("--max-new-tokens", type=int, default=64)
    arg("--max-context", type=int, default=1024)
    arg("--seed", type=int, default=0)
    arg("--paper", action="store_true", help="the paper's Stage-2 GRPOConfig (docs/trl.md)")
    arg("--per-device-batch", type=int, default=8, help="--paper: per-device train batch")
    arg("--vllm", action="store_true", help="generate with TRL's colocated vLLM (GPU)")
    arg("--bf16", action="store_true")
    return p


def _tasks(a: argparse.Namespace) -> list:
    if a.tasks != "synth":
        return load_tasks(a.tasks, "train", seed=a.task_seed, limit=a.num_tasks)
    knobs = {"turns": (1, a.max_turns), "calls_per_turn": (1, a.max_calls_per_turn)}
    return load_tasks(
        "synth", "train", a.task_seed, a.num_tasks or 64, preset=a.synth_preset, **knobs
    )


def grpo_kwargs(a: argparse.Namespace, num_processes: int) -> dict[str, Any]:
    """``GRPOConfig`` keyword arguments from the command line (``--paper`` or the flags)."""
    if a.paper:
        algo = paper_stage2_kwargs(num_processes, a.per_device_batch)
    else:
        algo = {
            "num_generations": a.group_size,
            "per_device_train_batch_size": a.prompts_per_step * a.group_size,
            "gradient_accumulation_steps": 1,
            "max_steps": a.steps,
            "learning_rate": a.lr,
            "beta": a.beta,
            "temperature": a.temperature,
            "loss_type": "dapo",
            "use_bias_correction_kl": False,
            "lr_scheduler_type": "constant",
        }
    run = {
        "output_dir": str(a.output_dir),
        "seed": a.seed,
        "logging_steps": 1,
        "report_to": [],
        "save_strategy": "no",
        "disable_tqdm": True,
        "max_completion_length": a.max_new_tokens,
        "bf16": a.bf16,
        "use_cpu": not (a.vllm or a.bf16),
        "gradient_checkpointing": a.paper,
        "use_vllm": a.vllm,
        "vllm_mode": "colocate",
    }
    return {**run, **algo}


def main(argv: list[str] | None = None) -> int:
    a = build_parser().parse_args(argv)
    from accelerate import PartialState
    from transformers import AutoTokenizer
    from trl import GRPOConfig

    from rcgrpo.integrations.trl import RCGRPOTrainer

    args = GRPOConfig(**grpo_kwargs(a, PartialState().num_processes))
    settings = RolloutSettings(
        scheme=a.scheme,
        p_high=a.p_high,
        mode=a.mode,
        prompt_style=a.prompt_style,
        max_new_tokens=a.max_new_tokens,
        max_context=a.max_context,
        seed=a.seed,
        backend="vllm" if a.vllm else "transformers",
    )
    tokenizer = AutoTokenizer.from_pretrained(a.model)
    out = Path(a.output_dir)
    (out / "rollouts.jsonl").unlink(missing_ok=True)
    trainer = RCGRPOTrainer(
        a.model,
        args,
        _tasks(a),
        tokenizer,
        settings,
        rollout_log=out / "rollouts.jsonl",
        adv_estimator=a.adv_estimator,
    )
    trainer.train()
    if trainer.accelerator.is_main_process:
        with (out / "metrics.jsonl").open("w") as fh:
            for row in trainer.state.log_history:
                fh.write(json.dumps(row) + "\n")
    return 0
