"""The transfer probe's coupling in gradient form (analysis.diagnostics.transfer.coupling and
the probe's use of it): hand-computed Gram statistics, the bootstrap's weights and interval,
the decision token, and a toy model whose gradients ∇z_h, ∇z_l are set by construction, where
a finite-difference step along −g gives the cross-to-own ratio the gradients predict."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from analysis.diagnostics.transfer.coupling import (
    STATS,
    basic_interval,
    bootstrap,
    coupling,
    resample_counts,
    task_weights,
)
from analysis.diagnostics.transfer.logodds import Item, decision_tokens, task_points

# --- hand-computed ------------------------------------------------------------------------------

# Two tasks, P = 2: h_1 = (2, 0), l_1 = (1, 1); h_2 = (0, 2), l_2 = (1, -1).
H = np.array([[2.0, 0.0], [0.0, 2.0]])
L = np.array([[1.0, 1.0], [1.0, -1.0]])
K_HH, K_HL, K_LL = H @ H.T, H @ L.T, L @ L.T  # [[4,0],[0,4]], [[2,2],[2,-2]], [[2,0],[0,2]]


def test_coupling_of_the_pooled_gradients_by_hand():
    # w = (1/2, 1/2): ∇z̄_h = (1, 1), ∇z̄_l = (1, 0); inner 1, ‖h‖ = √2, ‖l‖ = 1,
    # cos = 1/√2, γ = 1/√2, ρ_l = 1/1 = 1, ρ_h = 1/2
    out = coupling(K_HH, K_HL, K_LL, np.array([0.5, 0.5]))
    want = {
        "inner": 1.0,
        "norm_high": math.sqrt(2),
        "norm_low": 1.0,
        "cosine": 1 / math.sqrt(2),
        "gain_ratio": 1 / math.sqrt(2),
        "rho_low": 1.0,
        "rho_high": 0.5,
    }
    assert set(out) == set(STATS)
    for name, value in want.items():
        assert float(out[name]) == pytest.approx(value, rel=1e-15), name


def test_per_task_coupling_is_the_diagonal():
    # task 1: inner 2, ‖h‖ 2, ‖l‖ √2, cos 1/√2, ρ_l = 2/2 = 1, ρ_h = 2/4; task 2: inner −2
    out = coupling(K_HH, K_HL, K_LL, np.eye(2))
    assert out["inner"].tolist() == [2.0, -2.0]
    assert out["norm_high"].tolist() == [2.0, 2.0]
    assert out["cosine"] == pytest.approx([1 / math.sqrt(2), -1 / math.sqrt(2)])
    assert out["rho_low"] == pytest.approx([1.0, -1.0])
    assert out["rho_high"] == pytest.approx([0.5, -0.5])
    with pytest.raises(ValueError, match=r"\[n, n\]"):
        coupling(K_HH, K_HL, K_LL, np.ones(3) / 3)


def test_task_weights_weigh_each_counted_point_once():
    # counts (2, 0, 1), points (1, 3, 2): masses (2, 0, 2) -> (1/2, 0, 1/2)
    got = task_weights(np.array([2.0, 0.0, 1.0]), np.array([1.0, 3.0, 2.0]))
    assert got.tolist() == [0.5, 0.0, 0.5]
    # rows are replicates
    both = task_weights(np.array([[1.0, 1.0], [0.0, 2.0]]), np.array([1.0, 3.0]))
    assert both.tolist() == [[0.25, 0.75], [0.0, 1.0]]


def test_basic_interval_and_counts():
    # replicates 0..100: quantiles 2.5 and 97.5 (linear); at θ̂ = 50 the interval mirrors onto
    # itself, at θ̂ = 40 it is [80 − 97.5, 80 − 2.5]: replicates above θ̂ pull it down
    values = np.arange(101.0)
    assert basic_interval(values, 50.0) == pytest.approx([2.5, 97.5], rel=1e-12)
    assert basic_interval(values, 40.0) == pytest.approx([-17.5, 77.5], rel=1e-12)
    counts = resample_counts(5, 7, seed=3)
    assert counts.shape == (7, 5) and (counts.sum(axis=1) == 5).all()
    assert np.array_equal(counts, resample_counts(5, 7, seed=3))


def test_bootstrap_of_identical_tasks_is_a_point():
    """Every task the same gradients: every resample is the pooled value, so each interval is
    the point; the settings are stated."""
    h, lo = np.tile([1.0, 2.0], (4, 1)), np.tile([2.0, 0.0], (4, 1))
    out = bootstrap(h @ h.T, h @ lo.T, lo @ lo.T, np.ones(4), replicates=50, seed=1)
    # ⟨h, l⟩ = 2, ‖h‖ = √5, ‖l‖ = 2: cos = 1/√5, γ = 2/√5
    assert out["cosine"]["estimate"] == pytest.approx(1 / math.sqrt(5))
    assert out["gain_ratio"]["ci"] == pytest.approx([2 / math.sqrt(5)] * 2)
    assert out["inner"]["task_mean"]["ci"] == pytest.approx([2.0, 2.0])
    assert out["norm_low"]["bias"] == pytest.approx(0.0, abs=1e-12)
    assert out["rho_low"]["per_task"] == pytest.approx([0.5] * 4)
    assert out["n_tasks"] == 4 and out["points"] == 4
    assert out["bootstrap"]["replicates"] == 50 and out["bootstrap"]["seed"] == 1
    with pytest.raises(ValueError, match="n >= 2"):
        bootstrap(np.ones((1, 1)), np.ones((1, 1)), np.ones((1, 1)), np.ones(1))


def test_bootstrap_matches_a_loop_over_resampled_gradients():
    """Replicate r's pooled cosine from the Gram matrices equals the cosine of the resampled
    mean gradients computed directly (points per task weigh in)."""
    rng = np.random.default_rng(0)
    h, lo, points = rng.normal(size=(6, 9)), rng.normal(size=(6, 9)), np.array([1, 2, 1, 3, 1, 1.0])
    out = bootstrap(h @ h.T, h @ lo.T, lo @ lo.T, points, replicates=40, seed=5)
    counts = resample_counts(6, 40, seed=5)
    cosines = []
    for c in counts:
        w = c * points / (c * points).sum()
        gh, gl = h.T @ w, lo.T @ w
        cosines.append(gh @ gl / np.linalg.norm(gh) / np.linalg.norm(gl))
    want = basic_interval(np.array(cosines), out["cosine"]["estimate"])
    assert out["cosine"]["ci"] == pytest.approx(want, rel=1e-12)
    assert out["cosine"]["bias"] == pytest.approx(np.mean(cosines) - out["cosine"]["estimate"])


# --- the decision token --------------------------------------------------------------------------


def test_decision_tokens_by_hand():
    # common prefix (1, 2): c = 2, the options' tokens there are 3 and 5
    assert decision_tokens([1, 2, 3, 4], [1, 2, 5]) == (2, 3, 5)
    assert decision_tokens([7], [8, 9]) == (0, 7, 8)
    with pytest.raises(ValueError, match="do not differ"):
        decision_tokens([1, 2], [1, 2, 3])


# --- a toy model with the coupling set by construction -------------------------------------------


class Toy(torch.nn.Module):
    """logits[t] = W e(ids[t]): the goal token's fixed feature e_g read by a head W [V, 2], so
    z_g = (W_r − W_w)·e_g and ∇_W z_g = (δ_r − δ_w) e_gᵀ, ⟨∇z_h, ∇z_l⟩ = 2 e_h·e_l for one
    decision (r, w), ‖∇z_g‖² = 2‖e_g‖²."""

    def __init__(self, features: torch.Tensor, vocab: int, train_features: bool = False):
        super().__init__()
        self.features = torch.nn.Parameter(features.clone(), requires_grad=train_features)
        self.head = torch.nn.Parameter(
            torch.randn(vocab, features.shape[1], generator=torch.Generator().manual_seed(0))
        )

    def forward(self, input_ids: torch.Tensor):
        return SimpleNamespace(logits=self.features[input_ids] @ self.head.T)


HIGH, LOW = 0, 1
E = torch.tensor([[3.0, 0.0], [1.0, 1.0]])  # e_h, e_l: cos = 1/√2, γ = ‖e_l‖/‖e_h‖ = √2/3


def _items() -> list[Item]:
    """Two tasks, one decision each: (right 2, wrong 3) and (right 2, wrong 4); the prefix is
    the goal token alone."""
    rows = [
        {g: (torch.tensor([tok]), 2, wrong) for g, tok in (("high", HIGH), ("low", LOW))}
        for wrong in (3, 4)
    ]
    return [Item(f"t{i}", "swap", r) for i, r in enumerate(rows)]


def _unflat(flat: torch.Tensor, params) -> list[torch.Tensor]:
    out, at = [], 0
    for p in params:
        out.append(flat[at : at + p.numel()].view_as(p))
        at += p.numel()
    return out


def test_toy_coupling_is_the_constructed_one():
    """Per task ⟨∇z_h, ∇z_l⟩ = 2 e_h·e_l = 6, ‖∇z_h‖² = 2·9, ‖∇z_l‖² = 2·2; pooled over the
    two tasks (∇z̄_g = ((δ_2 − (δ_3 + δ_4)/2) e_gᵀ, whose row norm² is 1 + 1/4 + 1/4 = 3/2):
    inner 3/2·3 = 4.5, so cos = 1/√2, γ = √2/3, ρ_l = cos/γ = 3/2, ρ_h = γ cos = 1/3."""
    from analysis.diagnostics.transfer.probe import Probe

    probe = Probe.at(Toy(E, vocab=5), _items(), temperature=1.0)
    assert probe.tasks == ["t0", "t1"] and probe.points.tolist() == [1.0, 1.0]
    assert probe.gram["hl"].diagonal().tolist() == pytest.approx([6.0, 6.0])
    assert probe.gram["hh"].diagonal().tolist() == pytest.approx([18.0, 18.0])
    got = probe.coupling(seed=0)
    assert got["inner"]["estimate"] == pytest.approx(4.5)
    assert got["cosine"]["estimate"] == pytest.approx(1 / math.sqrt(2))
    assert got["gain_ratio"]["estimate"] == pytest.approx(math.sqrt(2) / 3)
    assert got["rho_low"]["estimate"] == pytest.approx(1.5)
    assert got["rho_high"]["estimate"] == pytest.approx(1 / 3)
    assert got["tasks"] == ["t0", "t1"] and got["task_kinds"] == ["swap", "swap"]


@pytest.mark.parametrize("train_features", [False, True])
def test_a_step_along_a_goals_gradient_moves_the_other_by_rho(train_features):
    """The probe's step along −g with g = −∇z̄_l moves z̄_h / z̄_l by ρ_l, along g = −∇z̄_h by
    1/ρ_h: exactly when z is linear in the parameters (the head alone), to O(step) when the
    features train too (bilinear)."""
    from analysis.diagnostics.transfer.probe import Probe, step_effect

    probe = Probe.at(Toy(E.double(), vocab=5, train_features=train_features), _items(), 1.0)
    got = probe.coupling(seed=0)
    params = probe.params()
    tol = 1e-9 if not train_features else 1e-4
    for goal, want in (("low", got["rho_low"]["estimate"]), ("high", got["rho_high"]["estimate"])):
        effect = step_effect(probe, _unflat(-probe.grad[goal], params), 1e-6, {"t0"})
        ratio = effect["high"]["dz"] / effect["low"]["dz"]
        assert (ratio if goal == "low" else 1 / ratio) == pytest.approx(want, rel=tol), goal
        assert effect["high"]["rel_err"] < tol and effect["low"]["rel_err"] < tol
    if not train_features:
        assert got["rho_low"]["estimate"] == pytest.approx(1.5)


def test_task_points_count_each_tasks_points():
    items = _items()
    items.append(Item("t1", "swap", items[1].rows))
    tasks, points = task_points(items)
    assert tasks == ["t0", "t1"] and points.tolist() == [1.0, 2.0]


def test_resampling_biases_the_pooled_inner_product_by_the_task_spread_over_n():
    """Per-task gradients μ ± a (n = 40, half each): the pooled mean is μ, ⟨ḡ, ḡ⟩ = ‖μ‖² = 1,
    and a resample's mean keeps part of ±a: E*[‖ḡ*‖²] = ‖ḡ‖² + (1/n)·(1/n)Σ‖g_i − ḡ‖² = 1 +
    100/40, so ``bias`` ≈ 2.5 (2,000 replicates: within 10%), and the basic interval is the
    replicates' quantiles mirrored about the estimate, [2θ̂ − q_hi, 2θ̂ − q_lo]."""
    n, a, mu = 40, np.array([0.0, 10.0]), np.array([1.0, 0.0])
    g = np.array([mu + a if i % 2 else mu - a for i in range(n)])
    out = bootstrap(g @ g.T, g @ g.T, g @ g.T, np.ones(n), replicates=2000, seed=0)
    inner = out["inner"]
    assert inner["estimate"] == pytest.approx(1.0) and inner["bias"] == pytest.approx(2.5, rel=0.1)
    w = task_weights(resample_counts(n, 2000, seed=0), np.ones(n))
    replicates = np.einsum("ri,ij,rj->r", w, g @ g.T, w)
    assert inner["ci"] == pytest.approx(basic_interval(replicates, 1.0), rel=1e-12)
    assert inner["ci"][1] < 1.0  # every replicate lies above θ̂: the interval falls below it
