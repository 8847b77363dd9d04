"""Prompt stream, seeds, reward-token draws, seeded rollout blocks and table rows."""

from __future__ import annotations

import pytest
import torch
from rl_fakes import fake_rollout

from rcgrpo.metrics import METRICS
from rcgrpo.records import RolloutBatch
from rcgrpo.train.distributed import DistInfo
from rcgrpo.train.rollouts import (
    GoalDraws,
    PromptStream,
    derive_seed,
    rollout_row,
    rollout_shard,
)


def test_prompt_stream_is_a_permutation_per_epoch_and_resumable():
    stream = PromptStream(5, seed=3)
    first = stream.take(5) + stream.take(5)
    assert sorted(first[:5]) == sorted(first[5:]) == list(range(5))
    assert first[:5] != first[5:]  # each epoch its own order (seeded by (seed, epoch))
    later = stream.take(3)
    resumed = PromptStream(5, seed=3)
    resumed.load_state_dict({"position": 10, "num_tasks": 5, "seed": 3})
    assert resumed.take(3) == later
    with pytest.raises(ValueError, match="does not match"):
        PromptStream(6, seed=3).load_state_dict(stream.state_dict())


def test_derive_seed_is_stable_and_separates_parts():
    assert derive_seed(0, "tokens", 1, 0) == derive_seed(0, "tokens", 1, 0)
    assert len({derive_seed(0, "tokens", s, 0) for s in range(100)}) == 100
    assert 0 <= derive_seed("x") < 2**63


def test_reward_tokens_none_iid_and_seeded_by_step_and_round():
    assert GoalDraws("none", 0.5).draw(4, 5, 0, 1, 0) is None
    iid = GoalDraws("iid", 0.5)
    a, b = iid.draw(64, 5, 0, 1, 0), iid.draw(64, 5, 0, 1, 0)
    assert a.dtype == torch.bool and a.shape == (64, 5) and torch.equal(a, b)
    assert not torch.equal(a, iid.draw(64, 5, 0, 2, 0))
    assert not torch.equal(a, iid.draw(64, 5, 0, 1, 1))
    strat = GoalDraws("stratified", 0.4).draw(8, 5, 0, 1, 0)
    assert strat.sum(dim=1).tolist() == [2] * 8  # round(0.4 * 5) highs per group
    assert bool(GoalDraws("high", 0.5).draw(2, 3, 0, 1, 0).all())
    iid.observe(a, torch.ones(64, 5))  # a stateless scheme keeps no state
    assert iid.state_dict() == {"scheme": "iid", "state": None}
    with pytest.raises(ValueError, match="does not match"):
        iid.load_state_dict({"scheme": "stratified", "state": None})


class SeedEngine:
    """Records (first task, seed) of every engine call; rollouts carry the seed as reward."""

    def __init__(self):
        self.calls = []

    def run_groups(self, tasks, group_size, high, seed):
        self.calls.append((tasks[0], len(tasks), seed))
        rollouts = [
            fake_rollout([1, 2], 1, reward=seed % 7, p=p, g=g)
            for p in range(len(tasks))
            for g in range(group_size)
        ]
        return RolloutBatch(rollouts, len(tasks), group_size)


def _seeds_per_prompt(shards, block):
    engine, seeds = SeedEngine(), {}
    for shard in shards:
        out = rollout_shard(engine, list("abcd"), None, 2, shard, block, (0, "rollout", 1, 0))
        seeds.update({p: [r.reward for r in group] for p, group in out.items()})
        assert all(r.prompt_index == p for p, group in out.items() for r in group)
    return seeds, engine.calls


def test_seed_blocks_make_rollouts_independent_of_the_sharding():
    one, calls = _seeds_per_prompt([range(0, 4)], block=1)
    two, _ = _seeds_per_prompt([range(0, 2), range(2, 4)], block=1)
    assert one == two and len(calls) == 4  # one seeded engine call per prompt
    one, calls = _seeds_per_prompt([range(0, 4)], block=2)
    two, _ = _seeds_per_prompt([range(0, 2), range(2, 4)], block=2)
    assert one == two and [c[1] for c in calls] == [2, 2]
    _, calls = _seeds_per_prompt([range(0, 4)], block=0)  # whole shard, one call
    assert [c[1] for c in calls] == [4]


def test_rollout_row_fields():
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "[f(a=1), g()]"},
        {"role": "tool", "content": "ok"},
        {"role": "tool", "content": "Error during execution: no"},
    ]
    r = fake_rollout(
        [1, 2, 3, 4],
        2,
        reward=1.0,
        high=False,
        p=3,
        g=1,
        messages=messages,
        calls=["f(a=1)", "g()"],
        errors=1,
        steps=2,
    )
    row = rollout_row(r)
    assert row["reward_token"] == "low" and row["reward"] == 1.0 and row["gen_tokens"] == 2
    assert (row["calls"], row["tool_errors"], row["observations"]) == (2, 1, 2)
    assert (row["prompt"], row["group"], row["turns"], row["steps"]) == (3, 1, 1, 2)
    assert rollout_row(fake_rollout([1, 2], 1))["reward_token"] is None
    assert DistInfo().is_main


def _oracle_round(conditioning: str, timer=None):
    """One real round: 3 synth tasks, G = 4, the ground-truth script as the policy."""
    from rcgrpo.env import Episode
    from rcgrpo.policy import ChatEncoder, RolloutEngine, ScriptedPolicy, oracle_script
    from rcgrpo.policy.task_sources import load_task_splits
    from rcgrpo.policy.tokenizer import task_corpus, train_tiny_tokenizer
    from rcgrpo.train.config import TrainConfig
    from rcgrpo.train.rollouts import RoundGenerator

    cfg = TrainConfig()
    cfg.tasks.num_train, cfg.tasks.num_eval = 3, 1
    cfg.rollout.group_size, cfg.rollout.prompts_per_step = 4, 3
    cfg.algo.conditioning = conditioning
    tasks, _ = load_task_splits(cfg.tasks, "tiny")
    enc = ChatEncoder(train_tiny_tokenizer(task_corpus(tasks), vocab_size=400))
    engine = RolloutEngine(
        ScriptedPolicy(enc, oracle_script),
        enc,
        Episode,
        mode="combined",
        prompt_style="compact",
        max_new_tokens=10_000,
        max_context=100_000,
    )
    goals = GoalDraws(conditioning, cfg.algo.p_high)
    generate = RoundGenerator(engine, tasks, PromptStream(3, 0), goals, cfg, DistInfo(), 1, timer)
    return generate(0)


def test_reward_tokens_are_rendered_once_and_never_reach_the_reward():
    from rcgrpo.conditioning import reward_goal_text

    for conditioning in ("iid", "none"):
        rnd = _oracle_round(conditioning)
        assert rnd.rewards.shape == (3, 4) and bool((rnd.rewards == 1).all())  # oracle wins
        for p, group in rnd.local.items():
            for g, r in enumerate(group):
                users = [m["content"] for m in r.messages if m["role"] == "user"]
                goal = "" if rnd.high is None else reward_goal_text(bool(rnd.high[p, g]))
                assert r.reward_high == (None if rnd.high is None else bool(rnd.high[p, g]))
                if goal:  # appended once, to the first user message only
                    assert users[0].endswith(goal) and sum(goal in u for u in users) == 1
                else:
                    assert not any("Reward Goal" in m["content"] for m in r.messages)
        high = [] if rnd.high is None else rnd.high[0].tolist()
        expected = ["high" if h else "low" for h in high] if high else [None] * 4
        assert [row["reward_token"] for row in rnd.rows[:4]] == expected


def test_scoring_is_timed_in_the_rollout_phase_and_gather_times_the_rows(monkeypatch):
    """perf/time_rollout_s and perf/time_gather_s mean what the registry says, on a fake
    clock that only moves when an episode scores (1 s) or the rows are gathered (10 s)."""
    import rcgrpo.train.rollouts as rollouts_module
    from rcgrpo.env import Episode
    from rcgrpo.train.rl.step_metrics import PHASES, PhaseTimer, perf_metrics

    now = [0.0]
    score, gather = Episode.score, rollouts_module.gather_rows

    def slow_score(self):
        now[0] += 1.0
        return score(self)

    def slow_gather(rows, info):
        now[0] += 10.0
        return gather(rows, info)

    monkeypatch.setattr(Episode, "score", slow_score)
    monkeypatch.setattr(rollouts_module, "gather_rows", slow_gather)
    timer = PhaseTimer(clock=lambda: now[0])
    rnd = _oracle_round("none", timer)
    assert len(rnd.rows) == 12  # 3 prompts x G = 4, each scored once
    assert timer.seconds == {**dict.fromkeys(PHASES, 0.0), "rollout": 12.0, "gather": 10.0}
    m = perf_metrics(timer, rnd.rows, DistInfo())
    assert (float(m["perf/time_rollout_s"]), float(m["perf/time_gather_s"])) == (12.0, 10.0)
    assert "scoring" in METRICS["perf/time_rollout_s"].meaning
    assert "gathering" in METRICS["perf/time_gather_s"].meaning
    with pytest.raises(ValueError, match="unknown phase 'score'"), timer("score"):
        pass
