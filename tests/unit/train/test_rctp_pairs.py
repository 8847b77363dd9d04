"""Minimal pairs (rcgrpo.train.stage1.pairs, rcgrpo.env.synth_demo.flip_decision) on real
collapse1-d10 tasks, replayed through the real environment: the flipped trajectory differs from
the expert's only at the planted call, and the environment scores it 0 because of it. Inverted
pair labels (``failures.pair_labels``) exchange each pair's two labels and no other."""

from __future__ import annotations

import dataclasses
import gzip
import json

import pytest

from rcgrpo.env.synth import SYNTH_PRESETS, generate_synth_tasks, render_call
from rcgrpo.env.synth_demo import SWAP_DECISIONS, decision_outcomes, flip_decision
from rcgrpo.policy.chat import ChatEncoder
from rcgrpo.policy.tokenizer import train_tiny_tokenizer
from rcgrpo.train.cli import parse_cli
from rcgrpo.train.errors import ConfigError
from rcgrpo.train.stage1.config import PAIR_LABELS
from rcgrpo.train.stage1.data import goal_labels
from rcgrpo.train.stage1.pairs import (
    PAIR_LABELLINGS,
    invert_pair_labels,
    pair_positions,
    pair_rows,
    pair_tasks,
    single_point,
)
from rcgrpo.train.stage1.rctp import save_mix
from rcgrpo.train.stage1.sft import mix_successes
from rcgrpo.train.stage1.trajectories import Trajectory, expert_trajectories

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


def _pair_examples(kind: str, n: int = 2):
    """Encoded (expert, flipped) examples of ``n`` ``kind`` pairs, conditioned on their rewards."""
    from rcgrpo.train.stage1.trajectories import encode_trajectory

    tasks = pair_tasks(TASKS, (kind,), n, seed=2)
    corpus = [t.turns[0][0]["content"] for t in TASKS[:50]]
    tokenizer = train_tiny_tokenizer(corpus, vocab_size=512)
    encoder = ChatEncoder(tokenizer)
    opts = dict(max_new_tokens=10**6, max_context=10**6, max_batch=64)
    rows, _ = pair_rows(
        tasks,
        (kind,),
        ("combined",),
        lambda ts, m, s: expert_trajectories(ts, encoder, m, s, **opts),
    )
    return [encode_trajectory(encoder, r, True) for r in rows], tokenizer


@pytest.mark.parametrize("kind", SWAP_DECISIONS)
def test_decision_spans_cover_the_flipped_choice(kind):
    from rcgrpo.train.stage1.pairs import decision_spans

    examples, tokenizer = _pair_examples(kind)
    for high, low in zip(examples[0::2], examples[1::2], strict=True):
        span_high, span_low = decision_spans(high, low)
        assert len(span_high) >= 1 and len(span_low) >= 1
        assert all(high.mask[t] and low.mask[t] for t in (span_high.start, span_low.start))
        assert all(high.mask[t] for t in span_high) and all(low.mask[t] for t in span_low)
        # the same tokens before the span (but the goal token), different at its start
        before = [t for t in range(span_high.start) if high.ids[t] != low.ids[t]]
        assert len(before) == 1 and not high.mask[before[0]]
        assert high.ids[span_high.start] != low.ids[span_low.start]
        # the choice's text is inside the span: the call names differ within it
        got_high = tokenizer.decode([high.ids[t] for t in span_high])
        got_low = tokenizer.decode([low.ids[t] for t in span_low])
        assert got_high != got_low


def test_weigh_decisions_weighs_both_rows_of_each_pair_only():
    from rcgrpo.train.stage1.pairs import decision_spans, weigh_decisions

    examples, _ = _pair_examples("rename_copy")
    other = dataclasses.replace(examples[0], source="expert", task_id="elsewhere")
    rows = [other, *examples]
    same, none = weigh_decisions(rows, 1.0)
    assert none == 0 and same == rows
    out, weighed = weigh_decisions(rows, 4.0)
    assert weighed == 2 and out[0].weight is None
    for i in (1, 3):
        spans = decision_spans(rows[i], rows[i + 1])
        for ex, span in zip((out[i], out[i + 1]), spans, strict=True):
            assert [t for t, w in enumerate(ex.weight) if w == 4.0] == list(span)
            assert set(ex.weight) == {1.0, 4.0} and len(ex.weight) == len(ex.ids)


def test_decision_spans_refuse_rows_that_are_no_pair():
    from rcgrpo.train.stage1.pairs import decision_spans

    examples, _ = _pair_examples("rename_copy", 1)
    with pytest.raises(ValueError, match="never differ on an assistant token"):
        decision_spans(examples[0], examples[0])


def test_collate_carries_weights_and_the_loss_counts_them():
    import torch

    from rcgrpo.losses import sft_loss
    from rcgrpo.train.stage1.data import collate
    from rcgrpo.train.stage1.pairs import weigh_decisions

    examples, _ = _pair_examples("rename_copy", 1)
    plain = collate(examples, pad_id=0)
    assert "loss_weight" not in plain
    weighed, _ = weigh_decisions(examples, 4.0)
    batch = collate(weighed, pad_id=0)
    width = plain["input_ids"].shape[1]
    assert batch["loss_weight"].shape == (2, width)
    torch.manual_seed(0)
    logits = torch.randn(2, width, 512)
    base, n, _ = sft_loss(logits, batch["input_ids"], batch["loss_mask"])
    ce = -logits[:, :-1].log_softmax(-1).gather(-1, batch["input_ids"][:, 1:, None])[..., 0]
    active = batch["loss_mask"][:, 1:]
    extra = (3.0 * ce * (batch["loss_weight"][:, 1:] == 4.0) * active).sum() / n
    got, _, _ = sft_loss(logits, batch["input_ids"], batch["loss_mask"], batch["loss_weight"])
    assert got.item() == pytest.approx((base + extra).item(), rel=1e-5)


def test_pair_weight_bad_input_is_one_clear_line():
    from rcgrpo.train.cli import parse_cli

    skip = ("--failures.skip_decisions", "rename_copy")
    with pytest.raises(ConfigError, match=r"failures.pair_weight.*must be > 0"):
        parse_cli("rctp", [*skip, "--failures.pairs", "5", "--failures.pair_weight", "0"])
    with pytest.raises(ConfigError, match=r"failures.pair_weight.*needs failures.pairs > 0"):
        parse_cli("rctp", [*skip, "--failures.pair_weight", "4"])
    cfg = parse_cli("rctp", [*skip, "--failures.pairs", "5", "--failures.pair_weight", "4"])
    assert cfg.failures.pair_weight == 4.0


def _row(task: str, source: str, reward: int, mode: str = "combined") -> Trajectory:
    return Trajectory(task, "synth/x", mode, source, (), reward, None if reward else "x", False)


def test_inverted_pair_labels_exchange_exactly_each_pairs_two_labels():
    # the 1:1 part (shuffled), then two pairs as pair_rows appends them: expert, flipped
    mix = [
        _row("a", "expert", 1),
        _row("b", "rollout", 0),
        _row("c", "expert", 1),  # an expert row followed by another task's flipped row: no pair
        _row("p", "pair", 0),  # a lone flipped row (its expert row dropped): no pair
        _row("q", "expert", 1),
        _row("q", "pair", 0),
        _row("r", "expert", 1, "multi_turn"),
        _row("r", "pair", 0, "multi_turn"),
    ]
    assert pair_positions(mix) == [(4, 5), (6, 7)]
    reward = goal_labels(mix, "reward", seed=0)
    assert reward == [True, False, True, False, True, False, True, False]
    inverted = PAIR_LABELLINGS["inverted"](mix, reward)
    # positions 4..7 exchanged within each pair; 0..3 as the reward labels them
    assert inverted == [True, False, True, False, False, True, False, True]
    assert PAIR_LABELLINGS["reward"](mix, reward) == reward
    changed = [i for i, (a, b) in enumerate(zip(reward, inverted, strict=True)) if a != b]
    assert changed == [4, 5, 6, 7]
    assert sum(inverted) == sum(reward)  # each goal keeps its count
    with pytest.raises(ValueError, match="holds no minimal pair"):
        invert_pair_labels(mix[:4], reward[:4])


def test_inverted_labels_on_a_real_mix_put_the_right_decision_under_low():
    tasks = pair_tasks(TASKS, SWAP_DECISIONS, 2, seed=3)
    tokenizer = train_tiny_tokenizer([t.turns[0][0]["content"] for t in TASKS[:50]], vocab_size=512)
    encoder = ChatEncoder(tokenizer)
    opts = dict(max_new_tokens=10**6, max_context=10**6, max_batch=64)

    def replay(ts, mode, source):
        return expert_trajectories(ts, encoder, mode, source, **opts)

    rows, _ = pair_rows(tasks, SWAP_DECISIONS, ("combined",), replay)
    others = [r for r in replay(TASKS[:6], "combined", "expert") if r.reward == 1][:3]
    mix = others + rows
    goals = invert_pair_labels(mix, goal_labels(mix, "reward", seed=0))
    assert goals[: len(others)] == [True] * len(others)
    pairs = list(zip(mix[len(others) :], goals[len(others) :], strict=True))
    # every expert (reward 1, the right decision) is low, every flipped row (reward 0) high
    assert all(high == (row.reward == 0) for row, high in pairs) and len(pairs) == 2 * len(tasks)


def test_pair_labels_are_a_registry_the_config_names_and_validates():
    assert tuple(PAIR_LABELLINGS) == PAIR_LABELS
    cfg = parse_cli("rctp", ["--failures.pairs", "5", "--failures.pair_labels", "inverted"])
    assert cfg.failures.pair_labels == "inverted"
    assert parse_cli("rctp", []).failures.pair_labels == "reward"
    inverted = ("--failures.pair_labels", "inverted")
    shuffled = ("--failures.pairs", "5", *inverted, "--goals.labels", "shuffled")
    for argv, message in (
        (inverted, "failures.pair_labels needs failures.pairs > 0"),
        (shuffled, "failures.pair_labels needs goals.labels reward"),
        (("--failures.pair_labels", "flipped"), "failures.pair_labels must be one of"),
    ):
        with pytest.raises(ConfigError, match=message):
            parse_cli("rctp", list(argv))
