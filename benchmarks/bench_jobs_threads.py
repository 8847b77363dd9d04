"""Campaign throughput on this machine: J jobs x 1 torch thread against 1 job x J threads.

The campaign runs independent RL runs side by side; the question is whether J cores do more
work as J single-thread jobs or as one job with J threads. Each variant runs the same RL run
(preset ``cpu-rcgrpo``, ``--steps`` steps, an 8-task step-0 evaluation) as real ``python -m rcgrpo train``
processes: J copies with ``OMP_NUM_THREADS=1`` at once, then one copy with
``OMP_NUM_THREADS=J``, alternating ``--repeats`` times so drift hits both; it prints RL steps
per minute of wall time for each and their ratio.

    .venv/bin/python benchmarks/bench_jobs_threads.py [--init CKPT] [--jobs 2] [--steps 6]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INITS = ("runs/campaign/rctp-s0/final", "results/campaign/rctp-s0/final")


def _command(init: Path, steps: int, root: Path, name: str) -> list[str]:
    return [
        sys.executable,
        *("-m", "rcgrpo", "train", "--preset", "cpu-rcgrpo", "--init", str(init)),
        *("--run.steps", str(steps), "--run.eval-every", "100000", "--run.checkpoint-every", "0"),
        *("--run.root", str(root), "--run.name", name, "--run.no-tensorboard", "--run.no-progress"),
        *("--tasks.num-eval", "8"),  # the step-0 evaluation is part of every run: keep it small
    ]


def _wall(commands: list[list[str]], threads: int) -> float:
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
    start = time.perf_counter()
    procs = [subprocess.Popen(c, env=env, cwd=ROOT, stdout=subprocess.DEVNULL) for c in commands]
    if any(p.wait() != 0 for p in procs):
        raise RuntimeError(f"a benchmark run failed: {commands[0]}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--init", type=Path, default=None)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    init = args.init or next((ROOT / p for p in INITS if (ROOT / p).is_dir()), None)
    if init is None:
        sys.exit(f"no checkpoint: pass --init (looked for {', '.join(INITS)})")
    tmp = Path(tempfile.mkdtemp(prefix="bench_jobs_threads_"))
    rates: dict[str, list[float]] = {"jobs": [], "threads": []}
    for k in range(args.repeats):
        for variant in ("jobs", "threads") if k % 2 == 0 else ("threads", "jobs"):
            n = args.jobs if variant == "jobs" else 1
            cmds = [_command(init, args.steps, tmp, f"{variant}{k}-{j}") for j in range(n)]
            wall = _wall(cmds, 1 if variant == "jobs" else args.jobs)
            rates[variant].append(n * args.steps / wall * 60)
            print(f"repeat {k}: {variant:7s} {n * args.steps / wall * 60:6.2f} steps/min")
    jobs, threads = statistics.median(rates["jobs"]), statistics.median(rates["threads"])
    print(f"{args.jobs} jobs x 1 thread : {jobs:6.2f} RL steps per wall minute")
    print(f"1 job x {args.jobs} threads : {threads:6.2f} RL steps per wall minute")
    print(f"ratio jobs / threads : {jobs / threads:.2f}")


if __name__ == "__main__":
    main()
