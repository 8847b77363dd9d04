"""Fixtures of the TRL-integration tests: the coin-flip checkpoint of the RL smoke tests
(2 synth tasks whose sampled rollouts succeed about half the time) and its tasks."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

SMOKE = Path(__file__).resolve().parents[2] / "smoke"
if str(SMOKE) not in sys.path:
    sys.path.insert(0, str(SMOKE))

from rl_smoke_helpers import coin_flip_checkpoint  # noqa: E402


@pytest.fixture(scope="session")
def coin_flip_dir(tmp_path_factory) -> Path:
    """Built once per session; the same cache folder as tests/smoke (shared across workers)."""
    root = tmp_path_factory.getbasetemp()
    return coin_flip_checkpoint(root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root)


@pytest.fixture(scope="session")
def coin_flip_tokenizer(coin_flip_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(coin_flip_dir)


@pytest.fixture(scope="session")
def coin_flip_tasks():
    """The checkpoint's 2 tasks (1 turn, 1 call, synth preset tiny, generator seed 0)."""
    from rcgrpo.policy.task_sources import load_tasks

    return load_tasks("synth", "train", 0, 2, preset="tiny", turns=(1, 1), calls_per_turn=(1, 1))
