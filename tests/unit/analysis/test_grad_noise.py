"""The gradient-noise-scale estimators (analysis.diagnostics.grad_noise): hand values and
unbiasedness."""

from __future__ import annotations

import math

import pytest
import torch

from analysis.diagnostics import grad_noise as gn


def test_noise_scale_hand_values():
    # g = (1,0), (3,0), (2,3): mean (2,1), |mean|^2 5, deviations 2 + 2 + 4 -> tr = 8/2 = 4
    g = torch.tensor([[1.0, 0.0], [3.0, 0.0], [2.0, 3.0]])
    out = gn.noise_scale(g.sum(0), float((g * g).sum()), 3)
    assert out["mean_grad_sq"] == pytest.approx(5.0)
    assert out["trace_sigma"] == pytest.approx(4.0)
    assert out["signal_sq"] == pytest.approx(5.0 - 4.0 / 3)
    assert out["b_noise"] == pytest.approx(4.0 / (5.0 - 4.0 / 3))


def test_noise_scale_is_infinite_without_signal_and_needs_two_groups():
    g = torch.tensor([[1.0, 0.0], [-1.0, 0.0]])
    assert math.isinf(gn.noise_scale(g.sum(0), 2.0, 2)["b_noise"])
    assert gn.signal_share(math.inf, 8) == 0.0
    assert gn.signal_share(8.0, 8) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="at least 2"):
        gn.noise_scale(g[0], 1.0, 1)


def test_estimates_are_unbiased_over_gaussian_gradients():
    torch.manual_seed(0)
    d, n, reps = 20, 6, 4000
    mean = torch.full((d,), 0.3)
    scale = torch.linspace(0.2, 1.5, d)
    g = mean + scale * torch.randn(reps, n, d)
    est = [gn.noise_scale(x.sum(0), float((x * x).sum()), n) for x in g]
    signal = sum(e["signal_sq"] for e in est) / reps
    trace = sum(e["trace_sigma"] for e in est) / reps
    assert signal == pytest.approx(float(mean @ mean), rel=0.05)
    assert trace == pytest.approx(float((scale**2).sum()), rel=0.02)


def test_leave_one_out_cosines_hand_values():
    a, b, c = torch.tensor([1.0, 0.0]), torch.tensor([1.0, 0.1]), torch.tensor([-1.0, 0.0])
    cos = gn.leave_one_out_cosines([a, b, c])
    # the others of a sum to (0, 0.1), of b to (0, 0), of c to (2, 0.1)
    assert cos == pytest.approx([0.0, 0.0, -2.0 / math.sqrt(4.01)])


def test_jackknife_matches_the_leave_one_step_out_formula():
    torch.manual_seed(1)
    groups = [torch.randn(3, 4) + 0.5 for _ in range(5)]  # 5 steps of 3 groups
    sums = [x.sum(0) for x in groups]
    sq = [float((x * x).sum()) for x in groups]
    out = gn.jackknife(sums, sq, [3] * 5)
    loo = [
        gn.noise_scale(torch.cat(groups[:j] + groups[j + 1 :]).sum(0), sum(sq) - sq[j], 12)[
            "signal_sq"
        ]
        for j in range(5)
    ]
    mean = sum(loo) / 5
    expected = math.sqrt(4 / 5 * sum((v - mean) ** 2 for v in loo))
    assert out["signal_sq_se"] == pytest.approx(expected)


@pytest.mark.results
def test_the_committed_measurements_are_read_by_task_count():
    from analysis.campaigns.rl_recipe import fig_rl_grad_noise as fig

    data = fig.measurements()
    assert [n for n, _ in data] == [16, 128, fig.FULL_TASKS]
    for _, d in data:
        assert d["groups"] == 512 and len(d["step_cosines"]) == d["steps"] == 64
