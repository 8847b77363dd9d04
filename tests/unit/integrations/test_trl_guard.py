"""The guard against one goal per group (rcgrpo/integrations/guard.py)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from datasets import Dataset

from rcgrpo.integrations.guard import (
    check_dataset_goals,
    check_grouped_generation,
    check_multi_turn_backend,
    check_no_shared_goals,
)

CLEAN = [[{"role": "user", "content": "Copy a.txt to b.txt."}]]


def _vllm(mode, tp=1):
    return SimpleNamespace(use_vllm=True, vllm_mode=mode, vllm_tensor_parallel_size=tp)


@pytest.mark.parametrize(
    "dataset",
    [
        Dataset.from_dict({"prompt": CLEAN, "reward_high": [True]}),
        Dataset.from_dict(
            {"prompt": [[{"role": "user", "content": "Copy.\n[Reward Goal: <|high_reward|>]"}]]}
        ),
        Dataset.from_dict({"prompt": ["Copy a.txt. <|low_reward|>"]}),
    ],
    ids=["goal-column", "goal-in-chat-prompt", "token-in-text-prompt"],
)
def test_dataset_level_goal_is_refused_in_one_line(dataset):
    with pytest.raises(ValueError, match="dataset-level reward goal") as err:
        check_dataset_goals(dataset)
    assert "\n" not in str(err.value) and "G times" in str(err.value)


def test_clean_dataset_passes():
    check_dataset_goals(Dataset.from_dict({"prompt": CLEAN, "task_id": ["t0"]}))


def test_vllm_server_with_grouped_generation_is_refused():
    with pytest.raises(ValueError, match=r"all_prompts\[::num_generations\]") as err:
        check_no_shared_goals(_vllm("server"), None, grouped_generation=True)
    assert "\n" not in str(err.value)
    # colocate generates one completion per (per-rollout) prompt, and per-rollout
    # generation never groups: both pass the sharing check
    check_grouped_generation(_vllm("colocate"), grouped=True)
    check_grouped_generation(_vllm("server"), grouped=False)


@pytest.mark.parametrize(
    ("args", "message"), [(_vllm("server"), "server"), (_vllm("colocate", 2), "tensor")]
)
def test_collective_vllm_settings_are_refused_for_multi_turn(args, message):
    with pytest.raises(ValueError, match=message):
        check_multi_turn_backend(args)
    check_multi_turn_backend(_vllm("colocate"))
    check_multi_turn_backend(SimpleNamespace(use_vllm=False))
