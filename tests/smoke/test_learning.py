"""A learning test: from the coin-flip start, GRPO raises TRAINING success by more than a
broken update can reach in the same steps, and the same run with the advantage sign flipped
lowers it.

Set-up: the smoke tests' coin-flip checkpoint (2 synth tasks, a rollout succeeds about half
the time), P 4 prompts x G 8 rollouts = B 32 per step, lr 3e-4, seed 0, ``STEPS`` steps.
Three runs differ only in the advantages the trainer computes, changed through the function
it calls (``rcgrpo.train.rl.filters.advantages_of``): x1 (GRPO), x-1 (flipped), x0 (the null:
a broken update that carries no learning signal, so the policy stays at its start π_0).

The margin. Under the null every rollout of the window is a draw from π_0, independent
given the policy, so the window's success rate has variance at most p_0(1-p_0)/(kB) <=
1/(4kB) over k steps; two such windows differ by at most ``Z`` standard deviations of
their difference with probability >= 1 - Φ(-Z) (0.9987 at Z = 3):

    margin = Z · sqrt(2 · (1/4) / (k · B)) = 3 · sqrt(0.5 / 160) = 0.168   (k 5, B 32).

Measured at lr 3e-4 on seeds 0 / 1 / 2 (window steps 2-6): GRPO 0.72 / 0.70 / 0.76, flipped
0.12 / 0.16 / 0.12, null about 0.4-0.5 (p_0 = 0.48 over 30 null steps). lr 1e-3 learns faster
but collapses on seed 2 (0.72 -> 0.00 in one step), so it would make a brittle test.
Verified to fail with the loss sign flipped in ``rcgrpo/train/rl/update.py`` (GRPO then falls
and the flipped run rises). ~17 s of CPU for the three runs on one core.
"""

from __future__ import annotations

import math

import pytest
import torch
from rl_smoke_helpers import TASK_FLAGS, rows

import rcgrpo.train.rl.filters as filters
from rcgrpo.__main__ import main as rcgrpo_main

pytestmark = pytest.mark.slow  # end to end: trains through the CLI (make test-slow)

G, P = 8, 4
STEPS = 6
WINDOW = range(2, STEPS + 1)
"""Steps measured: every step after the first update (step 1 samples the start policy)."""
Z = 3.0
MARGIN = Z * math.sqrt(2 * 0.25 / (len(WINDOW) * P * G))


@pytest.fixture(autouse=True)
def one_thread():
    """Deterministic sampling and no thread contention on 2 shared cores."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def training_success(coin_flip, root, scale: float, monkeypatch) -> dict[int, float]:
    """Training success rate by step of a seeded GRPO run whose advantages are ``scale`` x
    the trainer's own."""
    real = filters.advantages_of
    with monkeypatch.context() as patch:
        patch.setattr(filters, "advantages_of", lambda *a, **k: scale * real(*a, **k))
        argv = [
            "train",
            "--preset",
            "cpu-grpo",
            "--init",
            str(coin_flip),
            *TASK_FLAGS,
            *("--rollout.group-size", str(G), "--rollout.prompts-per-step", str(P)),
            *("--rollout.max-new-tokens", "64", "--rollout.max-context", "400"),
            *("--optim.lr", "3e-4", "--optim.warmup-steps", "0", "--optim.weight-decay", "0"),
            *("--run.steps", str(STEPS), "--run.seed", "0", "--run.eval-every", "0"),
            *("--run.checkpoint-every", "0", "--run.no-progress", "--run.no-tensorboard"),
            *("--run.root", str(root), "--run.name", f"x{scale:g}"),
        ]
        assert rcgrpo_main(argv) == 0
    metrics = rows(root / f"x{scale:g}" / "metrics.jsonl")
    return {m["step"]: m["reward/success_rate"] for m in metrics if m["step"] >= 1}


def window_mean(success: dict[int, float]) -> float:
    return sum(success[s] for s in WINDOW) / len(WINDOW)


def test_grpo_raises_training_success_and_flipped_advantages_lower_it(
    coin_flip, tmp_path, monkeypatch
):
    assert abs(MARGIN - 0.1677) < 1e-4  # 3 * sqrt(0.5 / 160), module docstring
    grpo, flipped, null = (
        training_success(coin_flip, tmp_path, scale, monkeypatch) for scale in (1.0, -1.0, 0.0)
    )
    # step 1 samples the same start policy with the same seed in all three runs
    assert grpo[1] == flipped[1] == null[1]
    rise = window_mean(grpo) - window_mean(null)
    fall = window_mean(flipped) - window_mean(null)
    assert rise >= MARGIN, f"GRPO: {grpo} vs null {null}"
    assert fall <= -MARGIN, f"flipped advantages: {flipped} vs null {null}"
