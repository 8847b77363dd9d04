"""Environment throughput: replay + score of all 800 BFCL multi-turn tasks on one core.

Each task is replayed through the :class:`~rcgrpo.env.Episode` protocol exactly as a rollout
engine drives it (``reset``; per turn one reply with the ground-truth calls, then an empty
reply that ends the turn; ``score()``, which re-executes the trajectory on fresh instances
and checks R and ``bfcl_valid``). Baseline in the same process: BFCL's own path on the same
trajectories, ``multi_turn_checker`` with its ``eval`` executor (it executes the model's
calls and the ground truth on instances it caches in module globals, hence a fresh model
name per pass). The baseline ``eval``s the shipped ground truth only, never model text.

Prints tasks/s of: ours cold (first pass, builds the per-task ground-truth cache), ours warm,
``score_trajectory`` alone, combined mode, and the baseline; the ratio warm / baseline;
and whether the target (>= 500 tasks/s) is met.

    .venv/bin/python benchmarks/bench_env.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import time

from rcgrpo.env import Episode, load_bfcl_tasks, score_trajectory
from rcgrpo.env.ground_truth import _CACHE

TARGET = 500.0


def replay(tasks, mode: str = "multi_turn") -> int:
    """Drive every task through an Episode with its ground truth; returns #reward-1 tasks."""
    episode, solved = Episode(), 0
    for task in tasks:
        episode.reset(task, mode=mode)
        if mode == "combined":
            episode.step("[" + ", ".join(c for turn in task.ground_truth for c in turn) + "]")
            if not episode.done:
                episode.step("[done()]")
        else:
            for calls in task.ground_truth:
                if calls:
                    episode.step("[" + ", ".join(calls) + "]")
                episode.step("")
        solved += episode.score().reward
    return solved


def score_only(tasks) -> int:
    return sum(score_trajectory(t, [list(c) for c in t.ground_truth]).reward for t in tasks)


def official(tasks, tag: str) -> int:
    """BFCL's checker on the same trajectories (one step per turn)."""
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

    valid = 0
    for task in tasks:
        entry = {
            "id": task.id,
            "initial_config": task.initial_config,
            "involved_classes": list(task.involved_classes),
        }
        model = [[list(turn)] if turn else [] for turn in task.ground_truth]
        truth = [list(turn) for turn in task.ground_truth]
        valid += multi_turn_checker(model, truth, entry, task.id.rsplit("_", 1)[0], tag)["valid"]
    return valid


def timed(fn, *args) -> tuple[float, int]:
    start = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="best of N timings")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    tasks = load_bfcl_tasks()
    n = len(tasks)
    _CACHE.clear()
    cold, solved = timed(replay, tasks)
    assert solved == n, f"ground truth solved {solved}/{n}"
    warm = min(timed(replay, tasks)[0] for _ in range(args.repeats))
    score = min(timed(score_only, tasks)[0] for _ in range(args.repeats))
    combined = min(timed(replay, tasks, "combined")[0] for _ in range(args.repeats))
    runs = [timed(official, tasks, f"bench{r}") for r in range(args.repeats)]
    assert all(valid == n for _, valid in runs), "official checker rejected ground truth"
    base = min(t for t, _ in runs)
    rows = [
        ("rcgrpo Episode replay + score, cold (builds ground-truth cache)", cold),
        ("rcgrpo Episode replay + score, warm", warm),
        ("rcgrpo score_trajectory only, warm", score),
        ("rcgrpo Episode replay + score, combined mode, warm", combined),
        ("baseline: BFCL multi_turn_checker (eval executor, module globals)", base),
    ]
    print(f"env: replay + score of {n} BFCL v4 multi-turn tasks (ground truth), 1 core")
    for label, seconds in rows:
        print(f"  {label:<68s} {n / seconds:8.0f} tasks/s")
    print(f"  ratio warm / baseline: {base / warm:.2f}x   cold / baseline: {base / cold:.2f}x")
    verdict = "PASS" if n / warm >= TARGET else "FAIL"
    print(f"  target >= {TARGET:.0f} tasks/s (warm): {verdict}")


if __name__ == "__main__":
    main()
