"""Variance envelope over (separation, entropy): hand-worked corners and the kappa bound."""

import math

import numpy as np
import pytest

from analysis.theory.separation_entropy import variance_envelope
from analysis.theory.variance_guarantee import kappa


def test_corners():
    lo, hi = variance_envelope(np.array([0.0, 1.0]), np.array([0.0, 1.0]), 5, 0.5, 8)
    # Delta = 1, H = 0: s_low = 0, s_high = 1, m = 1/2 -> (4/5)(1/4) = 0.2 (the only policy)
    assert lo[0, 1] == pytest.approx(0.2) and hi[0, 1] == pytest.approx(0.2)
    # Delta = 0: s = 0 with within-family entropy w = H is feasible -> min 0 at every entropy
    assert lo[0, 0] == 0.0 and lo[1, 0] == 0.0
    # Delta = 0, H = 1 >= log 2: s = 1/2 feasible -> max 0.2
    assert hi[1, 0] == pytest.approx(0.2)
    # Delta = 1, H = 1 <= log 8: still only s_low = 0, s_high = 1
    assert lo[1, 1] == pytest.approx(0.2)


def test_guaranteed_variance_depends_on_separation_only_and_exceeds_kappa():
    delta = np.linspace(0.0, 1.0, 21)
    entropy = np.linspace(0.0, math.log(2) + math.log(8), 31)
    lo, _ = variance_envelope(delta, entropy, 5, 0.5, 8)
    assert np.all(
        lo[np.isfinite(lo)]
        >= (kappa(5, 0.5) * delta**2)[None, :].repeat(31, 0)[np.isfinite(lo)] - 1e-12
    )
    # Delta = 0.5, H = 1 nat: min at s_low = 0, m = 1/4 -> (4/5)(1/4)(3/4) = 0.15
    lo_mid, _ = variance_envelope(np.array([0.5]), np.array([1.0]), 5, 0.5, 8)
    assert lo_mid[0, 0] == pytest.approx(0.15)


def test_infeasible_cells_are_nan():
    # Delta = 0.5 needs binary entropy >= H_b(0.5)/2 = 0.347 nats: H = 0 is impossible
    lo, hi = variance_envelope(np.array([0.5]), np.array([0.0]), 5, 0.5, 8)
    assert np.isnan(lo[0, 0]) and np.isnan(hi[0, 0])
    with pytest.raises(ValueError, match="delta"):
        variance_envelope(np.array([1.5]), np.array([0.0]))
