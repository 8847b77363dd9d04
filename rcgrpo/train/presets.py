r"""Named RL configs (Stage 2): ``python -m rcgrpo train --preset NAME``.

Every algorithm is the same loop with different config values, so a preset is a named
:class:`~rcgrpo.train.config.TrainConfig` (or :class:`~rcgrpo.train.config.TRLConfig` for
``python -m rcgrpo trl``). The method's own presets are here.

``quick-grpo`` / ``quick-rcgrpo`` are the README's Quick start: SFT + GRPO and RC-GRPO on the
current testbed (the synth suite ``collapse1-d10``) from the Stage-1 presets ``quick-sft`` /
``quick-rctp`` (:data:`QUICK_SFT_INIT`, :data:`QUICK_RCTP_INIT`), 4 steps of 2 prompts x G 5,
held-out success on 20 tasks at steps 0 and 4, into ``runs/quick/quick-*-s0``: about a minute
each on 2 CPU cores, to see the pipeline and its instruments (too short to learn); stated in
full in their own block. ``quick-rcgrpo`` is ``python -m rcgrpo train``'s default.

``smol-grpo`` / ``smol-rcgrpo`` are the same recipe on SmolLM2-135M-Instruct with LoRA at the
size of a CPU study (40 steps of 4 prompts x G 5, replies up to 96 tokens; docs/real-model.md).

``paper-qwen7b`` (and
``paper-qwen7b-grpo``, ``trl-paper``) carry the paper's values, read from their one record
:data:`rcgrpo.paper.PAPER` (§4: G, β, clip, lr, prompts per step, steps). Values the paper
leaves unstated (temperature, KL estimator, loss aggregation, ε_stab) are the documented
defaults of :mod:`rcgrpo.train.config`.

Other packages add presets through the entry-point group "rcgrpo.presets"
(:mod:`rcgrpo.train.plugins`; ``docs/own-task.md``); the experiments of this repository
register theirs that way. :func:`preset` finds both.

``run.name`` may hold ``{preset}`` and ``{seed}``; the CLI fills them in, so
``--preset NAME --run.seed 2`` writes ``runs/NAME-s2``.
"""

from __future__ import annotations

import copy
from typing import Any

from rcgrpo.paper import PAPER
from rcgrpo.train.config import TrainConfig, TRLConfig, from_dict

PAPER_INIT = "runs/stage1/rctp-bfcl/final"
"""RCTP-FT checkpoint of the GPU preset (``rctp-bfcl-gpu`` of Stage 1)."""
RUN_NAME = "{preset}-s{seed}"
"""``run.name`` of the RL presets: the preset, then the seed (``NAME-s0``)."""

_RC = {"conditioning": "iid", "p_high": 0.5, "eval_condition": "high", "eval_low": True}


def merge(base: dict[str, Any], **sections: Any) -> dict[str, Any]:
    """A copy of the config sections ``base`` with each of ``sections`` updated over its own
    (a dict value) or set (any other value, e.g. ``init``); ``base`` is not changed. Presets
    are stated with it, here and in other packages' (:mod:`rcgrpo.train.plugins`)."""
    out = copy.deepcopy(base)
    for name, values in sections.items():
        if isinstance(values, dict):
            out.setdefault(name, {}).update(values)
        else:
            out[name] = values
    return out


_PAPER = {
    "init": PAPER_INIT,
    "model": {"dtype": "bfloat16", "device": "auto"},
    "tasks": {"source": "bfcl", "mode": PAPER.rl_mode, "prompt_style": "bfcl", "num_eval": 80},
    "rollout": {
        "group_size": PAPER.group_size,
        "prompts_per_step": PAPER.prompts_per_step,
        "temperature": 1.0,
        "max_new_tokens": 512,
        "max_context": 16384,
        "max_batch": 256,
    },
    "algo": {
        **_RC,
        "p_high": PAPER.p_high,
        "kl_beta": PAPER.kl_beta,
        "clip_low": PAPER.clip,
        "clip_high": PAPER.clip,
    },
    "optim": {"lr": PAPER.rl_lr, "micro_batch": 8},
    "run": {"name": RUN_NAME, "steps": PAPER.rl_steps, "eval_every": 25, "checkpoint_every": 25},
}

# ------------------------------------------------------------------------------------------
# Quick start (README): the method's own try-out presets, stated in full (no campaign preset
# underneath). Stage 2 on the current testbed, the synth suite "collapse1-d10", from the
# quick-start Stage-1 checkpoints (Stage-1 presets quick-sft / quick-rctp): 4 steps of 2 prompts
# x G 5 from a pool of 16 training tasks, the testbed's RL recipe otherwise (lr 1e-5, beta 0.1,
# clip 0.2); held-out success on 20 tasks at steps 0 and 4, one checkpoint (step_4). quick-grpo
# is SFT + GRPO, quick-rcgrpo RC-GRPO (RCTP-FT init, one goal per rollout drawn i.i.d. with
# p = 0.5, evaluated under the high goal and the low one). They show the pipeline and its
# instruments in about a minute each on 2 CPU cores; they are far too short to learn.
QUICK_SFT_INIT = "runs/quick/sft/final"
"""Stage-1 SFT checkpoint of ``quick-grpo`` (``python -m rcgrpo sft --preset quick-sft``)."""
QUICK_RCTP_INIT = "runs/quick/rctp/final"
"""Stage-1 RCTP-FT checkpoint of ``quick-rcgrpo`` (``python -m rcgrpo rctp --preset quick-rctp``)."""
_QUICK: dict[str, Any] = {  # the fields that differ from TrainConfig's defaults
    "init": QUICK_SFT_INIT,
    "model": {"device": "cpu"},
    "tasks": {"num_train": 16, "num_eval": 20, "max_turns": 2, "synth_preset": "collapse1-d10"},
    "rollout": {"prompts_per_step": 2},
    "algo": {"conditioning": "none", "eval_condition": "none", "kl_beta": 0.1},
    "optim": {"lr": 1e-5, "warmup_steps": 1, "max_grad_norm": 1.0},
    "run": {"root": "runs/quick", "name": RUN_NAME, "steps": 4, "eval_every": 0},
}
# The same try-out on a real pretrained model: SmolLM2-135M-Instruct by name
# (rcgrpo.policy.named), continuing the LoRA adapter of its Stage 1 (quick-sft-smol / smol-rctp,
# rcgrpo.train.stage1.config), with the functions' docs in the prompt (the docs style), into
# runs/smol. Measured times: docs/real-model.md.
SMOL_SFT_INIT = "runs/smol/sft/final"
SMOL_RCTP_INIT = "runs/smol/rctp/final"
_SMOL = merge(
    _QUICK,
    init=SMOL_SFT_INIT,
    tasks={**_QUICK["tasks"], "prompt_style": "docs", "num_eval": 10},
    rollout={"prompts_per_step": 2, "max_new_tokens": 48, "max_context": 2048},
    optim={**_QUICK["optim"], "lr": 1e-4, "micro_batch": 5},
    run={**_QUICK["run"], "root": "runs/smol", "steps": 2},
)
_QUICK_SECTIONS: dict[str, dict[str, Any]] = {
    "quick-grpo": _QUICK,
    "quick-rcgrpo": merge(_QUICK, init=QUICK_RCTP_INIT, algo=_RC),
    "quick-grpo-smol": _SMOL,
    "quick-rcgrpo-smol": merge(_SMOL, init=SMOL_RCTP_INIT, algo=_RC),
}
# SmolLM2's RL recipe on collapse1-d10 at the size of a CPU study (docs/real-model.md): the
# quick-*-smol recipe with replies capped at 96 tokens (18% of the suite's expert replies pass
# 48 SmolLM2 tokens; the longest is 93), 4 prompts x G 5 a step drawn fresh from 10,000 training
# tasks, 40 steps, greedy held-out success on 80 tasks at steps 0 and 40 and on the first 40 of
# them every 10 steps; smol-rcgrpo is evaluated under the high goal only.
_SMOL_STUDY = merge(
    _SMOL,
    tasks={"num_train": 10000, "num_eval": 80, "num_eval_between": 40},
    rollout={"prompts_per_step": 4, "max_new_tokens": 96},
    optim={"warmup_steps": 2},
    run={"steps": 40, "eval_every": 10, "checkpoint_every": 10},
)
_SMOL_SECTIONS: dict[str, dict[str, Any]] = {
    "smol-grpo": _SMOL_STUDY,
    "smol-rcgrpo": merge(_SMOL_STUDY, init=SMOL_RCTP_INIT, algo={**_RC, "eval_low": False}),
}
# ------------------------------------------------------------------------------------------

_SECTIONS: dict[str, dict[str, Any]] = {
    **_QUICK_SECTIONS,
    "paper-qwen7b": _PAPER,
    "paper-qwen7b-grpo": merge(
        _PAPER,
        init="runs/stage1/sft-bfcl/final",
        algo={"conditioning": "none", "eval_condition": "none", "eval_low": False},
        rollout={"prompts_per_step": PAPER.grpo_prompts_per_step},
    ),
    **_SMOL_SECTIONS,
}

PRESETS: dict[str, TrainConfig] = {
    name: from_dict(TrainConfig, {**sections, "preset": name})
    for name, sections in _SECTIONS.items()
}
"""The method's own named configs (module docstring); :func:`preset` adds the plugins'."""

_TRL_ROLLOUT = ("group_size", "prompts_per_step", "temperature", "max_new_tokens", "max_context")
TRL_PRESETS: dict[str, TRLConfig] = {
    "trl-cpu": from_dict(
        TRLConfig, {"preset": "trl-cpu", "init": QUICK_RCTP_INIT, "optim": {"lr": 1e-5}}
    ),
    "trl-paper": from_dict(
        TRLConfig,
        {
            "preset": "trl-paper",
            "init": _PAPER["init"],
            "tasks": {k: v for k, v in _PAPER["tasks"].items() if k != "num_eval"}
            | {"num_train": 0},
            "rollout": {k: _PAPER["rollout"][k] for k in _TRL_ROLLOUT},
            "algo": {
                "conditioning": _RC["conditioning"],
                "p_high": PAPER.p_high,
                "kl_beta": PAPER.kl_beta,
                "clip_low": PAPER.clip,
            },
            "optim": {"lr": PAPER.rl_lr},
            "run": {"steps": PAPER.rl_steps},
            "trl": {
                "per_device_batch": 8,
                "vllm": True,
                "bf16": True,
                "gradient_checkpointing": True,
            },
        },
    ),
}
"""Named configs of ``python -m rcgrpo trl``: ``trl-cpu`` (a few CPU steps from the CPU
RCTP-FT checkpoint: G 4, 2 prompts, 2 steps, lr 1e-5) and ``trl-paper`` (the paper's §4 values of
``paper-qwen7b`` on 8 GPUs: 8 rollouts per device per pass, vLLM, bf16, gradient
checkpointing)."""


def preset(name: str) -> TrainConfig:
    """A fresh copy of preset ``name``: an own one (:data:`PRESETS`) or a plugin's
    (:mod:`rcgrpo.train.plugins`, loaded only for a name not found here)."""
    if name in PRESETS:
        return copy.deepcopy(PRESETS[name])
    from rcgrpo.train.plugins import plugin_presets

    own = {*PRESETS, *TRL_PRESETS}
    found = {n: c for n, c in plugin_presets(TrainConfig, own).items() if type(c) is TrainConfig}
    if name not in found:
        raise ValueError(f"preset must be one of {[*PRESETS, *found]}, got {name!r}")
    return copy.deepcopy(found[name])
