"""Synth suite speed and size: generation rate and mean task sizes of every preset and split.

For each ``SYNTH_PRESETS`` entry and split, generates ``--n`` tasks (seed 0) on one core and
reports tasks/s with the suite's mean sizes (:func:`~rcgrpo.env.synth.suite_stats`; "prompt"
= the policy's ``compact`` system prompt + every user turn, before tool outputs). Baseline in
the same process: :func:`~rcgrpo.env.score_trajectory` on the generated tasks' own ground
truth. Both execute every ground-truth call on fresh backend instances, so the ratio
generation / scoring says how much a fresh task costs next to scoring one rollout of it.
Also prints the size of each argument-value space (:func:`~rcgrpo.env.synth.value_space_sizes`).

    .venv/bin/python benchmarks/bench_synth.py [--n 2000]
"""

from __future__ import annotations

import argparse
import os
import time

from rcgrpo.env import score_trajectory
from rcgrpo.env.synth import (
    SPLITS,
    SYNTH_PRESETS,
    generate_synth_tasks,
    suite_stats,
    value_space_sizes,
)
from rcgrpo.policy.render import compact_system_prompt

# printed label -> suite_stats key (mean per task; chars = characters)
COLUMNS = {
    "turns": "turns",
    "calls": "calls",
    "offered": "functions_offered",
    "user ch": "user_chars",
    "prompt ch": "prompt_chars",
    "docs ch": "json_docs_chars",
}


def _rate(n: int, seconds: float) -> float:
    return n / max(seconds, 1e-9)


def measure(preset: str, split: str, n: int) -> dict[str, float]:
    """Generation and scoring rates (tasks/s) and mean sizes of ``n`` tasks."""
    start = time.perf_counter()
    tasks = generate_synth_tasks(n, split, seed=0, config=SYNTH_PRESETS[preset])
    generate_s = time.perf_counter() - start
    start = time.perf_counter()
    solved = sum(score_trajectory(t, [list(c) for c in t.ground_truth]).reward for t in tasks)
    score_s = time.perf_counter() - start
    assert solved == len(tasks), f"{preset}/{split}: ground truth solved {solved}/{len(tasks)}"
    rates = {"generate": _rate(len(tasks), generate_s), "score": _rate(len(tasks), score_s)}
    return rates | suite_stats(tasks, compact_system_prompt)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="tasks per preset and split")
    args = parser.parse_args()
    if args.n < 1:
        parser.error(f"--n must be >= 1, got {args.n}")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    print(f"synth: {args.n} tasks per preset and split (seed 0), 1 core")
    header = "".join(f"{label:>10s}" for label in COLUMNS)
    print(f"  {'preset/split':<14s}{'generate/s':>11s}{'score/s':>9s}{'ratio':>7s}{header}")
    for preset in SYNTH_PRESETS:
        for split in SPLITS:
            row = measure(preset, split, args.n)
            sizes = "".join(f"{row[key]:10.1f}" for key in COLUMNS.values())
            ratio = row["generate"] / row["score"]
            print(
                f"  {preset + '/' + split:<14s}{row['generate']:11.0f}{row['score']:9.0f}"
                f"{ratio:7.2f}{sizes}"
            )
    spaces = ", ".join(f"{k} {v:,}" for k, v in value_space_sizes().items())
    print(f"  value spaces: {spaces}")


if __name__ == "__main__":
    main()
