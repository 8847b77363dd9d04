"""The transfer model's step-size fit: it recovers a known η, pools references, and raises
rather than report an η the curves do not pin (no search bound can bind)."""

import numpy as np
import pytest

from analysis.campaigns.collapse import transfer_table as tt


def _curve(eta: float, s0=(0.2, 0.25), rho=1.0) -> np.ndarray:
    return tt._predict("rctp_grpo", s0, rho, eta, noise=False)


@pytest.mark.parametrize("eta", [0.004, 0.02, 0.3])
def test_fit_recovers_the_step_size_it_was_simulated_with(eta):
    assert tt.fit_eta([(_curve(eta), (0.2, 0.25), 1.0)], noise=False) == pytest.approx(
        eta, rel=1e-3
    )


def test_fit_pools_references_from_different_starts():
    refs = [(_curve(0.05, s0), s0, 1.0) for s0 in [(0.2, 0.25), (0.3, 0.1), (0.15, 0.4)]]
    assert tt.fit_eta(refs, noise=False) == pytest.approx(0.05, rel=1e-3)


def test_fit_recovers_below_the_old_lower_bound():
    """The old search stopped at 1e-2; a curve made at 0.007 must come back as 0.007."""
    assert tt.fit_eta([(_curve(0.007), (0.2, 0.25), 1.0)], noise=False) == pytest.approx(
        0.007, rel=1e-3
    )


def test_a_curve_no_step_size_fits_raises():
    """Success that falls below the start: the least-squares η runs to 0."""
    with pytest.raises(tt.FitOffScale, match="no step size fits"):
        tt.fit_eta([(np.zeros(tt.STEPS), (0.2, 0.25), 1.0)], noise=False)


def test_only_in_sample_k3s_is_marked_fitted():
    marks = {(f, r): tt.is_genuine(f, r) for f in tt.FITS for r in tt.RULES}
    assert [k for k, genuine in marks.items() if not genuine] == [("in-sample", "K3s")]
