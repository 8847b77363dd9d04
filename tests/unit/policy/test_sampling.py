"""Sampling: top-p filter, temperature and the recorded behaviour log-prob."""

from __future__ import annotations

import math

import pytest
import torch

from rcgrpo.policy.sampling import draw, sample_next, top_p_filter


def test_top_p_keeps_smallest_prefix_reaching_mass():
    probs = torch.tensor([[0.2, 0.5, 0.3]])
    # sorted 0.5, 0.3, 0.2; mass before each: 0, 0.5, 0.8
    # top_p 0.6: keep 0.5 (0 < 0.6) and 0.3 (0.5 < 0.6), drop 0.2 (0.8 >= 0.6)
    assert torch.equal(top_p_filter(probs, 0.6), torch.tensor([[0.0, 0.5, 0.3]]))
    # top_p 0.5: the second token's mass-before 0.5 is not < 0.5, so only the top survives
    assert torch.equal(top_p_filter(probs, 0.5), torch.tensor([[0.0, 0.5, 0.0]]))
    assert top_p_filter(probs, 1.0).tolist() == probs.tolist()


def test_top_p_never_samples_outside_the_nucleus():
    logits = torch.log(torch.tensor([[0.2, 0.5, 0.3]])).repeat(2000, 1)
    tokens, _ = sample_next(logits, 1.0, 0.6, torch.Generator().manual_seed(0))
    assert set(tokens.tolist()) == {1, 2}
    # renormalised nucleus: P(1) = 0.5 / 0.8 = 0.625; 2000 draws, sd ~ 0.011
    assert abs((tokens == 1).float().mean().item() - 0.625) < 0.04


def test_logprob_is_temperature_scaled_before_top_p():
    logits = torch.tensor([[2.0, 0.0, -1.0]])
    tokens, logp = sample_next(logits, 0.5, 0.9, torch.Generator().manual_seed(1))
    expected = torch.log_softmax(logits / 0.5, dim=-1)[0, tokens[0]]
    assert logp.item() == pytest.approx(expected.item(), abs=1e-7)


def test_greedy_takes_argmax_with_untempered_logprob():
    logits = torch.tensor([[0.0, 1.0, 0.5], [3.0, 0.0, 0.0]])
    tokens, logp = sample_next(logits, 0.0)
    assert tokens.tolist() == [1, 0]
    # log softmax of [0, 1, 0.5] at index 1 = 1 - log(e^0 + e^1 + e^0.5)
    assert logp[0].item() == pytest.approx(1 - math.log(1 + math.e + math.exp(0.5)), abs=1e-6)


def test_same_generator_seed_same_draws():
    logits = torch.randn(8, 50, generator=torch.Generator().manual_seed(3))
    a = sample_next(logits, 1.0, 1.0, torch.Generator().manual_seed(9))[0]
    b = sample_next(logits, 1.0, 1.0, torch.Generator().manual_seed(9))[0]
    assert a.tolist() == b.tolist()


@pytest.mark.parametrize("temperature,top_p", [(-0.1, 1.0), (1.0, 0.0), (1.0, 1.5), (True, 1.0)])
def test_bad_sampling_arguments(temperature, top_p):
    with pytest.raises(ValueError, match="temperature|top_p"):
        sample_next(torch.zeros(1, 3), temperature, top_p)


def test_draw_matches_its_distribution_chi_square():
    weights = torch.tensor([[0.0, 1.0, 2.0, 0.0, 4.0, 1.0, 0.0]])  # zeros inside and at the end
    n = 20000
    counts = torch.bincount(
        draw(weights.repeat(n, 1), torch.Generator().manual_seed(0)), minlength=7
    )
    assert counts[weights[0] == 0].sum() == 0  # a zero weight is never drawn
    p = weights[0] / weights.sum()
    kept = p > 0
    chi2 = (((counts[kept] - n * p[kept]) ** 2) / (n * p[kept])).sum().item()
    assert chi2 < 16.27  # chi-square, 3 degrees of freedom, p = 0.001


def test_draw_edge_rows_and_bad_weights():
    one_hot = torch.zeros(5, 4)
    one_hot[torch.arange(5), torch.tensor([0, 3, 1, 3, 2])] = 1.0
    assert draw(one_hot).tolist() == [0, 3, 1, 3, 2]
    tiny = torch.tensor([[1e-30, 0.0, 0.0]])  # all mass in one tiny entry
    assert draw(tiny).tolist() == [0]
    for bad in ([[0.0, 0.0]], [[float("nan"), 1.0]], [[-1.0, 2.0]], [[float("inf"), 1.0]]):
        with pytest.raises(ValueError, match="sampling weights"):
            draw(torch.tensor(bad))
