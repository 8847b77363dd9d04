"""GroupDiagnosticsCallback on a STOCK trl.GRPOTrainer (rcgrpo/integrations/trl_callback.py).

A 3-step CPU run: the coin-flip checkpoint (tests/smoke/rl_smoke_helpers.py), its 2 synth
tasks, G = 4, 2 prompts per round, a user-written reward function (the environment's
R = R_state · R_action of the completion, scored by ``score_trajectory``), no reference
model (β = 0). Gradient accumulation 2, so a round is generated inside an accumulation
cycle and read at ``on_substep_end``. Checked:

- TRL's own ``frac_reward_zero_std`` equals the callback's ``group/zero_var_frac`` at every
  logged step (the same rounds, the same groups);
- the callback's logged metrics equal ``python -m rcgrpo diagnose`` on the rollouts it wrote;
- the rewards it read are TRL's (their mean is TRL's logged ``reward``) and its advantages
  are TRL's: grpo with ddof 1 and ε 1e-4 of those rewards.
"""

from __future__ import annotations

import json
import math

import pytest
import torch
from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

from rcgrpo.advantages import group_advantages
from rcgrpo.diagnose import cli
from rcgrpo.env import score_trajectory
from rcgrpo.integrations.trl import task_dataset
from rcgrpo.integrations.trl_callback import GroupDiagnosticsCallback

G, P, STEPS = 4, 2, 3


@pytest.fixture(scope="module")
def run(coin_flip_dir, coin_flip_tokenizer, coin_flip_tasks, tmp_path_factory):
    tasks = {t.id: t for t in coin_flip_tasks}

    def env_reward(prompts, completions, task_id, **kwargs):  # an ordinary user reward
        texts = [c[-1]["content"] if isinstance(c, list) else c for c in completions]
        return [
            float(score_trajectory(tasks[t], [[x]], mode="combined").reward)
            for x, t in zip(texts, task_id, strict=True)
        ]

    data = task_dataset(coin_flip_tasks, "combined", "bare")
    data = Dataset.from_dict(
        {"prompt": list(data["prompt"]) * 4, "task_id": list(data["task_id"]) * 4}
    )
    out = tmp_path_factory.mktemp("stock_trl")
    args = GRPOConfig(
        output_dir=str(out),
        report_to=[],
        use_cpu=True,
        bf16=False,
        seed=0,
        max_steps=STEPS,
        num_generations=G,
        per_device_train_batch_size=P * G // 2,
        gradient_accumulation_steps=2,
        max_completion_length=24,
        temperature=1.0,
        beta=0.0,
        learning_rate=1e-3,
        logging_steps=1,
        save_strategy="no",
        disable_tqdm=True,
    )
    torch.manual_seed(0)
    trainer = GRPOTrainer(
        model=str(coin_flip_dir),
        reward_funcs=[env_reward],
        args=args,
        train_dataset=data,
        processing_class=coin_flip_tokenizer,
    )
    callback = GroupDiagnosticsCallback(trainer, rollout_log=out / "rollouts.jsonl")
    trainer.add_callback(callback)
    trainer.train()
    logged = [row for row in trainer.state.log_history if "frac_reward_zero_std" in row]
    return logged, out / "rollouts.jsonl", out


def test_every_step_logs_the_instruments_through_trl(run):
    logged, _, _ = run
    assert [row["step"] for row in logged] == [1, 2, 3]
    for row in logged:
        for key in ("group/zero_var_frac", "group/zero_var_predicted_pooled", "adv/gap_mean"):
            assert key in row


def test_trl_frac_reward_zero_std_equals_the_zero_variance_share(run):
    logged, _, _ = run
    for row in logged:
        assert row["frac_reward_zero_std"] == row["group/zero_var_frac"]
        assert row["reward"] == pytest.approx(row["reward/mean"], rel=1e-6)


def test_the_rollouts_are_trls_rewards_and_advantages(run):
    _, path, _ = run
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(rows) == STEPS * P * G
    for step in range(1, STEPS + 1):
        mine = [r for r in rows if r["step"] == step]
        rewards = torch.tensor([r["reward"] for r in mine]).view(P, G)
        adv = torch.tensor([r["advantage"] for r in mine]).view(P, G)
        trl = group_advantages(rewards, "grpo", eps_stab=1e-4, ddof=1)
        assert torch.allclose(adv, trl, atol=1e-5)


def test_diagnose_on_the_callbacks_rollouts_equals_its_logged_metrics(run, tmp_path):
    logged, path, _ = run
    args = cli._parser().parse_args([str(path), "--advantage-col", "advantage"])
    report = cli.diagnose(args)
    assert [s["step"] for s in report["steps"]] == [1, 2, 3]
    for row, step in zip(logged, report["steps"], strict=True):
        for key, value in step.items():
            if "/" in key:
                assert (row[key] is None and math.isnan(value)) or row[key] == value, key


def _fake_trainer(rewards: list[float], advantages: list[float], group: int):
    """The attributes of a GRPOTrainer the callback reads, after one train round."""
    from collections import defaultdict
    from types import SimpleNamespace

    metrics = {"train": defaultdict(list)}
    metrics["train"]["frac_reward_zero_std"].append(0.5)
    return SimpleNamespace(
        args=SimpleNamespace(generation_batch_size=len(rewards)),
        num_generations=group,
        reward_func_names=["r"],
        reward_weights=torch.ones(1),
        _logs={"rewards": {"r": rewards}, "advantages": advantages},
        _metrics=metrics,
        model=SimpleNamespace(training=True),
        accelerator=SimpleNamespace(is_main_process=True),
    )


def test_hand_made_groups_equal_the_repo_trainers_registry_formulas():
    from rcgrpo.train.config import AlgoConfig
    from rcgrpo.train.rl.filters import Collected, Round
    from rcgrpo.train.rl.step_metrics import group_metrics

    rewards = torch.tensor([[1.0, 1.0, 1.0, 1.0], [1.0, 0.0, 0.0, 0.0]])
    adv = group_advantages(rewards, "grpo", eps_stab=1e-4, ddof=1)  # TRL's advantage
    trainer = _fake_trainer(rewards.view(-1).tolist(), adv.view(-1).tolist(), 4)
    GroupDiagnosticsCallback(trainer)._collect(step=1)
    got = {k: v[0] for k, v in trainer._metrics["train"].items() if "/" in k}
    # hand: one all-pass group of two; s̄ = 5/8 -> (5/8)^4 + (3/8)^4; group 2: s = 1/4,
    # σ² = 3/16; TRL's σ (ddof 1) = 1/2 -> spread 1/(1/2 + 1e-4)
    assert got["group/zero_var_frac"] == 0.5 and got["group/zero_var_success_frac"] == 0.5
    assert got["group/zero_var_predicted_pooled"] == pytest.approx((5 / 8) ** 4 + (3 / 8) ** 4)
    assert got["group/zero_var_predicted"] == pytest.approx((1 + 0.25**4 + 0.75**4) / 2)
    assert got["group/var_mean"] == pytest.approx(3 / 32)
    assert got["adv/gap_mean"] == pytest.approx(0.5 / (0.5 + 1e-4), rel=1e-6)
    # the repository trainer's own metrics of the same groups under TRL's estimator
    algo = AlgoConfig(adv_estimator="grpo", eps_stab=1e-4, adv_ddof=1, conditioning="none")
    collected = Collected([Round(rewards, None, [], {})], [torch.ones(2, dtype=torch.bool)])
    trainer_metrics = {k: float(v) for k, v in group_metrics(collected, algo).items()}
    for key, value in got.items():
        assert value == pytest.approx(trainer_metrics[key], rel=1e-6, abs=1e-12), key
