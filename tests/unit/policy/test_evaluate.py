"""Evaluation statistics and the task-source registry."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from rcgrpo.policy.evaluate import summarize, wilson_interval
from rcgrpo.policy.task_sources import TASK_SOURCES, load_tasks, register_task_source


def test_wilson_hand_values():
    # z = 1.96, z^2 = 3.8415. k = 5, n = 10: p = 0.5, denom = 1.38415, centre = 0.5,
    # half = 1.96·sqrt(0.025 + 0.0096037)/1.38415 = 0.26340 -> [0.23660, 0.76340]
    lo, hi = wilson_interval(5, 10)
    assert (lo, hi) == pytest.approx((0.23660, 0.76340), abs=1e-4)
    # k = 0, n = 10: centre = half = 0.19207/1.38415 = 0.13877 -> [0, 0.27753]
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.27753), abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(3, 2)


def _rollout(category, reward, valid, steps=2):
    record = SimpleNamespace(
        reward=reward, state=reward, action=reward, bfcl_valid=valid, failure_reason=None
    )
    return SimpleNamespace(
        task_id=f"{category}_{steps}",
        category=category,
        record=record,
        reward=reward,
        bfcl_valid=valid,
        num_steps=steps,
        num_tool_errors=1,
        truncated=False,
        capped_messages=0,
        num_generated=10,
        length=100,
    )


def test_summarize_overall_and_per_category():
    rollouts = [
        _rollout("base", 1.0, True),
        _rollout("base", 0.0, False, steps=4),
        _rollout("miss_func", 1.0, False),
    ]
    out = summarize(rollouts)
    assert out["overall"]["reward"]["successes"] == 2 and out["overall"]["n"] == 3
    assert out["overall"]["bfcl_valid"]["mean"] == pytest.approx(1 / 3)
    assert out["overall"]["mean_steps"] == pytest.approx(8 / 3)
    assert out["per_category"]["base"]["reward"]["mean"] == 0.5
    assert out["per_category"]["miss_func"]["bfcl_valid"]["successes"] == 0
    assert [t["category"] for t in out["per_task"]] == ["base", "base", "miss_func"]


@pytest.mark.bfcl
def test_bfcl_source_splits():
    assert len(load_tasks("bfcl", "test")) == 80
    assert len(load_tasks("bfcl", "train", limit=5)) == 5
    assert {t.id for t in load_tasks("bfcl", "test")}.isdisjoint(
        t.id for t in load_tasks("bfcl", "train")
    )


def test_registry_hook_and_errors():
    register_task_source("unit_fake", lambda split, seed=0, limit=None: [split, seed, limit])
    try:
        assert load_tasks("unit_fake", "test", seed=3, limit=2) == ["test", 3, 2]
    finally:
        TASK_SOURCES.pop("unit_fake")
    with pytest.raises(ValueError, match="source"):
        load_tasks("nope", "test")
    with pytest.raises(ValueError, match="limit"):
        load_tasks("synth", "test", limit=0)
    synth = load_tasks("synth", "test", limit=3, preset="tiny", turns=[1, 1])
    assert [t.category.split("/")[0] for t in synth] == ["synth"] * 3
    assert all(t.num_turns == 1 for t in synth)
    with pytest.raises(ValueError, match="preset"):
        load_tasks("synth", "test", limit=1, preset="giant")


def test_add_decisions_counts_points_and_splits_success_by_hand():
    from types import SimpleNamespace

    from rcgrpo.env.synth import SYNTH_PRESETS, generate_synth_tasks
    from rcgrpo.policy.evaluate import add_decisions

    tasks = generate_synth_tasks(40, "test", seed=3, config=SYNTH_PRESETS["regime"])
    plain = next(t for t in tasks if not t.meta["decisions"])
    pointed = [t for t in tasks if len(t.meta["decisions"]) == 1][:2]
    # rollout 1 replays the ground truth (its point right, R 1), rollout 2 makes no call
    # (its point wrong, R 0), rollout 3 (no point) succeeds: 1 of 2 points right
    rows = [(pointed[0], pointed[0].ground_truth, 1.0), (pointed[1], (), 0.0), (plain, (), 1.0)]
    rollouts = [
        SimpleNamespace(task_id=t.id, reward=r, calls_per_turn=[list(c) for c in calls])
        for t, calls, r in rows
    ]
    summary = {"per_task": [{"task_id": t.id} for t, _, _ in rows]}
    add_decisions(summary, tasks, rollouts)
    d = summary["decisions"]
    assert (d["right"]["successes"], d["right"]["n"]) == (1, 2)
    assert (d["success_with_points"]["mean"], d["success_without_points"]["mean"]) == (0.5, 1.0)
    assert [len(r["decisions"]) for r in summary["per_task"]] == [1, 1, 0]
    # a suite without a demonstrator gains nothing
    cpu = generate_synth_tasks(3, "test", seed=3, config=SYNTH_PRESETS["cpu"])
    summary = {"per_task": [{"task_id": t.id} for t in cpu]}
    add_decisions(
        summary, cpu, [SimpleNamespace(task_id=t.id, reward=1.0, calls_per_turn=[]) for t in cpu]
    )
    assert summary == {"per_task": [{"task_id": t.id} for t in cpu]}
