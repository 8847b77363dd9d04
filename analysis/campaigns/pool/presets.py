"""The ``pool`` campaign's presets: its Stage-1 presets ``sft-synth-cpu`` / ``rctp-synth-cpu``
and one RL preset per arm of ``arms.py`` here, built by :mod:`analysis.campaigns.presets` from
:data:`BASE`, the Stage-1 checkpoint the arm's record names (:data:`INITS`) and its changes in
:data:`CHANGES`, as few as possible, so a comparison attributes an effect to one change. The
``cpu-*`` arms (tiny Qwen2 from Stage 1, synth suite ``cpu``, combined mode; a test checks
this table against the registry and the presets):

====================  ===============  ===============  ==========================================
preset                init (Stage 1)   reward token     differs from ``cpu-grpo`` in
====================  ===============  ===============  ==========================================
``cpu-grpo``          SFT              none             (the collapse baseline: SFT + GRPO)
``cpu-rcgrpo``        RCTP-FT          iid, p = 0.5     init, token, eval on high (+ low)
``cpu-sft-rc``        SFT              iid, p = 0.5     token (factorial cell SFT + RC sampling)
``cpu-rcgrpo-strat``  RCTP-FT          stratified       as ``cpu-rcgrpo``, round(pG) high goals
``cpu-rctp-grpo``     RCTP-FT          high             init, token (factorial cell RCTP + GRPO)
``cpu-dapo``          SFT              none             DAPO dynamic sampling (group_filter)
``cpu-entropy``       SFT              none             entropy bonus 0.01
``cpu-hightemp``      SFT              none             rollout temperature 1.5
``cpu-drgrpo``        SFT              none             Dr. GRPO: no std scaling, constant-L loss
====================  ===============  ===============  ==========================================

The ``cpu-*`` presets carry the recipe the campaign reports, so ``--preset NAME --run.seed S``
(with ``--init`` the campaign's Stage-1 checkpoint of seed S) resolves to the committed run
``NAME-sS`` (a test checks every one): the setting the pre-registered RL recipe sweep chose
on SFT + GRPO (:mod:`analysis.campaigns.rl_recipe.recipe_sweep`; a test checks they agree), lr 1e-4 on a
pool of 16 training tasks, 200 steps. On the full 6,000-task training set no setting of the
sweep learned (``docs/lab-notes/2026-12-rl-recipe.md``).
"""

from __future__ import annotations

from typing import Any

from analysis.campaign.presets import HIGH, RC
from rcgrpo.train.config import from_dict
from rcgrpo.train.presets import RUN_NAME
from rcgrpo.train.stage1.config import RCTPConfig, SFTConfig

SFT_INIT = "runs/stage1/sft-synth/final"
"""Stage-1 SFT checkpoint of the ``cpu-*`` presets (``python -m rcgrpo sft --preset
sft-synth-cpu``)."""
RCTP_INIT = "runs/stage1/rctp-synth/final"
"""Stage-1 RCTP-FT checkpoint of the ``cpu-*`` presets (``rctp-synth-cpu``)."""
INITS = {"sft": SFT_INIT, "rctp": RCTP_INIT}
"""The Stage-1 checkpoints, by an arm's ``start``."""
SUITE = "cpu suite, 16-task pool"
"""The synth suite its arms run on, as their presets' descriptions name it."""

BASE: dict[str, Any] = {
    "model": {"dtype": "float32", "device": "cpu"},
    "tasks": {
        "source": "synth",
        "mode": "combined",
        "prompt_style": "compact",
        "num_train": 16,
        "num_eval": 200,
        "max_turns": 2,
        "max_calls_per_turn": 2,
        "synth_preset": "cpu",
    },
    "rollout": {
        "group_size": 5,
        "prompts_per_step": 8,
        "temperature": 1.0,
        "max_new_tokens": 96,
        "max_context": 1024,
        "max_batch": 64,
    },
    "algo": {
        "conditioning": "none",
        "eval_condition": "none",
        "kl_beta": 0.1,
        "clip_low": 0.2,
        "clip_high": 0.2,
        "adv_estimator": "grpo",
        "loss_agg": "token-mean",
    },
    "optim": {"lr": 1e-4, "warmup_steps": 5, "max_grad_norm": 1.0, "micro_batch": 4},
    "run": {"name": RUN_NAME, "steps": 200, "eval_every": 25, "checkpoint_every": 20},
}
"""The base of the ``cpu-*`` arms (GRPO from the SFT checkpoint), at the recipe the campaign
reports: lr 1e-4 on a pool of 16 training tasks (``tasks.num_train``), 8 prompts x G 5 per
step, β 0.1, 200 steps, held-out evaluation at step 0 and every 25 steps (module docstring)."""

CHANGES: dict[str, dict[str, dict[str, Any]]] = {
    "cpu-grpo": {},
    "cpu-rcgrpo": {"algo": RC},
    "cpu-rcgrpo-strat": {"algo": {**RC, "conditioning": "stratified"}},
    "cpu-sft-rc": {"algo": RC},
    "cpu-rctp-grpo": {"algo": HIGH},
    "cpu-dapo": {"algo": {"group_filter": "dapo", "max_resample_rounds": 3}},
    "cpu-entropy": {"algo": {"entropy_coef": 0.01}},
    "cpu-hightemp": {"rollout": {"temperature": 1.5}},
    "cpu-drgrpo": {"algo": {"adv_estimator": "dr-grpo", "loss_agg": "seq-mean-token-sum-norm"}},
}
"""Per arm of ``arms.py`` here: its values against :data:`BASE`."""

_SYNTH_TASKS = {
    "source": "synth",
    "prompt_style": "compact",
    "num_train": 10000,
    "num_eval": 200,
    "max_turns": 2,
    "max_calls_per_turn": 2,
}
_SYNTH_SFT = {"synth_preset": "cpu", "modes": ["combined"], "eval_modes": ["combined"]}
"""CPU Stage 1 = the RL suite and prompt (``cpu`` synth preset, combined mode): RL never sees
a multi_turn episode, so Stage 1 spends its whole budget on the combined rendering."""

# CPU: the tiny Qwen2 from scratch on the synth suite (its cost: README, Stage-1 table,
# generated from the committed runs): the first epoch
# opens with its shortest half of the batches, the lr stays at its peak after warm-up and
# anneals over the last 20% of the steps (warmup-stable-decay), AdamW beta2 0.95.
# Measured numbers and the recipes it replaced: docs/lab-notes/2026-11-stage1.md.
SFT_SYNTH_CPU: SFTConfig = from_dict(
    SFTConfig,
    {
        "model": {"path": "tiny"},
        "tasks": _SYNTH_TASKS,
        "sft": {
            **_SYNTH_SFT,
            "epochs": 2.1,
            "batch_size": 8,
            "weak_snapshot_frac": 0.25,
            "vocab_size": 1024,
            "prompt_loss_weight": 1.0,
            "amp": "auto",
            "length_curriculum": 0.5,
            "schedule": "wsd",
            "decay_frac": 0.2,
        },
        "optim": {"lr": 7e-4, "betas": (0.9, 0.95), "weight_decay": 0.01, "warmup_steps": 100},
        "run": {"root": "runs/stage1", "name": "sft-synth", "checkpoint_every": 500},
    },
)
RCTP_SYNTH_CPU: RCTPConfig = from_dict(
    RCTPConfig,
    {
        "model": {"path": SFT_INIT},
        "tasks": _SYNTH_TASKS,
        "sft": {**_SYNTH_SFT, "epochs": 2.0, "batch_size": 16, "amp": "auto"},
        "failures": {
            "policy": "runs/stage1/sft-synth/weak",
            "temperature": 1.0,
            "num_tasks": 2000,
        },
        "optim": {"lr": 5e-4, "weight_decay": 0.01, "warmup_steps": 50},
        "run": {"root": "runs/stage1", "name": "rctp-synth", "checkpoint_every": 500},
    },
)

STAGE1 = {"sft-synth-cpu": SFT_SYNTH_CPU, "rctp-synth-cpu": RCTP_SYNTH_CPU}
"""The Stage-1 presets (``python -m rcgrpo sft | rctp --preset NAME``)."""
DESCRIPTIONS = {
    "sft-synth-cpu": "SFT of the tiny Qwen2 from scratch on the cpu suite (the CPU Stage-1 recipe)",
    "rctp-synth-cpu": "RCTP-FT from sft-synth-cpu on its weak snapshot's failures (cpu suite)",
}
"""Stage-1 preset -> its line in ``--help``."""
