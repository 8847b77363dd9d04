"""Remark 4.4 two-mode model: hand-worked expectations, the runs, the counterexample."""

import numpy as np
import pytest
import torch

from analysis.theory import dynamics
from analysis.theory.two_mode import expected_statistics, sample_group_gradients, token_patterns


def test_token_patterns():
    pats, probs = token_patterns(3, 0.5, "stratified")  # k = round(1.5) = 2 -> C(3, 2) rows
    assert pats.shape == (3, 3) and (pats.sum(axis=1) == 2).all() and probs.sum() == 1
    pats, probs = token_patterns(3, 0.2, "iid")
    assert pats.shape == (8, 3) and probs.sum() == pytest.approx(1.0)


def test_grpo_g2_hand_values():
    # G = 2, s = 1/2, tau = 1, GRPO: mixed outcomes (prob 1/2) have A = +-0.5/(0.5+eps) and
    # g_high = 1/2 [A_1 (1 - 1/2) + A_2 (0 - 1/2)] = 0.5 * 0.5/(0.5+eps); E[sigma^2] = 1/2 * 1/4
    st = expected_statistics(np.array([0.0, 0.0]), 2, 0.5, "high", 1.0)
    scale = 0.5 / (0.5 + 1e-6)
    assert st["mean_grad"] == pytest.approx([0.0, 0.25 * scale], abs=1e-15)
    assert st["mean_grad_norm"] == pytest.approx(0.25 * scale)
    assert st["expected_variance"] == pytest.approx(0.125)
    assert st["p_collapse"] == pytest.approx(0.5)


def test_mc_agrees_with_exact():
    z = np.array([-1.0, 2.0])
    st = expected_statistics(z, 5, 0.5, "iid", 1.5)
    grads = sample_group_gradients(z, 5, 0.5, "iid", 1.5, 40_000, torch.Generator().manual_seed(0))
    se = grads.std(axis=0) / np.sqrt(len(grads))
    assert np.all(np.abs(grads.mean(axis=0) - st["mean_grad"]) < 5 * se)  # 5 sigma


def test_inverted_conditioning_counterexample():
    inv = dynamics.inverted_conditioning_example()
    assert inv["variance"] >= 0.199 * 1.0 and inv["kappa"] == pytest.approx(0.2)
    # bound 2 sqrt(4) * (1e-3 * (1 - 1e-3)) = 4e-3
    assert inv["grad_norm"] <= 4e-3


def test_runs_show_stall_and_variance_from_separation():
    methods = dynamics.default_methods()
    grpo = dynamics.simulate(methods["grpo"], steps=120)
    rc = dynamics.simulate(methods["rc_grpo"], steps=120)
    assert grpo["success"][-1] < 0.01  # stalled for 120 steps from s0 = 0.002
    assert rc["success"][-1] > 0.98
    # RC: variance stays >= kappa Delta^2 and approaches kappa = 0.2 while entropy falls
    assert np.all(rc["variance"] >= 0.2 * rc["separation"] ** 2 - 1e-12)
    assert rc["variance"][-1] > 0.19 and rc["entropy"][-1] < 0.1
    assert np.all(rc["grad_norm"] <= rc["grad_norm_bound"] + 1e-12)


def test_check_clean():
    assert dynamics.check(num_configs=10, seed=6, num_mc=500, steps=30).status == "ok"
