"""RL's held-out evaluation (rcgrpo.train.rl.setup.evaluate) samples as its rollouts do."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from rcgrpo.train.config import TrainConfig
from rcgrpo.train.rl import setup


def _summary(success: float) -> dict:
    return {
        "overall": {"reward": {"mean": success}},
        "per_task": [{"task_id": "t0", "reward": success}],
    }


@pytest.mark.parametrize("eval_low", [False, True])
def test_evaluate_passes_the_rollout_sampling_and_writes_its_report(
    tmp_path, monkeypatch, eval_low
):
    cfg = TrainConfig()
    cfg.rollout.eval_temperature, cfg.rollout.top_p = 0.7, 0.9
    cfg.algo.eval_low = eval_low
    calls = []

    def fake_evaluate_policy(model, tokenizer, tasks, **kw):
        calls.append(kw)
        return _summary(0.25 if kw["condition"] == "low" else 0.75), []

    monkeypatch.setattr("rcgrpo.policy.evaluate.evaluate_policy", fake_evaluate_policy)
    model = SimpleNamespace(eval=lambda: None)
    run = SimpleNamespace(
        cfg=cfg,
        info=SimpleNamespace(is_main=True),
        model=model,
        tokenizer=None,
        eval_tasks=["task"],
        paths=SimpleNamespace(eval_dir=tmp_path),
    )
    out = setup.evaluate(run, step=25)
    assert [c["temperature"] for c in calls] == [0.7] * len(calls)
    assert [c["top_p"] for c in calls] == [0.9] * len(calls)
    assert [c["condition"] for c in calls][0] == cfg.algo.eval_condition
    assert out["reward/eval_success"] == 0.75
    assert ("reward/eval_success_low" in out) == (eval_low and cfg.algo.eval_condition != "low")
    report = json.loads((tmp_path / "step_25.json").read_text())
    assert (report["step"], report["temperature"]) == (25, 0.7)
