r"""The regime's proof-run criterion (``docs/regime.md``, issue 25): does RL raise held-out success?

Read from a run's held-out evaluations at its first and last step (``eval/step_<N>.json``,
the same tasks greedy, paired by task), on the run's evaluation condition:

- **(i) gain**: :math:`\Delta = \bar s_{end} - \bar s_{start} \ge` :data:`GAIN` with the exact
  two-sided McNemar test :math:`p <` :data:`ALPHA`. Of the tasks whose outcome changed, b went
  1 → 0 and c went 0 → 1; under :math:`H_0` (no change in success probability) c given b + c
  is Binomial(b + c, 1/2), and p is the exact two-sided binomial p-value
  (``scipy.stats.binomtest``; p = 1 when b + c = 0).
- **(ii) decisions**: the planted decision points are right (``rcgrpo.env.synth_demo.
  decision_outcomes``) in :math:`\ge` :data:`DECISIONS_RIGHT` of the held-out points at the end.
- **(iii) no collateral loss**: success on held-out tasks without a decision point changes by
  :math:`\ge -` :data:`NO_POINT_LOSS` between start and end.

A run *qualifies* when all three hold. The thresholds are the issue's, committed before any RL
run on the regime suite.

Across the seeds :data:`PROOF_SEEDS` (the factorial's; the recipe was chosen on
:data:`DESIGN_SEED`) the verdict is :func:`analysis.campaigns.regime_wide1.proof.seeds_verdict`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from analysis.runs import Run

GAIN, ALPHA = 0.10, 0.05
DECISIONS_RIGHT = 0.80
NO_POINT_LOSS = 0.02
PROOF_SEEDS: tuple[int, ...] = (0, 1, 2)
DESIGN_SEED = 7
PROOF_RUNS: dict[str, str] = {
    "regime-d10": "results/regime/regime-grpo-s*",
    "regime-wide1-d10": "results/regime/regime-wide1-grpo-s*",
}
"""Suite -> the committed proof runs on it (the ``regime-grpo`` preset, one folder per seed;
``docs/regime.md``: the regime suite's proof, then variant 16's on ``regime-wide1-d10``)."""
EPS = 1e-9
"""Slack of the threshold comparisons (rates are multiples of 1e-3 on 1,000 tasks)."""


def mcnemar_exact(before: Sequence[bool], after: Sequence[bool]) -> dict:
    """Exact two-sided McNemar test of paired binary outcomes (module docstring):
    ``{b, c, n, p}`` with b = #(1 → 0), c = #(0 → 1)."""
    from scipy.stats import binomtest

    if len(before) != len(after) or not before:
        raise ValueError(f"need equal, non-empty pairs, got {len(before)} and {len(after)}")
    b = sum(x and not y for x, y in zip(before, after, strict=True))
    c = sum(y and not x for x, y in zip(before, after, strict=True))
    p = 1.0 if b + c == 0 else float(binomtest(c, b + c, 0.5).pvalue)
    return {"b": b, "c": c, "n": len(before), "p": p}


def _success(block: dict) -> dict[str, bool]:
    return {row["task_id"]: row["reward"] == 1.0 for row in block["per_task"]}


def _points(block: dict) -> dict[str, list[bool]]:
    return {row["task_id"]: [d["right"] for d in row["decisions"]] for row in block["per_task"]}


def proof_verdict(start: dict, end: dict) -> dict:
    """Criteria (i)–(iii) from two evaluation blocks (``report["conditions"][cond]`` of
    ``eval/step_<N>.json``) on the same tasks; raises if the tasks differ or carry no
    decision records (a suite without a demonstrator)."""
    s0, s1 = _success(start), _success(end)
    if set(s0) != set(s1):
        raise ValueError("the two evaluations hold different tasks")
    if any("decisions" not in row for row in end["per_task"]):
        raise ValueError("no decision records: not a suite with planted decision points")
    ids = sorted(s0)
    test = mcnemar_exact([s0[i] for i in ids], [s1[i] for i in ids])
    gain = (sum(s1.values()) - sum(s0.values())) / len(ids)
    points = _points(end)
    right = [r for i in ids for r in points[i]]
    plain = [i for i in ids if not points[i]]
    plain_change = (
        (sum(s1[i] for i in plain) - sum(s0[i] for i in plain)) / len(plain) if plain else None
    )
    checks = {
        "gain": gain >= GAIN - EPS and test["p"] < ALPHA,
        "decisions": bool(right) and sum(right) / len(right) >= DECISIONS_RIGHT - EPS,
        "no_point_loss": plain_change is None or plain_change >= -NO_POINT_LOSS - EPS,
    }
    return {
        "tasks": len(ids),
        "success_start": sum(s0.values()) / len(ids),
        "success_end": sum(s1.values()) / len(ids),
        "gain": gain,
        "mcnemar": test,
        "decisions_right_end": sum(right) / len(right) if right else None,
        "decision_points": len(right),
        "no_point_tasks": len(plain),
        "no_point_change": plain_change,
        "checks": checks,
        "qualifies": all(checks.values()),
    }


def run_verdict(run: Path | Run, condition: str | None = None) -> dict:
    """:func:`proof_verdict` of a run (folder or :class:`~analysis.runs.Run`): its first and
    last held-out evaluation (:attr:`analysis.runs.Run.step_evals`)."""
    r = run if isinstance(run, Run) else Run(Path(run))
    run = r.root if isinstance(run, Run) else run
    evals = list(r.step_evals.values())
    if len(evals) < 2:
        raise ValueError(f"{run}: needs held-out evaluations at two steps, found {len(evals)}")
    first, last = evals[0], evals[-1]
    cond = condition or next(iter(first["conditions"]))
    out = proof_verdict(first["conditions"][cond], last["conditions"][cond])
    return {"run": str(run), "condition": cond, "steps": [first["step"], last["step"]], **out}


def proof_record(run: Path, root: Path | None = None) -> dict:
    """:func:`run_verdict` of one proof run with its seed, its held-out success at every
    evaluated step, and its cost: wall seconds (``summary.json``) and CPU seconds (the last
    ``perf/cpu_time_s``); ``run`` is named relative to ``root`` when given."""
    r = Run(Path(run))
    verdict = run_verdict(r)
    if root is not None:
        verdict["run"] = Path(run).resolve().relative_to(Path(root).resolve()).as_posix()
    cond = verdict["condition"]
    curve = {s: e["conditions"][cond]["overall"]["reward"]["mean"] for s, e in r.step_evals.items()}
    cpu = r.metrics["perf/cpu_time_s"].dropna() if "perf/cpu_time_s" in r.metrics else []
    return {
        "seed": int(r.config["run"]["seed"]),
        **verdict,
        "curve": curve,
        "wall_s": r.summary.get("wall_s"),
        "cpu_s": float(cpu.iloc[-1]) if len(cpu) else None,
    }


def has_runs(root: Path, suite: str) -> bool:
    """Whether any proof run on ``suite`` is committed under ``root`` (:data:`PROOF_RUNS`)."""
    return any(Path(root).glob(PROOF_RUNS[suite]))


def committed_records(root: Path, suite: str = "regime-d10") -> list[dict]:
    """:func:`proof_record` of every proof run on ``suite`` under ``root``
    (:data:`PROOF_RUNS`), proof seeds first, the design seed last; FileNotFoundError when there
    is none."""
    if not has_runs(root, suite):
        raise FileNotFoundError(f"no proof run matches {PROOF_RUNS[suite]} (docs/regime.md)")
    out = [proof_record(run, root) for run in sorted(Path(root).glob(PROOF_RUNS[suite]))]
    return sorted(out, key=lambda r: (r["seed"] == DESIGN_SEED, r["seed"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m analysis.diagnostics.regime.proof", description=__doc__
    )
    parser.add_argument("runs", nargs="+", type=Path, help="RL run folders")
    parser.add_argument("--condition", default=None, help="eval condition (default: the first)")
    parser.add_argument("--out", type=Path, default=None, help="write the report here (one run)")
    args = parser.parse_args(argv)
    if args.out is not None and len(args.runs) != 1:
        parser.error(f"--out takes one run; got {len(args.runs)}")
    reports = [json.dumps(run_verdict(run, args.condition), indent=1) + "\n" for run in args.runs]
    if args.out is None:
        print("".join(reports), end="")
    else:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(reports[0])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
