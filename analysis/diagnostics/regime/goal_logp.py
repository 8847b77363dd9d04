r"""Does a checkpoint read its reward goal? The log-likelihood gap between the two goals.

For a trajectory τ with assistant actions a_1..a_n (RCTP-FT's loss mask) and histories h_t,

    Δ(τ) = Σ_t log π(a_t | h_t, <|high_reward|>) − Σ_t log π(a_t | h_t, <|low_reward|>),

with the goal appended to the first user message as in RCTP-FT
(:func:`rcgrpo.policy.render.with_reward_goal`). A checkpoint that learned the goals has
Δ > 0 on successes and Δ < 0 on failures (the gap between the two means is what RCTP-FT's
loss rewards); a goal-blind one has Δ ≈ 0 on both, whatever its success. It explains a G4 in
which the goals do not separate (``docs/lab-notes/2026-12-regime-design-g4.md``) without any rollout: one forward pass
per trajectory and goal. ::

    OMP_NUM_THREADS=1 python -m analysis.diagnostics.regime.goal_logp CKPT MIX.jsonl \
        [--every 10] [--out report.json]

``MIX.jsonl`` is an RCTP-FT run's training mix (``trajectories.jsonl``, one row per
trajectory with its ``messages`` and real ``reward``; ``.gz``: gzip-compressed, as a light copy
keeps it), or any file of such rows.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path

import torch

from rcgrpo.policy.chat import ChatEncoder
from rcgrpo.policy.recompute import sequence_logprobs
from rcgrpo.policy.render import with_reward_goal


def trajectory_logp(model, encoder: ChatEncoder, messages: Sequence[dict], high: bool) -> float:
    """Σ_t log π(a_t | h_t, goal) over the assistant tokens of ``messages`` under ``high``."""
    ids, mask = encoder.encode_conversation(with_reward_goal(messages, high))
    x = torch.tensor([ids])
    with torch.no_grad():
        lp = sequence_logprobs(model, x, torch.ones_like(x), torch.tensor([mask]))
    return float(lp.sum())


def goal_gaps(model, encoder: ChatEncoder, rows: Sequence[dict]) -> list[tuple[int, float]]:
    """(reward, Δ) of each row (a dict with ``messages`` and ``reward``)."""
    return [
        (
            int(row["reward"] == 1),
            trajectory_logp(model, encoder, row["messages"], True)
            - trajectory_logp(model, encoder, row["messages"], False),
        )
        for row in rows
    ]


def summarise(gaps: Sequence[tuple[int, float]]) -> dict[str, dict[str, float]]:
    """Per reward (``success`` / ``failure``): n, mean Δ, its standard error and the share of
    trajectories whose Δ has the sign of a goal-reading model (> 0 successes, < 0 failures)."""
    out = {}
    for reward, name in ((1, "success"), (0, "failure")):
        values = [d for r, d in gaps if r == reward]
        n = len(values)
        mean = sum(values) / n if n else math.nan
        var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else math.nan
        sign = 1 if reward else -1
        out[name] = {
            "n": n,
            "mean_gap": mean,
            "se": math.sqrt(var / n) if n > 1 else math.nan,
            "right_sign": sum(sign * v > 0 for v in values) / n if n else math.nan,
        }
    return out


def main(argv: list[str] | None = None) -> int:
    from rcgrpo.policy.models import load_policy

    parser = argparse.ArgumentParser(
        prog="python -m analysis.diagnostics.regime.goal_logp", description=__doc__.split("\n")[0]
    )
    parser.add_argument("checkpoint")
    parser.add_argument("mix", type=Path, help="JSONL rows with messages and reward")
    parser.add_argument("--every", type=int, default=10, help="every k-th row (default 10)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if args.every < 1:
        parser.error("--every must be >= 1")
    raw = args.mix.read_bytes()
    text = (gzip.decompress(raw) if args.mix.suffix == ".gz" else raw).decode()
    lines = [line for line in text.splitlines() if line.strip()]
    rows = [json.loads(line) for line in lines[:: args.every]]
    model, tokenizer, added = load_policy(args.checkpoint)
    if added:
        print(f"note: {args.checkpoint} lacked the reward tokens {added}", file=sys.stderr)
    report = {
        "checkpoint": args.checkpoint,
        "mix": str(args.mix),
        "every": args.every,
        **summarise(goal_gaps(model, ChatEncoder(tokenizer), rows)),
    }
    text = json.dumps(report, indent=2) + "\n"
    if args.out:
        args.out.write_text(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
