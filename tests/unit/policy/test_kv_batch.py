"""KVBatch: holes, compaction, rows joining and leaving give the logits of a plain forward."""

from __future__ import annotations

import torch

from rcgrpo.policy.kv_batch import FORWARD_COST_TOKENS, KVBatch, plan_buckets


def _reference_last_logits(model, ids: list[int]) -> torch.Tensor:
    with torch.no_grad():
        return model(input_ids=torch.tensor([ids])).logits[0, -1].float()


def test_rows_with_holes_match_independent_forward(micro_policy):
    model, _ = micro_policy
    kv = KVBatch(model, pad_id=0)
    kv.add_rows(3)
    seqs = [[5, 6, 7, 8, 9], [10, 11], [12, 13, 14]]
    logits = kv.extend(seqs)  # chunk of width 5: rows 1 and 2 are left-padded with holes
    for r, seq in enumerate(seqs):
        assert torch.allclose(logits[r], _reference_last_logits(model, seq), atol=1e-5)
    # row 1 is fed nothing (a hole) while the others go on; then compact; then go on again
    logits = kv.extend([[20], [], [21, 22]])
    seqs[0] += [20]
    seqs[2] += [21, 22]
    assert kv.width == 7 and kv.lengths.tolist() == [6, 2, 5]
    kv.compact()
    assert kv.width == 6  # row 0's 6 real tokens; holes gone
    assert kv.valid.sum(dim=1).tolist() == [6, 2, 5]
    assert bool(kv.valid[:, -2:].all())  # every row is left-padded
    logits = kv.extend([[30], [31, 32], [33]])
    for r, extra in enumerate(([30], [31, 32], [33])):
        seqs[r] += extra
        assert torch.allclose(logits[r], _reference_last_logits(model, seqs[r]), atol=1e-5)


def test_rows_leave_and_join(micro_policy):
    model, _ = micro_policy
    kv = KVBatch(model)
    kv.add_rows(2)
    kv.extend([[5, 6, 7], [8]])
    kv.keep_rows(torch.tensor([1]))  # row 0 leaves
    kv.add_rows(1)  # a new episode joins with an empty history
    logits = kv.extend([[9, 10], [11, 12, 13]])
    assert torch.allclose(logits[0], _reference_last_logits(model, [8, 9, 10]), atol=1e-5)
    assert torch.allclose(logits[1], _reference_last_logits(model, [11, 12, 13]), atol=1e-5)
    kv.keep_rows(torch.tensor([], dtype=torch.long))
    assert kv.rows == 0 and kv.width == 0


def test_plan_buckets_hand_cases():
    # one long chunk and three short ones, overhead 64:
    #   together: 100·4 + 64 = 464; split {100} + {10,10,10}: 100 + 64 + 30 + 64 = 258
    assert plan_buckets([10, 100, 10, 10], overhead=64) == [[1], [0, 2, 3]]
    # similar lengths stay together: 12·3 + 64 = 100 < any split (>= 64 more)
    assert plan_buckets([10, 12, 11], overhead=64) == [[1, 2, 0]]
    assert plan_buckets([1, 1], overhead=0) == [[0, 1]]


def test_bucketed_prefill_matches_reference(micro_policy):
    model, _ = micro_policy
    kv = KVBatch(model)
    kv.add_rows(3)
    seqs = [list(range(5, 205)), [7, 8], [9, 10, 11]]  # 200 vs 2-3 tokens: split in two passes
    assert len(plan_buckets([len(s) for s in seqs], FORWARD_COST_TOKENS)) == 2
    logits = kv.extend(seqs)
    assert kv.lengths.tolist() == [200, 2, 3] and kv.width == 200
    for r, seq in enumerate(seqs):
        assert torch.allclose(logits[r], _reference_last_logits(model, seq), atol=1e-5)
    logits = kv.extend([[3], [4], [5]])
    for r, extra in enumerate(([3], [4], [5])):
        assert torch.allclose(logits[r], _reference_last_logits(model, seqs[r] + extra), atol=1e-5)
