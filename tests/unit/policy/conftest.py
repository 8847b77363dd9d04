"""Shared fixtures of the policy tests: the tiny tokenizer (full BFCL corpus) and a micro model."""

from __future__ import annotations

import pytest

from rcgrpo.policy.models import build_tiny_policy
from rcgrpo.policy.tokenizer import bfcl_corpus, train_tiny_tokenizer


@pytest.fixture(scope="session")
def tiny_tokenizer():
    return train_tiny_tokenizer(bfcl_corpus(), vocab_size=1024)


@pytest.fixture(scope="session")
def micro_policy(tiny_tokenizer):
    """(model, tokenizer): a randomly initialised 'micro' Qwen2 on the tiny tokenizer."""
    return build_tiny_policy("micro", tokenizer=tiny_tokenizer, seed=0)
