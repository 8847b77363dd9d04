"""Hand-checked reward-token sampling and rendering (rcgrpo/conditioning.py)."""

from __future__ import annotations

import pytest
import torch

from rcgrpo import HIGH_TOKEN, LOW_TOKEN, reward_goal_text, sample_reward_tokens
from rcgrpo.conditioning import scheme_uses_token, stratified_count


@pytest.mark.parametrize(
    ("p", "group", "k"),
    [
        (0.5, 5, 3),  # p·G = 2.5 rounds half UP to 3 (not banker's rounding to 2)
        (0.5, 4, 2),  # 2.0
        (0.3, 5, 2),  # 1.5 -> 2
        (0.1, 4, 0),  # 0.4 -> 0
        (0.0, 5, 0),
        (1.0, 5, 5),
        (0.9, 2, 2),  # 1.8 -> 2
    ],
)
def test_stratified_count(p, group, k):
    assert stratified_count(p, group) == k


def test_stratified_has_exactly_k_highs_per_group():
    # p = 0.5, G = 5 ⇒ k = 3 highs in every one of the 50 groups
    gen = torch.Generator().manual_seed(0)
    tokens = sample_reward_tokens(50, 5, p=0.5, scheme="stratified", generator=gen)
    assert tokens.dtype == torch.bool and tokens.shape == (50, 5)
    assert torch.equal(tokens.sum(dim=1), torch.full((50,), 3))


@pytest.mark.parametrize(("scheme", "value"), [("high", True), ("low", False), ("none", False)])
def test_constant_schemes(scheme, value):
    tokens = sample_reward_tokens(3, 4, scheme=scheme)
    assert torch.equal(tokens, torch.full((3, 4), value))


def test_iid_extremes_and_determinism():
    assert not sample_reward_tokens(4, 6, p=0.0).any()
    assert sample_reward_tokens(4, 6, p=1.0).all()
    a = sample_reward_tokens(8, 5, generator=torch.Generator().manual_seed(7))
    b = sample_reward_tokens(8, 5, generator=torch.Generator().manual_seed(7))
    assert torch.equal(a, b)


def test_reward_goal_text_is_the_papers_string():
    assert reward_goal_text(True) == "[Reward Goal: <|high_reward|>]"
    assert reward_goal_text(False) == "[Reward Goal: <|low_reward|>]"
    assert reward_goal_text(None) == ""
    assert (HIGH_TOKEN, LOW_TOKEN) == ("<|high_reward|>", "<|low_reward|>")


def test_scheme_uses_token():
    assert [scheme_uses_token(s) for s in ("iid", "stratified", "high", "low", "none")] == [
        True,
        True,
        True,
        True,
        False,
    ]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"p": 1.5}, "p must be a probability"),
        ({"p": -0.1}, "p must be a probability"),
        ({"p": float("nan")}, "p must be a probability"),
        ({"group_size": 1}, "group_size"),
        ({"num_prompts": 0}, "num_prompts"),
        ({"num_prompts": 2.0}, "num_prompts"),
        ({"scheme": "bernoulli"}, "scheme"),
    ],
)
def test_bad_input_raises_value_error_naming_the_argument(kwargs, match):
    args = {"num_prompts": 2, "group_size": 4, **kwargs}
    with pytest.raises(ValueError, match=match):
        sample_reward_tokens(**args)
