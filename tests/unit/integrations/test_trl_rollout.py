"""TRL rollout_func pieces without a trainer: multi-turn episodes, goal placement, token
bookkeeping, reward, and the vLLM policy's per-rollout calls (rcgrpo/integrations/trl_rollout.py)."""

from __future__ import annotations

import pytest
import torch

from rcgrpo.conditioning import reward_goal_text
from rcgrpo.env import Episode, score_trajectory
from rcgrpo.integrations.trl_rollout import (
    EpisodeRollout,
    RolloutSettings,
    VLLMPolicy,
    rollouts_to_trl,
)
from rcgrpo.policy.policies import Request, ScriptedPolicy, StepView, oracle_script
from rcgrpo.policy.render import initial_messages
from rcgrpo.policy.task_sources import load_tasks
from rcgrpo.train.rollouts import rollout_row


@pytest.fixture(scope="module")
def two_turn_tasks():
    return load_tasks("synth", "train", 0, 3, preset="tiny", turns=(2, 2), calls_per_turn=(1, 2))


def _run(tasks, tokenizer, script, high, mode="multi_turn"):
    settings = RolloutSettings(mode=mode, prompt_style="compact", max_context=4000)
    rollout = EpisodeRollout(tasks, tokenizer, settings)
    policy = ScriptedPolicy(rollout.encoder, script)
    ids = [t.id for t in tasks]
    return rollout, rollout.run(ids, torch.tensor(high), policy, seed=0)


def test_multi_turn_episode_goal_placement_masks_and_reward(two_turn_tasks, coin_flip_tokenizer):
    high = [True, False, True]
    rollout, rollouts = _run(two_turn_tasks, coin_flip_tokenizer, oracle_script, high)
    out = rollouts_to_trl(rollouts)
    enc = rollout.encoder
    for b, (task, r) in enumerate(zip(two_turn_tasks, rollouts, strict=True)):
        ep = Episode()
        first = ep.reset(task, mode="multi_turn")
        expected = initial_messages(first, ep.available_functions, "compact", high[b])
        # the prompt is exactly the renderer's: goal appended once to the first user message
        assert out["prompt_ids"][b] == enc.prompt_ids(expected)
        prompt_text = enc.decode(out["prompt_ids"][b])
        assert prompt_text.count("[Reward Goal:") == 1 and reward_goal_text(high[b]) in prompt_text
        # completion: 4 assistant messages (calls, "Done." per turn) and, masked out, the
        # tool results and the second user turn
        completion, mask = out["completion_ids"][b], out["env_mask"][b]
        assert len(completion) == len(mask) == len(out["logprobs"][b]) == r.length - r.prompt_length
        generated = sum(end - start for start, end in r.message_spans)
        assert sum(mask) == generated and 0 < generated < len(completion)
        assert task.turns[1][0]["content"] in enc.decode(
            [t for t, m in zip(completion, mask, strict=True) if not m]
        )
        assert r.message_turns == (0, 0, 1, 1)
        # the oracle succeeds, and the reward is score_trajectory's on the executed calls
        replay = score_trajectory(task, out["rc_calls"][b], "multi_turn")
        assert out["rc_reward"][b] == replay.reward == 1.0
        assert out["rc_high"][b] is high[b] and out["rc_task_id"][b] == task.id
        assert out["rc_row"][b] == rollout_row(r)  # the trainer's table row
    assert out["rc_num_steps"] == [4, 4, 4] and out["rc_truncated"] == [False] * 3


def test_a_policy_that_never_calls_gets_zero_like_score_trajectory(
    two_turn_tasks, coin_flip_tokenizer
):
    _, rollouts = _run(two_turn_tasks[:2], coin_flip_tokenizer, lambda view: "Done.", [False, True])
    out = rollouts_to_trl(rollouts)
    assert out["rc_calls"] == [[[], []], [[], []]] and out["rc_num_calls"] == [0, 0]
    for task, calls, reward in zip(two_turn_tasks, out["rc_calls"], out["rc_reward"], strict=False):
        assert reward == score_trajectory(task, calls, "multi_turn").reward == 0.0


def test_unknown_task_id_is_refused(two_turn_tasks, coin_flip_tokenizer):
    rollout = EpisodeRollout(two_turn_tasks, coin_flip_tokenizer)
    policy = ScriptedPolicy(rollout.encoder, oracle_script)
    with pytest.raises(ValueError, match="unknown task_id 'nope'"):
        rollout.run(["nope"], torch.tensor([True]), policy, seed=0)


def test_round_counter_counts_calls_within_one_optimizer_step(two_turn_tasks, coin_flip_tokenizer):
    rollout = EpisodeRollout(two_turn_tasks, coin_flip_tokenizer)
    assert [rollout.next_round(s) for s in (0, 0, 0, 1, 1, 3)] == [0, 1, 2, 0, 1, 0]


class FakeVLLM:
    """TRL's VLLMGeneration.generate interface; records every call."""

    def __init__(self, replies):
        self.replies, self.calls = replies, []

    def generate(self, prompts, images, num_generations):
        self.calls.append(([list(p) for p in prompts], num_generations))
        ids = [self.replies[len(p)] for p in prompts]
        logprobs = [[[-0.5 - k] for k in range(len(row))] for row in ids]
        return prompts, ids, logprobs, None


def test_vllm_policy_sends_one_prompt_per_rollout_and_keeps_context():
    # replies keyed by prompt length: rollout contexts of length 2 and 3 get different
    # completions; stop id 9 ends a message, the per-request cap cuts the other
    fake = FakeVLLM({2: [5, 9, 7], 3: [4, 4, 4, 4], 5: [8, 9]})
    policy = VLLMPolicy(fake, stop_ids=[9])
    policy.begin_run(0)
    view = StepView(None, "combined", 0, 0, [])
    first = policy.generate([Request(0, [1, 2], 8, view), Request(1, [1, 2, 3], 2, view)])
    assert [g.ids for g in first] == [[5, 9], [4, 4]]
    assert first[0].logprobs == [-0.5, -1.5]
    assert fake.calls[0] == ([[1, 2], [1, 2, 3]], 1)  # per-rollout prompts, n = 1
    # the next message of rollout 0: context = prompt + its reply + the new tokens
    (second,) = policy.generate([Request(0, [6], 8, view)])
    assert fake.calls[1] == ([[1, 2, 5, 9, 6]], 1) and second.ids == [8, 9]


@pytest.mark.bfcl
def test_bfcl_tasks_go_through_the_same_path(coin_flip_tokenizer):
    # 2 BFCL base tasks, multi_turn, the official system prompt; the oracle succeeds and the
    # rollout's reward is the replay's, as for synth tasks
    from rcgrpo.env import load_bfcl_tasks

    tasks = load_bfcl_tasks(["base"])[:2]
    settings = RolloutSettings(
        mode="multi_turn", prompt_style="bfcl", max_new_tokens=4096, max_context=10**6
    )
    rollout = EpisodeRollout(tasks, coin_flip_tokenizer, settings)
    policy = ScriptedPolicy(rollout.encoder, oracle_script)
    out = rollouts_to_trl(
        rollout.run([t.id for t in tasks], torch.tensor([True, False]), policy, 0)
    )
    for task, calls, reward in zip(tasks, out["rc_calls"], out["rc_reward"], strict=True):
        assert reward == score_trajectory(task, calls, "multi_turn").reward == 1.0
    assert [rollout.encoder.decode(p).count("[Reward Goal:") for p in out["prompt_ids"]] == [1, 1]


def test_a_force_quit_rollout_is_logged_truncated_and_replays_to_its_reward(
    two_turn_tasks, coin_flip_tokenizer
):
    """The oracle's calls, then the context ends inside its closing "Done.": the engine
    force-quits the episode, which scores R = 0 by design although its calls alone replay
    to R = 1. The row says so (``truncated``), and the replay that uses it agrees."""
    task = two_turn_tasks[:1]
    _, (full,) = _run(task, coin_flip_tokenizer, oracle_script, [True], mode="combined")
    assert full.reward == 1.0 and not full.truncated
    settings = RolloutSettings(mode="combined", prompt_style="compact", max_context=full.length - 2)
    rollout = EpisodeRollout(task, coin_flip_tokenizer, settings)
    policy = ScriptedPolicy(rollout.encoder, oracle_script)
    (cut,) = rollout.run([task[0].id], torch.tensor([True]), policy, seed=0)
    out = rollouts_to_trl([cut])
    row = out["rc_row"][0]
    assert row == rollout_row(cut) and row["truncated"] is True and out["rc_truncated"] == [True]
    calls = out["rc_calls"][0]
    assert score_trajectory(task[0], calls, "combined").reward == 1.0  # what the calls alone give
    replay = score_trajectory(task[0], calls, "combined", truncated=row["truncated"])
    assert out["rc_reward"][0] == row["reward"] == replay.reward == 0.0
