"""The hypothesis profile that tests/conftest.py loads (``ci`` unless HYPOTHESIS_PROFILE)."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import MAX_EXAMPLES

pytestmark = pytest.mark.skipif(
    os.environ.get("HYPOTHESIS_PROFILE", "ci") != "ci", reason="another profile was chosen"
)


def _draws() -> list[int]:
    seen: list[int] = []

    @given(st.integers(0, 10**9))
    def law(x: int) -> None:
        seen.append(x)

    law()
    return seen


def test_ci_profile_is_loaded():
    active = settings()
    assert (active.derandomize, active.deadline, active.database) == (True, None, None)
    assert active.print_blob and active.max_examples == MAX_EXAMPLES


def test_two_runs_draw_the_same_examples():
    first, second = _draws(), _draws()
    assert first == second and len(set(first)) > 1
