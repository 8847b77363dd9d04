"""The gates of ``smollm2-collapse`` (``docs/protocols/smollm2-collapse.md``, "Gates"), read from
the committed runs and the transfer diagnostic, and the protocol's order over them
(:func:`status`: what to train next, or why the reading stopped).

- **B** the base writes calls: its greedy held-out success ≥ :data:`B_MIN` (one retry, two
  epochs, ``sft-base2-s31``);
- **H** headroom: the matched SFT's greedy held-out success ≤ :data:`H_MAX`;
- **C** the premise: the pilot's zero-variance share of its groups ≥ :data:`C_MIN` (the mean
  over its steps of ``group/zero_var_frac``, each step 4 groups; all-fail share beside it);
- **R** stated: the goal effect on RCTP-FT, read as separated, inert or unclear
  (:func:`reading`); **ρ** stated.

Stage-1 held-out success is the run's ``summary.json`` ``final_metrics`` (``reward/eval_success``,
``reward/eval_success_low`` for RCTP-FT's low goal). The gate table:

    python -m analysis.campaigns.smollm2_collapse.gates
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from analysis.campaign.mechanics import results_dir
from analysis.campaigns.smollm2_collapse import budget
from analysis.campaigns.smollm2_collapse.design import DIAGNOSTIC, HOME, PARTS
from analysis.runs import Run, is_finished, load_run
from analysis.runs.extractors import series

RESULTS = results_dir(HOME)
PREDICTION = RESULTS / "prediction.json"
B_MIN, H_MAX, C_MIN = 0.10, 0.50, 0.50
R_SEPARATION, R_CI_LOW, R_INERT = 0.10, 0.05, 0.05
"""R read as separated (difference ≥ 0.10, interval above 0.05) or inert (interval in ±0.05)."""
START = (1, 5)
"""The steps whose sampled groups stand for "at the start" (step 0's policy, near enough)."""

Where = Callable[[str], "Path | None"]
"""Run name -> its finished folder (None: not finished)."""


def committed(root: Path = RESULTS) -> Where:
    """The finished light copies under ``root``."""
    return lambda name: root / name if is_finished(root / name) else None


def stage1_success(run: Run) -> dict[str, float]:
    """A Stage-1 run's greedy held-out success: ``main`` (its evaluation goal: none or high)
    and, for RCTP-FT, ``low``."""
    m = run.summary.get("final_metrics", {})
    out = {"main": float(m.get("reward/eval_success", math.nan))}
    if "reward/eval_success_low" in m:
        out["low"] = float(m["reward/eval_success_low"])
    return out


def group_shares(run: Run, steps: tuple[int, int] | None = None) -> dict[str, float]:
    """Mean per-step zero-variance, all-fail and i.i.d.-predicted shares of an RL run's groups
    (``group/*`` metrics) over ``steps`` (inclusive; None: every training step)."""
    out = {}
    for key, metric in (
        ("zero_var", "group/zero_var_frac"),
        ("all_fail", "group/zero_var_fail_frac"),
        ("predicted", "group/zero_var_predicted_pooled"),
        ("success", "reward/success_rate"),
    ):
        s = series(run, metric)
        if steps is not None:
            s = s.loc[steps[0] : steps[1]]
        out[key] = float(s.mean()) if len(s) else math.nan
    return out


def reading(decisions: dict) -> str:
    """Gate R's reading of the pooled decisions' row (``goal_effect.kinds.any``)."""
    diff, (lo, hi) = decisions["diff"], decisions["ci"]
    if diff >= R_SEPARATION and lo > R_CI_LOW:
        return "separated"
    if lo > -R_INERT and hi < R_INERT:
        return "inert"
    return "unclear"


def diagnostic(path: Path = DIAGNOSTIC) -> dict | None:
    """The committed transfer diagnostic of RCTP-FT (None: not measured yet)."""
    return json.loads(path.read_text()) if path.is_file() else None


@dataclass
class Gates:
    """Every gate's measurement so far (None: not measured) and whether it holds."""

    base: str | None = None
    """The base the study uses: ``sft-base-s31``, or the retry once B failed on it."""
    b: dict[str, float] = field(default_factory=dict)
    """Base run name -> its greedy held-out success."""
    h: float | None = None
    c: dict[str, float] | None = None
    r: str | None = None
    rho: float | None = None

    @property
    def holds(self) -> dict[str, bool | None]:
        last_b = list(self.b.values())[-1] if self.b else None
        return {
            "B": None if last_b is None else last_b >= B_MIN,
            "H": None if self.h is None else self.h <= H_MAX,
            "C": None if self.c is None else self.c["zero_var"] >= C_MIN,
        }


def measure(where: Where | None = None, path: Path = DIAGNOSTIC) -> Gates:
    """The gates from the finished runs ``where`` finds (default: the committed copies)."""
    where = where or committed()
    g = Gates()
    for name in ("sft-base-s31", "sft-base2-s31"):
        folder = where(name)
        if folder is None:
            break
        g.b[name] = stage1_success(load_run(folder))["main"]
        g.base = name
        if g.b[name] >= B_MIN:
            break
    if (folder := where("sft-matched-s31")) is not None:
        g.h = stage1_success(load_run(folder))["main"]
    if (folder := where("pilot-sft-grpo-s31")) is not None:
        g.c = group_shares(load_run(folder))
    if (report := diagnostic(path)) is not None:
        g.r = reading(report["goal_effect"]["kinds"]["any"])
        g.rho = float(report["transfer"]["estimate"])
    return g


@dataclass(frozen=True)
class Status:
    """What the protocol's order calls for next."""

    kind: str
    """``train`` (the runs of :attr:`part`), ``measure`` (a command to run first), ``stopped``
    (a gate failed) or ``done``."""
    part: str = ""
    runs: tuple[str, ...] = ()
    said: str = ""
    """Why it stopped, or what to run."""
    not_run: tuple[str, ...] = ()
    """Runs the protocol's rules leave out (the anchored arm after B's retry or over budget)."""


def _retry(g: Gates) -> bool:
    return g.base == "sft-base2-s31"


ANCHORED = tuple(n for names in PARTS for n in names if n.startswith("smol-rcgrpo-anchored"))


def _anchored_fits(where: Where, path: Path) -> bool:
    """The budget rule over the runs found once Part 7 is done
    (:func:`budget.anchored_allowed`; the diagnostic's CPU time counted too). Decided once: an
    anchored run already trained keeps the arm."""
    if any(where(n) is not None for n in ANCHORED):
        return True
    report = diagnostic(path) or {}
    spent, rl = report.get("time_s", {}).get("total", 0.0) / budget.HOUR, []
    for names in PARTS:
        for name in names:
            if (folder := where(name)) is not None:
                hours = budget.measured_cpu_h(load_run(folder))
                spent += hours
                rl += [hours] * name.startswith("smol-")
    return budget.anchored_allowed(spent, rl)


def status(where: Where | None = None, path: Path = DIAGNOSTIC, prediction: Path = PREDICTION):
    """The next step of the protocol's order (module docstring, :class:`Status`)."""
    where = where or committed()
    g = measure(where, path)
    holds = g.holds
    if g.base is None:
        return Status("train", "1", ("sft-base-s31",))
    if not holds["B"]:
        if _retry(g):
            said = ", ".join(f"{g.b[n]:.3f}" for n in sorted(g.b))
            return Status("stopped", said=f"B fails twice ({said} < {B_MIN}): the study stops")
        return Status("train", "1 (gate B's retry)", ("sft-base2-s31",))
    for number, names in (("2", PARTS[1]), ("3", PARTS[2])):
        todo = tuple(n for n in names if where(n) is None)
        if holds["H"] is False:  # no pilot once the matched SFT leaves no headroom
            return Status("stopped", said=f"H fails: the matched SFT's held-out success {g.h:.3f}")
        if todo:
            return Status("train", number, todo)
    if not holds["C"]:
        share = g.c["zero_var"]
        return Status("stopped", said=f"C fails: the pilot's zero-variance share {share:.3f}")
    if g.r is None:
        return Status("measure", said="the transfer diagnostic (gates R and ρ)")
    if not prediction.is_file():
        return Status("measure", said="the registered prediction")
    left_out: tuple[str, ...] = ()
    part7 = all(where(n) is not None for n in PARTS[6])
    if _retry(g) or (part7 and not _anchored_fits(where, path)):
        left_out = ANCHORED
    for number, names in zip(("4", "5", "6", "7", "8", "9"), PARTS[3:], strict=True):
        todo = tuple(n for n in names if where(n) is None and n not in left_out)
        if todo:
            return Status("train", number, todo, not_run=left_out)
    return Status("done", not_run=left_out)


if __name__ == "__main__":
    found = measure()
    print(f"base {found.base}: B {found.b}; H {found.h}; C {found.c}; R {found.r}; rho {found.rho}")
    print(f"holds {found.holds}; next: {status()}")
