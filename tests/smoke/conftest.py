"""Fixtures of the smoke tests."""

from __future__ import annotations

import os

import pytest
from rl_smoke_helpers import coin_flip_checkpoint


@pytest.fixture(scope="module")
def coin_flip(tmp_path_factory):
    """The coin-flip start checkpoint (rl_smoke_helpers), built once per session folder (shared
    by the xdist workers)."""
    root = tmp_path_factory.getbasetemp()
    return coin_flip_checkpoint(root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root)
