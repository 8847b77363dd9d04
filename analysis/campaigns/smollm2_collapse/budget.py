"""The CPU budget of ``smollm2-collapse`` (``docs/protocols/smollm2-collapse.md``, "Budget"):
the protocol's plan from its unit costs, the CPU-hours the committed runs measured, and the
registered rule that decides whether the anchored arm runs.

Unit costs (:data:`UNIT_CPU_S`) are CPU-seconds on one core of the 2-core AVX-512 host, from the
measured numbers of ``docs/real-model.md``; a 2-thread job counts its 1-thread CPU-seconds over
:data:`TWO_THREAD_EFFICIENCY`. :func:`plan` gives the protocol's table (a test reads the table
and compares); :func:`anchored_allowed` is the rule "after Part 7, the CPU-hours measured so far
plus three times the mean measured RL run stay within :data:`CAP_CPU_H`".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from analysis.runs import Run
from analysis.runs.extractors import last

UNIT_CPU_S = {"sequence": 15.0, "rollout": 4.5, "sample": 4.0, "eval": 8.0, "start": 200.0}
"""CPU-seconds of one Stage-1 training sequence, one RL rollout trained on, one sampled episode
without an update, one greedy held-out episode, and one run's start."""
TWO_THREAD_EFFICIENCY = 0.85
CAP_CPU_H = 30.0
HOUR = 3600.0
GROUP = 5
PROMPTS = 4
RL_STEPS = 40
RL_EVALUATED = 2 * 80 + 3 * 40
"""Held-out episodes of an RL run: 80 tasks at steps 0 and 40, 40 at steps 10, 20 and 30."""
PILOT_STEPS, PILOT_EVALUATED = 20, 2 * 20
BASE_SEQUENCES, EVALUATED = 320, 80
MIX_ROWS = 131
"""Rows per side of the RCTP-FT mix at most: 128 tasks without a swap and ~3 kept with one."""
DIAGNOSTIC_CPU_S = 50 * 8 * 2 * UNIT_CPU_S["sample"] + 1000.0 + UNIT_CPU_S["start"]
"""The transfer diagnostic: 50 tasks × 8 goal-paired samples per goal, the probe (~1,000 s)."""


def stage1_cpu_s(sequences: float, evaluated: int, sampled: int = 0) -> float:
    """1-thread CPU-seconds of a Stage-1 run: training sequences, held-out episodes, sampled
    episodes (RCTP-FT's failures) and its start."""
    u = UNIT_CPU_S
    return sequences * u["sequence"] + evaluated * u["eval"] + sampled * u["sample"] + u["start"]


def rl_cpu_s(steps: int, evaluated: int, prompts: int = PROMPTS, group: int = GROUP) -> float:
    """CPU-seconds of an RL run on one thread: ``steps`` × ``prompts`` × ``group`` rollouts
    trained on, ``evaluated`` held-out episodes and its start."""
    u = UNIT_CPU_S
    return steps * prompts * group * u["rollout"] + evaluated * u["eval"] + u["start"]


@dataclass(frozen=True)
class Part:
    """One part of the plan: CPU-hours and wall hours on two cores."""

    number: str
    cpu_h: float
    wall_h: float


def plan() -> list[Part]:
    """The protocol's parts (module docstring): part 1 on one thread, part 2 on two, part 3
    two 1-thread chains side by side, parts 4–9 two RL runs side by side."""
    base = stage1_cpu_s(BASE_SEQUENCES, EVALUATED)
    rctp = stage1_cpu_s(2 * 2 * MIX_ROWS, 2 * EVALUATED, 3 * MIX_ROWS) / TWO_THREAD_EFFICIENCY
    matched = stage1_cpu_s(2 * MIX_ROWS, EVALUATED)
    pilot = rl_cpu_s(PILOT_STEPS, PILOT_EVALUATED)
    rl = rl_cpu_s(RL_STEPS, RL_EVALUATED)
    parts = [
        Part("1", base / HOUR, base / HOUR),
        Part("2", rctp / HOUR, rctp / 2 / HOUR),
        Part(
            "3",
            (matched + pilot + DIAGNOSTIC_CPU_S) / HOUR,
            max(matched + pilot, DIAGNOSTIC_CPU_S) / HOUR,
        ),
        Part("4–6", 6 * rl / HOUR, 3 * rl / HOUR),
    ]
    parts += [Part(str(n), 2 * rl / HOUR, rl / HOUR) for n in (7, 8, 9)]
    return parts


def rl_run_cpu_h() -> float:
    """One planned RL run, CPU-hours."""
    return rl_cpu_s(RL_STEPS, RL_EVALUATED) / HOUR


def measured_cpu_h(run: Run) -> float:
    """CPU-hours a finished run measured: Stage 1's ``summary.json`` ``cpu_s`` (all threads),
    an RL run's last ``perf/cpu_time_s``, else its wall time (one thread)."""
    cpu = run.summary.get("cpu_s")
    if cpu is None:
        cpu = last("perf/cpu_time_s")(run)
    if cpu is None or not math.isfinite(cpu):
        cpu = run.summary.get("wall_s", math.nan)
    return float(cpu) / HOUR


def anchored_allowed(spent_h: float, rl_runs_h: Sequence[float], cap: float = CAP_CPU_H) -> bool:
    """The protocol's rule for the anchored arm: the CPU-hours spent so far plus three times
    the mean measured RL run are within ``cap`` (no RL run measured yet: the plan's)."""
    mean = sum(rl_runs_h) / len(rl_runs_h) if rl_runs_h else rl_run_cpu_h()
    return spent_h + 3 * mean <= cap
