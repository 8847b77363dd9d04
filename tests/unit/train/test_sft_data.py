"""Stage-1 data: determinism, expert labels, loss masks, reward-goal placement, 1:1 balance."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from rcgrpo.conditioning import HIGH_TOKEN, LOW_TOKEN
from rcgrpo.env import Episode
from rcgrpo.policy.chat import ChatEncoder
from rcgrpo.policy.policies import ScriptedPolicy
from rcgrpo.policy.rollout import RolloutEngine, RolloutJob
from rcgrpo.policy.task_sources import load_task_splits
from rcgrpo.policy.tokenizer import task_corpus, train_tiny_tokenizer
from rcgrpo.train.config import TaskConfig
from rcgrpo.train.errors import ConfigError
from rcgrpo.train.stage1.config import preset as stage1_preset
from rcgrpo.train.stage1.data import collate, encode_examples, goal_labels
from rcgrpo.train.stage1.trajectories import (
    Trajectory,
    encode_trajectory,
    expert_script,
    expert_trajectories,
    rctp_mix,
)
from rcgrpo.train.validate import validate_config

TASKS = TaskConfig(source="synth", num_train=12, num_eval=4, split_seed=3, max_turns=2)
ENGINE = dict(prompt_style="compact", max_context=100_000, max_new_tokens=100_000)


@pytest.fixture(scope="module")
def tasks():
    return load_task_splits(TASKS, "tiny")


@pytest.fixture(scope="module")
def tokenizer(tasks):
    return train_tiny_tokenizer(task_corpus(tasks[0]), vocab_size=400)


@pytest.fixture(scope="module")
def experts(tasks, tokenizer):
    enc = ChatEncoder(tokenizer)
    return {m: expert_trajectories(tasks[0], enc, m, **ENGINE) for m in ("multi_turn", "combined")}


def test_generator_to_dataset_is_deterministic(tasks, tokenizer, experts):
    again = load_task_splits(TASKS, "tiny")
    assert [t.id for t in again[0]] == [t.id for t in tasks[0]]
    assert again[0] == tasks[0] and again[1] == tasks[1]
    enc = ChatEncoder(tokenizer)
    redo = expert_trajectories(again[0], enc, "multi_turn", **ENGINE)
    assert redo == experts["multi_turn"]
    a, _ = encode_examples(redo, tokenizer, False, 10_000)
    b, _ = encode_examples(experts["multi_turn"], tokenizer, False, 10_000)
    assert [(e.ids, e.mask) for e in a] == [(e.ids, e.mask) for e in b]
    other = load_task_splits(dataclasses.replace(TASKS, split_seed=4), "tiny")
    assert [t.turns for t in other[0]] != [t.turns for t in tasks[0]]


def test_split_sizes_and_caps(tasks):
    train, test = tasks
    assert len(train) == 12 and len(test) == 4
    assert {t.id.split("_")[1] for t in train} == {"train"}
    assert {t.id.split("_")[1] for t in test} == {"test"}
    assert all(1 <= t.num_turns <= 2 and all(len(c) <= 2 for c in t.ground_truth) for t in train)


def test_experts_score_one_with_real_tool_outputs(tasks, experts):
    for trajs in experts.values():
        assert [t.reward for t in trajs] == [1] * 12 and all(t.failure_mode is None for t in trajs)
        for task, traj in zip(tasks[0], trajs, strict=True):
            calls = [c for turn in traj.calls_per_turn for c in turn]
            assert calls == [c for turn in task.ground_truth for c in turn]
            tools = [m for m in traj.messages if m["role"] == "tool"]
            assert len(tools) == len(calls)  # one real backend observation per call
    combined = experts["combined"][0]
    assert combined.messages[-1] == {"role": "assistant", "content": "[done()]"}


def test_expert_encoding_equals_the_rollout_tokenization(tasks, tokenizer, experts):
    # The SFT sequence of a conditioned expert is token-for-token what the rollout engine
    # produces for the same replies with the same reward goal (prompt, template, tools).
    enc = ChatEncoder(tokenizer)
    for mode in ("multi_turn", "combined"):
        engine = RolloutEngine(ScriptedPolicy(enc, expert_script), enc, Episode, mode, **ENGINE)
        rollouts = engine.run([RolloutJob(t, reward_high=True) for t in tasks[0][:4]])
        for traj, roll in zip(experts[mode][:4], rollouts, strict=True):
            ex = encode_trajectory(enc, traj, conditioned=True)
            assert ex.ids == roll.input_ids.tolist()
            assert ex.mask == roll.loss_mask.int().tolist()


def test_loss_mask_covers_exactly_the_assistant_tokens(tokenizer, experts):
    # Reference: transformers' own assistant mask from the template's {% generation %}
    # block (content + <|im_end|>), on the whole rendered conversation.
    for traj in experts["multi_turn"][:6] + experts["combined"][:6]:
        ex = encode_trajectory(ChatEncoder(tokenizer), traj, conditioned=False)
        ref = tokenizer.apply_chat_template(
            list(traj.messages),
            tokenize=True,
            return_dict=True,
            return_assistant_tokens_mask=True,
        )
        n = len(ex.ids)
        assert ref["input_ids"][:n] == ex.ids and ref["assistant_masks"][:n] == ex.mask
        assert sum(ref["assistant_masks"][n:]) == 0  # only the trailing "\n" is cut
        replies = [m["content"] for m in traj.messages if m["role"] == "assistant"]
        masked = [i for i, m in zip(ex.ids, ex.mask, strict=True) if m]
        assert tokenizer.decode(masked) == "".join(r + "<|im_end|>" for r in replies)


def test_collated_batch_keeps_the_masks_and_pads_outside_them(tokenizer, experts):
    examples, _ = encode_examples(experts["multi_turn"][:5], tokenizer, False, 10_000)
    batch = collate(examples, tokenizer.pad_token_id)
    width = max(len(e.ids) for e in examples)
    assert batch["input_ids"].shape == (5, width)
    for b, e in enumerate(examples):
        n = len(e.ids)
        assert batch["input_ids"][b, :n].tolist() == e.ids
        assert batch["loss_mask"][b, :n].int().tolist() == e.mask
        assert not batch["loss_mask"][b, n:].any() and not batch["attention_mask"][b, n:].any()
        assert (batch["input_ids"][b, n:] == tokenizer.pad_token_id).all()
    assert batch["loss_mask"].dtype == torch.bool


def _with_reward(traj: Trajectory, reward: int) -> Trajectory:
    return dataclasses.replace(traj, reward=reward, failure_mode=None if reward else "other")


@pytest.mark.parametrize("reward", [1, 0])
def test_reward_goal_once_in_the_first_user_message_matching_the_reward(tokenizer, experts, reward):
    enc = ChatEncoder(tokenizer)
    high_id, low_id = tokenizer.convert_tokens_to_ids([HIGH_TOKEN, LOW_TOKEN])
    for traj in experts["multi_turn"] + experts["combined"]:
        traj = _with_reward(traj, reward)
        ex = encode_trajectory(enc, traj, conditioned=True)
        want, other = (high_id, low_id) if reward else (low_id, high_id)
        assert ex.ids.count(want) == 1 and other not in ex.ids and ex.high is bool(reward)
        at = ex.ids.index(want)
        text_before = tokenizer.decode(ex.ids[:at])
        # inside the first user message: after its header, before any second user header
        assert text_before.count("<|im_start|>user\n") == 1
        assert "<|im_start|>assistant" not in text_before
        assert ex.mask[at] == 0
        plain = encode_trajectory(enc, traj, conditioned=False)
        assert high_id not in plain.ids and low_id not in plain.ids and plain.high is None


def test_encoding_refuses_an_already_conditioned_trajectory(tokenizer, experts):
    traj = experts["multi_turn"][0]
    bad = dataclasses.replace(
        traj, messages=tuple({**m, "content": m["content"] + LOW_TOKEN} for m in traj.messages)
    )
    with pytest.raises(ValueError, match="reward token"):
        encode_trajectory(ChatEncoder(tokenizer), bad, conditioned=True)


def test_rctp_mix_is_exactly_one_to_one_per_mode(experts):
    good = experts["multi_turn"] + experts["combined"][:5]
    bad = [_with_reward(t, 0) for t in experts["multi_turn"][:7] + experts["combined"]]
    mix = rctp_mix(good, bad, seed=0)
    for mode, n in (("multi_turn", 7), ("combined", 5)):
        rows = [t for t in mix if t.mode == mode]
        assert sum(t.reward == 1 for t in rows) == sum(t.reward == 0 for t in rows) == n
    assert len(mix) == 24 and rctp_mix(good, bad, seed=0) == mix
    assert rctp_mix(good, bad, seed=1) != mix  # the draw depends on the seed
    with pytest.raises(ValueError, match="failures must all have reward 0"):
        rctp_mix(good, good, seed=0)
    with pytest.raises(ValueError, match="successes must all have reward 1"):
        rctp_mix(bad, bad, seed=0)


def _mix(experts):
    good = experts["multi_turn"] + experts["combined"][:5]
    bad = [_with_reward(t, 0) for t in experts["multi_turn"][:7] + experts["combined"]]
    return rctp_mix(good, bad, seed=0)


def test_reward_labels_encode_exactly_as_the_conditioned_path(tokenizer, experts):
    mix = _mix(experts)
    goals = goal_labels(mix, "reward", seed=0)
    assert goals == [t.reward == 1 for t in mix]
    via_labels, _ = encode_examples(mix, tokenizer, False, 10_000, goals)
    conditioned, _ = encode_examples(mix, tokenizer, True, 10_000)
    assert via_labels == conditioned


def test_shuffled_labels_keep_each_modes_high_count_and_forget_the_reward(experts):
    mix = _mix(experts)  # 7 + 7 multi_turn, 5 + 5 combined
    goals = goal_labels(mix, "shuffled", seed=0)
    assert goals == goal_labels(mix, "shuffled", seed=0)  # deterministic in the seed
    for mode, n in (("multi_turn", 7), ("combined", 5)):
        rows = [g for g, t in zip(goals, mix, strict=True) if t.mode == mode]
        assert sum(rows) == n and len(rows) == 2 * n
    agree = [g == (t.reward == 1) for g, t in zip(goals, mix, strict=True)]
    assert 0 < sum(agree) < len(mix)  # some labels moved, not all
    draws = [goal_labels(mix, "shuffled", seed=s) for s in range(200)]
    # P(high | success) over seeds ~ 1/2: the label is independent of the reward
    wins = [g for d in draws for g, t in zip(d, mix, strict=True) if t.reward == 1]
    assert abs(sum(wins) / len(wins) - 0.5) < 0.05
    with pytest.raises(ValueError, match="goals.labels must be one of"):
        goal_labels(mix, "random", seed=0)


def test_a_wrong_goal_label_scheme_is_one_config_error():
    cfg = stage1_preset("rctp-collapse")
    cfg.goals.labels = "noise"
    with pytest.raises(ConfigError, match="goals.labels"):
        validate_config(cfg)


def test_isolated_whitespace_tokenizer_copies_values_token_for_token(tasks, tmp_path):
    # GPT-2 style BPE spells " rego" (after a space) and "rego" (after "='") differently;
    # with isolated whitespace both spellings give the same ids, and the choice survives
    # save_pretrained / from_pretrained.
    from transformers import AutoTokenizer

    corpus = task_corpus(tasks[0]) + ["Rename rego.log now. [mv(source='rego.log')]"] * 50
    tok = train_tiny_tokenizer(corpus, vocab_size=400, isolate_whitespace=True)
    tok.save_pretrained(tmp_path)
    for t in (tok, AutoTokenizer.from_pretrained(tmp_path)):
        user = t("Rename rego.log now.", add_special_tokens=False)["input_ids"]
        call = t("[mv(source='rego.log')]", add_special_tokens=False)["input_ids"]
        value = t("rego.log", add_special_tokens=False)["input_ids"]
        for ids in (user, call):
            assert any(ids[i : i + len(value)] == value for i in range(len(ids)))
        assert t.decode(user) == "Rename rego.log now."
    plain = train_tiny_tokenizer(corpus, vocab_size=400)
    user = plain("Rename rego.log", add_special_tokens=False)["input_ids"]
    value = plain("rego.log", add_special_tokens=False)["input_ids"]
    assert not any(user[i : i + len(value)] == value for i in range(len(user)))
