"""One task path: the configs' ``tasks.source`` is the task-source registry
(rcgrpo/policy/task_sources.py), and both stages load their splits through it."""

from __future__ import annotations

import dataclasses

import pytest

from rcgrpo.env.synth import SYNTH_PRESETS, generate_synth_tasks
from rcgrpo.policy.task_sources import TASK_SOURCES, load_task_splits, register_task_source
from rcgrpo.train.cli import parse_cli
from rcgrpo.train.config import TaskConfig, TrainingTaskConfig
from rcgrpo.train.presets import preset
from rcgrpo.train.stage1 import config as stage1_config
from rcgrpo.train.validate import ConfigError, validate_config


def _rows(split: str, seed: int = 0, limit: int | None = None) -> list[str]:
    return [f"{split}-{seed}-{i}" for i in range(limit or 1)]


@pytest.fixture
def runtime_source():
    register_task_source("unit_rows", _rows)
    yield "unit_rows"
    TASK_SOURCES.pop("unit_rows")


def _with_source(cfg, source):
    return dataclasses.replace(cfg, tasks=dataclasses.replace(cfg.tasks, source=source))


def test_a_source_registered_at_runtime_validates_and_loads(runtime_source):
    rl = _with_source(preset("cpu-grpo"), runtime_source)
    assert validate_config(rl).tasks.source == runtime_source
    stage1 = _with_source(stage1_config.preset("sft-synth-cpu"), runtime_source)
    assert validate_config(stage1).tasks.source == runtime_source
    cfg = parse_cli("train", ["--preset", "cpu-grpo", "--tasks.source", runtime_source])
    tasks = dataclasses.replace(cfg.tasks, num_train=3, num_eval=2, split_seed=5)
    # the source's own splits, seeded by split_seed, num_train / num_eval of each
    assert load_task_splits(tasks) == (
        ["train-5-0", "train-5-1", "train-5-2"],
        ["test-5-0", "test-5-1"],
    )


def test_an_unregistered_source_is_refused():
    with pytest.raises(ConfigError, match=r"tasks\.source must be one of \['bfcl', 'synth'"):
        validate_config(_with_source(preset("cpu-grpo"), "unit_rows"))


def test_synth_splits_are_the_generator_s_tasks():
    # preset tiny capped at 2 turns / 2 calls per turn, generator seed 3
    tasks = TaskConfig(source="synth", num_train=6, num_eval=3, split_seed=3, max_turns=2)
    base = SYNTH_PRESETS["tiny"]
    knobs = {
        "turns": (min(base.turns[0], 2), 2),
        "calls_per_turn": (min(base.calls_per_turn[0], 2), 2),
    }
    train, held_out = load_task_splits(tasks, "tiny")
    assert train == generate_synth_tasks(6, "train", seed=3, config=base, **knobs)
    assert held_out == generate_synth_tasks(3, "test", seed=3, config=base, **knobs)
    with pytest.raises(ValueError, match="synth_preset must be one of"):
        load_task_splits(tasks, "huge")


def test_trl_trains_on_the_training_half_of_the_shared_loader():
    from rcgrpo.integrations.trl_cli import training_tasks

    # preset hard draws 2..4 turns and 2..3 calls per turn: capped at 3 / 2, every task has
    # 2 or 3 turns of 2 calls, on the TRL path as in Stage 1 and RL (min(2, cap) = 2)
    flags = ["--tasks.synth-preset", "hard", "--tasks.max-turns", "3"]
    cfg = parse_cli("trl", [*flags, "--tasks.max-calls-per-turn", "2", "--tasks.num-train", "8"])
    shared = {f.name: getattr(cfg.tasks, f.name) for f in dataclasses.fields(TrainingTaskConfig)}
    tasks = training_tasks(cfg)
    assert tasks == load_task_splits(TaskConfig(**shared, num_eval=1), "hard")[0]
    assert len(tasks) == 8 and {len(t.turns) for t in tasks} <= {2, 3}
    assert all(len(calls) == 2 for t in tasks for calls in t.ground_truth)
