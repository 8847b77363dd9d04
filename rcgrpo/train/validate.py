"""Start-up validation of a :class:`~rcgrpo.train.config.TrainConfig`.

Runs before anything is loaded, so a typo costs a second, not a rollout. Every problem is
a :class:`ConfigError` (a ``ValueError``) with ONE line naming the dotted key, the rule and the value, e.g.
``config: algo.conditioning must be one of ['high', 'iid', 'low', 'none', 'stratified'],
got 'idd'``. Three kinds of checks:

- types: every field against its annotation (a JSON string where a number belongs, a
  float step count, a bool given as 0/1 ...);
- enums: string choices against the registry of the module that implements them (the
  registry IS the list of valid values, so adding an aggregation mode or a group filter
  needs no change here);
- ranges and cross-field rules (G >= 2, probabilities in [0, 1], ``seed_block`` dividing
  the prompts, ...). World-size rules are checked by the trainer once it knows the world.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Iterable
from typing import Any

from rcgrpo.train.config import TrainConfig

DTYPES = ("float32", "bfloat16", "float16")
DEVICES = ("auto", "cpu", "cuda")
TASK_SOURCES = ("synth", "bfcl")  # sources with a train / held-out split (Stage 1 + 2)


class ConfigError(ValueError):
    """A config value the trainer cannot run with (the message names the key)."""


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


# ------------------------------------------------------------------------------ enums
def _registries() -> dict[str, Iterable[str]]:
    """Dotted key -> the registry its value must name (imported lazily)."""
    from rcgrpo.advantages import SCALES
    from rcgrpo.aggregation import AGG_MODES
    from rcgrpo.conditioning import SCHEMES
    from rcgrpo.env.synth import SYNTH_PRESETS
    from rcgrpo.kl import KL_ESTIMATORS
    from rcgrpo.losses import RATIO_AGAINST, RATIO_LEVELS
    from rcgrpo.policy.evaluate import CONDITIONS
    from rcgrpo.policy.render import PROMPT_STYLES
    from rcgrpo.policy.rollout import MODES
    from rcgrpo.train.filters import GROUP_FILTERS

    return {
        "model.dtype": DTYPES,
        "model.device": DEVICES,
        "tasks.source": TASK_SOURCES,
        "tasks.mode": MODES,
        "tasks.prompt_style": PROMPT_STYLES,
        "tasks.synth_preset": SYNTH_PRESETS,
        "algo.conditioning": SCHEMES,
        "algo.eval_condition": CONDITIONS,
        "algo.adv_scale": SCALES,
        "algo.ratio": RATIO_LEVELS,
        "algo.ratio_against": RATIO_AGAINST,
        "algo.kl_estimator": KL_ESTIMATORS,
        "algo.loss_agg": AGG_MODES,
        "algo.group_filter": GROUP_FILTERS,
    }


def _get(cfg: TrainConfig, key: str) -> Any:
    value: Any = cfg
    for part in key.split("."):
        value = getattr(value, part)
    return value


# ------------------------------------------------------------------------------ ranges
_RANGES: tuple[tuple[str, Callable[[Any], bool], str], ...] = (
    ("tasks.num_train", lambda v: v >= 1, "must be >= 1"),
    ("tasks.num_eval", lambda v: v >= 1, "must be >= 1"),
    ("tasks.max_turns", lambda v: v >= 1, "must be >= 1"),
    ("tasks.max_calls_per_turn", lambda v: v >= 1, "must be >= 1"),
    ("rollout.group_size", lambda v: v >= 2, "must be >= 2 (a group needs two rollouts)"),
    ("rollout.prompts_per_step", lambda v: v >= 1, "must be >= 1"),
    ("rollout.temperature", lambda v: v > 0, "must be > 0 (training samples)"),
    ("rollout.top_p", lambda v: 0 < v <= 1, "must be in (0, 1]"),
    ("rollout.max_new_tokens", lambda v: v >= 1, "must be >= 1"),
    ("rollout.max_context", lambda v: v >= 2, "must be >= 2"),
    ("rollout.max_steps_per_turn", lambda v: v >= 1, "must be >= 1"),
    ("rollout.eval_temperature", lambda v: v >= 0, "must be >= 0 (0 = greedy)"),
    ("rollout.max_batch", lambda v: v >= 1, "must be >= 1"),
    ("rollout.seed_block", lambda v: v >= 0, "must be >= 0"),
    ("algo.p_high", lambda v: 0 <= v <= 1, "must be in [0, 1]"),
    ("algo.adv_ddof", lambda v: v in (0, 1), "must be 0 (population, paper) or 1"),
    ("algo.eps_stab", lambda v: v >= 0, "must be >= 0"),
    ("algo.clip_low", lambda v: 0 <= v <= 1, "must be in [0, 1]"),
    ("algo.clip_high", lambda v: v >= 0, "must be >= 0"),
    ("algo.kl_beta", lambda v: v >= 0, "must be >= 0"),
    ("algo.entropy_coef", lambda v: v >= 0, "must be >= 0"),
    ("algo.norm_length", lambda v: v >= 0, "must be >= 0 (0 = rollout.max_context)"),
    ("algo.max_resample_rounds", lambda v: v >= 0, "must be >= 0"),
    ("optim.lr", lambda v: v > 0, "must be > 0"),
    ("optim.weight_decay", lambda v: v >= 0, "must be >= 0"),
    ("optim.betas", lambda v: all(0 <= b < 1 for b in v), "must lie in [0, 1)"),
    ("optim.max_grad_norm", lambda v: v > 0, "must be > 0"),
    ("optim.inner_epochs", lambda v: v >= 1, "must be >= 1"),
    ("optim.minibatches", lambda v: v >= 1, "must be >= 1"),
    ("optim.warmup_steps", lambda v: v >= 0, "must be >= 0"),
    ("optim.micro_batch", lambda v: v >= 0, "must be >= 0 (0 = whole minibatch)"),
    ("run.steps", lambda v: v >= 1, "must be >= 1"),
    ("run.log_every", lambda v: v >= 1, "must be >= 1"),
    ("run.eval_every", lambda v: v >= 0, "must be >= 0 (0 = only at the end)"),
    ("run.checkpoint_every", lambda v: v >= 0, "must be >= 0 (0 = only at the end)"),
    ("run.keep_checkpoints", lambda v: v >= 1, "must be >= 1"),
    ("run.max_nonfinite", lambda v: v >= 1, "must be >= 1"),
    ("run.name", lambda v: v.strip() != "" and "/" not in v, "must be a non-empty folder name"),
)


def _cross_checks(cfg: TrainConfig) -> None:
    r = cfg.rollout
    if r.seed_block and r.prompts_per_step % r.seed_block:
        _fail(
            "rollout.seed_block",
            f"must divide rollout.prompts_per_step = {r.prompts_per_step}",
            r.seed_block,
        )
    if cfg.optim.minibatches > r.prompts_per_step:
        _fail(
            "optim.minibatches",
            f"must be <= rollout.prompts_per_step = "
            f"{r.prompts_per_step} (minibatches hold whole groups)",
            cfg.optim.minibatches,
        )
    if not cfg.init.strip():
        _fail("init", "must name a checkpoint folder, model path or tiny preset", cfg.init)


def validate_config(cfg: TrainConfig) -> TrainConfig:
    """Raise a one-line ``ValueError`` naming the first bad key; return ``cfg`` unchanged."""
    check_types(cfg)
    for key, options in _registries().items():
        value = _get(cfg, key)
        if value not in options:
            _fail(key, f"must be one of {sorted(options)}", value)
    for key, ok, rule in _RANGES:
        value = _get(cfg, key)
        if not ok(value):
            _fail(key, rule, value)
    _cross_checks(cfg)
    return cfg


def validate_world(cfg: TrainConfig, world_size: int) -> None:
    """Rules that need the number of processes: groups are never split across ranks."""
    r = cfg.rollout
    if r.prompts_per_step % world_size:
        _fail(
            "rollout.prompts_per_step",
            f"must be divisible by the world size {world_size} (whole groups per rank)",
            r.prompts_per_step,
        )
    share = r.prompts_per_step // world_size
    if r.seed_block and share % r.seed_block:
        _fail(
            "rollout.seed_block",
            f"must divide the per-rank prompts {share} "
            f"(= {r.prompts_per_step} / {world_size} ranks)",
            r.seed_block,
        )
