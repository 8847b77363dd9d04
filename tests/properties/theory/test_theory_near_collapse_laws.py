"""Statement 7 laws: advantage scale near collapse, exact |A| law (hypothesis)."""

import math

import numpy as np
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from analysis.theory import near_collapse as nc
from analysis.theory.report import bernstein_halfwidth
from rcgrpo import group_advantages

eps_values = st.sampled_from([0.0, 1e-8, 1e-6, 1e-4, 1e-2])


@settings(max_examples=60)
@given(
    rewards=st.lists(st.floats(-1e3, 1e3, allow_subnormal=False), min_size=2, max_size=16),
    eps=eps_values,
)
@example(rewards=[0.0, 1.0], eps=0.0)  # G = 2: Samuelson's bound is an equality
@example(rewards=[0.1, 0.1, 0.1], eps=0.0)  # constant group: exactly 0 despite float mean error
@example(rewards=[0.0, 2.4887328519821206e-273], eps=0.0)  # found: plain std underflows to 0
def test_advantage_scale_identity_and_samuelson(rewards, eps):
    r = torch.tensor([rewards], dtype=torch.float64)
    adv = group_advantages(r, eps_stab=eps)[0].numpy()
    if len(set(rewards)) == 1:
        assert (adv == 0).all()
        return
    sigma = float(nc.population_std(r)[0])
    assert sigma > 0
    # rounding of the centred rewards: a few ulps of max|R|, relative to sigma
    rel = 1e-12 + 64 * np.finfo(float).eps * max(map(abs, rewards)) / sigma
    weight = sigma / (sigma + eps)  # w_g, computed as a ratio so sigma^2 cannot underflow
    assert math.isclose((adv**2).sum(), len(rewards) * weight**2, rel_tol=rel)
    assert np.abs(adv).max() <= math.sqrt(len(rewards) - 1) * weight * (1 + rel)


def test_smallest_subnormal_spread():
    # found by hypothesis on the law above: the std of (0, 5e-324) underflowed to 0, so
    # eps_stab = 0 divided by 0; fixed by dividing in the scaled space.
    adv = group_advantages(torch.tensor([[0.0, 5e-324]], dtype=torch.float64), eps_stab=0.0)
    assert torch.isfinite(adv).all()


@settings(max_examples=20)
@given(
    s=st.floats(0.0, 1.0),
    group_size=st.integers(2, 12),
    eps=eps_values,
    seed=st.integers(0, 2**31 - 1),
)
@example(s=0.01, group_size=5, eps=1e-6, seed=0)  # peaked policy: mostly collapsed groups
@example(s=2.2250738585072014e-308, group_size=4, eps=0.0, seed=0)  # found: scipy binom overflow
def test_binary_abs_advantage_law(s, group_size, eps, seed):
    values, probs = nc.binary_advantage_distribution(s, group_size, eps)
    assert abs(probs.sum() - 1.0) <= 1e-12 and (values <= math.sqrt(group_size - 1) + 1e-12).all()
    gen = torch.Generator().manual_seed(seed)
    rewards = (torch.rand(3000, group_size, generator=gen, dtype=torch.float64) < s).double()
    per_group = group_advantages(rewards, eps_stab=eps).abs().mean(dim=1).numpy()
    # tolerance: empirical Bernstein on per-group means (i.i.d. groups), range sqrt(G-1), delta 1e-6
    tol = bernstein_halfwidth(per_group, math.sqrt(group_size - 1), 1e-6)
    assert abs(per_group.mean() - probs @ values) <= tol
