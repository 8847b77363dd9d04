"""Tiny Qwen2 presets: sizes, determinism, and save_pretrained / from_pretrained round trips."""

from __future__ import annotations

import copy

import pytest
import torch
from safetensors import safe_open
from transformers import AutoModelForCausalLM, AutoTokenizer

from rcgrpo.policy.models import build_tiny_policy, load_policy, main, save_policy, tiny_config


def _params(model) -> int:
    return sum(p.numel() for p in model.parameters())


def test_tiny_preset_size(tiny_tokenizer):
    model, _ = build_tiny_policy("tiny", tokenizer=tiny_tokenizer)
    # hand count, V = 1024, d = 192, f = 512, 4 layers, 4 heads of 48, 2 KV heads:
    # embeddings (tied) V·d = 196,608; per layer q 192·192+192 = 37,056, k and v
    # 192·96+96 = 18,528 each, o 192·192 = 36,864, MLP 3·192·512 = 294,912, 2 norms 384
    # -> 406,272; final norm 192
    assert _params(model) == 196_608 + 4 * 406_272 + 192 == 1_821_888
    assert model.config.model_type == "qwen2" and model.config.tie_word_embeddings
    assert model.config.eos_token_id == tiny_tokenizer.eos_token_id == 2


def test_same_seed_same_weights(tiny_tokenizer):
    a, _ = build_tiny_policy("micro", tokenizer=tiny_tokenizer, seed=4)
    b, _ = build_tiny_policy("micro", tokenizer=tiny_tokenizer, seed=4)
    c, _ = build_tiny_policy("micro", tokenizer=tiny_tokenizer, seed=5)
    assert all(torch.equal(x, y) for x, y in zip(a.parameters(), b.parameters(), strict=True))
    assert not torch.equal(a.model.embed_tokens.weight, c.model.embed_tokens.weight)


def test_checkpoint_round_trip_with_auto_classes(micro_policy, tmp_path):
    model, tokenizer = micro_policy
    save_policy(model, tokenizer, tmp_path)
    again = AutoModelForCausalLM.from_pretrained(tmp_path)
    ids = torch.tensor([tokenizer.encode("Move 'a.txt' to b.", add_special_tokens=False)])
    with torch.no_grad():
        assert torch.equal(model(ids).logits, again(ids).logits)
    loaded, tok, added = load_policy(tmp_path)
    assert added == [] and tok.chat_template == tokenizer.chat_template
    assert AutoTokenizer.from_pretrained(tmp_path).eos_token == "<|im_end|>"


@pytest.mark.parametrize(
    ("dtype", "stored", "kept"),
    # 1 + 2^-10 needs 10 mantissa bits: fp16 has 10 and keeps it, bf16 has 7 and rounds it to
    # 1 (2^-10 is under half its step 2^-7 there); 3 * 2^-20 = 1.1b * 2^-19 needs 1: bf16
    # keeps it and so does fp16, as the subnormal 48 * 2^-24 (below its smallest normal 2^-14)
    [(torch.float16, "F16", [1 + 2**-10, 3 * 2**-20]), (torch.bfloat16, "BF16", [1.0, 3 * 2**-20])],
)
def test_a_half_precision_checkpoint_loads_at_the_dtype_asked(
    micro_policy, tmp_path, dtype, stored, kept
):
    """A checkpoint whose weights are stored in half precision loads in float32, load_policy's
    default, as exactly its stored values (the model's config dtype does not decide), and at
    its own dtype as the stored tensors."""
    model, tokenizer = micro_policy
    half = copy.deepcopy(model)
    with torch.no_grad():
        half.model.norm.weight[:2] = torch.tensor([1 + 2**-10, 3 * 2**-20])
    half = half.to(dtype)
    save_policy(half, tokenizer, tmp_path)
    with safe_open(tmp_path / "model.safetensors", "pt") as f:
        names = f.keys()  # a safe_open handle is not iterable
        assert {f.get_slice(k).get_dtype() for k in names} == {stored}
    loaded, _, added = load_policy(tmp_path)
    assert added == [] and {p.dtype for p in loaded.parameters()} == {torch.float32}
    assert loaded.model.norm.weight[:2].tolist() == kept
    weights = half.state_dict()
    assert all(torch.equal(p, weights[k].float()) for k, p in loaded.state_dict().items())
    again, _, _ = load_policy(tmp_path, dtype=dtype)
    assert all(torch.equal(p, weights[k]) for k, p in again.state_dict().items())


def test_cli_creates_a_checkpoint(tmp_path, capsys):
    assert main(["--out", str(tmp_path / "ckpt"), "--preset", "micro", "--vocab-size", "400"]) == 0
    model, tok, _ = load_policy(tmp_path / "ckpt")
    assert len(tok) == 400 and model.config.vocab_size == 400
    assert "micro" in capsys.readouterr().out


def test_unknown_preset(tiny_tokenizer):
    with pytest.raises(ValueError, match="preset"):
        tiny_config("huge", tiny_tokenizer)


def test_reloaded_checkpoint_tokenizes_as_trained(tmp_path):
    """A from-scratch BPE with isolated whitespace survives save → load_policy: the same
    ids (transformers 5's Qwen2Tokenizer would rebuild its own pre-tokenizer)."""
    import json

    from rcgrpo.policy.models import build_tiny_policy, load_policy, save_policy
    from rcgrpo.policy.tokenizer import train_tiny_tokenizer

    corpus = [f"Rename rego{i}.log to rufipu{i}.txt. [mv(source='rego{i}.log')]" for i in range(50)]
    tok = train_tiny_tokenizer(corpus, vocab_size=300, isolate_whitespace=True)
    model, tok = build_tiny_policy("micro", tokenizer=tok)
    save_policy(model, tok, tmp_path)
    _, loaded, added = load_policy(tmp_path)
    assert added == []
    text = "Step 1: Rename gitepe30.json to  kuru17.md\n[cp(source='gitepe30.json')]"
    assert loaded.encode(text, add_special_tokens=False) == tok.encode(
        text, add_special_tokens=False
    )
    saved = json.loads((tmp_path / "tokenizer.json").read_text())
    assert json.loads(loaded.backend_tokenizer.to_str())["pre_tokenizer"] == saved["pre_tokenizer"]
