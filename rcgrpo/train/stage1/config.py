"""Config of Stage 1: :class:`SFTConfig` (``python -m rcgrpo sft``) and :class:`RCTPConfig`
(``rctp``, which adds the ``failures`` section), the shared sections of
:mod:`rcgrpo.train.config` plus ``sft`` of their own, and named presets.

Loading order (as for every rcgrpo config, :mod:`rcgrpo.train.cli`): ``--preset NAME`` →
``--config file.json`` (strict: an unknown key is an error naming its dotted path) →
command-line flags (e.g. ``--optim.lr 3e-4 --sft.epochs 1``); checked by
:func:`rcgrpo.train.validate.validate_config`. The config as asked is written to the run
folder (``sft.amp`` as given; what it resolved to on the machine is in ``summary.json``,
:mod:`rcgrpo.precision`).

Paper values (RC-GRPO §4, Qwen2.5-7B / Llama-3.1-8B on 8×H200): SFT lr 1e-5, batch 16,
2 epochs; RCTP-FT lr 1e-5, batch 16, 5 epochs; AdamW. The ``*-bfcl-gpu`` presets use them.
The ``*-bfcl-tiny`` presets train the tiny Qwen2 FROM SCRATCH on BFCL's training split (no
pretrained weights exist here), which needs a larger learning rate and more epochs.
``quick-sft`` / ``quick-rctp`` are the README's Quick start: Stage 1 on the current testbed (the
synth suite ``collapse1-d10``) at a try-out budget of about a minute each on 2 CPU cores, SFT
from the committed base checkpoint :data:`QUICK_BASE` and RCTP-FT from that SFT model, into
``runs/quick/{sft,rctp}`` (the block above :data:`PRESETS` states them in full); they are the
defaults of ``python -m rcgrpo sft`` / ``rctp``.

Other packages add presets through the entry-point group "rcgrpo.presets"
(:mod:`rcgrpo.train.plugins`; ``docs/own-task.md``); the experiments of this repository
register theirs that way (their CPU recipes on the synth suite and the measurements behind
them: ``docs/lab-notes/2026-11-stage1.md``). :func:`preset` finds both.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from typing import Any

from rcgrpo.paper import PAPER
from rcgrpo.train.config import (
    LoraSection,
    ModelConfig,
    OptimConfig,
    RunConfig,
    SamplingConfig,
    TaskConfig,
    from_dict,
)
from rcgrpo.train.errors import ConfigError


@dataclass
class Stage1ModelConfig(ModelConfig):
    """The model Stage 1 starts from, and its dtype and device."""

    path: str = "tiny"
    """A preset name of ``rcgrpo.policy.models.PRESETS`` (tiny | small | micro) trains from
    scratch; otherwise a checkpoint folder or Hugging Face causal-LM path (RCTP-FT on CPU:
    the SFT checkpoint; the paper: the base model, e.g. ``Qwen/Qwen2.5-7B-Instruct``)."""
    grad_checkpointing: bool = False
    """Recompute each layer's activations in the backward pass (gradient checkpointing):
    the training forward keeps one layer's activations, not all of them, for more compute
    (SmolLM2-135M with LoRA, 2 x 1,000 tokens: peak 7.1 -> 4.2 GB; docs/real-model.md). RL
    has no such switch: its update runs a group's shared prompt once on a KV cache, which
    checkpointed layers do not keep; ``optim.micro_batch`` bounds its memory."""


@dataclass
class StageConfig:
    """Data, schedule and evaluation of one supervised stage (SFT or RCTP-FT)."""

    epochs: float = 2.0
    """Passes over the training examples (paper: SFT 2, RCTP-FT 5); ``run.steps`` > 0
    overrides it with a fixed number of optimizer steps."""
    batch_size: int = 16
    """Sequences per optimizer step (paper: 16)."""
    schedule: str = "cosine"
    """Learning-rate decay after the linear warm-up (``optim.warmup_steps``), a name of
    ``rcgrpo.schedules.SCHEDULES``: cosine | linear | constant | wsd (constant, then linear
    over the last ``decay_frac``)."""
    min_lr_ratio: float = 0.1
    """Final learning rate as a fraction of ``optim.lr`` (cosine / linear / wsd)."""
    decay_frac: float = 0.2
    """wsd only: fraction of the post-warm-up steps spent in the final linear decay."""
    length_curriculum: float = 0.0
    """Length warm-up: the first epoch opens with this fraction of its batches, shortest
    first (``rcgrpo.train.stage1.data.batch_schedule``); 0 = plain shuffled batches."""
    prompt_loss_weight: float = 0.0
    """Weight of an extra next-token loss on the NON-assistant tokens (system, user, tool
    outputs). 0 = assistant tokens only, as the paper (and the GPU presets). A model trained
    from scratch has no pre-training; this adds it (see ``docs/training.md``, Stage 1)."""
    amp: str = "auto"
    """Precision of the training forward: auto | bf16 (``torch.autocast``) | fp32 | none (no
    autocast); parameters and AdamW state stay in ``model.dtype``. auto = bf16 where it is
    native (CUDA with bf16, a CPU with AVX512-BF16 / AMX), else fp32 (``rcgrpo.precision``:
    emulated bf16 makes an AVX2 CPU ~10x slower); the choice and its reason are printed and
    written to ``summary.json``."""
    modes: tuple[str, ...] = ("multi_turn", "combined")
    """Episode modes (``rcgrpo.env.turns.MODES``) every training trajectory is rendered
    in. The paper trains Stage 1 on
    separate turns (multi_turn) and runs RL on combined prompts; a model trained from
    scratch has never seen a combined prompt, so the CPU presets use both renderings (one
    example per task and mode) and RL starts on-distribution."""
    max_length: int = 1024
    """Drop training sequences longer than this many tokens (the count is logged)."""
    demonstrations: str = "expert"
    """Scripted trajectories Stage 1 learns from (:data:`DEMONSTRATIONS`):
    expert = the ground truth, kept where it scores 1; demo = the synth suite's imperfect
    demonstrator (``rcgrpo.env.synth_demo``), every trajectory kept whatever its reward (SFT
    imitates its mistakes; needs a suite with decisions). RCTP-FT's successes use it too."""
    successes_of: str = ""
    """SFT only: an RCTP-FT run folder (or its ``trajectories.jsonl[.gz]``) whose mix's reward-1
    rows SFT trains on instead of ``demonstrations``: the same tasks and trajectories, no goal
    token (the matched SFT of docs/protocols/collapse-pairs.md; give it that run's epochs, so
    each row is seen as often). "" = off."""
    random_goals: float = 0.0
    """SFT only: share of the examples rendered with a reward goal, high or low with
    probability 1/2 each, drawn independently of the reward (deterministic in ``run.seed``),
    so the reward tokens are trained as carrying no information and prepending one leaves
    plain SFT's behaviour (the SFT + RC sampling cell; gate G5 of ``docs/regime.md``)."""
    synth_preset: str = "tiny"
    """synth only: ``rcgrpo.env.synth.SYNTH_PRESETS`` entry the tasks start from
    (``tasks.max_turns`` / ``tasks.max_calls_per_turn`` cap its ranges)."""
    vocab_size: int = 1024
    """From-scratch models only: BPE vocabulary trained on the training tasks' texts and
    their rendered expert conversations (reward tokens included)."""
    isolate_whitespace: bool = True
    """From-scratch models only: whitespace is its own pre-token, so a value copied from
    the user text into a call has the same ids in both places (see
    ``rcgrpo.policy.tokenizer.train_tiny_tokenizer``)."""
    eval_modes: tuple[str, ...] = ("multi_turn", "combined")
    """Episode modes of the held-out evaluations (greedy unless ``eval_temperature`` > 0)."""
    eval_temperature: float = 0.0
    """Sampling temperature of held-out evaluation (0 = greedy)."""
    eval_max_new_tokens: int = 96
    """Cap per assistant message during evaluation."""
    eval_max_context: int = 1024
    """Cap per evaluated conversation in tokens."""
    eval_batch_size: int = 32
    """Episodes generated in parallel during evaluation."""
    weak_snapshot_frac: float = 0.0
    """Save a copy of the model to ``<run>/weak`` after this fraction of the steps (0 = off):
    an early, weaker policy whose reward-0 rollouts make RCTP-FT failure data."""
    threads: int = 0
    """torch CPU threads (0 = torch's default)."""


@dataclass
class FailureConfig(SamplingConfig):
    """RCTP-FT failure trajectories: rollouts of a weaker policy kept when their reward is 0
    (a truncated episode scores 0: a failure)."""

    policy: str = ""
    """Checkpoint sampled for failures ("" = the starting model ``model.path``)."""
    max_rounds: int = 3
    """Sampling passes over the training tasks (new seed each) while failures are fewer
    than successes."""
    num_tasks: int = 0
    """Training tasks used by RCTP-FT (0 = all ``tasks.num_train``)."""
    skip_decisions: tuple[str, ...] = ()
    """Planted decision kinds (:data:`rcgrpo.env.synth_demo.DECISIONS`) whose tasks the mix
    leaves out: RCTP-FT uses the first ``num_tasks`` training tasks without a point of these
    kinds, so its data never show that choice (docs/lab-notes/2026-12-regime-design-v11-v13.md, variant 11). () = none."""
    skip_keep: float = 0.0
    """Share of the tasks with a ``skip_decisions`` point that the mix keeps anyway: each such
    task is kept with this probability, by its own draw seeded from ``run.seed`` and the
    task's index, so its data show that choice on a few tasks (docs/lab-notes/2026-12-regime-design-v11-v13.md, variant 12).
    0 = none (variant 11), 1 = all (as if nothing were skipped)."""
    pairs: int = 0
    """Minimal pairs per kind of ``skip_decisions`` (``rcgrpo.train.stage1.pairs``): on this
    many training tasks with one point of the kind, the expert trajectory (high) and the same
    trajectory with only that decision taken wrong (low), added to the mix beside its 1:1
    part (docs/protocols/collapse-pairs.md). 0 = none."""
    pair_weight: float = 1.0
    """Loss weight on each minimal pair's decision tokens, in both of its rows (where the
    expert and the flipped row first differ: :func:`rcgrpo.train.stage1.pairs.decision_spans`):
    each such target token's cross-entropy counts ``pair_weight`` times in the token mean,
    whose denominator stays the count of target tokens (:func:`rcgrpo.losses.sft_loss`), so 1
    is the unweighted loss. Needs ``pairs`` (docs/protocols/collapse-pairs.md, variant P4)."""
    pair_labels: str = "reward"
    """Which goal each minimal pair's rows are trained under: one of :data:`PAIR_LABELS`
    (``rcgrpo.train.stage1.pairs.PAIR_LABELLINGS``): reward, the expert row high and the flipped
    row low; inverted, the two exchanged (the positive control of
    docs/protocols/collapse-pairs-map.md). Rows outside the pairs keep their reward's label.
    inverted needs ``pairs`` and ``goals.labels`` reward."""
    rollout_successes: bool = False
    """Also count the weak policy's reward-1 rollouts as successes (default: experts only,
    as the paper's 800 expert trajectories)."""
    batch_size: int = 32
    """Episodes sampled in parallel."""


DEMONSTRATIONS = ("expert", "demo")
"""The scripted demonstration sources (``sft.demonstrations``), in the order of
:data:`rcgrpo.train.stage1.trajectories.SCRIPTS`, which holds the scripts; the names live here so
that checking a config needs no model code."""

PAIR_LABELS = ("reward", "inverted")
"""How RCTP-FT labels its minimal pairs (``failures.pair_labels``): ``reward``, each row under
its reward's goal; ``inverted``, each pair's two labels exchanged, the expert row low and the
flipped row high. The names live here so that checking a config needs no model code."""

GOAL_LABELS = ("reward", "shuffled")
"""How RCTP-FT labels its mix (``goals.labels``; :func:`rcgrpo.train.stage1.data.goal_labels`):
``reward``, each trajectory's goal is its reward (the paper); ``shuffled``, the same labels
permuted within each episode mode, so the goal token carries no information about the reward
(the control that keeps the data, the token's format and its 1:1 marginal, and removes the
conditioning; docs/protocols/collapse-control.md)."""


@dataclass
class GoalConfig:
    """RCTP-FT's reward-goal tokens: their rows at the start of training, and their labels."""

    spread: float = 0.0
    """Set the ``<|high_reward|>`` and ``<|low_reward|>`` input-embedding rows this many median
    row norms apart before the first step, midpoint and direction kept
    (:func:`rcgrpo.policy.tokenizer.spread_goal_rows`; docs/regime.md, variant 17). 0 = as
    the starting checkpoint has them."""
    labels: str = "reward"
    """Which goal each trajectory of the mix is trained under: one of :data:`GOAL_LABELS`."""


@dataclass
class SFTConfig:
    """Stage 1, plain SFT on expert trajectories (no reward token): ``rcgrpo sft``."""

    stage: str = "sft"
    """The command this config is for (recorded in config.json): sft | rctp."""
    model: Stage1ModelConfig = field(default_factory=Stage1ModelConfig)
    lora: LoraSection = field(default_factory=LoraSection)
    tasks: TaskConfig = field(default_factory=lambda: TaskConfig(max_turns=2))
    sft: StageConfig = field(default_factory=StageConfig)
    optim: OptimConfig = field(default_factory=lambda: OptimConfig(lr=1e-5))
    run: RunConfig = field(default_factory=lambda: RunConfig(steps=0, eval_every=0))


@dataclass
class RCTPConfig(SFTConfig):
    """Stage 1, RCTP-FT on a 1:1 success/failure mix, reward goal by label: ``rcgrpo rctp``."""

    stage: str = "rctp"
    failures: FailureConfig = field(default_factory=FailureConfig)
    goals: GoalConfig = field(default_factory=GoalConfig)


def _preset(cls: type[SFTConfig], **sections: dict[str, Any]) -> SFTConfig:
    return from_dict(cls, sections)


def with_overrides(cfg: SFTConfig, **sections: dict[str, Any]) -> SFTConfig:
    """A copy of ``cfg`` updated section-wise (strict keys), e.g.
    ``with_overrides(c, run={"seed": 1})``; ``cfg`` itself is not changed."""
    return from_dict(type(cfg), sections, base=copy.deepcopy(cfg))


def _rctp_after(sft_config: SFTConfig, /, **sections: dict[str, Any]) -> RCTPConfig:
    """The RCTP-FT config that follows ``sft_config`` on its suite: every section of
    ``sft_config`` (and the default ``failures``), then ``sections`` over them (strict keys)."""
    shared = {
        f.name: copy.deepcopy(getattr(sft_config, f.name))
        for f in dataclasses.fields(SFTConfig)
        if f.name != "stage"
    }
    return from_dict(RCTPConfig, sections, base=RCTPConfig(**shared))


# CPU: the same commands on the real BFCL split (720 train / 80 test), tiny model.
_SFT_BFCL_TINY = _preset(
    SFTConfig,
    model={"path": "tiny"},
    tasks={"source": "bfcl", "prompt_style": "compact"},
    sft={
        "epochs": 4.0,
        "batch_size": 8,
        "max_length": 4096,
        "eval_max_context": 4096,
        "eval_max_new_tokens": 128,
    },
    optim={"lr": 2e-3, "weight_decay": 0.01, "warmup_steps": 30},
    run={"root": "runs/stage1", "name": "sft-bfcl-tiny", "checkpoint_every": 0},
)
# GPU: the paper's Stage 1 on BFCL with a real model (separate turns, paper values).
_SFT_BFCL_GPU = _preset(
    SFTConfig,
    model={"path": "Qwen/Qwen2.5-7B-Instruct", "dtype": "bfloat16"},
    tasks={"source": "bfcl", "prompt_style": "bfcl"},
    sft={
        "epochs": PAPER.sft_epochs,
        "batch_size": PAPER.stage1_batch,
        "modes": ["multi_turn"],
        "eval_modes": ["multi_turn", "combined"],
        "max_length": 16384,
        "eval_max_new_tokens": 512,
        "eval_max_context": 16384,
    },
    optim={"lr": PAPER.stage1_lr, "weight_decay": 0.0, "warmup_steps": 10},
    run={"root": "runs/stage1", "name": "sft-bfcl", "checkpoint_every": 0},
)

# ------------------------------------------------------------------------------------------
# Quick start (README): the method's own try-out presets, stated in full (no campaign preset
# underneath). Stage 1 on the current testbed, the synth suite "collapse1-d10" (docs/synth.md),
# at a budget of about a minute each on 2 CPU cores: quick-sft fine-tunes the committed base
# checkpoint QUICK_BASE (the pool's SFT seed 3, where the testbed's own SFT starts) for 8 steps
# of 8 examples of the suite's imperfect demonstrator; quick-rctp fine-tunes that SFT model for
# 8 steps of 8 on a 1:1 mix of its own failures on 24 training tasks and expert successes. Both
# evaluate 20 held-out tasks (greedy, combined mode) at the end; runs/quick/{sft,rctp}/final.
QUICK_BASE = "results/campaign/sft-s3/final"
"""The committed Stage-1 checkpoint the quick-start SFT starts from (a tiny Qwen2 that copies
arguments; the collapse testbed's base)."""
QUICK_SFT_OUT = "runs/quick/sft/final"
"""The quick-start SFT checkpoint: quick-rctp's start and failure policy, quick-grpo's init."""
_QUICK_TASKS = {
    "source": "synth",
    "prompt_style": "compact",
    "num_train": 64,
    "num_eval": 20,
    "max_turns": 2,
    "max_calls_per_turn": 2,
}
_QUICK_STAGE = {
    "synth_preset": "collapse1-d10",
    "modes": ["combined"],
    "eval_modes": ["combined"],
    "batch_size": 8,
    "amp": "fp32",
}
_QUICK_SFT = _preset(
    SFTConfig,
    model={"path": QUICK_BASE},
    tasks=_QUICK_TASKS,
    sft={**_QUICK_STAGE, "demonstrations": "demo", "random_goals": 0.5, "prompt_loss_weight": 1.0},
    optim={"lr": 3e-4, "betas": (0.9, 0.95), "weight_decay": 0.01, "warmup_steps": 2},
    run={"root": "runs/quick", "name": "sft", "steps": 8, "checkpoint_every": 0},
)
_QUICK_RCTP = _preset(
    RCTPConfig,
    model={"path": QUICK_SFT_OUT},
    tasks=_QUICK_TASKS,
    sft=_QUICK_STAGE,
    failures={"policy": QUICK_SFT_OUT, "num_tasks": 24, "max_rounds": 1},
    goals={"spread": 0.6},
    optim={"lr": 5e-4, "weight_decay": 0.01, "warmup_steps": 2},
    run={"root": "runs/quick", "name": "rctp", "steps": 8, "checkpoint_every": 0},
)
# The quick start on a real pretrained model: SmolLM2-135M-Instruct by name
# (rcgrpo.policy.named) with LoRA (r 8, alpha 16, every linear layer and the two goal-token
# rows), the functions' docs in the prompt (docs style, ~300 tokens on collapse1-d10), no
# loss on the prompt, 8 steps of 2; runs/smol/{sft,rctp}/final hold adapters only.
SMOL_MODEL = "smollm2-135m-instruct"
SMOL_SFT_OUT = "runs/smol/sft/final"
_SMOL_TASKS = {**_QUICK_TASKS, "prompt_style": "docs", "num_eval": 10}
_SMOL_LORA = {"r": 8, "alpha": 16.0}
# 2 sequences a step with gradient checkpointing: 2 x 1,000 tokens peak at 4.2 GB in fp32
# (7.1 GB without it: 30 layers of activations and attention weights kept for the backward)
_SMOL_STAGE = {
    **_QUICK_STAGE,
    "batch_size": 4,
    "prompt_loss_weight": 0.0,
    "eval_max_new_tokens": 48,
}
_SMOL_SFT = _preset(
    SFTConfig,
    model={"path": SMOL_MODEL, "grad_checkpointing": True},
    lora=_SMOL_LORA,
    tasks=_SMOL_TASKS,
    sft={
        **_QUICK_STAGE,
        "demonstrations": "demo",
        "prompt_loss_weight": 0.0,
        "eval_max_new_tokens": 48,
    },
    optim={"lr": 2e-4, "weight_decay": 0.0, "warmup_steps": 2},
    run={"root": "runs/smol", "name": "sft", "steps": 8, "checkpoint_every": 0},
)
_SMOL_RCTP = _preset(
    RCTPConfig,
    model={"path": SMOL_SFT_OUT, "grad_checkpointing": True},
    lora=_SMOL_LORA,
    tasks=_SMOL_TASKS,
    sft=_SMOL_STAGE,
    failures={"policy": SMOL_SFT_OUT, "num_tasks": 24, "max_rounds": 1, "max_new_tokens": 48},
    optim={"lr": 2e-4, "weight_decay": 0.0, "warmup_steps": 2},
    run={"root": "runs/smol", "name": "rctp", "steps": 8, "checkpoint_every": 0},
)
# ------------------------------------------------------------------------------------------

PRESETS: dict[str, SFTConfig] = {
    "quick-sft": _QUICK_SFT,
    "quick-rctp": _QUICK_RCTP,
    "quick-sft-smol": _SMOL_SFT,
    "quick-rctp-smol": _SMOL_RCTP,
    "sft-bfcl-tiny": _SFT_BFCL_TINY,
    "rctp-bfcl-tiny": _rctp_after(
        _SFT_BFCL_TINY,
        model={"path": "runs/stage1/sft-bfcl-tiny/final"},
        sft={"epochs": 2.0},
        failures={"temperature": 1.0, "max_context": 4096, "max_new_tokens": 128},
        optim={"lr": 5e-4, "warmup_steps": 10},
        run={"name": "rctp-bfcl-tiny"},
    ),
    "sft-bfcl-gpu": _SFT_BFCL_GPU,
    "rctp-bfcl-gpu": _rctp_after(
        _SFT_BFCL_GPU,
        sft={"epochs": PAPER.rctp_epochs},
        failures={
            "temperature": PAPER.failure_temperature,
            "max_new_tokens": 512,
            "max_context": 16384,
        },
        run={"name": "rctp-bfcl"},
    ),
}
"""The method's own named configs (:func:`preset` adds the plugins'); an RCTP-FT preset is
stated as its changes to its suite's SFT preset.
``rctp-bfcl-gpu`` fine-tunes the BASE model on its own failures + the experts, as the paper
does (its failures are the base model's rollouts at τ = 0.7)."""


def preset(name: str) -> SFTConfig:
    """A fresh copy of preset ``name`` (an :class:`SFTConfig` or :class:`RCTPConfig`): an own
    one (:data:`PRESETS`) or a plugin's (:mod:`rcgrpo.train.plugins`, loaded only for a name
    not found here)."""
    if name in PRESETS:
        return copy.deepcopy(PRESETS[name])
    from rcgrpo.train.plugins import plugin_presets

    found = plugin_presets(SFTConfig, PRESETS)
    if name not in found:
        raise ConfigError(f"config: preset must be one of {[*PRESETS, *found]}, got {name!r}")
    return copy.deepcopy(found[name])
