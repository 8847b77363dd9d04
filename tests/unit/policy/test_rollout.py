"""Rollout engine bookkeeping with a scripted policy and the fake episode."""

from __future__ import annotations

import pytest
import torch
from policy_fakes import FakeEpisode, fake_tasks

from rcgrpo.conditioning import HIGH_TOKEN, LOW_TOKEN
from rcgrpo.policy.chat import ChatEncoder
from rcgrpo.policy.policies import ScriptedPolicy, oracle_script
from rcgrpo.policy.rollout import RolloutEngine
from rcgrpo.records import RolloutBatch


def _engine(tokenizer, mode="multi_turn", **kw):
    encoder = ChatEncoder(tokenizer)
    policy = ScriptedPolicy(encoder, oracle_script)
    return RolloutEngine(policy, encoder, FakeEpisode, mode=mode, max_context=4096, **kw)


def test_turn_and_step_boundaries_hand_case(tiny_tokenizer):
    # fake task 1: turn 0 ground truth [mv, ls], turn 1 [mv]. The oracle writes the calls,
    # then a reply without calls that ends the turn: 4 messages in turns 0, 0, 1, 1.
    task = fake_tasks(2)[1]
    (multi,) = _engine(tiny_tokenizer).run_groups([task], 1, None).rollouts
    assert multi.message_turns == (0, 0, 1, 1) and multi.num_steps == 4
    assert multi.calls_per_turn == [
        ["mv(source='a1.txt', destination='b0')", "ls(a=True)"],
        ["mv(source='a1.txt', destination='b1')"],
    ]
    assert multi.message_spans[0][0] == multi.prompt_length
    assert multi.message_spans[-1][1] == multi.length  # ends on the last EOS
    # combined mode: one message with all three calls, then the stop reply
    (comb,) = _engine(tiny_tokenizer, "combined").run_groups([task], 1, None).rollouts
    assert comb.message_turns == (0, 0) and comb.reward == 1.0


def test_group_layout_and_reward_tokens(tiny_tokenizer):
    tasks = fake_tasks(3)
    high = torch.tensor([[True, False], [False, False], [True, True]])
    batch = _engine(tiny_tokenizer, max_batch=2).run_groups(tasks, 2, high)
    assert (batch.num_prompts, batch.group_size) == (3, 2)
    assert torch.equal(batch.reward_high(), high)
    assert torch.equal(batch.rewards(), torch.ones(3, 2))
    high_id, low_id = tiny_tokenizer.convert_tokens_to_ids([HIGH_TOKEN, LOW_TOKEN])
    for b, r in enumerate(batch.rollouts):
        assert (r.prompt_index, r.group_index) == divmod(b, 2)
        assert r.task_id == tasks[b // 2].id
        ids = r.input_ids.tolist()
        # the token appears exactly once, in the prompt, never in generated positions
        want, other = (high_id, low_id) if r.reward_high else (low_id, high_id)
        assert ids.count(want) == 1 and ids.count(other) == 0
        assert ids.index(want) < r.prompt_length
    plain = _engine(tiny_tokenizer).run_groups(tasks, 2, None)
    for r in plain.rollouts:
        assert r.reward_high is None
        assert high_id not in r.input_ids.tolist() and low_id not in r.input_ids.tolist()


def test_padded_batch_is_right_padded(tiny_tokenizer):
    batch = _engine(tiny_tokenizer).run_groups(fake_tasks(3), 2, None)
    out = batch.padded(pad_id=0)
    lengths = [r.length for r in batch.rollouts]
    assert out["input_ids"].shape == (6, max(lengths))
    assert out["attention_mask"].sum(dim=1).tolist() == lengths
    for b, r in enumerate(batch.rollouts):
        assert torch.equal(out["loss_mask"][b, : r.length], r.loss_mask)
        assert not out["loss_mask"][b, r.length :].any()
        assert bool((out["input_ids"][b, r.length :] == 0).all())


def test_batch_size_does_not_change_scripted_results(tiny_tokenizer):
    tasks = fake_tasks(4)
    one = _engine(tiny_tokenizer, max_batch=1).run_groups(tasks, 2, None).rollouts
    many = _engine(tiny_tokenizer, max_batch=8).run_groups(tasks, 2, None).rollouts
    assert [r.input_ids.tolist() for r in one] == [r.input_ids.tolist() for r in many]


def test_bad_arguments(tiny_tokenizer):
    encoder = ChatEncoder(tiny_tokenizer)
    policy = ScriptedPolicy(encoder, oracle_script)
    with pytest.raises(ValueError, match="mode"):
        RolloutEngine(policy, encoder, FakeEpisode, mode="single", max_context=100)
    with pytest.raises(ValueError, match="max_context"):
        RolloutEngine(policy, encoder, FakeEpisode)  # scripted policies have no context size
    with pytest.raises(ValueError, match="reward_high"):
        _engine(tiny_tokenizer).run_groups(fake_tasks(2), 2, torch.ones(3, 2, dtype=torch.bool))
    with pytest.raises(ValueError, match="num_prompts"):
        RolloutBatch([], 1, 2)
