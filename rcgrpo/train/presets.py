r"""Named RL configs (Stage 2): ``python -m rcgrpo train --preset NAME``.

``quick-grpo`` / ``quick-rcgrpo`` are the README's Quick start: SFT + GRPO and RC-GRPO on the
current testbed (the synth suite ``collapse1-d10``) from the Stage-1 presets ``quick-sft`` /
``quick-rctp`` (:data:`QUICK_SFT_INIT`, :data:`QUICK_RCTP_INIT`), 4 steps of 2 prompts x G 5,
held-out success on 20 tasks at steps 0 and 4, into ``runs/quick/quick-*-s0``: about a minute
each on 2 CPU cores, to see the pipeline and its instruments (too short to learn). They are no
campaign arm and stated in full in their own block.

Every algorithm is the same loop with different config values. Each arm of
:data:`rcgrpo.train.arms.ARMS` has a preset of the same name: its regime's base (GRPO from
that regime's SFT checkpoint), the Stage-1 checkpoint its record names and its changes in
``_CHANGES``, as few as possible, so a comparison attributes an effect to one change. The
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

The ``regime-*`` arms (regime ``regime-d10``) run on the synth suite ``regime-d10`` from its
Stage-1 checkpoints (``docs/regime.md``): the factorial's four cells ``regime-grpo``, ``regime-rcgrpo``,
``regime-sft-rc``, ``regime-rctp-grpo`` and ``regime-rcgrpo-strat`` differ from
``regime-grpo`` as the ``cpu-*`` arms differ from ``cpu-grpo``; ``regime-grpo`` differs from
``cpu-grpo`` in the suite, the checkpoint, G 8, 10,000 training tasks drawn fresh (no pool) /
1,000 held-out tasks, and a held-out evaluation every 25 steps on the first 200 of them (all
1,000 at steps 0 and 200; the proof runs evaluated all 1,000 every 100 steps, and how a run
evaluates does not change what it trains: tests/smoke/test_eval_cadence.py).
``regime-rctp-grpo-temp`` / ``-entcoef`` are RCTP-FT + GRPO at a calibrated temperature /
entropy coefficient chosen on seed 9 (``docs/results.md``, the calibration: :data:`MATCHED_TEMPERATURE`,
:data:`MATCHED_ENTROPY_COEF`).
``regime-rctp-dapo`` / ``-drgrpo`` are the other collapse fixes (DAPO dynamic sampling, Dr.
GRPO, as ``cpu-dapo`` / ``cpu-drgrpo``) from the same RCTP-FT checkpoint under the high goal, so
that against RC-GRPO only the fix differs (verdict rules D1, D2).
The ``regime-separation`` arms separate RC-GRPO's mechanisms (``docs/protocols/
regime-d10-separation.md``); each differs from ``regime-rcgrpo`` in one value and the equation
it changes:

==========================  =============================  ====================================
preset                      change                         what it changes
==========================  =============================  ====================================
``regime-rcgrpo-beta1``     ``algo.kl_beta`` 1             the anchor β of
                                                           :math:`J - \beta\,KL(\pi\|\pi_{ref})`
``regime-rcgrpo-beta3``     ``algo.kl_beta`` 3             the same, β = 3
``regime-rcgrpo-anchored``  ``algo.low_goal_gradient``     low-goal rollouts enter μ_g, σ_g but
                            False                          carry no gradient (no PG, KL or
                                                           entropy term)
``regime-rcgrpo-goalnorm``  ``algo.adv_scope`` goal        :math:`A_j` normalised within its
                                                           goal's sub-group: no between-goal
                                                           term (:mod:`rcgrpo.advantage_scope`)
``regime-rctp-grpo-g4``     as ``regime-rctp-grpo``,       RCTP-FT + GRPO with G/2 = 4 high-goal
                            ``rollout.group_size`` 4       rollouts, RC-GRPO's mean per group
==========================  =============================  ====================================

The ``regime-wide1-*`` arms (:data:`rcgrpo.train.arms.WIDE1_FACTORIAL`) are the factorial's four
cells on ``regime-wide1-d10``, the regime suites' chosen design (variant 17): each is its
``regime-d10`` cell with ``tasks.synth_preset`` ``regime-wide1-d10`` and the Stage-1
checkpoints of the Stage-1 presets ``sft-regime-wide1`` / ``rctp-regime-wide1``.

The ``collapse-*`` arms (:data:`rcgrpo.train.arms.COLLAPSE_ARMS`; rules
``docs/protocols/collapse-campaign.md``) repeat the factorial and the separation arms on
``collapse1-d10``, the suite where SFT + GRPO collapses, from the Stage-1 checkpoints of
``sft-collapse`` / ``rctp-collapse``, at the design's RL recipe (``docs/lab-notes/
2026-12-collapse-design.md``, variant 4): G = 5 (the paper's), lr 1e-5 (at 1e-4 SFT + GRPO
learns the planted decision from a handful of successes within 50 steps; gate C). Each differs
from its ``regime-*`` arm only there; the rollout-matched arm runs G = 3 (RC-GRPO's mean 2.5
high-goal rollouts, rounded up). The control ``collapse-shuffled-grpo`` is
``collapse-rctp-grpo`` from another Stage-1 checkpoint: RCTP-FT trained with its goal labels
permuted within each mode (``rctp-collapse-shuffled``, ``goals.labels`` shuffled, so
:math:`P(g = high \mid r) = P(g = high)`); the comparison with ``collapse-rctp-grpo`` says
whether the RCTP-FT init's effect is the reward conditioning or its data
(``docs/protocols/collapse-control.md``).

The ``cpu-*`` presets carry the recipe the campaign reports, so ``--preset NAME --run.seed S``
(with ``--init`` the campaign's Stage-1 checkpoint of seed S) resolves to the committed run
``NAME-sS`` (a test checks every one): the setting the pre-registered RL recipe sweep chose
on SFT + GRPO (:mod:`analysis.campaigns.rl_recipe.recipe_sweep`; a test checks they agree), lr 1e-4 on a
pool of 16 training tasks, 200 steps. On the full 6,000-task training set no setting of the
sweep learned (``docs/lab-notes/2026-12-rl-recipe.md``). ``paper-qwen7b`` (and
``paper-qwen7b-grpo``, ``trl-paper``) carry the paper's values, read from their one record
:data:`rcgrpo.paper.PAPER` (§4: G, β, clip, lr, prompts per step, steps). Values the paper
leaves unstated (temperature, KL estimator, loss aggregation, ε_stab) are the documented
defaults of :mod:`rcgrpo.train.config`.

``run.name`` may hold ``{preset}`` and ``{seed}``; the CLI fills them in, so
``--preset cpu-grpo --run.seed 2`` writes ``runs/cpu-grpo-s2``.
"""

from __future__ import annotations

import copy
from typing import Any

from rcgrpo.paper import PAPER
from rcgrpo.train.arms import Arm, arms
from rcgrpo.train.config import TrainConfig, TRLConfig, from_dict

SFT_INIT = "runs/stage1/sft-synth/final"
"""Stage-1 SFT checkpoint of the CPU presets (``python -m rcgrpo sft --run.root runs/stage1``)."""
RCTP_INIT = "runs/stage1/rctp-synth/final"
"""Stage-1 RCTP-FT checkpoint of the CPU presets."""
REGIME_SFT_INIT = "runs/regime/sft-regime/final"
"""Stage-1 SFT checkpoint of the regime presets (``python -m rcgrpo sft --preset sft-synth-regime``)."""
REGIME_RCTP_INIT = "runs/regime/rctp-regime/final"
"""Stage-1 RCTP-FT checkpoint of the regime presets (``rctp-synth-regime``)."""
WIDE1_SFT_INIT = "runs/regime/sft-regime-wide1/final"
"""Stage-1 SFT checkpoint of the ``regime-wide1-*`` presets (``sft-regime-wide1``)."""
WIDE1_RCTP_INIT = "runs/regime/rctp-regime-wide1/final"
"""Stage-1 RCTP-FT checkpoint of the ``regime-wide1-*`` presets (``rctp-regime-wide1``)."""
COLLAPSE_SFT_INIT = "runs/collapse/sft-collapse/final"
"""Stage-1 SFT checkpoint of the ``collapse-*`` presets (``sft-collapse``)."""
COLLAPSE_RCTP_INIT = "runs/collapse/rctp-collapse/final"
"""Stage-1 RCTP-FT checkpoint of the ``collapse-*`` presets (``rctp-collapse``)."""
COLLAPSE_SHUFFLED_INIT = "runs/collapse/rctp-collapse-shuffled/final"
"""Stage-1 checkpoint of ``collapse-shuffled-grpo``: RCTP-FT with its goal labels permuted
(``rctp-collapse-shuffled``)."""
PAPER_INIT = "runs/stage1/rctp-bfcl/final"
"""RCTP-FT checkpoint of the GPU preset (``rctp-bfcl-gpu`` of Stage 1)."""
RUN_NAME = "{preset}-s{seed}"

_CPU: dict[str, dict[str, Any]] = {
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
"""The base of the ``cpu-*`` arms, at the recipe the campaign reports: lr 1e-4 on a pool of
16 training tasks (``tasks.num_train``), 8 prompts x G 5 per step, β 0.1, 200 steps, held-out
evaluation at step 0 and every 25 steps (module docstring)."""
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
    tasks={
        "synth_preset": "regime-d10",
        "num_train": 10000,
        "num_eval": 1000,
        "num_eval_between": 200,
    },
    rollout={"group_size": 8, "prompts_per_step": 8},
    optim={"lr": 1e-4},
    run={"steps": 200, "eval_every": 25, "checkpoint_every": 50},
)
"""The base of the ``regime-d10`` arms: the synth suite ``regime-d10`` from its Stage-1
checkpoints (the regime-d10 campaign's: variant 3's SFT, variant 11's RCTP-FT;
docs/lab-notes/2026-12-regime-design.md), G 8 (stratified goals need no rounding), 200 steps x
8 prompts drawn fresh from 10,000 training tasks (no task twice), 1,000 held-out tasks; lr
1e-4, the first recipe in the pre-registered order, qualified on the design seed 7 (+0.594
held-out)."""
_WIDE1 = _merge(_REGIME, init=WIDE1_SFT_INIT, tasks={"synth_preset": "regime-wide1-d10"})
"""The base of the ``regime-wide1`` arms: :data:`_REGIME` on the synth suite
``regime-wide1-d10`` (the regime suites' chosen design, variant 17; docs/regime.md), the
recipe its proof runs ``regime-wide1-grpo-s0``–``s2`` ran with ``--preset regime-grpo
--tasks.synth_preset regime-wide1-d10`` (a test checks)."""
_COLLAPSE = _merge(
    _REGIME,
    init=COLLAPSE_SFT_INIT,
    tasks={"synth_preset": "collapse1-d10"},
    rollout={"group_size": 5},
    optim={"lr": 1e-5},
)
"""The base of the ``collapse`` arms: :data:`_REGIME` on ``collapse1-d10`` at G = 5 and lr 1e-5,
the recipe of the design's pilots (``pilot-grpo-c4-s31``: ``--preset regime-grpo
--tasks.synth_preset collapse1-d10 --rollout.group_size 5 --optim.lr 1e-5``; a test checks)."""

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

_HIGH = {"conditioning": "high", "eval_condition": "high"}
MATCHED_TEMPERATURE = 1.0229
"""The calibrated temperature (2026-12-03, seed 9: high-goal entropy 0.2065 against RC-GRPO's
0.2062, g +0.002; ``results/regime/calib-temperature.json``). Rule 2's interpolation between
τ 1.0 (g −0.177) and 1.15 (g +0.981) was 1.02291, run to four decimals."""
MATCHED_ENTROPY_COEF = 0.0106
"""The calibrated entropy coefficient (2026-12-03, seed 9: high-goal entropy 0.2222 against
RC-GRPO's 0.2062, g +0.078; ``results/regime/calib-entropy_coef.json``). Rule 2's
interpolation between 0.0 (g −0.177) and 0.02 (g +0.155) was 0.010646, run to four decimals."""

_BASES = {"pool": _CPU, "regime-d10": _REGIME, "regime-wide1": _WIDE1, "collapse": _COLLAPSE}
"""Each regime's base (:data:`rcgrpo.train.arms.REGIMES`): GRPO from its SFT checkpoint."""
_INITS = {
    "pool": {"sft": SFT_INIT, "rctp": RCTP_INIT},
    "regime-d10": {"sft": REGIME_SFT_INIT, "rctp": REGIME_RCTP_INIT},
    "regime-wide1": {"sft": WIDE1_SFT_INIT, "rctp": WIDE1_RCTP_INIT},
    "collapse": {
        "sft": COLLAPSE_SFT_INIT,
        "rctp": COLLAPSE_RCTP_INIT,
        "rctp-shuffled": COLLAPSE_SHUFFLED_INIT,
    },
}
"""Each regime's Stage-1 checkpoints, by an arm's ``start``."""
_CHANGES: dict[str, dict[str, dict[str, Any]]] = {
    "cpu-grpo": {},
    "cpu-rcgrpo": {"algo": _RC},
    "cpu-rcgrpo-strat": {"algo": {**_RC, "conditioning": "stratified"}},
    "cpu-sft-rc": {"algo": _RC},
    "cpu-rctp-grpo": {"algo": _HIGH},
    "cpu-dapo": {"algo": {"group_filter": "dapo", "max_resample_rounds": 3}},
    "cpu-entropy": {"algo": {"entropy_coef": 0.01}},
    "cpu-hightemp": {"rollout": {"temperature": 1.5}},
    "cpu-drgrpo": {"algo": {"adv_estimator": "dr-grpo", "loss_agg": "seq-mean-token-sum-norm"}},
    "regime-grpo": {},
    "regime-rcgrpo": {"algo": _RC},
    "regime-sft-rc": {"algo": _RC},
    "regime-rctp-grpo": {"algo": _HIGH},
    "regime-rcgrpo-strat": {"algo": {**_RC, "conditioning": "stratified"}},
    "regime-rctp-grpo-temp": {"algo": _HIGH, "rollout": {"temperature": MATCHED_TEMPERATURE}},
    "regime-rctp-grpo-entcoef": {"algo": {**_HIGH, "entropy_coef": MATCHED_ENTROPY_COEF}},
    "regime-rctp-dapo": {"algo": {**_HIGH, "group_filter": "dapo", "max_resample_rounds": 3}},
    "regime-rctp-drgrpo": {
        "algo": {**_HIGH, "adv_estimator": "dr-grpo", "loss_agg": "seq-mean-token-sum-norm"}
    },
    "regime-rcgrpo-beta1": {"algo": {**_RC, "kl_beta": 1.0}},
    "regime-rcgrpo-beta3": {"algo": {**_RC, "kl_beta": 3.0}},
    "regime-rcgrpo-anchored": {"algo": {**_RC, "low_goal_gradient": False}},
    "regime-rcgrpo-goalnorm": {"algo": {**_RC, "adv_scope": "goal"}},
    "regime-rctp-grpo-g4": {"algo": _HIGH, "rollout": {"group_size": 4}},
    "regime-wide1-grpo": {},
    "regime-wide1-sft-rc": {"algo": _RC},
    "regime-wide1-rctp-grpo": {"algo": _HIGH},
    "regime-wide1-rcgrpo": {"algo": _RC},
    "collapse-grpo": {},
    "collapse-sft-rc": {"algo": _RC},
    "collapse-rctp-grpo": {"algo": _HIGH},
    "collapse-rcgrpo": {"algo": _RC},
    "collapse-rcgrpo-anchored": {"algo": {**_RC, "low_goal_gradient": False}},
    "collapse-rcgrpo-goalnorm": {"algo": {**_RC, "adv_scope": "goal"}},
    "collapse-rctp-grpo-g3": {"algo": _HIGH, "rollout": {"group_size": 3}},
    "collapse-shuffled-grpo": {"algo": _HIGH},
}
"""Per arm (:data:`rcgrpo.train.arms.ARMS`): its values against its regime's base."""


def arm_sections(arm: Arm) -> dict[str, Any]:
    """The preset of ``arm`` as config sections: its regime's base, the Stage-1 checkpoint
    of its ``start``, its ``_CHANGES``."""
    if arm.preset not in _CHANGES:
        raise ValueError(f"arm {arm.preset} has no preset values in presets._CHANGES")
    base, init = _BASES[arm.regime], _INITS[arm.regime][arm.start]
    return _merge(base, init=init, **_CHANGES[arm.preset])


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
_QUICK: dict[str, Any] = {
    "init": QUICK_SFT_INIT,
    "model": {"dtype": "float32", "device": "cpu"},
    "tasks": {
        "source": "synth",
        "mode": "combined",
        "prompt_style": "compact",
        "num_train": 16,
        "num_eval": 20,
        "max_turns": 2,
        "max_calls_per_turn": 2,
        "synth_preset": "collapse1-d10",
    },
    "rollout": {
        "group_size": 5,
        "prompts_per_step": 2,
        "temperature": 1.0,
        "max_new_tokens": 96,
        "max_context": 1024,
    },
    "algo": {"conditioning": "none", "eval_condition": "none", "kl_beta": 0.1},
    "optim": {"lr": 1e-5, "warmup_steps": 1, "max_grad_norm": 1.0},
    "run": {"root": "runs/quick", "name": RUN_NAME, "steps": 4, "eval_every": 0},
}
_QUICK_SECTIONS: dict[str, dict[str, Any]] = {
    "quick-grpo": _QUICK,
    "quick-rcgrpo": _merge(_QUICK, init=QUICK_RCTP_INIT, algo=_RC),
}
# ------------------------------------------------------------------------------------------

_SECTIONS: dict[str, dict[str, Any]] = {
    **_QUICK_SECTIONS,
    **{a.preset: arm_sections(a) for a in arms()},
    "paper-qwen7b": _PAPER,
    "paper-qwen7b-grpo": _merge(
        _PAPER,
        init="runs/stage1/sft-bfcl/final",
        algo={"conditioning": "none", "eval_condition": "none", "eval_low": False},
        rollout={"prompts_per_step": PAPER.grpo_prompts_per_step},
    ),
}

PRESETS: dict[str, TrainConfig] = {
    name: from_dict(TrainConfig, {**sections, "preset": name})
    for name, sections in _SECTIONS.items()
}
"""Named configs (module docstring)."""

_TRL_ROLLOUT = ("group_size", "prompts_per_step", "temperature", "max_new_tokens", "max_context")
TRL_PRESETS: dict[str, TRLConfig] = {
    "trl-cpu": from_dict(
        TRLConfig, {"preset": "trl-cpu", "init": RCTP_INIT, "optim": {"lr": 1e-5}}
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
    """A fresh copy of preset ``name``."""
    if name not in PRESETS:
        raise ValueError(f"preset must be one of {sorted(PRESETS)}, got {name!r}")
    return copy.deepcopy(PRESETS[name])
