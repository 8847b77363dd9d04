"""Minimal pairs (rcgrpo.train.stage1.pairs, rcgrpo.env.synth_demo.flip_decision) on real
collapse1-d10 tasks, replayed through the real environment: the flipped trajectory differs from
the expert's only at the planted call, and the environment scores it 0 because of it."""

from __future__ import annotations

import gzip
import json

import pytest

from rcgrpo.env.synth import SYNTH_PRESETS, generate_synth_tasks, render_call
from rcgrpo.env.synth_demo import SWAP_DECISIONS, decision_outcomes, flip_decision
from rcgrpo.policy.chat import ChatEncoder
from rcgrpo.policy.tokenizer import train_tiny_tokenizer
from rcgrpo.train.errors import ConfigError
from rcgrpo.train.stage1.pairs import pair_rows, pair_tasks, single_point
from rcgrpo.train.stage1.rctp import save_mix
from rcgrpo.train.stage1.sft import mix_successes
from rcgrpo.train.stage1.trajectories import expert_trajectories

TASKS = generate_synth_tasks(300, "train", 0, SYNTH_PRESETS["collapse1-d10"])


def test_flip_changes_only_the_planted_call():
    task = next(t for t in TASKS if single_point(t, "rename_copy"))
    point = single_point(task, "rename_copy")
    flipped = flip_decision(task, point, render_call)
    gt = [list(turn) for turn in task.ground_truth]
    diffs = [(i, j) for i, turn in enumerate(gt) for j, c in enumerate(turn) if flipped[i][j] != c]
    assert diffs == [(point["turn"], point["call"])]
    right = gt[point["turn"]][point["call"]]
    assert right.startswith("mv(") and flipped[point["turn"]][point["call"]].startswith("cp(")
    # the same source and destination values: only the choice changes
    assert right[len("mv") :] == flipped[point["turn"]][point["call"]][len("cp") :]
    executed = [c for turn in flipped for c in turn]
    assert decision_outcomes(task, executed) == [{"kind": "rename_copy", "right": False}]


def test_flip_refuses_stop_early():
    task = TASKS[0]
    with pytest.raises(ValueError, match="not a swap kind"):
        flip_decision(task, {"kind": "stop_early", "turn": 0, "call": 0}, render_call)


def test_pair_tasks_are_seeded_single_point_tasks_of_each_kind():
    chosen = pair_tasks(TASKS, SWAP_DECISIONS, 3, seed=5)
    assert len(chosen) == 3 * len(SWAP_DECISIONS)
    for k, kind in enumerate(SWAP_DECISIONS):
        assert all(single_point(t, kind) for t in chosen[3 * k : 3 * k + 3])
    assert pair_tasks(TASKS, SWAP_DECISIONS, 3, seed=5) == chosen
    assert pair_tasks(TASKS, SWAP_DECISIONS, 3, seed=6) != chosen
    with pytest.raises(ValueError, match="only .* training tasks carry one"):
        pair_tasks(TASKS, ("rename_copy",), 10_000, seed=5)


def test_pair_rows_replayed_succeed_and_fail_by_the_decision():
    tasks = pair_tasks(TASKS, SWAP_DECISIONS, 2, seed=1)
    tokenizer = train_tiny_tokenizer([t.turns[0][0]["content"] for t in TASKS[:50]], vocab_size=512)
    encoder = ChatEncoder(tokenizer)
    opts = dict(max_new_tokens=10**6, max_context=10**6, max_batch=64)

    def replay(ts, mode, source):
        return expert_trajectories(ts, encoder, mode, source, **opts)

    rows, stats = pair_rows(tasks, SWAP_DECISIONS, ("combined",), replay)
    assert stats["dropped_pairs"] == 0 and stats["rows"] == 2 * len(tasks)
    assert stats["tasks"] == dict.fromkeys(SWAP_DECISIONS, 2)
    highs, lows = rows[0::2], rows[1::2]
    assert [r.reward for r in highs] == [1] * len(tasks)
    assert [r.reward for r in lows] == [0] * len(tasks)
    assert {r.source for r in lows} == {"pair"}
    assert [h.task_id for h in highs] == [lo.task_id for lo in lows]


def test_matched_sft_reads_the_success_rows_of_a_mix(tmp_path):
    tasks = pair_tasks(TASKS, ("rename_copy",), 2, seed=1)
    tokenizer = train_tiny_tokenizer([t.turns[0][0]["content"] for t in TASKS[:50]], vocab_size=512)
    encoder = ChatEncoder(tokenizer)
    opts = dict(max_new_tokens=10**6, max_context=10**6, max_batch=64)
    rows, _ = pair_rows(
        tasks,
        ("rename_copy",),
        ("combined",),
        lambda ts, m, s: expert_trajectories(ts, encoder, m, s, **opts),
    )
    save_mix(rows, tmp_path / "trajectories.jsonl")
    got = mix_successes(str(tmp_path))
    assert [t.task_id for t in got] == [r.task_id for r in rows if r.reward == 1]
    gz = tmp_path / "light"
    gz.mkdir()
    (gz / "trajectories.jsonl.gz").write_bytes(
        gzip.compress((tmp_path / "trajectories.jsonl").read_bytes())
    )
    assert [t.messages for t in mix_successes(str(gz))] == [t.messages for t in got]
    assert json.loads((tmp_path / "trajectories.jsonl").read_text().splitlines()[0])["reward"] in (
        0,
        1,
    )
    with pytest.raises(ConfigError, match="no RCTP-FT mix at"):
        mix_successes(str(tmp_path / "missing"))
