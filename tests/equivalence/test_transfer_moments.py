"""The vectorised group moments of the transfer model equal the loop reference
(analysis.theory.transfer.group_moments vs group_moments_loop)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.theory.transfer import group_moments, group_moments_loop


@settings(max_examples=60, deadline=None)
@given(
    s_h=st.floats(0.0, 1.0),
    s_l=st.floats(0.0, 1.0),
    size=st.integers(2, 8),
    p=st.floats(0.0, 1.0),
)
def test_vectorised_moments_equal_the_loop(s_h, s_l, size, p):
    fast, slow = group_moments(s_h, s_l, size, p), group_moments_loop(s_h, s_l, size, p)
    assert fast.keys() == slow.keys()
    for key in fast:
        assert fast[key] == pytest.approx(slow[key], rel=1e-12, abs=1e-15), key
