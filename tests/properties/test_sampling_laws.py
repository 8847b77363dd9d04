"""Hypothesis laws of sample_reward_tokens (paper §2 i.i.d. tokens; our stratified scheme)."""

from __future__ import annotations

import math

import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rcgrpo import sample_reward_tokens
from rcgrpo.conditioning import stratified_count

SEEDS = st.integers(0, 2**31 - 1)


@given(st.integers(1, 20), st.integers(2, 12), st.floats(0, 1), SEEDS)
@example(7, 5, 0.5, 0)  # the paper's G = 5, p = .5 ⇒ 3 highs (2.5 rounds up)
@example(3, 4, 0.125, 0)  # p·G = 0.5 ⇒ 1
def test_stratified_gives_exactly_round_pg_highs_per_group(p_count, g, p, seed):
    gen = torch.Generator().manual_seed(seed)
    tokens = sample_reward_tokens(p_count, g, p=p, scheme="stratified", generator=gen)
    k = math.floor(p * g + 0.5)
    assert stratified_count(p, g) == k
    assert tokens.shape == (p_count, g) and tokens.dtype == torch.bool
    assert torch.equal(tokens.sum(dim=1), torch.full((p_count,), k))


@given(
    st.integers(1, 8),
    st.integers(2, 8),
    st.floats(0, 1),
    SEEDS,
    st.sampled_from(["iid", "stratified", "high", "low", "none"]),
)
def test_same_seed_same_tokens_and_constant_schemes(p_count, g, p, seed, scheme):
    def draw():
        gen = torch.Generator().manual_seed(seed)
        return sample_reward_tokens(p_count, g, p=p, scheme=scheme, generator=gen)

    assert torch.equal(draw(), draw())
    if scheme == "high":
        assert bool(draw().all())
    if scheme in ("low", "none"):
        assert not bool(draw().any())


def _within_binomial(count: int, n: int, p: float, sigmas: float = 5.0) -> bool:
    return abs(count - n * p) <= sigmas * math.sqrt(n * p * (1 - p)) + 1e-9


@settings(max_examples=15)
@given(st.sampled_from([0.1, 0.3, 0.5, 0.9]), SEEDS)
def test_iid_frequency_is_p(p, seed):
    # N = 4000 Bernoulli(p) draws: |count - Np| <= 5·sqrt(Np(1-p)) fails w.p. < 1e-6
    gen = torch.Generator().manual_seed(seed)
    tokens = sample_reward_tokens(800, 5, p=p, scheme="iid", generator=gen)
    assert _within_binomial(int(tokens.sum()), tokens.numel(), p)


@settings(max_examples=10)
@given(st.sampled_from([(5, 0.5), (4, 0.25), (8, 0.5)]), SEEDS)
def test_stratified_positions_are_uniform(gp, seed):
    # each position is high with probability k/G over 2000 groups (5-sigma binomial bound)
    g, p = gp
    gen = torch.Generator().manual_seed(seed)
    tokens = sample_reward_tokens(2000, g, p=p, scheme="stratified", generator=gen)
    k = stratified_count(p, g)
    for count in tokens.sum(dim=0).tolist():
        assert _within_binomial(count, 2000, k / g)
