"""Hand-computed losses, KL estimators, aggregation, log-probs/entropy and masks."""

from __future__ import annotations

import math

import pytest
import torch

from rcgrpo import (
    aggregate,
    clip_fractions,
    clipped_surrogate,
    kl_penalty,
    log_ratio,
    masked_mean,
    masked_sum,
    policy_loss,
    spans_to_mask,
    token_entropy,
    token_logprobs,
)
from rcgrpo.masks import masked_max, masked_min
from rcgrpo.metrics import METRICS

F64 = torch.float64


def t(x, dtype=F64):
    return torch.tensor(x, dtype=dtype)


# ---------------------------------------------------------------- KL estimators
def test_kl_estimators_hand_values():
    # π_θ(a) = 1/2, π_ref(a) = 1/4 ⇒ x = log π_ref - log π_θ = log(1/2) = -0.6931...
    # k1 = -x = log 2; k2 = x²/2; k3 = e^x - x - 1 = 1/2 + log 2 - 1
    logp, ref = t([[math.log(0.5)]]), t([[math.log(0.25)]])
    ln2 = math.log(2.0)
    torch.testing.assert_close(kl_penalty(logp, ref, "k1"), t([[ln2]]))
    torch.testing.assert_close(kl_penalty(logp, ref, "k2"), t([[ln2**2 / 2]]))
    torch.testing.assert_close(kl_penalty(logp, ref, "k3"), t([[0.5 + ln2 - 1]]))
    # equal log-probs: every estimator is exactly 0
    for est in ("k1", "k2", "k3"):
        assert torch.equal(kl_penalty(ref, ref, est), t([[0.0]]))


def test_k3_is_nonnegative_where_the_naive_float32_form_is_not():
    # float32, x = 1e-8: exp(x) rounds to 1 so exp(x) - x - 1 = -1e-8 < 0; ours is >= 0
    x = torch.tensor([[1e-8, -1e-8, 3e-6]])
    assert bool((kl_penalty(torch.zeros_like(x), x, "k3") >= 0).all())


# ---------------------------------------------------------------- aggregation
# rows: [1, 2, 3] all active; [4, ·, ·] a single-token row; [9, 9, NaN] an empty row
LOSS = t([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [9.0, 9.0, float("nan")]])
MASK = torch.tensor([[1, 1, 1], [1, 0, 0], [0, 0, 0]], dtype=torch.bool)


@pytest.mark.parametrize(
    ("mode", "kwargs", "expected"),
    [
        ("token-mean", {}, (1 + 2 + 3 + 4) / 4),  # N = 4 active tokens
        ("seq-mean-token-mean", {}, (6 / 3 + 4 / 1) / 2),  # B' = 2 non-empty rows
        ("seq-mean-token-sum", {}, (6 + 4) / 2),
        ("seq-mean-token-sum-norm", {}, (6 + 4) / (2 * 3)),  # default L = T = 3
        ("seq-mean-token-sum-norm", {"norm_length": 5}, (6 + 4) / (2 * 5)),
        ("token-mean", {"denominator": 8}, 10 / 8),  # e.g. the global token count
        ("seq-mean-token-mean", {"denominator": 4.0}, 6 / 4),
    ],
)
def test_aggregation_hand_values(mode, kwargs, expected):
    # the empty row's NaN never reaches the result
    torch.testing.assert_close(aggregate(LOSS, MASK, mode, **kwargs), t(expected))


@pytest.mark.parametrize(
    "mode", ["token-mean", "seq-mean-token-mean", "seq-mean-token-sum", "seq-mean-token-sum-norm"]
)
def test_all_empty_batch_gives_zero_loss_and_zero_gradient(mode):
    loss = torch.randn(3, 4, dtype=F64, requires_grad=True)
    out = aggregate(loss, torch.zeros(3, 4, dtype=torch.bool), mode)
    out.backward()
    assert out.item() == 0.0
    assert torch.equal(loss.grad, torch.zeros_like(loss))


def test_aggregation_bad_input():
    with pytest.raises(ValueError, match="mode"):
        aggregate(LOSS, MASK, "sum")
    with pytest.raises(ValueError, match="mask"):
        aggregate(LOSS, MASK[:, :2], "token-mean")
    with pytest.raises(ValueError, match="mask"):
        aggregate(LOSS, MASK.to(F64) * 0.5, "token-mean")  # a weight, not a mask
    with pytest.raises(ValueError, match="loss"):
        aggregate(LOSS[0], MASK[0], "token-mean")
    with pytest.raises(ValueError, match="norm_length"):
        aggregate(LOSS, MASK, "seq-mean-token-sum-norm", norm_length=0)
    with pytest.raises(ValueError, match="denominator"):
        aggregate(LOSS, MASK, "token-mean", denominator=-1)


# ---------------------------------------------------------------- clipped surrogate
RATIO = t([[0.5, 0.9, 1.0, 1.1, 1.5], [0.5, 0.9, 1.0, 1.1, 1.5]])
ADV = t([1.0, -1.0])


def test_clipped_surrogate_with_clip_higher():
    # ε_low = .2, ε_high = .28 ⇒ clip(ρ) = [.8, .9, 1, 1.1, 1.28]
    # A = +1: ℓ = -min(ρ, clip ρ)  = -[.5, .9, 1, 1.1, 1.28]
    # A = -1: ℓ = -min(-ρ, -clip ρ) = max(ρ, clip ρ) = [.8, .9, 1, 1.1, 1.5]
    loss = clipped_surrogate(RATIO, ADV, torch.ones_like(RATIO, dtype=torch.bool), 0.2, 0.28)
    expected = t([[-0.5, -0.9, -1.0, -1.1, -1.28], [0.8, 0.9, 1.0, 1.1, 1.5]])
    torch.testing.assert_close(loss, expected)


def test_clip_fractions():
    # binding clips: A = +1 and ρ = 1.5 > 1.28 (high); A = -1 and ρ = .5 < .8 (low).
    # ρ = .5 with A = +1 and ρ = 1.5 with A = -1 are outside the range but NOT clipped.
    mask = torch.ones_like(RATIO, dtype=torch.bool)
    mask[1, 4] = False  # 9 active tokens
    fr = clip_fractions(RATIO, ADV, mask, 0.2, 0.28)
    torch.testing.assert_close(fr["high"], t(1 / 9))
    torch.testing.assert_close(fr["low"], t(1 / 9))
    torch.testing.assert_close(fr["total"], t(2 / 9))
    empty = clip_fractions(RATIO, ADV, torch.zeros_like(mask))
    assert all(v.item() == 0.0 for v in empty.values())


def test_log_ratio_levels_and_single_token_sequence():
    # row 0: log-ratios [.1, .2, (masked .7)]; row 1: a single active token .3
    logp = t([[0.1, 0.2, 0.7], [0.3, 0.0, 0.0]])
    base = torch.zeros_like(logp)
    mask = torch.tensor([[1, 1, 0], [1, 0, 0]], dtype=torch.bool)
    torch.testing.assert_close(
        log_ratio(logp, base, mask, "token"), t([[0.1, 0.2, 0], [0.3, 0, 0]])
    )
    # trajectory: Σ over the active tokens, broadcast: .3 and .3
    torch.testing.assert_close(log_ratio(logp, base, mask, "trajectory"), t([[0.3] * 3, [0.3] * 3]))
    # sequence (GSPO): mean over the active tokens: .15 and .3
    torch.testing.assert_close(log_ratio(logp, base, mask, "sequence"), t([[0.15] * 3, [0.3] * 3]))
    # clamp bounds |log ρ|
    assert log_ratio(t([[50.0]]), t([[0.0]]), torch.ones(1, 1, dtype=torch.bool)).item() == 20.0


# ---------------------------------------------------------------- full policy loss
def _inputs():
    # two rows: row 0 has 2 active tokens, row 1 has 1 active token, row 2 is empty
    logp = t([[-1.0, -2.0, -3.0], [-0.5, -9.0, -9.0], [-1.0, -1.0, -1.0]]).requires_grad_()
    mask = torch.tensor([[1, 1, 0], [1, 0, 0], [0, 0, 0]], dtype=torch.bool)
    return logp, mask


def test_on_policy_loss_and_gradient_are_reinforce():
    # old = logp ⇒ ρ = 1, no clipping: ℓ_t = -A_i; token-mean over N = 3 active tokens:
    # L = -(2·A_0 + A_1)/3 = -(2·1 + (-2))/3 = 0, and ∂L/∂logp_t = -A_i/3 on active tokens.
    logp, mask = _inputs()
    adv = t([1.0, -2.0, 5.0])
    loss, stats = policy_loss(logp, logp.detach(), None, adv, mask)
    loss.backward()
    torch.testing.assert_close(loss, t(0.0))
    expected_grad = t([[-1 / 3, -1 / 3, 0], [2 / 3, 0, 0], [0, 0, 0]])
    torch.testing.assert_close(logp.grad, expected_grad)
    torch.testing.assert_close(stats["policy/ratio_mean"], t(1.0))
    torch.testing.assert_close(stats["policy/clipfrac"], t(0.0))
    torch.testing.assert_close(stats["loss/active_tokens"], t(3.0))
    assert set(stats) <= set(METRICS)


def test_seq_mean_token_mean_weights_rows_equally():
    # same inputs, seq-mean-token-mean: rows 0 and 1 (row 2 empty, ignored):
    # L = (mean(-1, -1) + mean(2))/2 = (-1 + 2)/2 = 0.5
    logp, mask = _inputs()
    loss, _ = policy_loss(
        logp, logp.detach(), None, t([1.0, -2.0, 5.0]), mask, agg_mode="seq-mean-token-mean"
    )
    torch.testing.assert_close(loss, t(0.5))


def test_kl_term_and_stats():
    # ρ = 1, A = 0 ⇒ pg = 0. ref = logp - log 2 on every token ⇒ x = -log 2 per token:
    # k3 = e^{-log 2} + log 2 - 1 = log 2 - 1/2; β = .1 ⇒ L = .1 (log 2 - 1/2)
    logp, mask = _inputs()
    ref = logp.detach() - math.log(2.0)
    loss, stats = policy_loss(logp, logp.detach(), ref, t([0.0, 0.0, 0.0]), mask, beta=0.1)
    k3 = math.log(2.0) - 0.5
    torch.testing.assert_close(loss, t(0.1 * k3))
    torch.testing.assert_close(stats["loss/kl"], t(0.1 * k3))
    torch.testing.assert_close(stats["policy/kl_ref"], t(k3))
    torch.testing.assert_close(stats["loss/pg"], t(0.0))


def test_paper_trajectory_ratio_against_ref():
    # one row, two active tokens, log π_θ - log π_ref = [.1, .2] ⇒ log ρ = .3, ρ = e^.3 > 1.2:
    # A = 1 ⇒ clipped: ℓ = -1.2 on each token; seq-mean-token-mean ⇒ L = -1.2
    logp = t([[0.1, 0.2]]).requires_grad_()
    ref = t([[0.0, 0.0]])
    mask = torch.ones(1, 2, dtype=torch.bool)
    loss, stats = policy_loss(
        logp,
        ref,
        ref,
        t([1.0]),
        mask,
        ratio_level="trajectory",
        ratio_against="ref",
        agg_mode="seq-mean-token-mean",
    )
    torch.testing.assert_close(loss, t(-1.2))
    torch.testing.assert_close(stats["policy/ratio_max"], t(math.exp(0.3)))
    torch.testing.assert_close(stats["policy/clipfrac_high"], t(1.0))
    loss.backward()  # the clip binds ⇒ zero gradient
    assert torch.equal(logp.grad, torch.zeros_like(logp))


def test_entropy_bonus_is_subtracted():
    # ρ = 1, A = 0, entropy 2 on every active token, c_H = .01 ⇒ L = -.02
    logp, mask = _inputs()
    ent = torch.full_like(logp, 2.0)
    loss, stats = policy_loss(
        logp, logp.detach(), None, t([0.0, 0.0, 0.0]), mask, entropy=ent, entropy_coef=0.01
    )
    torch.testing.assert_close(loss, t(-0.02))
    torch.testing.assert_close(stats["policy/entropy"], t(2.0))


def test_all_empty_policy_loss_is_zero_with_zero_gradient():
    logp = torch.randn(2, 3, dtype=F64, requires_grad=True)
    mask = torch.zeros(2, 3, dtype=torch.bool)
    for level in ("token", "trajectory", "sequence"):
        loss, stats = policy_loss(
            logp,
            logp.detach() + 1,
            logp.detach(),
            t([1.0, -1.0]),
            mask,
            beta=0.1,
            ratio_level=level,
        )
        loss.backward()
        assert loss.item() == 0.0 and torch.equal(logp.grad, torch.zeros_like(logp))
        assert all(torch.isfinite(v) for v in stats.values())
        logp.grad = None


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"advantages": t([1.0, 2.0])}, "advantages"),
        ({"advantages": t([[1.0], [2.0], [3.0]])}, "advantages"),
        ({"old_logp": t([[0.0]])}, "old_logp"),
        ({"mask": torch.ones(3, 2, dtype=torch.bool)}, "mask"),
        ({"beta": 0.1}, "ref_logp is required"),
        ({"ratio_against": "ref"}, "ref_logp is required"),
        ({"beta": -0.1}, "beta"),
        ({"clip_low": -0.1}, "clip_low"),
        ({"clip_low": 1.5}, "clip_low"),
        ({"clip_high": float("inf")}, "clip_high"),
        ({"kl_estimator": "k4"}, "kl_estimator"),
        ({"agg_mode": "mean"}, "agg_mode"),
        ({"ratio_level": "turn"}, "level"),
        ({"ratio_against": "new"}, "ratio_against"),
        ({"entropy": t([[0.0]])}, "entropy"),
    ],
)
def test_policy_loss_bad_input(kwargs, match):
    logp, mask = _inputs()
    args = {
        "logp": logp,
        "old_logp": logp.detach(),
        "ref_logp": None,
        "advantages": t([1.0, 0.0, 0.0]),
        "mask": mask,
        **kwargs,
    }
    with pytest.raises(ValueError, match=match):
        policy_loss(**args)


# ---------------------------------------------------------------- log-probs and entropy
def test_token_logprobs_and_entropy_hand_values():
    # logits [0, log 3] ⇒ p = [1/4, 3/4]; log p(id 1) = log 3/4;
    # H = -(1/4 log 1/4 + 3/4 log 3/4) = log 4 - (3/4) log 3
    logits = t([[[0.0, math.log(3.0)]]])
    ids = torch.tensor([[1]])
    torch.testing.assert_close(token_logprobs(logits, ids), t([[math.log(0.75)]]))
    torch.testing.assert_close(token_entropy(logits), t([[math.log(4) - 0.75 * math.log(3)]]))
    # temperature 2 on logits [0, 2 log 3] is the same distribution as above
    logits2 = t([[[0.0, 2 * math.log(3.0)]]])
    torch.testing.assert_close(token_logprobs(logits2, ids, temperature=2.0), t([[math.log(0.75)]]))


def test_logprobs_match_log_softmax_chunked_and_masked():
    gen = torch.Generator().manual_seed(0)
    logits = torch.randn(3, 5, 11, generator=gen, dtype=F64)
    ids = torch.randint(0, 11, (3, 5), generator=gen)
    mask = torch.rand(3, 5, generator=gen) > 0.4
    ids_padded = torch.where(mask, ids, torch.full_like(ids, -100))  # -100 allowed off-mask
    ref = torch.log_softmax(logits, -1).gather(2, ids.unsqueeze(2)).squeeze(2)
    ref_h = -(torch.softmax(logits, -1) * torch.log_softmax(logits, -1)).sum(-1)
    for chunk in (1, 4, 1024):
        out = token_logprobs(logits, ids_padded, mask, chunk_size=chunk)
        torch.testing.assert_close(out, torch.where(mask, ref, 0.0))
        ent = token_entropy(logits, mask, chunk_size=chunk)
        torch.testing.assert_close(ent, torch.where(mask, ref_h, 0.0))
    torch.testing.assert_close(token_logprobs(logits, ids), ref)
    # a non-contiguous causal-LM view (logits[:, :-1]) gives the same values
    padded = torch.cat([logits, logits[:, :1]], dim=1)[:, :-1]
    assert not padded.is_contiguous()
    torch.testing.assert_close(token_logprobs(padded, ids, mask, chunk_size=3), out)


def test_logprob_gradient_is_zero_on_masked_positions():
    logits = torch.randn(2, 3, 4, dtype=F64, requires_grad=True)
    mask = torch.tensor([[1, 0, 1], [0, 0, 0]], dtype=torch.bool)
    out = token_logprobs(logits, torch.zeros(2, 3, dtype=torch.long), mask)
    (out.sum() + token_entropy(logits, mask).sum()).backward()
    assert torch.equal(logits.grad[~mask], torch.zeros_like(logits.grad[~mask]))
    assert bool((logits.grad[mask] != 0).any())


def test_logprobs_bad_input():
    logits = torch.zeros(1, 2, 3)
    with pytest.raises(ValueError, match="ids must lie"):
        token_logprobs(logits, torch.tensor([[0, 3]]))
    with pytest.raises(ValueError, match="ids must have shape"):
        token_logprobs(logits, torch.tensor([[0]]))
    with pytest.raises(ValueError, match="ids must be an integer"):
        token_logprobs(logits, torch.zeros(1, 2))
    with pytest.raises(ValueError, match="logits"):
        token_entropy(torch.zeros(2, 3))
    with pytest.raises(ValueError, match="temperature"):
        token_entropy(logits, temperature=0.0)
    with pytest.raises(ValueError, match="mask"):
        token_entropy(logits, torch.ones(1, 3))


# ---------------------------------------------------------------- masks
def test_spans_to_mask():
    # two assistant spans [1, 3) and [5, 6) in a length-7 sequence; a second row with none
    mask = spans_to_mask([[(1, 3), (5, 6)], []], 7)
    assert mask.tolist() == [
        [False, True, True, False, False, True, False],
        [False] * 7,
    ]
    for bad in ([[(3, 1)]], [[(0, 8)]], [[(-1, 2)]], [[(0,)]]):
        with pytest.raises(ValueError, match="spans"):
            spans_to_mask(bad, 7)
    with pytest.raises(ValueError, match="length"):
        spans_to_mask([[]], -1)


def test_masked_reductions():
    x = t([[1.0, float("nan"), 3.0], [5.0, 7.0, 9.0]])
    m = torch.tensor([[1, 0, 1], [0, 0, 0]], dtype=torch.bool)
    torch.testing.assert_close(masked_sum(x, m), t(4.0))
    torch.testing.assert_close(masked_mean(x, m), t(2.0))
    torch.testing.assert_close(masked_mean(x, m, dim=1), t([2.0, 0.0]))  # empty row -> 0
    torch.testing.assert_close(masked_max(x, m), t(3.0))
    torch.testing.assert_close(masked_min(x, m), t(1.0))
    none = torch.zeros_like(m)
    assert masked_mean(x, none).item() == 0.0 and masked_max(x, none, empty=-1).item() == -1


def test_half_precision_logits_are_upcast_per_chunk():
    # bf16 logits: log-probs and entropies come back in float32 and equal the float32
    # computation on the same (bf16-rounded) logits, not a bf16 log-softmax.
    from rcgrpo.logprobs import token_entropy, token_logprobs

    logits = torch.randn(2, 5, 50, generator=torch.Generator().manual_seed(0)).bfloat16()
    ids = torch.randint(0, 50, (2, 5), generator=torch.Generator().manual_seed(1))
    lp = token_logprobs(logits, ids, chunk_size=3)
    assert lp.dtype == torch.float32
    torch.testing.assert_close(lp, token_logprobs(logits.float(), ids), rtol=0, atol=1e-6)
    ent = token_entropy(logits, chunk_size=3)
    assert ent.dtype == torch.float32
    torch.testing.assert_close(ent, token_entropy(logits.float()), rtol=0, atol=1e-6)
