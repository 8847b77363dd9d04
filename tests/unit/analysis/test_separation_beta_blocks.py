"""The high goal's training success in blocks, with its binomial noise sd, on a hand-made run
(analysis.figures.fig_theory_separation_beta.high_blocks)."""

import json
import math

import pytest

from analysis.figures.fig_theory_separation_beta import high_blocks
from analysis.runs import load_run


def _run(tmp_path, rows):
    (tmp_path / "config.json").write_text(
        json.dumps({"rollout": {"prompts_per_step": 2, "group_size": 2}})
    )
    (tmp_path / "metrics.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return load_run(tmp_path)


def test_high_blocks_hand_computed(tmp_path):
    # batch 4; per step (success under high, share of high rollouts) -> n_high = share * 4
    steps = [(0.5, 0.5), (1.0, 0.5), (0.0, 0.25), (1.0, 0.75), (0.5, 0.5)]
    rows = [{"step": 0, "eval/success": 0.3}]  # an evaluation row: not a training step
    rows += [
        {"step": i, "reward/success_high": h, "reward/high_frac": f}
        for i, (h, f) in enumerate(steps, start=1)
    ]
    out = high_blocks(_run(tmp_path, rows), block=2)
    assert out["step"].tolist() == [2, 4]  # step 5 is an incomplete block: dropped
    # block 1: mean (0.5 + 1) / 2; var 0.5 * 0.5 / 2 + 0 -> sd sqrt(0.125) / 2
    assert out["s"].tolist() == pytest.approx([0.75, 0.5])
    assert out["sd"].tolist() == pytest.approx([math.sqrt(0.125) / 2, 0.0])
