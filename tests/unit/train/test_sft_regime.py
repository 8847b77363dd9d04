"""Stage 1 on the regime suite: demonstrations scored by the real reward, goal-free reward
tokens in SFT, and the regime presets (Stage 1 and RL)."""

from __future__ import annotations

import pytest

from analysis.campaigns.regime_d10 import presets as regime
from rcgrpo.conditioning import HIGH_TOKEN, LOW_TOKEN
from rcgrpo.env.synth import SYNTH_PRESETS, generate_synth_tasks
from rcgrpo.policy.chat import ChatEncoder
from rcgrpo.policy.tokenizer import task_corpus, train_tiny_tokenizer
from rcgrpo.train import presets as rl
from rcgrpo.train.config import to_dict
from rcgrpo.train.stage1.config import preset as stage1
from rcgrpo.train.stage1.data import encode_examples, random_goals
from rcgrpo.train.stage1.trajectories import demo_script, expert_trajectories
from rcgrpo.train.validate import validate_config

ENGINE = dict(prompt_style="compact", max_context=100_000, max_new_tokens=100_000)


@pytest.fixture(scope="module")
def tasks():
    return generate_synth_tasks(24, "train", seed=3, config=SYNTH_PRESETS["regime"])


@pytest.fixture(scope="module")
def wide_tasks():
    return generate_synth_tasks(40, "train", seed=3, config=SYNTH_PRESETS["regime-wide-d10"])


@pytest.fixture(scope="module")
def tokenizer(tasks, wide_tasks):
    return train_tiny_tokenizer(task_corpus([*tasks, *wide_tasks]), vocab_size=400)


@pytest.mark.parametrize("suite", ["regime", "regime-wide-d10"])
@pytest.mark.parametrize("mode", ["combined", "multi_turn"])
def test_a_demonstration_scores_1_iff_it_makes_no_mistake(
    tasks, wide_tasks, tokenizer, mode, suite
):
    tasks = tasks if suite == "regime" else wide_tasks
    if suite != "regime":  # every swap kind occurs, erred, in these 40 tasks
        erred_kinds = {d["kind"] for t in tasks for d in t.meta["decisions"] if d["erred"]}
        assert erred_kinds == set(SYNTH_PRESETS[suite].decisions)
    trajs = expert_trajectories(tasks, ChatEncoder(tokenizer), mode, "demo", **ENGINE)
    erred = [any(d["erred"] for d in t.meta["decisions"]) for t in tasks]
    assert [t.reward for t in trajs] == [int(not e) for e in erred]
    assert 0 < sum(erred) < len(tasks) and {t.source for t in trajs} == {"demo"}
    # a mistake is a choice the classifier names: a swapped function or a missing call
    assert {t.failure_mode for t in trajs if t.reward == 0} <= {
        "wrong_tool",
        "missing_call",
        "early_stop",
    }
    experts = expert_trajectories(tasks, ChatEncoder(tokenizer), mode, "expert", **ENGINE)
    assert all(t.reward == 1 for t in experts)


def test_demo_script_needs_a_suite_with_decisions(tokenizer):
    plain = generate_synth_tasks(1, "train", seed=3, config=SYNTH_PRESETS["cpu"])
    with pytest.raises(ValueError, match="no demonstration"):
        expert_trajectories(plain, ChatEncoder(tokenizer), "combined", "demo", **ENGINE)
    assert callable(demo_script)


def test_random_goals_share_and_determinism():
    goals = random_goals(2000, 0.5, seed=7)
    assert goals == random_goals(2000, 0.5, seed=7) and goals != random_goals(2000, 0.5, seed=8)
    # Bin(2000, 1/2) has P(|X - 1000| > 58) < 0.01, Bin(2000, 1/4) P(|X - 500| > 50) < 0.01
    assert abs(sum(g is not None for g in goals) - 1000) <= 58
    assert abs(goals.count(True) - 500) <= 50 and abs(goals.count(False) - 500) <= 50
    assert random_goals(50, 0.0, seed=1) == [None] * 50


def test_sft_goals_render_once_whatever_the_reward(tasks, tokenizer):
    trajs = expert_trajectories(tasks[:6], ChatEncoder(tokenizer), "combined", "demo", **ENGINE)
    goals = [True, False, None, True, False, None]
    examples, _ = encode_examples(trajs, tokenizer, False, 100_000, goals)
    high, low = tokenizer.convert_tokens_to_ids([HIGH_TOKEN, LOW_TOKEN])
    for ex, g in zip(examples, goals, strict=True):
        assert ex.high is g
        assert ex.ids.count(high) == (g is True) and ex.ids.count(low) == (g is False)


def _flat(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        out.update(_flat(v, f"{prefix}{k}.") if isinstance(v, dict) else {f"{prefix}{k}": v})
    return out


def _diff(a, b) -> dict:
    x, y = _flat(to_dict(a)), _flat(to_dict(b))
    return {k: y[k] for k in x if x[k] != y[k] and k != "preset"}


def test_regime_rl_presets_differ_as_documented():
    base = rl.preset("regime-grpo")
    assert _diff(rl.preset("cpu-grpo"), base) == {
        "init": regime.SFT_INIT,
        "tasks.num_train": 10000,
        "tasks.num_eval": 1000,
        "tasks.synth_preset": "regime-d10",
        "rollout.group_size": 8,
        "tasks.num_eval_between": 200,
        "run.checkpoint_every": 50,
    }
    rc = {"algo.conditioning": "iid", "algo.eval_condition": "high", "algo.eval_low": True}
    assert _diff(base, rl.preset("regime-rcgrpo")) == {"init": regime.RCTP_INIT, **rc}
    assert _diff(base, rl.preset("regime-sft-rc")) == rc
    assert _diff(base, rl.preset("regime-rctp-grpo")) == {
        "init": regime.RCTP_INIT,
        "algo.conditioning": "high",
        "algo.eval_condition": "high",
    }
    # every step's prompts are fresh: 200 steps x 8 prompts <= 10,000 training tasks
    assert base.run.steps * base.rollout.prompts_per_step <= base.tasks.num_train


def test_regime_stage1_presets_differ_from_the_cpu_recipe_as_documented():
    sft = stage1("sft-synth-regime")
    assert validate_config(sft) is sft
    assert _diff(stage1("sft-synth-cpu"), sft) == {
        # design variant 3 (docs/lab-notes/2026-12-regime-design.md): the pool SFT checkpoint as base, one epoch
        "model.path": "results/campaign/sft-s0/final",
        "optim.lr": 3e-4,
        "optim.warmup_steps": 50,
        "sft.epochs": 1.0,
        "sft.length_curriculum": 0.0,
        "sft.synth_preset": "regime-d10",
        "sft.demonstrations": "demo",
        "sft.random_goals": 0.5,
        "sft.weak_snapshot_frac": 0.0,
        "run.root": "runs/regime",
        "run.name": "sft-regime",
    }
    rctp = stage1("rctp-synth-regime")
    assert _diff(stage1("rctp-synth-cpu"), rctp) == {
        "model.path": "results/campaign/sft-s0/final",  # the base, as SFT (variant 7)
        "sft.synth_preset": "regime-d10",
        "failures.policy": "runs/regime/sft-regime/final",  # the SFT model, at the RL temperature
        "run.root": "runs/regime",
        "run.name": "rctp-regime",
    }
    assert rctp.failures.temperature == rl.preset("regime-grpo").rollout.temperature
