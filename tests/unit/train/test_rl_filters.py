"""Group filters, DAPO dynamic sampling rounds, the training batch and the rollout table."""

from __future__ import annotations

import pytest
import torch
from rl_fakes import fake_rollout

from rcgrpo.train.config import AlgoConfig
from rcgrpo.train.rl.filters import (
    GROUP_FILTERS,
    Round,
    collect_groups,
    conversation_rows,
    keep_outcome_varied,
    table_rows,
    training_batch,
)


def test_dapo_keeps_groups_whose_binary_outcome_varies():
    rewards = torch.tensor([[1.0, 1.0, 1.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.5, 0.0, 0.0]])
    # all-success and all-fail dropped; a shaped 0.5 is not a success: (0.5, 0, 0) has no
    # success at all, so its outcome is constant and it is dropped although its reward varies
    assert keep_outcome_varied(rewards).tolist() == [False, True, False, False]
    assert GROUP_FILTERS["none"](rewards).tolist() == [True] * 4


def _round(rewards, start=0):
    rewards = torch.tensor(rewards, dtype=torch.float32)
    size = rewards.shape[1]
    rows = [{"reward": float(r), "id": start + i} for i, r in enumerate(rewards.view(-1))]
    local = {
        p: [fake_rollout([1, 2, 3], 2, float(rewards[p, g]), p=p, g=g) for g in range(size)]
        for p in range(rewards.shape[0])
    }
    return Round(rewards, None, rows, local)


def test_collect_resamples_until_full_and_cuts_at_target():
    rounds = [_round([[0, 0], [1, 0]]), _round([[1, 1], [0, 1]]), _round([[1, 0], [0, 1]])]
    calls = []

    def generate(i):
        calls.append(i)
        return rounds[i]

    out = collect_groups(generate, keep_outcome_varied, target=2, max_rounds=5)
    # round 0 keeps group 1, round 1 keeps group 1 -> full after 2 rounds
    assert calls == [0, 1]
    assert out.kept.tolist() == [False, True, False, True]
    out = collect_groups(lambda i: rounds[2], keep_outcome_varied, target=1, max_rounds=0)
    assert out.kept.tolist() == [True, False]  # both pass; the cut keeps the first


def test_collect_stops_at_the_cap_with_a_partial_batch():
    # one passing group per round, 3 wanted, at most 1 extra round: 2 rounds, 2 groups
    out = collect_groups(lambda i: _round([[0, 0], [1, 0]]), keep_outcome_varied, 3, 1)
    assert len(out.rounds) == 2 and int(out.kept.sum()) == 2
    out = collect_groups(lambda i: _round([[0, 0], [1, 1]]), keep_outcome_varied, 2, 1)
    assert len(out.rounds) == 2 and int(out.kept.sum()) == 0


def test_training_batch_slices_global_advantages_to_local_groups():
    rnd = _round([[1, 0], [0, 0], [1, 1], [0, 1]])
    del rnd.local[0], rnd.local[1]  # this rank owns prompts 2 and 3 only
    out = collect_groups(lambda i: rnd, keep_outcome_varied, target=4, max_rounds=0)
    batch, adv = training_batch(out, AlgoConfig())
    # kept: prompts 0 and 3 (ordinals 0, 1); this rank holds prompt 3 = ordinal 1
    assert adv.view(-1).tolist() == pytest.approx([1.0, -1.0, -1.0, 1.0], abs=1e-5)
    assert batch.ordinal == [1, 1] and batch.advantages.tolist() == pytest.approx([-1, 1], 1e-5)
    rows = table_rows(out, adv, step=7)
    assert [r["kept"] for r in rows] == [True, True, False, False, False, False, True, True]
    assert rows[0]["advantage"] == pytest.approx(1.0, 1e-5) and rows[2]["advantage"] is None
    assert {r["step"] for r in rows} == {7} and [r["prompt"] for r in rows[::2]] == [0, 1, 2, 3]


def test_batch_scaled_advantages_use_the_whole_kept_batch():
    rnd = _round([[1, 0], [1, 1], [0, 0], [0.5, 0]])
    out = collect_groups(lambda i: rnd, GROUP_FILTERS["none"], target=4, max_rounds=0)
    _, adv = training_batch(out, AlgoConfig(adv_estimator="grpo-batch"))
    # centred per group: (0.5, -0.5), 0, 0, (0.25, -0.25); one std over all 8 rewards
    rewards = torch.tensor([1, 0, 1, 1, 0, 0, 0.5, 0])
    std = rewards.std(correction=0)
    assert adv[0, 0].item() == pytest.approx(0.5 / (std + 1e-6).item(), rel=1e-5)
    assert adv[1].abs().sum() == 0 and adv[2].abs().sum() == 0


def test_the_run_trains_on_the_estimator_its_config_names():
    rnd = _round([[1, 0], [1, 1], [0, 0], [0.5, 0]])
    out = collect_groups(lambda i: rnd, GROUP_FILTERS["none"], target=4, max_rounds=0)
    _, adv = training_batch(out, AlgoConfig(adv_estimator="rloo"))
    # G = 2: A_0 = R_0 - R_1, A_1 = R_1 - R_0 ⇒ (1, -1), (0, 0), (0, 0), (0.5, -0.5)
    want = torch.tensor([[1.0, -1.0], [0.0, 0.0], [0.0, 0.0], [0.5, -0.5]])
    torch.testing.assert_close(adv, want.to(adv.dtype))


def test_conversation_rows_share_the_table_keys():
    rounds = [_round([[0, 0], [1, 0]]), _round([[1, 0], [1, 1]])]
    for rnd in rounds:
        for group in rnd.local.values():
            for r in group:
                r.messages = [
                    {"role": "system", "content": "tools"},
                    {"role": "user", "content": f"task {r.prompt_index}"},
                    {"role": "assistant", "content": f"reply {r.group_index}"},
                ]
    del rounds[1].local[0]  # another rank holds round 1's prompt 0
    out = collect_groups(lambda i: rounds[i], keep_outcome_varied, target=2, max_rounds=1)
    convs = conversation_rows(out, step=3)
    keys = [(c["round"], c["prompt"], c["group"]) for c in convs]
    # round 0 prompts 0, 1 (global ids 0, 1); round 1 prompt 1 only (global id 3)
    assert keys == [(0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1), (1, 3, 0), (1, 3, 1)]
    _, adv = training_batch(out, AlgoConfig())
    table = {(r["round"], r["prompt"]) for r in table_rows(out, adv, step=3)}
    assert {k[:2] for k in keys} <= table and {c["step"] for c in convs} == {3}
    # the system prompt (the same for every rollout) is left out
    assert convs[4]["messages"] == [
        {"role": "user", "content": "task 1"},
        {"role": "assistant", "content": "reply 0"},
    ]


def _goal_round(rewards, high):
    rnd = _round(rewards)
    rnd.high = torch.tensor(high, dtype=torch.bool)
    for p, group in rnd.local.items():
        for g, rollout in enumerate(group):
            rollout.reward_high = bool(rnd.high[p, g])
    return rnd


def test_anchored_low_mode_leaves_low_goal_rollouts_out_of_the_batch():
    # 1 0 | 0 0 under H H | L L: whole-group statistics give the high rollouts √3, -1/√3;
    # the low ones are not in the batch and carry advantage 0 in the logged grid
    rnd = _goal_round([[1, 0, 0, 0]], [[True, True, False, False]])
    out = collect_groups(lambda i: rnd, GROUP_FILTERS["none"], target=1, max_rounds=0)
    algo = AlgoConfig(low_goal_gradient=False, eps_stab=0.0)
    batch, adv = training_batch(out, algo)
    s3 = 3**0.5
    assert adv.view(-1).tolist() == pytest.approx([s3, -1 / s3, 0.0, 0.0], rel=1e-5)
    assert len(batch.rollouts) == 2 and batch.high.tolist() == [True, True]
    assert batch.advantages.tolist() == pytest.approx([s3, -1 / s3], rel=1e-5)
    assert [r.reward for r in batch.rollouts] == [1.0, 0.0]


def test_within_goal_scope_in_the_batch():
    # 1 1 | 0 1 under H H | L L: high {1, 1} constant -> 0 0; low {0, 1} -> -1 +1
    rnd = _goal_round([[1, 1, 0, 1]], [[True, True, False, False]])
    out = collect_groups(lambda i: rnd, GROUP_FILTERS["none"], target=1, max_rounds=0)
    batch, adv = training_batch(out, AlgoConfig(adv_scope="goal", eps_stab=0.0))
    assert adv.view(-1).tolist() == pytest.approx([0.0, 0.0, -1.0, 1.0], abs=1e-6)
    assert len(batch.rollouts) == 4
