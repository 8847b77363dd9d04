r"""The regime's verdict table and the MDE plan (issue 27), from committed runs; never trains.

``table``: every rule of :data:`analysis.verdicts.regime.RULES` and every bookkeeping check
of :mod:`analysis.verdicts.checks` on the finished runs under ``--runs-root``.

``plan``: the minimum detectable effect of each held-out (task × seed) rule, *before* the
runs, from a pilot: either the difference of two arms' final success (``--arm A --versus
B``) or one arm's end − start (``--arm A``, the proof run SFT + GRPO). The pilot's variance
components (:mod:`analysis.paired_design`) are scaled to each rule's contrast by
:math:`\sum_k w_k^2 / 2` (each arm contributes independent variance, half a difference's:
a main effect with weights ±½ has half a difference's variance), then

.. math:: \mathrm{MDE}(T, S) = (t_{0.975,\nu} + t_{0.80,\nu})\,SE(T, S)

at ``--tasks`` × ``--seeds``, and the fewest tasks (on a 50-task grid) with MDE ≤ 5 points
for 3, 4 and 5 seeds::

    python -m analysis.verdicts.table plan --runs-root results/campaign --arm cpu-rcgrpo \
        --versus cpu-rctp-grpo --tasks 1000 --seeds 3
    python -m analysis.verdicts.table table --runs-root results/regime
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

from analysis.paired_design import Components, Paired, paired, plan, planned_mde
from analysis.runs import Run
from analysis.verdicts import checks as rc
from analysis.verdicts import regime as rv


def checks(arms: Mapping[str, Mapping[int, Run]]) -> list[rc.Check]:
    """B1–B5 on the arms found (a check whose arms have no run is left out)."""
    out = []
    rc_runs = arms.get(rv.RCTP_RC, {})
    if rc_runs:
        out += [rc.bound_gap(rc_runs), rc.low_goal_alive(rc_runs)]
    for arm in rv.FACTORIAL:
        if arms.get(arm):
            out.append(replace(rc.spread_restates_collapse(arms[arm]), id=f"B2 {arm}"))
    for arm in (rv.TEMP_MATCHED, rv.COEF_MATCHED):
        if arms.get(arm) and rc_runs:
            out.append(replace(rc.entropy_matched(arms[arm], rc_runs, arm), id=f"B4 {arm}"))
    if arms.get(rv.RCTP_STRAT) and rc_runs:
        out.append(rc.goals_balanced(arms[rv.RCTP_STRAT], rc_runs))
    return out


def outcomes(arms: Mapping[str, Mapping[int, Run]]) -> tuple[list[rv.Outcome], list[rc.Check]]:
    """Every rule and check on ``arms`` (:func:`analysis.verdicts.regime.load_arms`)."""
    found = checks(arms)
    gates = {c.id: c.passed for c in found}
    return [rv.evaluate(rule, arms, gates) for rule in rv.RULES], found


def _num(x: float, digits: int = 3) -> str:
    return "—" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


RULE_HEADER = ("rule", "claim", "quantity", "design", "estimate [95% CI]", "MDE",
               "seeds × tasks", "test", "verdict")  # fmt: skip
CHECK_HEADER = ("check", "what", "value", "passed", "detail")


def rule_cells(out: rv.Outcome) -> list[str]:
    """One row of the verdict table (:data:`RULE_HEADER`), as plain text."""
    iv, r = out.interval, out.rule
    est = "—" if iv is None else f"{_num(iv.mean)} [{_num(iv.low)}, {_num(iv.high)}]"
    size = "0" if iv is None else f"{iv.seeds} × {iv.tasks or '—'}"
    test = f"CI {'>' if r.side == 'above' else '<'} {r.threshold:g}"
    verdict = out.verdict + (f" ({out.note})" if out.note else "")
    return [r.id, r.claim, r.quantity, r.design, est, _num(iv.mde) if iv else "—", size, test,
            verdict]  # fmt: skip


def check_cells(c: rc.Check) -> list[str]:
    """One row of the checks table (:data:`CHECK_HEADER`), as plain text."""
    return [c.id, c.label, _num(c.value), str(c.passed), str(c.detail)]


def markdown(results: Sequence[rv.Outcome], found: Sequence[rc.Check]) -> str:
    """The verdict table, then the checks table."""
    lines = ["| " + " | ".join(RULE_HEADER) + " |", "|---|---|---|---|--:|--:|--:|---|---|"]
    for out in results:
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in rule_cells(out)) + " |")
    lines += ["", "| " + " | ".join(CHECK_HEADER) + " |", "|---|---|--:|---|---|"]
    lines += ["| " + " | ".join(check_cells(c)) + " |" for c in found]
    return "\n".join(lines) + "\n"


def pilot(arm: Mapping[int, Run], versus: Mapping[int, Run] | None = None) -> Paired:
    """Pilot estimate: final success arm − versus (paired by task and seed), or, without
    ``versus``, the arm's last − first evaluation."""
    seeds = sorted(set(arm) & set(versus)) if versus is not None else sorted(arm)
    if versus is None:
        ys = [[rv.success("last")(arm[s]), rv.success("first")(arm[s])] for s in seeds]
    else:
        ys = [[rv.success("last")(arm[s]), rv.success("last")(versus[s])] for s in seeds]
    return paired(rv.task_matrix(ys, (1.0, -1.0))[0])


def scaled(comps: Components, weights: Sequence[float]) -> Components:
    """Components of a contrast with ``weights`` from a two-arm difference's: × Σ w² / 2."""
    f = math.fsum(w * w for w in weights) / 2.0
    return Components(comps.task * f, comps.seed * f, comps.resid * f)


def planned(comps: Components, tasks: int, seeds: int) -> list[tuple[str, float, dict]]:
    """Per task × seed rule: (id, MDE at tasks × seeds, {seeds: fewest tasks})."""
    out = []
    for rule in rv.RULES:
        if rule.weights is not None:
            c = scaled(comps, rule.weights)
            out.append((rule.id, planned_mde(c, tasks, seeds), plan(c)))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from analysis.runs.sources import collect, layout_resolver

    ap = argparse.ArgumentParser(
        prog="python -m analysis.verdicts.table", description=__doc__.split("\n")[0]
    )
    ap.add_argument("command", choices=("table", "plan"))
    ap.add_argument("--runs-root", required=True)
    ap.add_argument("--arm", help="plan: the pilot arm")
    ap.add_argument("--versus", help="plan: the pilot's second arm (default: end − start)")
    ap.add_argument("--tasks", type=int, default=1000)
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args(argv)
    resolve = layout_resolver(args.runs_root)
    if args.command == "table":
        names = sorted({a for r in rv.RULES for a in r.arms})
        found = {n: resolve(n) for n in names}
        print(markdown(*outcomes(rv.load_arms(found))))
        return 0
    if not args.arm:
        ap.error("plan needs --arm")
    names = [args.arm] + ([args.versus] if args.versus else [])
    arms = rv.load_arms(collect(names, resolve))
    p = pilot(arms[args.arm], arms[args.versus] if args.versus else None)
    c = p.components
    print(f"pilot: {p.seeds} seeds x {p.tasks} tasks, mean {p.mean:+.4f}, SE {p.se:.4f}, "
          f"df {p.df:.1f}; sigma2 task {c.task:.3g}, seed {c.seed:.3g}, resid {c.resid:.3g}")  # fmt: skip
    print(f"| rule | MDE at {args.tasks} tasks x {args.seeds} seeds | tasks for MDE <= 0.05 "
          "at 3 / 4 / 5 seeds |\n|---|--:|---|")  # fmt: skip
    for rid, m, need in planned(c, args.tasks, args.seeds):
        print(f"| {rid} | {m:.3f} | {' / '.join(str(need[s]) for s in (3, 4, 5))} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
