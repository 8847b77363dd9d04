"""``goal_weights``' fast path (:func:`analysis.theory.separation_dynamics._outcome_grid`: the
grids, P(n) and the advantage-weighted counts computed once per (G, p); the two success pmfs on
1-D supports, broadcast) gives the bits of the direct loop it replaced, so the registered β
predictions and the committed figures that read it do not move."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from analysis.theory.separation_dynamics import advantage_values, goal_weights, simulate


def loop_goal_weights(s: np.ndarray, group_size: int, p: float) -> np.ndarray:
    """The direct loop: every (k_l, k_h) grid, P(n) and both pmfs recomputed at each call."""
    a = advantage_values(group_size, 1e-6)
    total = np.zeros(2)
    for n_high in range(group_size + 1):
        counts = (group_size - n_high, n_high)
        p_tok = np.clip(binom.pmf(n_high, group_size, p), 0, 1)
        kl_, kh_ = np.meshgrid(np.arange(counts[0] + 1), np.arange(counts[1] + 1), indexing="ij")
        prob = p_tok * np.clip(binom.pmf(kl_, counts[0], s[0]), 0, 1)
        prob = prob * np.clip(binom.pmf(kh_, counts[1], s[1]), 0, 1)
        k = kl_ + kh_
        for r, kr in ((0, kl_), (1, kh_)):
            term = kr * a[k, 1] * (1 - s[r]) - (counts[r] - kr) * a[k, 0] * s[r]
            total[r] += float((prob * term).sum())
    spread = s * (1 - s)
    return np.where(spread > 0, total / (group_size * np.where(spread > 0, spread, 1.0)), 0.0)


@pytest.mark.parametrize("group_size", [2, 5, 8, 11])
def test_fast_goal_weights_equal_the_loop_bit_for_bit(group_size):
    rng = np.random.default_rng(group_size)
    for i in range(100):
        s = rng.random(2) * (1e-9 if i % 11 == 0 else 1.0)
        if i % 7 == 0:
            s[rng.integers(2)] = rng.choice([0.0, 1.0])
        p = float(rng.choice([0.5, 1.0, 0.0, rng.random()]))
        fast, loop = goal_weights(s, group_size, p), loop_goal_weights(s, group_size, p)
        assert np.array_equal(fast, loop), (s, p, fast, loop)


def test_a_simulated_run_is_the_same_with_either_path(monkeypatch):
    from analysis.theory import separation_dynamics as sd

    start = (sd.bandit(0.3), sd.bandit(0.6))
    fast = simulate(start, sd.bandit_rewards(), 0.1, 0.5, 60, 8, 0.5, "k3")
    monkeypatch.setattr(sd, "goal_weights", lambda s, g, p=0.5: loop_goal_weights(s, g, p))
    loop = simulate(start, sd.bandit_rewards(), 0.1, 0.5, 60, 8, 0.5, "k3")
    assert all(np.array_equal(fast[k], loop[k]) for k in fast)
