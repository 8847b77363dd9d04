"""Start-up validation of every training config: :class:`~rcgrpo.train.config.TrainConfig`
(RL), :class:`~rcgrpo.train.config.TRLConfig` (RL on TRL: the RL rules of the fields it
has) and the Stage-1 :class:`~rcgrpo.train.stage1.config.SFTConfig` / ``RCTPConfig``.

Runs before anything is loaded, so a typo costs a second, not a rollout. Every problem is
a :class:`ConfigError` (a ``ValueError``) with ONE line naming the dotted key, the rule and
the value, e.g. ``config: algo.conditioning must be one of ['high', 'iid', 'low', 'none',
'stratified'], got 'idd'``. Three kinds of checks, in this order:

- types: every field against its annotation (a JSON string where a number belongs, a
  float step count, a bool given as 0/1 ...); a NaN is never a setting;
- enums: string choices against the registry of the module that implements them (the
  registry IS the list of valid values, so adding an aggregation mode, a group filter or
  an lr schedule needs no change here);
- ranges and cross-field rules (G >= 2, probabilities in [0, 1], ``seed_block`` dividing
  the prompts, ...). World-size rules are checked by the trainer once it knows the world.

The rules of the sections both stages share are written once (``shared``); each stage
adds its own.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable, Iterable
from typing import Any

from rcgrpo.env.synth_demo import DECISIONS
from rcgrpo.train.config import TrainConfig, TRLConfig
from rcgrpo.train.errors import ConfigError
from rcgrpo.train.stage1.config import DEMONSTRATIONS, GOAL_LABELS, PAIR_LABELS, SFTConfig

DTYPES = ("float32", "bfloat16", "float16")
DEVICES = ("auto", "cpu", "cuda")

__all__ = ["ConfigError", "check_types", "validate_config", "validate_world"]


def _fail(key: str, rule: str, value: Any) -> None:
    raise ConfigError(f"config: {key} {rule}, got {value!r}")


# ------------------------------------------------------------------------------ types
def _matches(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_matches(value, arg) for arg in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if origin is tuple:
        args = typing.get_args(hint)
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_matches(v, args[0]) for v in value)
        return len(value) == len(args) and all(
            _matches(v, a) for v, a in zip(value, args, strict=True)
        )
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def check_types(obj: Any, prefix: str = "") -> None:
    """Every field of the dataclass ``obj`` (recursively) matches its annotation."""
    hints = typing.get_type_hints(type(obj))
    for f in dataclasses.fields(obj):
        value, key = getattr(obj, f.name), f"{prefix}{f.name}"
        if dataclasses.is_dataclass(value):
            check_types(value, key + ".")
        elif not _matches(value, hints[f.name]):
            name = getattr(hints[f.name], "__name__", str(hints[f.name]))
            _fail(key, f"must be of type {name}", value)
        elif isinstance(value, float) and math.isnan(value):
            _fail(key, "is NaN, never a setting", value)


# ------------------------------------------------------------------------------ enums
def _registries(stage: str) -> dict[str, Iterable[str]]:
    """Dotted key -> the registry its value must name (imported lazily), for ``stage``
    (rl | stage1 | trl)."""
    from rcgrpo.env.synth import SYNTH_PRESETS
    from rcgrpo.env.turns import MODES
    from rcgrpo.policy.render import AUTO, PROMPT_STYLES
    from rcgrpo.policy.task_sources import TASK_SOURCES

    shared = {
        "model.dtype": DTYPES,
        "model.device": DEVICES,
        "tasks.source": TASK_SOURCES,
        "tasks.prompt_style": (*PROMPT_STYLES, AUTO),
    }
    if stage == "trl":
        from rcgrpo.conditioning import goal_schemes

        return _registries("rl") | {"algo.conditioning": goal_schemes()}
    if stage == "stage1":
        from rcgrpo.precision import AMP_CHOICES
        from rcgrpo.schedules import SCHEDULES

        return shared | {
            "sft.schedule": SCHEDULES,
            "sft.amp": AMP_CHOICES,
            "sft.synth_preset": SYNTH_PRESETS,
            "sft.demonstrations": DEMONSTRATIONS,
        }
    from rcgrpo.advantage_scope import ADV_SCOPES
    from rcgrpo.advantages import ADV_ESTIMATORS
    from rcgrpo.aggregation import AGG_MODES
    from rcgrpo.conditioning import SCHEMES
    from rcgrpo.kl import KL_ESTIMATORS
    from rcgrpo.losses import RATIO_AGAINST, RATIO_LEVELS
    from rcgrpo.policy.evaluate import CONDITIONS
    from rcgrpo.train.rl.filters import GROUP_FILTERS

    return shared | {
        "tasks.mode": MODES,
        "tasks.synth_preset": SYNTH_PRESETS,
        "algo.conditioning": SCHEMES,
        "algo.eval_condition": CONDITIONS,
        "algo.adv_estimator": ADV_ESTIMATORS,
        "algo.adv_scope": ADV_SCOPES,
        "algo.ratio": RATIO_LEVELS,
        "algo.ratio_against": RATIO_AGAINST,
        "algo.kl_estimator": KL_ESTIMATORS,
        "algo.loss_agg": AGG_MODES,
        "algo.group_filter": GROUP_FILTERS,
    }


def _subset_registries() -> dict[str, Iterable[str]]:
    """Stage 1: dotted key -> the registry each element of its non-empty tuple must name."""
    from rcgrpo.env.turns import MODES

    return {"sft.modes": MODES, "sft.eval_modes": MODES}


def _get(cfg: Any, key: str) -> Any:
    value: Any = cfg
    for part in key.split("."):
        value = getattr(value, part)
    return value


# ------------------------------------------------------------------------------ ranges
Rule = tuple[str, Callable[[Any], bool], str]
_GE1, _GE0 = (lambda v: v >= 1), (lambda v: v >= 0)

_SHARED: tuple[Rule, ...] = (
    ("tasks.num_train", _GE1, "must be >= 1"),
    ("tasks.num_eval", _GE1, "must be >= 1"),
    ("tasks.max_turns", _GE1, "must be >= 1"),
    ("tasks.max_calls_per_turn", _GE1, "must be >= 1"),
    ("optim.lr", lambda v: v > 0, "must be > 0"),
    ("optim.weight_decay", _GE0, "must be >= 0"),
    ("optim.betas", lambda v: all(0 <= b < 1 for b in v), "must lie in [0, 1)"),
    ("optim.max_grad_norm", lambda v: v > 0, "must be > 0"),
    ("optim.warmup_steps", _GE0, "must be >= 0"),
    ("run.log_every", _GE1, "must be >= 1"),
    ("run.eval_every", _GE0, "must be >= 0 (0 = only at the end)"),
    ("run.checkpoint_every", _GE0, "must be >= 0 (0 = only at the end)"),
    ("run.keep_checkpoints", _GE1, "must be >= 1"),
    ("run.max_nonfinite", _GE1, "must be >= 1"),
    ("run.name", lambda v: v.strip() != "" and "/" not in v, "must be a non-empty folder name"),
    ("lora.r", _GE0, "must be >= 0 (0 = full fine-tuning)"),
    ("lora.alpha", lambda v: v > 0, "must be > 0"),
    ("lora.dropout", lambda v: 0 <= v < 1, "must lie in [0, 1)"),
    ("lora.targets", lambda v: v.strip(" ,") != "", "must name target layers (or all-linear)"),
)

_RL: tuple[Rule, ...] = (
    ("tasks.num_eval_between", _GE0, "must be >= 0 (0 = every held-out task)"),
    ("rollout.group_size", lambda v: v >= 2, "must be >= 2 (a group needs two rollouts)"),
    ("rollout.prompts_per_step", _GE1, "must be >= 1"),
    ("rollout.temperature", lambda v: v > 0, "must be > 0 (training samples)"),
    ("rollout.top_p", lambda v: 0 < v <= 1, "must be in (0, 1]"),
    ("rollout.max_new_tokens", _GE1, "must be >= 1"),
    ("rollout.max_context", lambda v: v >= 2, "must be >= 2"),
    ("rollout.max_steps_per_turn", _GE1, "must be >= 1"),
    ("rollout.eval_temperature", _GE0, "must be >= 0 (0 = greedy)"),
    ("rollout.max_batch", _GE1, "must be >= 1"),
    ("rollout.seed_block", _GE0, "must be >= 0"),
    ("algo.p_high", lambda v: 0 <= v <= 1, "must be in [0, 1]"),
    ("algo.adv_ddof", lambda v: v in (0, 1), "must be 0 (population, paper) or 1"),
    ("algo.eps_stab", _GE0, "must be >= 0"),
    ("algo.clip_low", lambda v: 0 <= v <= 1, "must be in [0, 1]"),
    ("algo.clip_high", _GE0, "must be >= 0"),
    ("algo.kl_beta", _GE0, "must be >= 0"),
    ("algo.entropy_coef", _GE0, "must be >= 0"),
    ("algo.norm_length", _GE0, "must be >= 0 (0 = rollout.max_context)"),
    ("algo.max_resample_rounds", _GE0, "must be >= 0"),
    ("optim.inner_epochs", _GE1, "must be >= 1"),
    ("optim.minibatches", _GE1, "must be >= 1"),
    ("optim.micro_batch", _GE0, "must be >= 0 (0 = whole minibatch)"),
    ("run.steps", _GE1, "must be >= 1"),
)

_STAGE1: tuple[Rule, ...] = (
    ("sft.epochs", _GE0, "must be >= 0"),
    ("sft.batch_size", _GE1, "must be >= 1"),
    ("sft.min_lr_ratio", lambda v: 0 <= v <= 1, "must be in [0, 1]"),
    ("sft.decay_frac", lambda v: 0 < v <= 1, "must be in (0, 1]"),
    ("sft.length_curriculum", lambda v: 0 <= v <= 1, "must be in [0, 1]"),
    ("sft.prompt_loss_weight", _GE0, "must be >= 0"),
    ("sft.max_length", _GE1, "must be >= 1"),
    ("sft.vocab_size", _GE1, "must be >= 1"),
    ("sft.eval_temperature", _GE0, "must be >= 0 (0 = greedy)"),
    ("sft.eval_max_new_tokens", _GE1, "must be >= 1"),
    ("sft.eval_max_context", lambda v: v >= 2, "must be >= 2"),
    ("sft.eval_batch_size", _GE1, "must be >= 1"),
    ("sft.weak_snapshot_frac", lambda v: 0 <= v < 1, "must be in [0, 1)"),
    ("sft.threads", _GE0, "must be >= 0 (0 = torch's default)"),
    ("sft.random_goals", lambda v: 0 <= v <= 1, "must be in [0, 1]"),
    ("run.steps", _GE0, "must be >= 0 (0 = sft.epochs)"),
)

_RCTP: tuple[Rule, ...] = (
    ("failures.temperature", _GE0, "must be >= 0 (0 = greedy)"),
    ("failures.top_p", lambda v: 0 < v <= 1, "must be in (0, 1]"),
    ("failures.max_new_tokens", _GE1, "must be >= 1"),
    ("failures.max_context", lambda v: v >= 2, "must be >= 2"),
    ("failures.max_rounds", _GE1, "must be >= 1"),
    ("failures.num_tasks", _GE0, "must be >= 0 (0 = all training tasks)"),
    ("failures.batch_size", _GE1, "must be >= 1"),
    (
        "failures.skip_decisions",
        lambda v: set(v) <= set(DECISIONS),
        f"must name planted decision kinds, of {DECISIONS}",
    ),
    ("failures.skip_keep", lambda v: 0 <= v <= 1, "must be in [0, 1]"),
    ("failures.pair_weight", lambda v: v > 0, "must be > 0 (1 = unweighted)"),
    ("failures.pair_labels", lambda v: v in PAIR_LABELS, f"must be one of {list(PAIR_LABELS)}"),
    ("goals.spread", _GE0, "must be >= 0 (0 = rows as the checkpoint has them)"),
    ("goals.labels", lambda v: v in GOAL_LABELS, f"must be one of {list(GOAL_LABELS)}"),
)


_TRL: tuple[Rule, ...] = (
    ("tasks.num_train", _GE0, "must be >= 0 (0 = the whole split)"),
    ("trl.per_device_batch", _GE0, "must be >= 0 (0 = one pass per step)"),
)


def _rl_cross_checks(cfg: TrainConfig) -> None:
    rollout = cfg.rollout
    if rollout.seed_block and rollout.prompts_per_step % rollout.seed_block:
        _fail(
            "rollout.seed_block",
            f"must divide rollout.prompts_per_step = {rollout.prompts_per_step}",
            rollout.seed_block,
        )
    if cfg.optim.minibatches > rollout.prompts_per_step:
        _fail(
            "optim.minibatches",
            f"must be <= rollout.prompts_per_step = "
            f"{rollout.prompts_per_step} (minibatches hold whole groups)",
            cfg.optim.minibatches,
        )
    if cfg.tasks.num_eval_between > cfg.tasks.num_eval:
        _fail(
            "tasks.num_eval_between",
            f"must be <= tasks.num_eval = {cfg.tasks.num_eval} (a prefix of the held-out tasks)",
            cfg.tasks.num_eval_between,
        )
    if not cfg.init.strip():
        _fail("init", "must name a checkpoint folder, model path or tiny preset", cfg.init)
    _goal_checks(cfg.algo)


def _goal_checks(algo) -> None:
    """What the estimator and the mechanism arms need of the goal scheme (their declarations:
    :class:`rcgrpo.advantages.Estimator`, :class:`rcgrpo.conditioning.GoalScheme`)."""
    from rcgrpo.advantages import ADV_ESTIMATORS
    from rcgrpo.conditioning import SCHEMES

    scheme = SCHEMES[algo.conditioning]
    mixed = f"a scheme drawing goals per rollout (not {algo.conditioning!r})"
    if algo.adv_scope != "group" and not scheme.per_rollout:
        _fail("algo.adv_scope", f"needs {mixed}", algo.adv_scope)
    if not algo.low_goal_gradient and not scheme.per_rollout:
        _fail("algo.low_goal_gradient", f"False needs {mixed}", False)
    if "goals" in ADV_ESTIMATORS[algo.adv_estimator].inputs and not scheme.token:
        _fail(
            "algo.adv_estimator", "reads goals: needs a scheme with goal tokens", algo.adv_estimator
        )


def _stage1_cross_checks(cfg: SFTConfig) -> None:
    expected = type(cfg).stage  # the dataclass default: sft | rctp
    if cfg.stage != expected:
        _fail(
            "stage", f"must be {expected!r} for {type(cfg).__name__} (rcgrpo {expected})", cfg.stage
        )
    for key, options in _subset_registries().items():
        value = _get(cfg, key)
        if not value or any(v not in options for v in value):
            _fail(key, f"must be a non-empty subset of {sorted(options)}", value)
    if not (cfg.sft.epochs > 0 or cfg.run.steps > 0):
        _fail("sft.epochs", "must be > 0 (or run.steps > 0)", cfg.sft.epochs)
    if expected == "rctp" and cfg.failures.pair_weight != 1 and not cfg.failures.pairs:
        _fail("failures.pair_weight", "needs failures.pairs > 0", cfg.failures.pair_weight)
    if expected == "rctp" and cfg.failures.pair_labels != "reward":
        if not cfg.failures.pairs:
            _fail("failures.pair_labels", "needs failures.pairs > 0", cfg.failures.pair_labels)
        if cfg.goals.labels != "reward":
            _fail("failures.pair_labels", "needs goals.labels reward", cfg.failures.pair_labels)
    if expected == "rctp" and cfg.sft.random_goals:  # SFT only; RCTP-FT goals follow rewards
        _fail("sft.random_goals", "must be 0 for rctp (read by sft only)", cfg.sft.random_goals)


def _trl_cross_checks(cfg: TRLConfig) -> None:
    if cfg.tasks.source == "synth" and cfg.tasks.num_train < 1:
        _fail("tasks.num_train", "must be >= 1 for synth (0 = a whole finite split)", 0)
    if not cfg.init.strip():
        _fail("init", "must name a checkpoint folder or model path", cfg.init)


def _has(cfg: Any, key: str) -> bool:
    try:
        _get(cfg, key)
    except AttributeError:
        return False
    return True


def _plan(cfg: Any) -> tuple[str, tuple[Rule, ...], Callable[[Any], None]]:
    """(registry set, range rules, cross checks) of ``cfg``'s stage. The TRL path reads a
    subset of the RL fields, with the RL rules (``tasks.num_train`` may be 0 there)."""
    if isinstance(cfg, TrainConfig):
        return "rl", _SHARED + _RL, _rl_cross_checks
    if isinstance(cfg, TRLConfig):
        shared = tuple(r for r in _SHARED + _RL if _has(cfg, r[0]) and r[0] != "tasks.num_train")
        return "trl", (*shared, *_TRL), _trl_cross_checks
    if isinstance(cfg, SFTConfig):
        rctp = _RCTP if hasattr(cfg, "failures") else ()
        return "stage1", _SHARED + _STAGE1 + rctp, _stage1_cross_checks
    raise TypeError(f"no validation for {type(cfg).__name__}")


def _import_task_source(source: str) -> None:
    """A ``module:function`` task source is imported and registered here, so the registry
    check below knows it (:func:`rcgrpo.policy.task_sources.resolve_task_source`)."""
    from rcgrpo.policy.task_sources import resolve_task_source

    if ":" in source:
        try:
            resolve_task_source(source)
        except ValueError as err:
            raise ConfigError(f"config: {err}") from None


def validate_config(cfg: Any) -> Any:
    """Raise a one-line :class:`ConfigError` naming the first bad key (types, then
    registries, then ranges and cross-field rules); return ``cfg`` unchanged."""
    check_types(cfg)
    stage, rules, cross_checks = _plan(cfg)
    _import_task_source(cfg.tasks.source)
    for key, options in _registries(stage).items():
        if stage == "trl" and not _has(cfg, key):
            continue
        value = _get(cfg, key)
        if value not in options:
            _fail(key, f"must be one of {sorted(options)}", value)
    for key, ok, rule in rules:
        value = _get(cfg, key)
        if not ok(value):
            _fail(key, rule, value)
    cross_checks(cfg)
    return cfg


def validate_world(cfg: TrainConfig, world_size: int) -> None:
    """Rules that need the number of processes: groups are never split across ranks."""
    rollout = cfg.rollout
    if rollout.prompts_per_step % world_size:
        _fail(
            "rollout.prompts_per_step",
            f"must be divisible by the world size {world_size} (whole groups per rank)",
            rollout.prompts_per_step,
        )
    share = rollout.prompts_per_step // world_size
    if rollout.seed_block and share % rollout.seed_block:
        _fail(
            "rollout.seed_block",
            f"must divide the per-rank prompts {share} "
            f"(= {rollout.prompts_per_step} / {world_size} ranks)",
            rollout.seed_block,
        )
