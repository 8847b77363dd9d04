r"""The verdict rule every campaign since regime-d10 decides with: its two designs, the
decision, and the held-out and group readers the rules share.

A :class:`Rule` (a campaign's table of them: ``rules.py`` or ``verdicts.py`` of its folder in
:mod:`analysis.campaigns`) maps run data to *holds*, *does not hold* or *inconclusive*, with its
estimate, 95% interval and minimum detectable effect (MDE); a rule may name a gate, a check of
its campaign that must pass.

Two designs; an arm is an experiment group (``regime-rcgrpo``, …), one run per seed, and a
seed counts when every arm of the rule has a finished run on it (seeds
:data:`RESERVED_SEEDS` never count: design, G4′ and calibration):

- **seed** (training dynamics, from ``rollouts.jsonl`` / ``metrics.jsonl``): a per-seed
  value :math:`x_s` (one arm, or a difference of two arms on the same seed: both draw the
  same training tasks), estimate :math:`\bar x`, interval :math:`\bar x \mp t_{0.975,S-1}
  s/\sqrt S`, MDE :math:`(t_{0.975,S-1}+t_{0.80,S-1})\,s/\sqrt S`;
- **task × seed** (held-out success, from ``eval/step_N.json`` ``per_task``): the contrast
  :math:`d_{st}=\sum_k w_k y_{k,s,t}` over the tasks every run evaluated, estimate, interval
  and MDE of :mod:`analysis.paired_design` (two-way random effects, Satterthwaite ν).

Decision, with threshold θ and the side the claim predicts (θ = 0 for orderings: the verdict
is inconclusive exactly when the interval contains 0):

.. math:: \text{above: holds if } \ell > \theta,\ \text{does not hold if } u < \theta;\quad
   \text{below: holds if } u < \theta,\ \text{does not hold if } \ell > \theta;

inconclusive otherwise, when fewer than :data:`MIN_SEEDS` seeds, or when the rule's gate
check fails. This per-rule decision is the unadjusted one; a verdict table decides its rules
together, Holm-corrected within families and with equivalence tests
(:mod:`analysis.verdicts.family`). Which seeds of an arm count is the campaign's:
:func:`load_arms` keeps every seed but the reserved ones unless told otherwise. "Final" = the
last held-out evaluation at the run's evaluation goal (RC arms: high); "over training" = every
group of steps ≥ 1 (:mod:`analysis.verdicts.groups`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as _st

from analysis.inference import area_under_curve
from analysis.paired_design import ALPHA, POWER, paired
from analysis.paired_design import mde as _mde
from analysis.runs import Run, load_run, seed_of
from analysis.verdicts import groups as rg

MIN_SEEDS = 3
"""Fewer seeds than this: inconclusive."""
RESERVED_SEEDS = (7, 8, 9, 10, 17, 18, 19, 20, 21)
"""Never in a verdict: the design seeds 7 and 8 (docs/lab-notes/2026-12-regime-design.md), the calibration seed 9,
the seed G4′ is re-decided on, 10, the confirmation seed of variants 12 and 13, 17, that of
variant 14 (the ``regime-wide-d10`` suite), 18, that of variant 15, 19, that of variant 16,
20, and that of variant 17, 21."""
SPEED_STEPS = (25, 50, 75, 100, 125, 150, 175)
"""Learning speed: the mean held-out success over the evaluations at these steps
(:func:`speed`; the protocol's §4); a run without all of them has none."""
SIDES = ("above", "below")
VERDICTS = ("holds", "does not hold", "inconclusive")
COLLAPSE_MANY = 0.5
"""1a: 'many' zero-variance groups read as most."""
TaskValue = Callable[[Run], dict[str, float]]
"""A run's held-out success per task id."""
SeedValue = Callable[[Sequence[Run]], float]
"""x_s from the runs of one seed, one per arm in the rule's order."""


def evaluation(run: Run, at: str | int = "last", goal: str | None = None) -> dict:
    """The first / last held-out evaluation of ``run`` (or that of step ``at``) under
    ``goal`` (default: the run's ``algo.eval_condition``, or the evaluation's only
    condition): its ``overall``, ``per_category``, ``per_task`` and ``decisions``."""
    if at not in ("first", "last") and not isinstance(at, int):
        raise ValueError(f"at must be first|last or a step, got {at!r}")
    evals = {int(k.split("_")[-1]): v for k, v in run.evals.items() if k.startswith("step_")}
    if not evals:
        raise ValueError(f"run {run.root} has no eval/step_N.json")
    step = at if isinstance(at, int) else (min if at == "first" else max)(evals)
    if step not in evals:
        raise ValueError(f"run {run.root} has no evaluation at step {step}")
    conds = evals[step]["conditions"]
    want = goal or run.config.get("algo", {}).get("eval_condition")
    key = want if want in conds else next(iter(conds)) if len(conds) == 1 else None
    if key is None:
        raise ValueError(f"run {run.root}: no condition {want!r} in {sorted(conds)}")
    return conds[key]


def eval_steps(run: Run) -> list[int]:
    """The steps of the run's held-out evaluations, in order."""
    return sorted(int(k.split("_")[-1]) for k in run.evals if k.startswith("step_"))


def success(at: str = "last", goal: str | None = None) -> TaskValue:
    """Per-task reward of the first / last held-out evaluation (:func:`evaluation`)."""
    if at not in ("first", "last"):
        raise ValueError(f"at must be first|last, got {at!r}")

    def read(run: Run) -> dict[str, float]:
        per_task = evaluation(run, at, goal)["per_task"]
        return {r["task_id"]: float(r["reward"]) for r in per_task}

    return read


@functools.lru_cache(maxsize=64)
def speed(steps: Sequence[int] = SPEED_STEPS) -> TaskValue:
    """Per-task learning speed: the mean reward over the held-out evaluations at ``steps``
    at the run's evaluation goal (:func:`analysis.inference.area_under_curve` per task), on
    the tasks all of them evaluated; a run without one of them is an error."""

    def read(run: Run) -> dict[str, float]:
        missing = sorted(set(steps) - set(eval_steps(run)))
        if missing:
            raise ValueError(f"run {run.root} has no held-out evaluation at steps {missing}")
        curves: dict[str, dict[int, float]] = {}
        for step in steps:
            for r in evaluation(run, step)["per_task"]:
                curves.setdefault(r["task_id"], {})[step] = float(r["reward"])
        lo, hi = min(steps), max(steps)
        full = (t for t, c in curves.items() if len(c) == len(steps))
        return {t: area_under_curve(curves[t], lo, hi) for t in full}

    return read


def speed_overall(run: Run, steps: Sequence[int] = SPEED_STEPS) -> float:
    """The run's learning speed over all its held-out tasks: the mean overall success at
    ``steps`` (NaN when it lacks one of them, e.g. a run evaluated every 100 steps)."""
    if not set(steps) <= set(eval_steps(run)):
        return math.nan
    rate = {s: evaluation(run, s)["overall"]["reward"] for s in steps}
    curve = {s: r["successes"] / r["n"] for s, r in rate.items()}
    return area_under_curve(curve, min(steps), max(steps))


@functools.lru_cache(maxsize=64)
def groups(run: Run) -> pd.DataFrame:
    """The run's training groups (:func:`analysis.verdicts.groups.group_table`), cached."""
    return rg.group_table(run.rollouts)


def collapse(run: Run) -> float:
    return rg.collapse_share(groups(run))


def informative(run: Run) -> float:
    return rg.informative_share(groups(run))


def within(run: Run) -> float:
    return rg.within_variance(groups(run))


def one(f: Callable[[Run], float]) -> SeedValue:
    return lambda runs: f(runs[0])


def diff(f: Callable[[Run], float]) -> SeedValue:
    return lambda runs: f(runs[0]) - f(runs[1])


def rel(f: Callable[[Run], float]) -> SeedValue:
    def value(runs: Sequence[Run]) -> float:
        base = f(runs[1])
        return f(runs[0]) / base - 1.0 if base != 0 else math.nan

    return value


@dataclass(frozen=True)
class Rule:
    """One pre-registered test (module docstring)."""

    id: str
    claim: str
    quantity: str
    arms: tuple[str, ...]
    threshold: float
    side: str
    why: str
    seed_value: SeedValue | None = None
    """Seed design: x_s from one run per arm."""
    cells: tuple[TaskValue, ...] | None = None
    """Task × seed design: y per task, one reader per arm."""
    weights: tuple[float, ...] | None = None
    """Task × seed design: the contrast's w_k, one per arm."""
    gate: str | None = None
    """A check of the rule's campaign that must pass, else inconclusive."""

    def __post_init__(self) -> None:
        if self.side not in SIDES:
            raise ValueError(f"rule {self.id}: side must be one of {SIDES}")
        task = self.cells is not None and self.weights is not None
        if task == (self.seed_value is not None):
            raise ValueError(f"rule {self.id}: give seed_value, or cells and weights")
        if task and not len(self.cells) == len(self.weights) == len(self.arms):
            raise ValueError(f"rule {self.id}: one cell reader and weight per arm")

    @property
    def design(self) -> str:
        return "seed" if self.seed_value is not None else "task × seed"


HELD_OUT = {"speed": "learning speed (mean success, steps 25–175)", "final": "final success"}
"""The held-out outcomes a difference rule reads (:func:`held_out_difference`), as tables name them."""


def held_out_difference(
    rule_id: str, subject: str, arm: str, versus: str, outcome: str, why: str
) -> Rule:
    """``arm`` − ``versus`` on held-out ``outcome`` (``speed``: :func:`speed`, ``final``:
    :func:`success`), paired by task and seed, θ = 0, the claim 'arm is above'; its claim
    reads ``"<subject>: <outcome>"``."""
    read = speed if outcome == "speed" else success
    what = HELD_OUT[outcome]
    return Rule(
        rule_id,
        f"{subject}: {what}",
        f"{what}, difference",
        (arm, versus),
        0.0,
        "above",
        why,
        None,
        (read(), read()),
        (1.0, -1.0),
    )


@dataclass(frozen=True)
class Interval:
    """An estimate with its 95% interval and MDE."""

    mean: float
    low: float
    high: float
    se: float
    df: float
    seeds: int
    tasks: int
    """Held-out tasks per seed (0: seed design)."""
    mde: float


def seed_interval(values: Sequence[float]) -> Interval | None:
    """Mean, t-interval and MDE over the finite per-seed values (None below two)."""
    x = [float(v) for v in values if math.isfinite(v)]
    if len(x) < 2:
        return None
    n, m = len(x), math.fsum(x) / len(x)
    se = math.sqrt(math.fsum((v - m) ** 2 for v in x) / (n - 1) / n)
    half = float(_st.t.ppf(1 - ALPHA / 2, n - 1)) * se
    return Interval(m, m - half, m + half, se, n - 1, n, 0, _mde(se, n - 1, ALPHA, POWER))


def task_matrix(per_seed: Sequence[Sequence[dict[str, float]]], weights: Sequence[float]):
    """d[s, t] = Σ_k w_k y_k over the tasks every run has; returns (d, task ids)."""
    common = set.intersection(*(set(y) for runs in per_seed for y in runs))
    tasks = sorted(common)
    d = [
        [math.fsum(w * y[t] for w, y in zip(weights, runs, strict=True)) for t in tasks]
        for runs in per_seed
    ]
    return np.asarray(d, dtype=np.float64).reshape(len(per_seed), len(tasks)), tasks


def task_seed_interval(d: np.ndarray) -> Interval | None:
    """:func:`analysis.paired_design.paired` as an :class:`Interval` (None below 2 × 2)."""
    if d.shape[0] < 2 or d.shape[1] < 2:
        return None
    p = paired(d)
    lo, hi = p.interval
    return Interval(p.mean, lo, hi, p.se, p.df, p.seeds, p.tasks, p.mde)


def decide(iv: Interval | None, threshold: float, side: str, min_seeds: int = MIN_SEEDS) -> str:
    """The verdict from an interval (module docstring)."""
    if side not in SIDES:
        raise ValueError(f"side must be one of {SIDES}, got {side!r}")
    if iv is None or iv.seeds < min_seeds:
        return "inconclusive"
    above, below = iv.low > threshold, iv.high < threshold
    if side == "above":
        return "holds" if above else "does not hold" if below else "inconclusive"
    return "holds" if below else "does not hold" if above else "inconclusive"


@dataclass(frozen=True)
class Outcome:
    rule: Rule
    seeds: tuple[int, ...]
    interval: Interval | None
    verdict: str
    note: str


def evaluate(
    rule: Rule, arms: Mapping[str, Mapping[int, Run]], gates: Mapping[str, bool]
) -> Outcome:
    """Apply ``rule`` to the runs by arm and seed; ``gates``: check id → passed."""
    have = [set(arms.get(a, {})) - set(RESERVED_SEEDS) for a in rule.arms]
    seeds = tuple(sorted(set.intersection(*have)))
    runs = [[arms[a][s] for a in rule.arms] for s in seeds]
    if rule.seed_value is not None:
        iv = seed_interval([rule.seed_value(r) for r in runs])
    else:
        ys = [[cell(run) for cell, run in zip(rule.cells, r, strict=True)] for r in runs]
        iv = task_seed_interval(task_matrix(ys, rule.weights)[0]) if ys else None
    verdict, note = decide(iv, rule.threshold, rule.side), ""
    missing = [a for a, h in zip(rule.arms, have, strict=True) if not h]
    if missing:
        note = f"not yet run: {', '.join(dict.fromkeys(missing))}"
    elif not seeds:
        note = "no seed has a run of every arm"
    elif rule.gate is not None and not gates.get(rule.gate, False):
        verdict, note = "inconclusive", f"gate {rule.gate} fails"
    elif len(seeds) < MIN_SEEDS:
        note = f"{len(seeds)} seed{'s' * (len(seeds) > 1)} < {MIN_SEEDS}"
    return Outcome(rule, seeds, iv, verdict, note)


def load_arms(
    found: Mapping[str, Sequence[Path]], keep: Callable[[str, int], bool] | None = None
) -> dict[str, dict[int, Run]]:
    """Experiment → {seed: run} from finished run folders: every run but those on
    :data:`RESERVED_SEEDS` and, with ``keep``, those ``keep(experiment, seed)`` rejects."""
    out: dict[str, dict[int, Run]] = {}
    for preset, paths in found.items():
        runs = (load_run(p) for p in paths)
        out[preset] = {
            s: r
            for r in runs
            if (s := seed_of(r)) not in RESERVED_SEEDS and (keep is None or keep(preset, s))
        }
    return out
