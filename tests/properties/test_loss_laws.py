"""Hypothesis laws of the clipped surrogate, KL estimators, aggregation and masking."""

from __future__ import annotations

import torch
from hypothesis import example, given
from hypothesis import strategies as st

from rcgrpo import aggregate, clipped_surrogate, kl_penalty, policy_loss
from rcgrpo.aggregation import AGG_MODES

F64 = torch.float64
CLIPS = st.floats(0.0, 0.5, allow_subnormal=False)


@st.composite
def batch(draw, max_b=4, max_t=6):
    """logp, old_logp, ref_logp [B, T], advantages [B], mask [B, T] (rows may be empty)."""
    b = draw(st.integers(1, max_b))
    t = draw(st.integers(1, max_t))
    seed = draw(st.integers(0, 2**31 - 1))
    gen = torch.Generator().manual_seed(seed)
    logp = -torch.rand(b, t, generator=gen, dtype=F64) * 3
    old = logp + 0.3 * torch.randn(b, t, generator=gen, dtype=F64)
    ref = logp + 0.3 * torch.randn(b, t, generator=gen, dtype=F64)
    adv = torch.randn(b, generator=gen, dtype=F64)
    mask = torch.rand(b, t, generator=gen) < draw(st.sampled_from([0.0, 0.5, 1.0]))
    return logp, old, ref, adv, mask


@given(
    st.lists(st.floats(0, 5, allow_subnormal=False), min_size=1, max_size=8),
    st.floats(-3, 3, allow_subnormal=False),
    CLIPS,
    CLIPS,
)
@example([1.5], 1.0, 0.2, 0.28)
def test_clipped_objective_never_exceeds_unclipped(ratios, adv, clip_low, clip_high):
    ratio = torch.tensor([ratios], dtype=F64)
    a = torch.tensor([adv], dtype=F64)
    mask = torch.ones_like(ratio, dtype=torch.bool)
    objective = -clipped_surrogate(ratio, a, mask, clip_low, clip_high)
    assert bool((objective <= ratio * adv + 1e-12).all())
    if adv > 0:  # pessimistic bound: objective = min(ρ, 1+ε_high)·A
        torch.testing.assert_close(objective, torch.clamp(ratio, max=1 + clip_high) * adv)


@given(st.lists(st.floats(-20, 20, allow_subnormal=False), min_size=1, max_size=10))
@example([0.0, 1e-6, -1e-6])
def test_k3_nonnegative_and_zero_iff_equal(diffs):
    ref = torch.tensor([diffs], dtype=F64)
    logp = torch.zeros_like(ref)
    k3 = kl_penalty(logp, ref, "k3")
    assert bool((k3 >= 0).all())
    # ≥ 1e-6 apart ⇒ k3 ≥ ~5e-13 > 0 in float64; equal ⇒ exactly 0
    assert bool((k3[ref.abs() >= 1e-6] > 0).all())
    assert bool((k3[ref == 0] == 0).all())
    assert bool((kl_penalty(logp, ref, "k2") >= 0).all())


@given(st.integers(1, 5), st.integers(1, 6), st.integers(0, 6), st.integers(0, 2**31 - 1))
def test_aggregation_modes_agree_on_equal_row_lengths(b, t, extra, seed):
    # every row has exactly L = t active tokens at random positions in a width t + extra
    gen = torch.Generator().manual_seed(seed)
    width = t + extra
    loss = torch.randn(b, width, generator=gen, dtype=F64)
    order = torch.rand(b, width, generator=gen).argsort(dim=1).argsort(dim=1)
    mask = order < t
    token_mean = aggregate(loss, mask, "token-mean")
    torch.testing.assert_close(aggregate(loss, mask, "seq-mean-token-mean"), token_mean)
    torch.testing.assert_close(
        aggregate(loss, mask, "seq-mean-token-sum-norm", norm_length=t), token_mean
    )
    torch.testing.assert_close(aggregate(loss, mask, "seq-mean-token-sum"), t * token_mean)


@given(
    batch(),
    st.sampled_from(sorted(AGG_MODES)),
    st.sampled_from(["token", "trajectory", "sequence"]),
    st.sampled_from([0.0, 0.1]),
)
@example(  # found by hypothesis: β·k3 of a masked NaN token gave a 0·NaN = NaN gradient
    (
        torch.tensor([[-2.9]], dtype=F64),
        torch.tensor([[-3.0]], dtype=F64),
        torch.tensor([[-3.2]], dtype=F64),
        torch.tensor([1.3], dtype=F64),
        torch.tensor([[False]]),
    ),
    "seq-mean-token-mean",
    "token",
    0.1,
)
def test_masked_tokens_get_exactly_zero_gradient(inputs, mode, level, beta):
    logp, old, ref, adv, mask = inputs
    # poison every masked position: NaN log-probs there must not reach value or gradient
    nan = torch.full_like(logp, float("nan"))
    logp = torch.where(mask, logp, nan).requires_grad_()
    old, ref = torch.where(mask, old, nan), torch.where(mask, ref, nan)
    entropy = torch.where(mask, torch.ones_like(logp), nan).requires_grad_()
    loss, _ = policy_loss(
        logp,
        old,
        ref,
        adv,
        mask,
        beta=beta,
        agg_mode=mode,
        ratio_level=level,
        entropy=entropy,
        entropy_coef=0.01,
    )
    loss.backward()
    assert torch.isfinite(loss)
    for grad in (logp.grad, entropy.grad):
        assert torch.equal(grad[~mask], torch.zeros_like(grad[~mask]))
        assert bool(torch.isfinite(grad).all())


@given(batch())
def test_on_policy_gradient_is_minus_advantage_over_tokens(inputs):
    # ρ = 1 (old = logp), β = 0: ∂L/∂logp_{i,t} = -A_i m_{i,t} / N under token-mean
    logp, _, _, adv, mask = inputs
    logp = logp.clone().requires_grad_()
    loss, _ = policy_loss(logp, logp.detach(), None, adv, mask)
    loss.backward()
    n = max(int(mask.sum()), 1)
    expected = torch.where(mask, -adv.unsqueeze(1).expand_as(logp) / n, 0.0)
    torch.testing.assert_close(logp.grad, expected)
