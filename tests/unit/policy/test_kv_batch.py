"""KVBatch: ragged chunks, shared prefixes, row swaps, rows joining and leaving give the
logits of a plain forward pass of each row's whole sequence, on both forward paths of the
batched passes (the lean forward and the HF forward)."""

from __future__ import annotations

import pytest
import torch
from transformers import (
    GPT2Config,
    GPT2LMHeadModel,
    LlamaConfig,
    LlamaForCausalLM,
    Qwen2Config,
    Qwen2ForCausalLM,
)

from rcgrpo.policy import kv_batch
from rcgrpo.policy.kv_batch import FORWARD_COST_TOKENS, KVBatch
from rcgrpo.policy.lean import LeanForward, lean_reason
from rcgrpo.policy.prefix import plan_buckets


@pytest.fixture(params=["lean", "hf"], autouse=True)
def forward_path(request, monkeypatch):
    """Every test runs on the lean forward and on the HF forward of the batched passes."""
    if request.param == "hf":
        monkeypatch.setattr(kv_batch, "lean_reason", lambda model: "the HF path under test")
    return request.param


def _reference_last_logits(model, ids: list[int]) -> torch.Tensor:
    with torch.no_grad():
        return model(input_ids=torch.tensor([ids])).logits[0, -1].float()


def _assert_rows_match(model, logits, seqs, rows=None):
    for i, r in enumerate(range(len(seqs)) if rows is None else rows):
        assert torch.allclose(logits[i], _reference_last_logits(model, seqs[r]), atol=1e-5), r


def test_ragged_chunks_and_an_empty_feed_match_independent_forward(micro_policy):
    model, _ = micro_policy
    kv = KVBatch(model, pad_id=0)
    kv.add_rows(3)
    seqs = [[5, 6, 7, 8, 9], [10, 11], [12, 13, 14]]
    _assert_rows_match(model, kv.extend(seqs), seqs)  # three distinct prompts: each alone
    # row 1 is fed nothing while the others go on (one left-padded pass of width 2)
    logits = kv.extend([[20], [], [21, 22]])
    seqs[0] += [20]
    seqs[2] += [21, 22]
    assert kv.lengths.tolist() == [6, 2, 5] and kv.width == 6
    _assert_rows_match(model, logits[[0, 2]], seqs, rows=[0, 2])
    _assert_rows_match(
        model,
        kv.extend([[30], [31, 32], [33]]),
        [s + e for s, e in zip(seqs, ([30], [31, 32], [33]), strict=True)],
    )


def test_decode_of_a_subset_swaps_rows_to_the_front(micro_policy):
    model, _ = micro_policy
    kv = KVBatch(model)
    kv.add_rows(4)
    seqs = [[5, 6, 7], [8, 9], [10, 11, 12, 13], [14]]
    kv.extend(seqs)
    # rows 1 and 3 keep decoding: row 3 sits at physical row 3 and must move to the front
    rows = torch.tensor([1, 3])
    logits = kv.decode(rows, torch.tensor([40, 41]))
    seqs[1] += [40]
    seqs[3] += [41]
    assert sorted(kv.phys[rows].tolist()) == [0, 1]
    assert sorted(kv.phys.tolist()) == [0, 1, 2, 3]  # still a permutation
    _assert_rows_match(model, logits, seqs, rows=[1, 3])
    # every row again (the swapped-out row 0 or 2 kept its cache), then one row only
    logits = kv.decode(torch.arange(4), torch.tensor([50, 51, 52, 53]))
    seqs = [s + [50 + r] for r, s in enumerate(seqs)]
    _assert_rows_match(model, logits, seqs)
    assert kv.lengths.tolist() == [4, 4, 5, 3]
    _assert_rows_match(
        model, kv.decode(torch.tensor([2]), torch.tensor([60])), [seqs[2] + [60]], rows=[0]
    )


def test_rows_leave_join_and_replicate(micro_policy):
    model, _ = micro_policy
    kv = KVBatch(model)
    kv.add_rows(2)
    kv.extend([[5, 6, 7], [8]])
    kv.keep_rows(torch.tensor([1, 1]))  # row 0 leaves, row 1 is kept twice
    kv.add_rows(1)  # a new episode joins with an empty history
    logits = kv.extend([[9, 10], [3], [11, 12, 13]])
    _assert_rows_match(model, logits, [[8, 9, 10], [8, 3], [11, 12, 13]])
    kv.keep_rows(torch.tensor([], dtype=torch.long))
    assert kv.rows == 0 and kv.width == 0


def test_shared_prefix_prefill_matches_reference(micro_policy):
    model, _ = micro_policy
    kv = KVBatch(model)
    prefix = list(range(5, 45))
    # a group of three prompts that differ only in their last tokens, one equal to the
    # prefix, and an unrelated prompt: the group's 40 shared tokens are prefilled once
    seqs = [prefix + [50, 51], prefix, list(range(100, 130)), prefix + [52]]
    kv.add_rows(4)
    _assert_rows_match(model, kv.extend(seqs), seqs)
    assert kv.lengths.tolist() == [42, 40, 30, 41]
    seqs = [s + [60 + r] for r, s in enumerate(seqs)]
    _assert_rows_match(model, kv.decode(torch.arange(4), torch.tensor([60, 61, 62, 63])), seqs)


def test_plan_buckets_hand_cases():
    # one long chunk and three short ones, overhead 64:
    #   together: 100·4 + 64 = 464; split {100} + {10,10,10}: 100 + 64 + 30 + 64 = 258
    assert plan_buckets([10, 100, 10, 10], overhead=64) == [[1], [0, 2, 3]]
    # similar lengths stay together: 12·3 + 64 = 100 < any split (>= 64 more)
    assert plan_buckets([10, 12, 11], overhead=64) == [[1, 2, 0]]
    assert plan_buckets([1, 1], overhead=0) == [[0, 1]]
    # at most two rows per pass: 100 alone, then two passes of 10s (2·10 + 64 each)
    assert plan_buckets([10, 100, 10, 10], overhead=64, max_rows=2) == [[1], [0], [2, 3]]
    with pytest.raises(ValueError, match="max_rows"):
        plan_buckets([1], overhead=0, max_rows=-1)


def test_bucketed_continuation_matches_reference(micro_policy):
    model, _ = micro_policy
    kv = KVBatch(model)
    kv.add_rows(3)
    seqs = [[4], [5], [6, 7]]
    kv.extend(seqs)
    chunks = [list(range(5, 205)), [7, 8], [9, 10, 11]]  # 200 vs 2-3 tokens: two passes
    assert len(plan_buckets([len(c) for c in chunks], FORWARD_COST_TOKENS)) == 2
    logits = kv.extend(chunks)
    seqs = [s + c for s, c in zip(seqs, chunks, strict=True)]
    assert kv.lengths.tolist() == [201, 3, 5] and kv.width == 201
    _assert_rows_match(model, logits, seqs)


def test_growth_past_the_initial_capacity(micro_policy):
    model, _ = micro_policy
    kv = KVBatch(model)
    kv.add_rows(2)
    seqs = [[5, 6], [7]]
    kv.extend(seqs)
    for step in range(70):  # the first capacity is 64 slots: it doubles on the way
        tokens = torch.tensor([8 + step % 50, 9 + step % 40])
        logits = kv.decode(torch.arange(2), tokens)
        seqs = [s + [int(t)] for s, t in zip(seqs, tokens, strict=True)]
    assert kv.capacity >= 73 and kv.lengths.tolist() == [72, 71]
    _assert_rows_match(model, logits, seqs)


def test_bad_input(micro_policy):
    model, _ = micro_policy
    kv = KVBatch(model)
    kv.add_rows(2)
    with pytest.raises(ValueError, match="one list per row"):
        kv.extend([[1]])
    with pytest.raises(ValueError, match="full-attention"):
        KVBatch(_small("qwen2", use_sliding_window=True, sliding_window=4, max_window_layers=0))


def _small(kind: str, **extra):
    common = dict(
        vocab_size=50,
        hidden_size=32,
        intermediate_size=48,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
    )
    torch.manual_seed(0)
    if kind == "llama":
        return LlamaForCausalLM(LlamaConfig(**common, **extra)).eval()
    return Qwen2ForCausalLM(Qwen2Config(**common, **extra)).eval()


@pytest.mark.parametrize(
    "kind, extra",
    [
        ("qwen2", {}),
        ("llama", {"attention_bias": True, "mlp_bias": True}),  # every projection biased
        ("llama", {"rope_scaling": {"rope_type": "linear", "factor": 2.0}}),  # another RoPE
    ],
)
def test_both_paths_match_a_plain_forward_on_other_configs(kind, extra, forward_path):
    model = _small(kind, **extra)
    kv = KVBatch(model)
    assert (kv.lean is not None) == (forward_path == "lean")
    kv.add_rows(3)
    seqs = [[1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 9], [7, 8]]  # two share a prefix
    _assert_rows_match(model, kv.extend(seqs), seqs)
    logits = kv.decode(torch.tensor([2, 0]), torch.tensor([11, 12]))
    seqs[2] += [11]
    seqs[0] += [12]
    _assert_rows_match(model, logits, seqs, rows=[2, 0])
    feed = [[13, 14, 15], [16], []]
    logits = kv.extend(feed)
    seqs = [s + f for s, f in zip(seqs, feed, strict=True)]
    _assert_rows_match(model, logits[:2], seqs, rows=[0, 1])


def test_lean_reason_names_what_the_lean_forward_cannot_run():
    assert lean_reason(_small("qwen2")) is None
    assert "silu" in lean_reason(_small("llama", hidden_act="gelu"))
    assert "sliding" in lean_reason(_small("qwen2", use_sliding_window=True, sliding_window=8))
    gpt2 = GPT2LMHeadModel(GPT2Config(vocab_size=50, n_embd=32, n_layer=1, n_head=2)).eval()
    assert "model_type 'gpt2'" in lean_reason(gpt2)
    with pytest.raises(ValueError, match="no lean forward"):
        LeanForward(gpt2)


def test_lean_forward_of_a_bf16_model_stays_close_to_the_hf_forward(forward_path):
    if forward_path == "hf":
        pytest.skip("compares the two paths itself")
    model = _small("qwen2").to(torch.bfloat16)
    seqs = [[1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 9], [7, 8]]
    out = {}
    for lean in (True, False):
        kv = KVBatch(model, lean=lean)
        kv.add_rows(3)
        kv.extend(seqs)
        out[lean] = kv.decode(torch.arange(3), torch.tensor([11, 12, 13]))
    assert torch.allclose(out[True], out[False], atol=0.05, rtol=0.02)
