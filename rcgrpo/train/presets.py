"""Named RL configs (Stage 2): ``python -m rcgrpo train --preset NAME``.

Every algorithm is the same loop with different config values. The CPU presets share one
base (tiny Qwen2 from Stage 1, synth suite, combined mode) and each differs from
``cpu-grpo`` or ``cpu-rcgrpo`` in as few values as possible, so a comparison attributes an
effect to one change:

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

The ``regime-*`` presets (``regime-grpo``, ``regime-rcgrpo``, ``regime-sft-rc``,
``regime-rctp-grpo``: the factorial's four cells) run on the synth ``regime`` suite from its
Stage-1 checkpoints (``docs/regime.md``) and differ from ``regime-grpo`` as the ``cpu-*``
cells differ from ``cpu-grpo``; ``regime-grpo`` differs from ``cpu-grpo`` in the suite, the
checkpoint, G 8, 10,000 training / 1,000 held-out tasks, lr 1e-4 and 200 steps.

The CPU values (lr, P, G, steps) are chosen for the from-scratch tiny model and a 2-core
budget (``docs/training.md``, Stage 2); ``paper-qwen7b`` carries the paper's values (§4: G 5, β 0.1,
clip 0.2, lr 1e-6, 256 prompts per step, 400 steps; GRPO baseline: 64 prompts). Values the
paper leaves unstated (temperature, KL estimator, loss aggregation, ε_stab) are the
documented defaults of :mod:`rcgrpo.train.config`.

``run.name`` may hold ``{preset}`` and ``{seed}``; the CLI fills them in, so
``--preset cpu-grpo --run.seed 2`` writes ``runs/cpu-grpo-s2``.
"""

from __future__ import annotations

import copy
from typing import Any

from rcgrpo.train.config import TrainConfig, from_dict

SFT_INIT = "runs/stage1/sft-synth/final"
"""Stage-1 SFT checkpoint of the CPU presets (``python -m rcgrpo sft --run.root runs/stage1``)."""
RCTP_INIT = "runs/stage1/rctp-synth/final"
"""Stage-1 RCTP-FT checkpoint of the CPU presets."""
REGIME_SFT_INIT = "runs/regime/sft-regime/final"
"""Stage-1 SFT checkpoint of the regime presets (``python -m rcgrpo sft --preset sft-synth-regime``)."""
REGIME_RCTP_INIT = "runs/regime/rctp-regime/final"
"""Stage-1 RCTP-FT checkpoint of the regime presets (``rctp-synth-regime``)."""
PAPER_INIT = "runs/stage1/rctp-bfcl/final"
"""RCTP-FT checkpoint of the GPU preset (``rctp-bfcl-gpu`` of Stage 1)."""
RUN_NAME = "{preset}-s{seed}"

_CPU: dict[str, dict[str, Any]] = {
    "model": {"dtype": "float32", "device": "cpu"},
    "tasks": {
        "source": "synth",
        "mode": "combined",
        "prompt_style": "compact",
        "num_train": 6000,
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
    "optim": {"lr": 5e-5, "warmup_steps": 5, "max_grad_norm": 1.0, "micro_batch": 4},
    "run": {"name": RUN_NAME, "steps": 100, "eval_every": 20, "checkpoint_every": 20},
}
_RC = {"conditioning": "iid", "p_high": 0.5, "eval_condition": "high", "eval_low": True}


def _merge(base: dict[str, Any], **sections: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for name, values in sections.items():
        if isinstance(values, dict):
            out.setdefault(name, {}).update(values)
        else:
            out[name] = values
    return out


def _cpu(init: str, **sections: dict[str, Any]) -> dict[str, Any]:
    return _merge(_CPU, init=init, **sections)


_REGIME = _merge(
    _CPU,
    init=REGIME_SFT_INIT,
    tasks={"synth_preset": "regime", "num_train": 10000, "num_eval": 1000},
    rollout={"group_size": 8, "prompts_per_step": 8},
    optim={"lr": 1e-4},
    run={"steps": 200, "eval_every": 100, "checkpoint_every": 50},
)
"""The regime suite (docs/regime.md): its Stage-1 checkpoints, G 8 (stratified goals need no
rounding), 200 steps x 8 prompts drawn fresh from 10,000 training tasks (no task twice),
1,000 held-out tasks; lr 1e-4 is the pool regime's recipe, to be chosen for the proof run."""

_PAPER = {
    "init": PAPER_INIT,
    "model": {"dtype": "bfloat16", "device": "auto"},
    "tasks": {"source": "bfcl", "mode": "combined", "prompt_style": "bfcl", "num_eval": 80},
    "rollout": {
        "group_size": 5,
        "prompts_per_step": 256,
        "temperature": 1.0,
        "max_new_tokens": 512,
        "max_context": 16384,
        "max_batch": 256,
    },
    "algo": {**_RC, "kl_beta": 0.1, "clip_low": 0.2, "clip_high": 0.2},
    "optim": {"lr": 1e-6, "micro_batch": 8},
    "run": {"name": RUN_NAME, "steps": 400, "eval_every": 25, "checkpoint_every": 25},
}

_SECTIONS: dict[str, dict[str, Any]] = {
    "cpu-grpo": _cpu(SFT_INIT),
    "cpu-rcgrpo": _cpu(RCTP_INIT, algo=_RC),
    "cpu-rcgrpo-strat": _cpu(RCTP_INIT, algo={**_RC, "conditioning": "stratified"}),
    "cpu-sft-rc": _cpu(SFT_INIT, algo=_RC),
    "cpu-rctp-grpo": _cpu(RCTP_INIT, algo={"conditioning": "high", "eval_condition": "high"}),
    "cpu-dapo": _cpu(SFT_INIT, algo={"group_filter": "dapo", "max_resample_rounds": 3}),
    "cpu-entropy": _cpu(SFT_INIT, algo={"entropy_coef": 0.01}),
    "cpu-hightemp": _cpu(SFT_INIT, rollout={"temperature": 1.5}),
    "cpu-drgrpo": _cpu(
        SFT_INIT, algo={"adv_estimator": "dr-grpo", "loss_agg": "seq-mean-token-sum-norm"}
    ),
    "regime-grpo": _REGIME,
    "regime-rcgrpo": _merge(_REGIME, init=REGIME_RCTP_INIT, algo=_RC),
    "regime-sft-rc": _merge(_REGIME, algo=_RC),
    "regime-rctp-grpo": _merge(
        _REGIME, init=REGIME_RCTP_INIT, algo={"conditioning": "high", "eval_condition": "high"}
    ),
    "paper-qwen7b": _PAPER,
    "paper-qwen7b-grpo": _merge(
        _PAPER,
        init="runs/stage1/sft-bfcl/final",
        algo={"conditioning": "none", "eval_condition": "none", "eval_low": False},
        rollout={"prompts_per_step": 64},
    ),
}

PRESETS: dict[str, TrainConfig] = {
    name: from_dict(TrainConfig, {**sections, "preset": name})
    for name, sections in _SECTIONS.items()
}
"""Named configs (module docstring)."""


def preset(name: str) -> TrainConfig:
    """A fresh copy of preset ``name``."""
    if name not in PRESETS:
        raise ValueError(f"preset must be one of {sorted(PRESETS)}, got {name!r}")
    return copy.deepcopy(PRESETS[name])
