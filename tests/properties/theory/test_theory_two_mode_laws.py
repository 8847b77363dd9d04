"""Remark 4.4 model laws: exact tables vs closed forms, the update bound, MC (hypothesis)."""

import numpy as np
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from analysis.theory.dynamics import closed_form_variance
from analysis.theory.report import bernstein_halfwidth
from analysis.theory.two_mode import expected_statistics, sample_group_gradients
from analysis.theory.variance_guarantee import kappa

configs = dict(
    z_low=st.floats(-10.0, 10.0),
    z_high=st.floats(-10.0, 10.0),
    group_size=st.integers(2, 6),
    p=st.floats(0.05, 0.95),
    scheme=st.sampled_from(["iid", "stratified", "high"]),
    tau=st.floats(0.5, 3.0),
)


@settings(max_examples=40)
@given(**configs)
@example(z_low=6.9, z_high=-6.9, group_size=5, p=0.5, scheme="iid", tau=1.0)  # inverted tokens
def test_exact_table_laws(z_low, z_high, group_size, p, scheme, tau):
    z = np.array([z_low, z_high])
    st_ = expected_statistics(z, group_size, p, scheme, tau)
    assert abs(st_["total_prob"] - 1.0) <= 1e-12
    closed = closed_form_variance(z, group_size, p, scheme, tau)
    assert abs(st_["expected_variance"] - closed) <= 1e-12
    assert st_["mean_grad_norm"] <= st_["grad_norm_bound"] + 1e-12
    assert np.linalg.norm(st_["mean_grad"]) <= st_["mean_grad_norm"] + 1e-12
    if scheme == "iid":
        delta = st_["success"][1] - st_["success"][0]
        assert st_["expected_variance"] >= kappa(group_size, p) * delta**2 - 1e-12
    if scheme == "high":  # Prop 4.2 in the two-mode model: ||g|| <= 1/(2 tau) off collapse
        assert st_["mean_grad_norm"] <= (1 - st_["p_collapse"]) / (2 * tau) + 1e-12


@settings(max_examples=15)
@given(**configs, seed=st.integers(0, 2**31 - 1))
def test_mc_gradient_matches_exact(z_low, z_high, group_size, p, scheme, tau, seed):
    z = np.array([z_low, z_high])
    st_ = expected_statistics(z, group_size, p, scheme, tau)
    grads = sample_group_gradients(
        z, group_size, p, scheme, tau, 3000, torch.Generator().manual_seed(seed)
    )
    for r in range(2):  # tolerance: empirical Bernstein, g_r in [-1/tau, 1/tau], delta = 1e-6
        assert abs(grads[:, r].mean() - st_["mean_grad"][r]) <= bernstein_halfwidth(
            grads[:, r], 2 / tau, 1e-6
        )
