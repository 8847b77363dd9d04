"""How often a run evaluates, and on how many tasks between its first and last evaluation,
does not change what it trains: a run evaluating every step (one held-out task of two between
the ends) and one evaluating only at the end write the same training metrics, rollouts and
weights.

This is what lets a preset's ``run.eval_every`` change (the new campaign evaluates every 25
steps, the proof runs every 100) without changing the recipe of runs already committed."""

from __future__ import annotations

import json

import pytest
import torch
from rl_smoke_helpers import SMALL_RUN, cli, params, rows

STEPS = 3


def _training(row: dict) -> dict:
    """A metrics row without timings and the held-out evaluation's ``reward/eval_*`` keys."""
    return {
        k: v for k, v in row.items() if k != "time" and not k.startswith(("perf/", "reward/eval_"))
    }


@pytest.mark.slow
def test_eval_every_step_trains_as_eval_at_the_end(coin_flip, tmp_path):
    args = [
        "train",
        "--preset",
        "cpu-rcgrpo",
        "--init",
        str(coin_flip),
        *SMALL_RUN,
        "--run.steps",
        str(STEPS),
        "--run.checkpoint-every",
        str(STEPS),
        "--run.root",
        str(tmp_path),
    ]
    cli(*args, "--run.eval-every", "1", "--tasks.num-eval-between", "1", "--run.name", "often")
    cli(*args, "--run.eval-every", "0", "--run.name", "end")
    often, end = tmp_path / "often", tmp_path / "end"
    sizes = {
        p.stem: json.loads(p.read_text())["num_tasks"] for p in (often / "eval").glob("*.json")
    }
    assert sizes == {"step_0": 2, "step_1": 1, "step_2": 1, f"step_{STEPS}": 2}
    assert sorted(p.stem for p in (end / "eval").glob("*.json")) == ["step_0", f"step_{STEPS}"]
    a, b = rows(often / "metrics.jsonl"), rows(end / "metrics.jsonl")
    assert [_training(r) for r in a] == [_training(r) for r in b]
    assert rows(often / "rollouts.jsonl") == rows(end / "rollouts.jsonl")
    pa, pb = (
        params(often / "checkpoints" / f"step_{STEPS}"),
        params(end / "checkpoints" / f"step_{STEPS}"),
    )
    assert all(torch.equal(pa[k], pb[k]) for k in pa)
