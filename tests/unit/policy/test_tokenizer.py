"""The tiny BPE tokenizer, its special tokens and template, and reward tokens for real tokenizers."""

from __future__ import annotations

import pytest
import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedTokenizerFast

from rcgrpo.conditioning import HIGH_TOKEN, LOW_TOKEN
from rcgrpo.policy.models import build_tiny_policy
from rcgrpo.policy.tokenizer import (
    CHAT_TEMPLATE,
    MESSAGE_END,
    MESSAGE_START,
    PAD_TOKEN,
    ROLES,
    SPECIAL_TOKENS,
    add_reward_tokens,
    missing_reward_tokens,
    spread_goal_rows,
)


def test_special_tokens_are_single_ids_with_fixed_roles(tiny_tokenizer):
    tok = tiny_tokenizer
    assert len(tok) == 1024
    # trainer puts the special tokens first, in order: ids 0..4
    assert tok.convert_tokens_to_ids(list(SPECIAL_TOKENS)) == [0, 1, 2, 3, 4]
    assert (tok.pad_token, tok.eos_token) == (PAD_TOKEN, MESSAGE_END)
    for special in SPECIAL_TOKENS:
        assert len(tok.encode(f"a{special}b", add_special_tokens=False)) == 3
    # every role header "<|im_start|>role\n" is exactly 3 tokens: start, role, newline
    for role in ROLES:
        assert len(tok.encode(f"{MESSAGE_START}{role}\n", add_special_tokens=False)) == 3
    assert missing_reward_tokens(tok) == []


def test_byte_level_round_trip_of_garbage(tiny_tokenizer):
    text = "zz\x00\x7f é ü 💥 ∑ [f(x=__import__('os'))] \t\r\n  «»"
    ids = tiny_tokenizer.encode(text, add_special_tokens=False)
    assert tiny_tokenizer.decode(ids) == text


def test_save_and_load_keep_ids_template_and_specials(tiny_tokenizer, tmp_path):
    tiny_tokenizer.save_pretrained(tmp_path)
    loaded = AutoTokenizer.from_pretrained(tmp_path)
    text = f"{MESSAGE_START}user\nMove 'a.txt' {HIGH_TOKEN}{MESSAGE_END}"
    assert loaded.encode(text, add_special_tokens=False) == tiny_tokenizer.encode(
        text, add_special_tokens=False
    )
    assert loaded.chat_template == CHAT_TEMPLATE
    assert (loaded.pad_token_id, loaded.eos_token_id) == (0, 2)


def test_chat_template_renders_chatml():
    tok = _plain_tokenizer()
    tok.chat_template = CHAT_TEMPLATE
    messages = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "U"},
        {"role": "assistant", "content": "A"},
        {"role": "tool", "content": "T"},
    ]
    text = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert text == (
        "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n"
        "<|im_start|>assistant\nA<|im_end|>\n<|im_start|>tool\nT<|im_end|>\n"
        "<|im_start|>assistant\n"
    )


def _plain_tokenizer() -> PreTrainedTokenizerFast:
    """A 'real model' tokenizer WITHOUT reward tokens (only the ChatML specials)."""
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=[PAD_TOKEN, MESSAGE_START, MESSAGE_END],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(["hello world"] * 10, trainer=trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        pad_token=PAD_TOKEN,
        eos_token=MESSAGE_END,
        additional_special_tokens=[MESSAGE_START],
    )


def test_add_reward_tokens_resizes_and_uses_mean_rows(tmp_path):
    tok = _plain_tokenizer()
    tok.chat_template = CHAT_TEMPLATE
    model, tok = build_tiny_policy("micro", tokenizer=tok, seed=1)
    old = len(tok)
    old_rows = model.get_input_embeddings().weight[:old].detach().clone()
    assert missing_reward_tokens(tok) == [HIGH_TOKEN, LOW_TOKEN]
    assert add_reward_tokens(tok, model) == [HIGH_TOKEN, LOW_TOKEN]
    assert len(tok) == old + 2
    ids = tok.convert_tokens_to_ids([HIGH_TOKEN, LOW_TOKEN])
    assert ids == [old, old + 1]
    assert tok.encode(f"x{HIGH_TOKEN}y", add_special_tokens=False)[1] == old
    weight = model.get_input_embeddings().weight
    assert weight.shape[0] == old + 2
    # new rows = mean of the old rows; old rows unchanged; output layer tied to the same rows
    assert torch.allclose(weight[old], old_rows.mean(0), atol=1e-7)
    assert torch.allclose(weight[old + 1], old_rows.mean(0), atol=1e-7)
    assert torch.equal(weight[:old], old_rows)
    assert model.get_output_embeddings().weight.data_ptr() == weight.data_ptr()
    assert add_reward_tokens(tok, model) == []  # idempotent
    # the result is an ordinary checkpoint
    model.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    again = AutoModelForCausalLM.from_pretrained(tmp_path)
    assert torch.equal(again.get_input_embeddings().weight, weight)
    assert missing_reward_tokens(AutoTokenizer.from_pretrained(tmp_path)) == []


def test_spread_goal_rows_by_hand():
    """Rows (0,0) (3,4) (6,8) (1,0) (−1,0): norms 0, 5, 10, 1, 1 → median 1. Goal rows 3 and 4
    are 2 apart along x with midpoint 0; spread 3 puts them at ±1.5 (midpoint and direction
    kept), and no other row moves; setting the same spread again changes nothing."""
    w = torch.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0], [1.0, 0.0], [-1.0, 0.0]])
    others = w[:3].clone()
    assert spread_goal_rows(w, 3, 4, 3.0) == 2.0
    assert torch.equal(w[3], torch.tensor([1.5, 0.0])) and torch.equal(
        w[4], torch.tensor([-1.5, 0.0])
    )
    assert torch.equal(w[:3], others)
    # median of norms now (0, 5, 10, 1.5, 1.5) is 1.5: the distance is relative to the rows now
    assert spread_goal_rows(w, 3, 4, 2.0) == 3.0
    assert torch.allclose(w[3], torch.tensor([1.5, 0.0]))


def test_spread_goal_rows_zero_and_coinciding_rows():
    """spread 0 leaves the rows; coinciding rows (the mean init) part along a direction drawn
    from the seed, the same for the same seed; bad arguments raise."""
    w = torch.tensor([[3.0, 4.0], [3.0, 4.0], [0.0, 1.0], [2.0, 2.0], [2.0, 2.0]])
    before = w.clone()
    assert spread_goal_rows(w, 3, 4, 0.0) == 0.0 and torch.equal(w, before)
    a, b = w.clone(), w.clone()
    spread_goal_rows(a, 3, 4, 1.0, seed=5)
    spread_goal_rows(b, 3, 4, 1.0, seed=5)
    median = before.norm(dim=1).median()
    assert torch.equal(a, b)
    assert torch.allclose((a[3] - a[4]).norm(), median) and torch.allclose(
        a[3] + a[4], before[3] * 2
    )
    with pytest.raises(ValueError, match="spread"):
        spread_goal_rows(w, 3, 4, -1.0)
    with pytest.raises(ValueError, match="differ"):
        spread_goal_rows(w, 3, 3, 1.0)
