"""The TRL config (python -m rcgrpo trl) mapped to GRPOConfig, the paper's Stage-2 preset, and
the trainer-level guard (rcgrpo/integrations/trl_cli.py, rcgrpo/integrations/trl.py)."""

from __future__ import annotations

import pytest
import torch
from datasets import Dataset
from trl import GRPOConfig

from rcgrpo.advantages import ADV_ESTIMATORS
from rcgrpo.conditioning import SCHEMES, goal_schemes
from rcgrpo.integrations.trl import RCGRPOTrainer, RolloutSettings, task_dataset, trl_advantages
from rcgrpo.integrations.trl_cli import grpo_kwargs, training_tasks
from rcgrpo.train.cli import parse_cli
from rcgrpo.train.errors import ConfigError

CPU = {"report_to": [], "use_cpu": True, "bf16": False}


def _config(*flags: str):
    return parse_cli("trl", ["--init", "m", *flags])


def test_paper_stage2_on_8_gpus():
    k = grpo_kwargs(_config("--preset", "trl-paper"), num_processes=8)
    paper = {"num_generations": 5, "beta": 0.1, "epsilon": 0.2, "learning_rate": 1e-6}
    assert {key: k[key] for key in paper} == paper and k["max_steps"] == 400
    # 256 prompts x 5 = 1280 rollouts = 8 per device x 8 GPUs x 20 accumulation steps
    assert k["gradient_accumulation_steps"] == 20 and k["num_iterations"] == 1
    assert (k["loss_type"], k["use_bias_correction_kl"], k["scale_rewards"]) == (
        "dapo",
        False,
        "group",
    )
    assert k["gradient_checkpointing"] and k["use_vllm"] and k["bf16"]


def test_paper_stage2_config_on_one_cpu_process_keeps_1280_rollouts_per_step(tmp_path):
    k = grpo_kwargs(_config("--preset", "trl-paper"), 1)
    k |= {**CPU, "output_dir": str(tmp_path), "use_vllm": False, "gradient_checkpointing": False}
    args = GRPOConfig(**k)
    assert args.generation_batch_size == 1280 and args.steps_per_generation == 160
    assert args.generation_batch_size // args.num_generations == 256  # prompts per step


def test_batch_that_does_not_divide_1280_is_refused():
    cfg = _config("--preset", "trl-paper", "--trl.per-device-batch", "7")
    with pytest.raises(ValueError, match="not a multiple of 21"):
        grpo_kwargs(cfg, num_processes=3)


def test_config_maps_to_one_generation_round_per_step(tmp_path):
    cfg = _config("--rollout.group-size", "5", "--rollout.prompts-per-step", "3")
    cfg.run.root = str(tmp_path)
    k = grpo_kwargs(cfg, num_processes=1)
    assert k["per_device_train_batch_size"] == 15 and k["gradient_accumulation_steps"] == 1
    assert k["num_generations"] == 5 and k["output_dir"] == str(tmp_path / "trl-cpu-s0")
    assert k["use_vllm"] is False and k["use_bias_correction_kl"] is False
    # 3 x 5 = 15 rollouts on 5 processes: 3 per device, one pass
    assert grpo_kwargs(cfg, 5)["per_device_train_batch_size"] == 3


@pytest.mark.parametrize(
    ("config", "dataset", "settings", "message"),
    [
        ({"use_vllm": True, "vllm_mode": "server"}, None, {}, "vllm_mode='server'"),
        ({}, "goal-column", {}, "dataset-level reward goal"),
        ({"use_vllm": True, "vllm_mode": "colocate"}, None, {}, "go together"),
        ({}, None, {"backend": "vllm"}, "go together"),
        ({"top_k": 5}, None, {}, "top_k is not applied"),
        ({"scale_rewards": "none"}, None, {}, "leave it at 'group'"),
    ],
)
def test_trainer_refuses_before_loading_anything(
    config, dataset, settings, message, coin_flip_tasks, tmp_path
):
    args = GRPOConfig(
        output_dir=str(tmp_path), per_device_train_batch_size=8, num_generations=4, **CPU, **config
    )
    if dataset == "goal-column":
        rows = task_dataset(coin_flip_tasks).to_dict()
        dataset = Dataset.from_dict({**rows, "reward_high": [True, False]})
    with pytest.raises(ValueError, match=message):
        # a model path that does not exist and no tokenizer: the guard runs first
        RCGRPOTrainer(
            "no/such/model", args, coin_flip_tasks, None, RolloutSettings(**settings), dataset
        )


def test_an_estimator_outside_the_registry_is_refused(coin_flip_tasks, tmp_path):
    args = GRPOConfig(output_dir=str(tmp_path), per_device_train_batch_size=8, **CPU)
    with pytest.raises(ValueError, match="adv_estimator must be one of"):
        RCGRPOTrainer("no/such/model", args, coin_flip_tasks, None, adv_estimator="group")


def test_the_cli_and_the_trainer_config_take_the_registry_names():
    for name in ADV_ESTIMATORS:
        assert _config("--algo.adv-estimator", name).algo.adv_estimator == name
        cfg = parse_cli("train", ["--preset", "cpu-grpo", "--algo.adv-estimator", name])
        assert cfg.algo.adv_estimator == name
    with pytest.raises(ConfigError, match="algo.adv_estimator must be one of"):
        _config("--algo.adv-estimator", "group")
    # every rollout carries a goal on this path: 'none' (plain GRPO) is not a goal scheme
    assert "none" in SCHEMES and "none" not in goal_schemes()
    with pytest.raises(ConfigError, match="algo.conditioning must be one of"):
        _config("--algo.conditioning", "none")
    with pytest.raises(ConfigError, match="does not apply to trl"):
        _config("--algo.clip-high", "0.28")  # read by train only


def test_trl_advantages_use_trl_std_for_grpo_and_none_for_rloo():
    # R = (1, 0, 0, 0): μ = 1/4, Σ(R - μ)² = 9/16 + 3 · 1/16 = 3/4
    r = torch.tensor([[1.0, 0.0, 0.0, 0.0]], dtype=torch.float64)
    # grpo, TRL's ddof 1 and eps 1e-4: σ = sqrt(3/4 / 3) = 1/2 ⇒ A = (3/4, -1/4 ×3) / 0.5001
    want = torch.tensor([[0.75, -0.25, -0.25, -0.25]], dtype=torch.float64) / 0.5001
    torch.testing.assert_close(trl_advantages(r, "grpo"), want)
    # rloo: A_0 = 1 - (0 + 0 + 0)/3 = 1, A_j = 0 - (1 + 0 + 0)/3 = -1/3 (no std, no eps)
    want = torch.tensor([[1.0, -1 / 3, -1 / 3, -1 / 3]], dtype=torch.float64)
    torch.testing.assert_close(trl_advantages(r, "rloo"), want)


def test_task_dataset_rows_carry_no_goal(coin_flip_tasks):
    ds = task_dataset(coin_flip_tasks, "combined", "bare")
    assert ds["task_id"] == [t.id for t in coin_flip_tasks]
    text = str(ds["prompt"])
    assert "Reward Goal" not in text and "Call done() when you have finished." in text


def test_the_cli_task_sources_are_the_registry():
    from rcgrpo.policy.task_sources import TASK_SOURCES, register_task_source

    register_task_source("unit_rows", lambda split, seed=0, limit=None: [split, seed, limit])
    flags = ["--tasks.source", "unit_rows", "--tasks.num-train", "2", "--tasks.split-seed", "4"]
    try:
        assert training_tasks(_config(*flags)) == ["train", 4, 2]
        assert training_tasks(_config(*flags[:2], "--tasks.num-train", "0"))[2] is None  # all
    finally:
        TASK_SOURCES.pop("unit_rows")
    with pytest.raises(ConfigError, match="tasks.source must be one of"):
        _config(*flags)
