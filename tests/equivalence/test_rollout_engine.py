"""The rollout engine (ModelPolicy on KVBatch) against slow references.

1. Greedy ids, loss masks and behaviour log-probs == plain HF ``generate`` re-encoding the
   whole conversation at every step (GeneratePolicy): groups with reward goals (the shared
   prefix ends before the goal), groups without a goal (the prefix is the whole prompt),
   ragged prompts of different tasks with G = 1 (no shared prefix), episodes joining and
   leaving the batch; for the tiny Qwen2 and, through the same code, a Qwen2.5-style and a
   Llama config, and the Llama with LoRA adapters and trained reward-goal rows (peft).
2. Sampled runs == a slow loop with the engine's sampling semantics (every step re-encodes
   each row without a cache and draws one token for every row of the batch from the same
   generator): identical ids, log-probs to 1e-5.
"""

from __future__ import annotations

import pytest
import torch
from test_logprob_recompute import EchoEpisode, EchoTask
from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM

from rcgrpo.conditioning import HIGH_TOKEN, LOW_TOKEN
from rcgrpo.policy import kv_batch
from rcgrpo.policy.chat import ChatEncoder
from rcgrpo.policy.models import build_tiny_policy
from rcgrpo.policy.policies import GeneratePolicy, Generation, ModelPolicy, Request
from rcgrpo.policy.rollout import RolloutEngine
from rcgrpo.policy.sampling import sample_next
from rcgrpo.policy.tokenizer import bfcl_corpus, train_tiny_tokenizer


def _bias_eos(model, tokenizer):
    """Untie the output layer and favour EOS so that messages end at varied lengths."""
    head = torch.nn.Linear(model.config.hidden_size, len(tokenizer), bias=True)
    with torch.no_grad():
        head.weight.copy_(model.get_output_embeddings().weight)
        head.bias.zero_()
        head.bias[tokenizer.eos_token_id] = 1.5
    model.lm_head = head
    return model.eval()


@pytest.fixture(scope="module")
def tokenizer():
    return train_tiny_tokenizer(bfcl_corpus()[:1500], vocab_size=400)


@pytest.fixture(scope="module")
def micro(tokenizer):
    model, tokenizer = build_tiny_policy("micro", tokenizer=tokenizer, seed=0)
    return _bias_eos(model, tokenizer)


def _other(kind: str, tokenizer):
    common = dict(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=160,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        tie_word_embeddings=False,
    )
    torch.manual_seed(1)
    if kind == "qwen2.5":  # Qwen2.5's config fields: rope 1e6, sliding window declared but off
        config = Qwen2Config(
            rope_theta=1e6,
            use_sliding_window=False,
            sliding_window=32768,
            max_window_layers=2,
            rms_norm_eps=1e-6,
            **common,
        )
        return _bias_eos(Qwen2ForCausalLM(config), tokenizer)
    return _bias_eos(LlamaForCausalLM(LlamaConfig(rope_theta=5e5, **common)), tokenizer)


def _run(policy, tokenizer, group_size, high, num_tasks=3, seed=3):
    encoder = ChatEncoder(tokenizer)
    engine = RolloutEngine(
        policy,
        encoder,
        EchoEpisode,
        mode="multi_turn",
        max_new_tokens=10,
        max_context=300,
        max_batch=4,
    )
    tasks = [EchoTask(f"e{i}", steps=2 + (3 * i) % 5) for i in range(num_tasks)]
    reward_high = None if high is None else torch.tensor([high] * num_tasks)
    return engine.run_groups(tasks, group_size, reward_high, seed=seed).rollouts


def _assert_same(fast, slow):
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow, strict=True):
        assert a.input_ids.tolist() == b.input_ids.tolist()
        assert a.loss_mask.tolist() == b.loss_mask.tolist()
        assert torch.allclose(a.behaviour_logprobs, b.behaviour_logprobs, atol=1e-5)


CASES = {
    "reward goals": (3, [True, False, True]),
    "no goal: prefix = whole prompt": (3, None),
    "ragged, G = 1, nothing shared": (1, [True]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_greedy_engine_equals_generate(micro, tokenizer, case, monkeypatch):
    group_size, high = CASES[case]
    prefills = []
    alone = kv_batch.KVBatch._prefill_alone

    def spy(self, rows, ids):
        prefills.append((len(rows), list(ids)))
        return alone(self, rows, ids)

    monkeypatch.setattr(kv_batch.KVBatch, "_prefill_alone", spy)
    stop, pad = [tokenizer.eos_token_id], tokenizer.pad_token_id
    fast = _run(ModelPolicy(micro, stop, 0.0, 1.0, pad), tokenizer, group_size, high)
    slow = _run(GeneratePolicy(micro, stop, 0.0, 1.0, pad), tokenizer, group_size, high)
    _assert_same(fast, slow)
    assert len({r.length for r in fast}) >= 3 and max(r.num_steps for r in fast) >= 3
    # every first prompt is prefilled alone or as a member of its group's shared prefix
    assert sum(rows for rows, _ in prefills) == len(fast)
    prompts = [r.input_ids[: r.prompt_length].tolist() for r in fast]
    shared = [(rows, ids) for rows, ids in prefills if rows > 1]
    for rows, ids in shared:
        members = [p for p in prompts if p[: len(ids)] == ids]
        # a shared prefill covers at least half of its shortest member (the planner's rule,
        # rcgrpo.policy.prefix.shared_prefixes); the goal makes the members differ after it
        assert len(members) >= rows and 2 * len(ids) >= min(len(p) for p in members)
    # a group's G prompts always share their prompt up to the goal, so a group is never
    # prefilled row by row (distinct tasks may share their system prompt too)
    assert shared or group_size == 1


def _adapted(model, tokenizer):
    """``model`` with LoRA adapters whose B is random (not the zero start) and trained-looking
    reward-goal rows: the lean forward must add both, as the HF forward does."""
    from peft import LoraConfig, get_peft_model

    ids = tokenizer.convert_tokens_to_ids([HIGH_TOKEN, LOW_TOKEN])
    config = LoraConfig(
        r=4,
        lora_alpha=8,
        target_modules="all-linear",
        init_lora_weights=False,
        trainable_token_indices=ids,
    )
    torch.manual_seed(2)
    wrapped = get_peft_model(model, config)
    with torch.no_grad():
        for name, p in wrapped.named_parameters():
            if "trainable_tokens_delta" in name:
                p.normal_(0, 1.0)
    return wrapped.eval()


@pytest.mark.parametrize("kind", ["qwen2.5", "llama", "llama+lora"])
def test_other_architectures_equal_generate(tokenizer, kind):
    model = _other(kind.removesuffix("+lora"), tokenizer)
    if kind.endswith("+lora"):
        model = _adapted(model, tokenizer)
        assert kv_batch.KVBatch(model).lean is not None  # the lean path, adapted
    stop, pad = [tokenizer.eos_token_id], tokenizer.pad_token_id
    fast = _run(ModelPolicy(model, stop, 0.0, 1.0, pad), tokenizer, 2, [True, False])
    slow = _run(GeneratePolicy(model, stop, 0.0, 1.0, pad), tokenizer, 2, [True, False])
    _assert_same(fast, slow)


class ReferenceSampler:
    """The engine's sampling semantics as a slow loop: no cache; each step re-encodes every
    live row's whole context and draws one token for EVERY row of the batch (rows that
    ended their message get zero logits) from one generator seeded per run."""

    def __init__(self, model, stop_ids, temperature, top_p):
        self.model, self.stop_ids = model, set(stop_ids)
        self.temperature, self.top_p = temperature, top_p
        self.max_context = model.config.max_position_embeddings

    def begin_run(self, seed: int) -> None:
        self.generator, self.context = torch.Generator().manual_seed(seed), {}

    @torch.no_grad()
    def generate(self, requests: list[Request]) -> list[Generation]:
        self.context = {q.slot: self.context.get(q.slot, []) + q.new_ids for q in requests}
        out = {q.slot: ([], []) for q in requests}
        live = {q.slot for q in requests}
        vocab = self.model.config.vocab_size
        while live:
            logits = torch.stack(
                [
                    self.model(input_ids=torch.tensor([self.context[q.slot]])).logits[0, -1]
                    if q.slot in live
                    else torch.zeros(vocab)
                    for q in requests
                ]
            )
            tokens, logps = sample_next(logits, self.temperature, self.top_p, self.generator)
            for q, tok, lp in zip(requests, tokens.tolist(), logps.tolist(), strict=True):
                if q.slot in live:
                    out[q.slot][0].append(tok)
                    out[q.slot][1].append(lp)
                    self.context[q.slot].append(tok)
                    if tok in self.stop_ids or len(out[q.slot][0]) >= q.max_tokens:
                        live.discard(q.slot)
        return [Generation(*out[q.slot]) for q in requests]


@pytest.mark.parametrize("temperature,top_p", [(1.0, 1.0), (0.8, 0.9)])
def test_sampled_engine_equals_reference_loop(micro, tokenizer, temperature, top_p):
    stop = [tokenizer.eos_token_id]
    engine = ModelPolicy(micro, stop, temperature, top_p, tokenizer.pad_token_id)
    fast = _run(engine, tokenizer, 2, [True, False], seed=11)
    slow = _run(
        ReferenceSampler(micro, stop, temperature, top_p), tokenizer, 2, [True, False], seed=11
    )
    _assert_same(fast, slow)
    assert len({tuple(r.input_ids.tolist()) for r in fast}) == len(fast)  # really sampled
