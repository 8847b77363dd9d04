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
