"""The one config of rcgrpo: nested dataclasses, every field documented where it is defined.

Each stage's config holds only the fields that stage reads, so no flag is accepted and
ignored: :class:`TrainConfig` (GRPO / RC-GRPO, :mod:`rcgrpo.train.rl.loop`) and the Stage-1
configs of :mod:`rcgrpo.train.stage1.config` share :class:`ModelConfig`, :class:`TaskConfig`,
:class:`OptimConfig` and :class:`RunConfig`. RL extends the tasks (:class:`EpisodeTaskConfig`:
episode mode, synth preset) and the optimizer (how a rollout batch is split into updates);
Stage 1 extends the model (the ``path`` it starts from: RL starts from ``init``). RL's
``rollout`` and RCTP-FT's ``failures`` sample episodes with the fields of
:class:`SamplingConfig`. Algorithm choices are string enums, validated at start-up against
the registries of the modules that implement them (:mod:`rcgrpo.train.validate`). Presets
are named configs; the resolved config is written next to every run as ``config.json``.
:class:`TRLConfig` is the same algorithm on TRL's ``GRPOTrainer`` (``python -m rcgrpo
trl``): its sections keep the names and meanings of the RL ones, holding only what that path
reads (its tasks: :class:`TrainingTaskConfig` and :class:`EpisodeTaskConfig`, no held-out
split), plus ``trl`` (how TRL spreads a step).

Loading order (:mod:`rcgrpo.train.cli`): preset → ``--config file.json`` (strict: an
unknown key is an error naming its dotted path) → command-line flags (``--algo.kl-beta 0.05``).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass
class ModelConfig:
    """Where the model lives and in which dtype (RL: its checkpoint is ``init``)."""

    dtype: str = "float32"
    """Parameter (and AdamW state) dtype: float32 | bfloat16 | float16. Compute precision
    of the Stage-1 forward is ``sft.amp``."""
    device: str = "auto"
    """auto (CUDA if available, else CPU) | cpu | cuda."""


@dataclass
class LoraSection:
    """LoRA adapters (:mod:`rcgrpo.policy.lora`): the base frozen, low-rank updates of the
    target layers and the reward-goal token rows trained. ``r`` 0 = full fine-tuning. A run
    that starts from an adapter checkpoint continues its adapter."""

    r: int = 0
    """Rank of the update BA (0 = off: every weight trains)."""
    alpha: float = 16.0
    """Scale alpha: the update is (alpha / r) BA."""
    dropout: float = 0.0
    """Dropout on the adapter's input."""
    targets: str = "all-linear"
    """Target layers: all-linear (every linear layer but the output head) or module names
    separated by commas (q_proj,v_proj)."""


@dataclass
class TrainingTaskConfig:
    """The tasks a run trains on, as every command reads them (the TRL path reads only these
    and the :class:`EpisodeTaskConfig` fields): loaded by
    :func:`rcgrpo.policy.task_sources.load_train_tasks`."""

    source: str = "synth"
    """synth (procedural suite on the real BFCL backends; CPU) | bfcl (BFCL v4 multi-turn) |
    your own task source as module:function or path/file.py:function (docs/own-task.md) | a
    source added with :func:`rcgrpo.policy.task_sources.register_task_source`."""
    prompt_style: str = "auto"
    """System prompt, a name of :data:`rcgrpo.policy.render.PROMPT_STYLES`: compact (short
    signatures; tiny models) | bfcl (official system prompt with the functions' JSON docs;
    real models) | bare | auto (compact for this project's from-scratch models, bfcl for a
    pretrained one: :func:`rcgrpo.policy.render.resolve_prompt_style`)."""
    num_train: int = 4000
    """Training tasks: synth generates N; another registered source gives the first N of its
    train split (0 = all of it, where the command allows 0: trl); bfcl ignores it (its fixed
    720-task train split)."""
    split_seed: int = 0
    """Seed of the task generator (synth) or of the 720/80 id-level split (bfcl)."""
    max_turns: int = 3
    """synth only: maximum user turns per task."""
    max_calls_per_turn: int = 2
    """synth only: maximum ground-truth calls per turn."""


@dataclass
class TaskConfig(TrainingTaskConfig):
    """Tasks of a stage that also evaluates on held-out tasks (Stage 1 and RL): the training
    tasks and a held-out split (:func:`rcgrpo.policy.task_sources.load_task_splits`)."""

    num_eval: int = 200
    """Held-out tasks for evaluation (synth test split; bfcl uses the 80-task test split)."""


@dataclass
class EpisodeTaskConfig:
    """What the RL algorithm (``train`` and ``trl``) adds to its tasks: the episode mode and
    the synth difficulty preset (Stage 1 has its modes and preset in ``sft``; RL must use
    the preset its checkpoint was trained on)."""

    mode: str = "combined"
    """Episode mode, a name of :data:`rcgrpo.env.turns.MODES`: combined (paper's RL
    mode, all turns in one prompt) | multi_turn."""
    synth_preset: str = "tiny"
    """synth only: ``rcgrpo.env.synth.SYNTH_PRESETS`` entry the tasks start from
    (``max_turns`` / ``max_calls_per_turn`` cap its ranges), as in Stage 1."""


@dataclass
class RLTaskConfig(EpisodeTaskConfig, TaskConfig):
    """Tasks of the RL stage: the shared fields, held-out tasks and the episode fields."""

    num_eval_between: int = 0
    """Held-out tasks of the evaluations between the first (step 0) and the last: the first N
    of the ``num_eval`` (the held-out split is in shuffled order); 0 = all of them. The first
    and last evaluations always use all ``num_eval``, so start and end stay paired by task."""


@dataclass
class SamplingConfig:
    """How a policy's episodes are sampled (``rcgrpo.policy.policies.ModelPolicy`` and the
    ``rcgrpo.policy.rollout.RolloutEngine`` caps): RL's training rollouts (``rollout``) and
    RCTP-FT's failure trajectories (``failures``)."""

    temperature: float = 1.0
    """Sampling temperature (paper: 0.7 for RCTP-FT failures with Qwen2.5-7B; RL unstated)."""
    top_p: float = 1.0
    """Nucleus sampling threshold."""
    max_new_tokens: int = 96
    """Cap on tokens per assistant message."""
    max_context: int = 1024
    """Cap on the whole conversation in tokens; longer episodes are truncated and flagged."""


@dataclass
class RolloutConfig(SamplingConfig):
    group_size: int = 5
    """G: rollouts per prompt (paper: 5)."""
    prompts_per_step: int = 16
    """P: prompts per RL step (global, over all ranks); B = P·G rollouts."""
    max_steps_per_turn: int = 20
    """BFCL force-quit: more executing steps than this in one turn ends the episode."""
    eval_temperature: float = 0.0
    """Temperature of held-out evaluation (0 = greedy; above 0 with the rollouts' ``top_p``)."""
    max_batch: int = 64
    """Episodes generated in parallel by the rollout engine (training and evaluation)."""
    seed_block: int = 0
    """Prompts per independently seeded rollout batch. 0 = all of a rank's prompts in one
    batch (fastest; the samples then depend on the world size). k > 0: the rollouts of a
    step depend only on (seed, step, block of k prompts), so any world size whose per-rank
    share is a multiple of k samples exactly the same rollouts (multi-process tests)."""


@dataclass
class AlgoConfig:
    conditioning: str = "iid"
    """Reward-goal scheme per rollout, a name of :data:`rcgrpo.conditioning.SCHEMES`: iid
    (paper) | stratified | high | low | none (plain GRPO, no token)."""
    p_high: float = 0.5
    """P(<|high_reward|>) for iid / stratified (paper: 0.5, matching the 1:1 RCTP data)."""
    eval_condition: str = "high"
    """Token used for held-out evaluation: high (RC-GRPO, paper) | low | none."""
    adv_estimator: str = "grpo"
    """grpo (paper) | grpo-batch (TRL scale_rewards=batch) | dr-grpo (Dr. GRPO) | rloo
    (leave-one-out baseline); the registry :data:`rcgrpo.advantages.ADV_ESTIMATORS`. One
    that reads goals needs a scheme with goal tokens."""
    adv_ddof: int = 0
    """grpo, grpo-batch: std of the advantage: 0 = population (paper), 1 = Bessel-corrected
    (TRL, verl)."""
    eps_stab: float = 1e-6
    """grpo, grpo-batch: ε_stab added to the std (paper: unstated; verl 1e-6, TRL 1e-4)."""
    ratio: str = "token"
    """token (π_θ/π_old per token; TRL, verl) | trajectory (paper as printed, Σ_t log-ratio)
    | sequence (GSPO: the length-normalised Σ_t log-ratio)."""
    ratio_against: str = "old"
    """old (the behaviour policy π_old; TRL, verl) | ref (π_ref, the paper as printed)."""
    clip_low: float = 0.2
    """ε_low of the clipped surrogate (paper: 0.2)."""
    clip_high: float = 0.2
    """ε_high (DAPO clip-higher uses 0.28)."""
    kl_beta: float = 0.1
    """β of the KL penalty to π_ref (paper: 0.1); 0 disables the reference forward pass."""
    kl_estimator: str = "k3"
    """k1 | k2 | k3 (Schulman 2020; k3 = TRL's and verl's low_var_kl)."""
    loss_agg: str = "token-mean"
    """token-mean (DAPO, TRL default) | seq-mean-token-mean (original GRPO) |
    seq-mean-token-sum-norm (Dr. GRPO)."""
    norm_length: int = 0
    """Dr. GRPO's constant L of seq-mean-token-sum-norm (0 = ``rollout.max_context``); a
    constant, not the batch's padded width, so the loss does not depend on the batch."""
    entropy_coef: float = 0.0
    """Entropy bonus coefficient (a collapse baseline; 0 = off)."""
    group_filter: str = "none"
    """none | dapo (dynamic sampling: drop groups whose binary outcome has zero variance and
    resample until the batch is full, up to ``max_resample_rounds``)."""
    max_resample_rounds: int = 3
    """DAPO: extra generation rounds before training on a partial batch."""
    eval_low: bool = False
    """Also evaluate held-out tasks under <|low_reward|> (reward/eval_success_low: mode
    separation on unseen tasks)."""
    adv_scope: str = "group"
    """group (paper: the advantage is normalised over all G rollouts) | goal (within each
    reward goal's sub-group: the between-goal variance enters no advantage; a mechanism arm,
    :mod:`rcgrpo.advantage_scope`). goal needs a scheme drawing goals per rollout (iid |
    stratified: :attr:`rcgrpo.conditioning.GoalScheme.per_rollout`)."""
    low_goal_gradient: bool = True
    """False = the anchored low mode: low-goal rollouts enter their group's advantage
    statistics but are left out of the update (no policy-gradient, KL or entropy term), so
    the low mode cannot learn (a mechanism arm). Needs a scheme drawing goals per rollout."""


@dataclass
class OptimConfig:
    lr: float = 1e-6
    """AdamW learning rate (paper RC-GRPO: 1e-6)."""
    weight_decay: float = 0.0
    """AdamW weight decay."""
    betas: tuple[float, float] = (0.9, 0.999)
    """AdamW betas."""
    max_grad_norm: float = 1.0
    """Global gradient-norm clip (the pre-clip norm is logged as policy/grad_norm)."""
    warmup_steps: int = 0
    """Linear learning-rate warm-up steps (``rcgrpo.schedules``)."""


@dataclass
class RLOptimConfig(OptimConfig):
    """AdamW of the RL stage, plus how each rollout batch is split into updates."""

    inner_epochs: int = 1
    """Passes over each rollout batch (PPO epochs); 1 = strictly on-policy (ratio = 1)."""
    minibatches: int = 1
    """Optimizer steps per pass (the batch is split by whole groups)."""
    micro_batch: int = 0
    """At most this many rollouts per forward/backward pass (gradient accumulation with the
    minibatch's global loss denominator, so the update does not change); 0 = the whole
    minibatch. With ``share_prefix`` a pass holds rows of one group (its prefix then runs
    once per group), and rows of similar length share a pass (less padding)."""
    share_prefix: bool = True
    """Teacher-force each group's shared prompt prefix once and its rollouts on its KV
    cache (rcgrpo.policy.teacher); False = every rollout on its own (the reference path; the
    same log-probs and gradients up to float rounding)."""


@dataclass
class RunConfig:
    name: str = "run"
    """Run folder name under ``root``."""
    root: str = "runs"
    """Parent folder of run folders."""
    seed: int = 0
    """Seed of everything (model init, sampling, token draws)."""
    steps: int = 100
    """RL steps (paper: 400) or, for SFT, optimizer steps (0 = use epochs)."""
    log_every: int = 1
    """Metrics logging interval in steps."""
    eval_every: int = 25
    """Held-out evaluation interval in steps (0 = only at the end)."""
    checkpoint_every: int = 25
    """Checkpoint interval in steps (0 = only at the end)."""
    keep_checkpoints: int = 2
    """Checkpoints kept on disk (oldest deleted)."""
    resume: bool = False
    """Continue from the newest valid checkpoint of the run folder."""
    max_nonfinite: int = 3
    """Stop after this many consecutive steps with a non-finite loss or gradient."""
    tensorboard: bool = True
    """Also write TensorBoard events."""
    progress: bool = True
    """Show progress (rcgrpo.train.progress): a tqdm bar on a terminal, in a log file a line
    at the start, at least every 15 s of work and at the end (step, rate, ETA, last metric)."""


@dataclass
class TrainConfig:
    """GRPO / RC-GRPO (Stage 2). ``init`` is also the frozen reference policy π_ref."""

    init: str = "tiny"
    """Starting checkpoint (an SFT or RCTP-FT folder, or an HF model path), or a tiny model
    preset name (tiny | small | micro: random initialisation, for tests)."""
    preset: str = ""
    """Name of the preset this config started from (recorded in config.json; '' = none)."""
    model: ModelConfig = field(default_factory=ModelConfig)
    lora: LoraSection = field(default_factory=LoraSection)
    tasks: RLTaskConfig = field(default_factory=RLTaskConfig)
    rollout: RolloutConfig = field(default_factory=RolloutConfig)
    algo: AlgoConfig = field(default_factory=AlgoConfig)
    optim: RLOptimConfig = field(default_factory=RLOptimConfig)
    run: RunConfig = field(default_factory=RunConfig)


# ------------------------------------------------------- TRL (python -m rcgrpo trl)
@dataclass
class TRLTaskConfig(EpisodeTaskConfig, TrainingTaskConfig):
    """Tasks of the TRL path: the training tasks and the episode fields (TRL runs no
    held-out evaluation). :class:`TRLConfig` starts from 64 tasks of one turn and one call."""


@dataclass
class TRLRolloutConfig:
    group_size: int = 4
    """G: rollouts per prompt (TRL ``num_generations``)."""
    prompts_per_step: int = 2
    """P: prompts per optimizer step over all processes; B = P·G rollouts per step."""
    temperature: float = 1.0
    """Sampling temperature of the rollouts."""
    max_new_tokens: int = 64
    """Cap on tokens per assistant message (TRL ``max_completion_length``)."""
    max_context: int = 1024
    """Cap on the whole conversation in tokens; longer episodes are truncated and flagged."""


@dataclass
class TRLAlgoConfig:
    conditioning: str = "iid"
    """Reward goal per rollout: a name of :func:`rcgrpo.conditioning.goal_schemes` (every
    rollout carries a goal on this path)."""
    p_high: float = 0.5
    """P(<|high_reward|>) for iid / stratified."""
    adv_estimator: str = "grpo"
    """A name of :data:`rcgrpo.advantages.ADV_ESTIMATORS`, as ``algo.adv_estimator`` of RL,
    with TRL's std convention (ddof 1, ε 1e-4; :mod:`rcgrpo.integrations.trl`)."""
    kl_beta: float = 0.1
    """β of the k3 KL penalty to π_ref (TRL ``beta``)."""
    clip_low: float = 0.2
    """ε of the clipped surrogate (TRL ``epsilon``, symmetric)."""


@dataclass
class TRLRunConfig:
    name: str = "{preset}-s{seed}"
    """Output folder name under ``root`` (``metrics.jsonl``, ``rollouts.jsonl``)."""
    root: str = "runs/trl"
    """Parent folder of output folders."""
    seed: int = 0
    """Seed of TRL and of the goal draws and the sampler."""
    steps: int = 2
    """Optimizer steps (TRL ``max_steps``): one generation round of B rollouts each."""


@dataclass
class TRLEngineConfig:
    """How TRL spreads a step over devices (no effect on what a step computes)."""

    per_device_batch: int = 0
    """Rollouts per device per forward/backward pass; B must be a multiple of
    per_device_batch x processes, the rest is gradient accumulation (0 = B / processes:
    one pass)."""
    vllm: bool = False
    """Generate with TRL's colocated vLLM (GPU); False = the trained model itself."""
    bf16: bool = False
    """bfloat16 mixed precision (GPU); with neither vllm nor bf16 TRL runs on the CPU."""
    gradient_checkpointing: bool = False
    """Recompute activations in the backward pass (large models)."""


@dataclass
class TRLConfig:
    """RC-GRPO on TRL's ``GRPOTrainer`` (``python -m rcgrpo trl``,
    :mod:`rcgrpo.integrations.trl_cli`). ``init`` is also the reference policy π_ref."""

    init: str = ""
    """Starting checkpoint folder (RCTP-FT for RC-GRPO) or HF model path."""
    preset: str = ""
    """Name of the preset this config started from ('' = none)."""
    lora: LoraSection = field(default_factory=LoraSection)
    tasks: TRLTaskConfig = field(
        default_factory=lambda: TRLTaskConfig(num_train=64, max_turns=1, max_calls_per_turn=1)
    )
    rollout: TRLRolloutConfig = field(default_factory=TRLRolloutConfig)
    algo: TRLAlgoConfig = field(default_factory=TRLAlgoConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    run: TRLRunConfig = field(default_factory=TRLRunConfig)
    trl: TRLEngineConfig = field(default_factory=TRLEngineConfig)


# ---------------------------------------------------------------- strict (de)serialisation
def to_dict(cfg: Any) -> dict[str, Any]:
    """Plain JSON-able dict of a config dataclass."""
    return json.loads(json.dumps(dataclasses.asdict(cfg)))


def from_dict(cls: type[T], data: dict[str, Any], *, base: T | None = None, _path: str = "") -> T:
    """Build ``cls`` from ``data`` over ``base`` (default: cls()); unknown keys are errors."""
    obj = base if base is not None else cls()
    if not isinstance(data, dict):
        raise ValueError(f"config section {_path or '<root>'!r} must be a mapping, got {data!r}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    updates = {}
    for key, value in data.items():
        dotted = f"{_path}{key}"
        if key not in fields:
            close = [
                n for n in fields if n.replace("_", "") == key.replace("-", "").replace("_", "")
            ]
            hint = f" (did you mean {_path + close[0]!r}?)" if close else ""
            raise ValueError(f"unknown config key {dotted!r}{hint}; valid: {sorted(fields)}")
        current = getattr(obj, key)
        if dataclasses.is_dataclass(current):
            updates[key] = from_dict(type(current), value, base=current, _path=dotted + ".")
        else:
            updates[key] = tuple(value) if isinstance(current, tuple) else value
    return dataclasses.replace(obj, **updates)


LEGACY_ADV_SCALE = {"group": "grpo", "batch": "grpo-batch", "none": "dr-grpo"}
"""``algo.adv_scale`` (configs written before 2026-12-02) -> its ``algo.adv_estimator``."""


def upgrade_config(data: dict[str, Any]) -> dict[str, Any]:
    """A config dict written by an older version, in today's keys (a new dict; the input is
    not changed): ``algo.adv_scale`` becomes ``algo.adv_estimator``; an RCTP-FT config
    without ``goals.labels`` gets ``reward``, the only labelling before that key existed; a
    Stage-1 config without ``sft.successes_of`` gets ``""`` and an RCTP-FT one without
    ``failures.pairs`` gets 0, one without ``failures.pair_weight`` 1 and one without
    ``failures.pair_labels`` ``reward`` (no matched SFT, no minimal pairs, no decision weight,
    no inverted pairs before those keys existed); a run config without
    ``lora`` gets it off (r 0) and a Stage-1 one without ``model.grad_checkpointing`` False.
    Every reader of a stored ``config.json`` (``--config``, resume, the campaign's spec
    check) calls it."""
    if not isinstance(data, dict):
        return data
    goals = data.get("goals")
    if isinstance(goals, dict) and "labels" not in goals:
        data = {**data, "goals": {**goals, "labels": "reward"}}
    sft = data.get("sft")
    if data.get("stage") in ("sft", "rctp") and isinstance(sft, dict) and "successes_of" not in sft:
        data = {**data, "sft": {**sft, "successes_of": ""}}
    failures = data.get("failures")
    if isinstance(failures, dict) and "pairs" not in failures:
        data = {**data, "failures": {**failures, "pairs": 0}}
    failures = data.get("failures")
    if isinstance(failures, dict) and "pair_weight" not in failures:
        data = {**data, "failures": {**failures, "pair_weight": 1.0}}
    failures = data.get("failures")
    if isinstance(failures, dict) and "pair_labels" not in failures:
        data = {**data, "failures": {**failures, "pair_labels": "reward"}}
    if isinstance(data.get("tasks"), dict) and "lora" not in data:  # no adapters before the key
        data = {**data, "lora": to_dict(LoraSection())}
    model = data.get("model")
    stage1 = data.get("stage") in ("sft", "rctp")
    if stage1 and isinstance(model, dict) and "grad_checkpointing" not in model:
        data = {**data, "model": {**model, "grad_checkpointing": False}}
    algo = data.get("algo")
    if not isinstance(algo, dict) or "adv_scale" not in algo:
        return data
    algo = dict(algo)
    scale = algo.pop("adv_scale")
    algo.setdefault("adv_estimator", LEGACY_ADV_SCALE.get(scale, scale))
    return {**data, "algo": algo}


def save_config(cfg: Any, path: str | Path) -> None:
    Path(path).write_text(json.dumps(to_dict(cfg), indent=2, sort_keys=False) + "\n")
