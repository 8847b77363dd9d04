"""Hypothesis laws of the transfer probe's coupling in gradient form
(analysis.diagnostics.transfer.coupling): Cauchy-Schwarz, the ratios' identities, scale
invariance, and the pooled value as the weighted mean gradient."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from analysis.diagnostics.transfer.coupling import coupling, task_weights

VALUES = st.floats(-3, 3, allow_nan=False).map(lambda x: round(x, 3))


@st.composite
def gradients(draw):
    """(G_h [n, P], G_l [n, P], points [n]) with nonzero pooled gradients."""
    n, p = draw(st.integers(1, 5)), draw(st.integers(1, 6))
    high = draw(arrays(np.float64, (n, p), elements=VALUES))
    low = draw(arrays(np.float64, (n, p), elements=VALUES))
    points = draw(arrays(np.float64, n, elements=st.integers(1, 4)))
    w = task_weights(np.ones(n), points)
    if np.linalg.norm(high.T @ w) < 1e-3 or np.linalg.norm(low.T @ w) < 1e-3:
        high, low = high + 1.0, low - 1.0  # away from a zero pooled gradient
    return high, low, points


@settings(max_examples=200, deadline=None)
@given(g=gradients(), scale=st.sampled_from([0.5, 3.0]))
def test_coupling_laws(g, scale):
    high, low, points = g
    w = task_weights(np.ones(len(points)), points)
    out = coupling(high @ high.T, high @ low.T, low @ low.T, w)
    gh, gl = high.T @ w, low.T @ w  # the pooled gradients themselves
    assert out["inner"] == pytest.approx(gh @ gl, abs=1e-9)
    assert out["norm_high"] == pytest.approx(np.linalg.norm(gh), rel=1e-9)
    assert -1 - 1e-12 <= out["cosine"] <= 1 + 1e-12  # Cauchy-Schwarz
    assert out["rho_low"] == pytest.approx(out["cosine"] / out["gain_ratio"], rel=1e-9, abs=1e-12)
    assert out["rho_low"] * out["rho_high"] == pytest.approx(
        out["cosine"] ** 2, rel=1e-9, abs=1e-12
    )
    # scaling the low goal's gradients by a scales γ and ρ_h by a, ρ_l by 1/a; cos is unchanged
    scaled = coupling(high @ high.T, scale * high @ low.T, scale**2 * low @ low.T, w)
    assert scaled["cosine"] == pytest.approx(out["cosine"], rel=1e-9, abs=1e-12)
    assert scaled["gain_ratio"] == pytest.approx(scale * out["gain_ratio"], rel=1e-9)
    assert scaled["rho_low"] == pytest.approx(out["rho_low"] / scale, rel=1e-9, abs=1e-12)
