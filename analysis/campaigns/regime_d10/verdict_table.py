r"""The regime's verdict table and the MDE plan (issue 27), from committed runs; never trains.

``table``: every rule of :data:`analysis.campaigns.regime_d10.rules.RULES` decided by
:mod:`analysis.verdicts.family` (p against θ, Holm within its family, TOST for the
equivalence rules) on the registered (admitted) population, beside its intention-to-treat
decision; per held-out rule its learning speed, the bound its interval gives, the CPU kinds of
its seeds and its estimate on the same-CPU seeds; then every bookkeeping check of
:mod:`analysis.campaigns.regime_d10.checks` — on the finished runs under ``--runs-root``
(``docs/protocols/regime-d10-reanalysis.md``).

``plan``: the minimum detectable effect of each held-out (task × seed) rule, *before* the
runs, from a pilot: either the difference of two arms' final success (``--arm A --versus
B``) or one arm's end − start (``--arm A``, the proof run SFT + GRPO). The pilot's variance
components (:mod:`analysis.paired_design`) are scaled to each rule's contrast by
:math:`\sum_k w_k^2 / 2` (each arm contributes independent variance, half a difference's:
a main effect with weights ±½ has half a difference's variance), then

.. math:: \mathrm{MDE}(T, S) = (t_{0.975,\nu} + t_{0.80,\nu})\,SE(T, S)

at ``--tasks`` × ``--seeds``, and the fewest tasks (on a 50-task grid) with MDE ≤ 5 points
for 3, 4 and 5 seeds::

    python -m analysis.campaigns.regime_d10.verdict_table plan --runs-root results/campaign --arm cpu-rcgrpo \
        --versus cpu-rctp-grpo --tasks 1000 --seeds 3
    python -m analysis.campaigns.regime_d10.verdict_table table --runs-root results/regime
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from analysis.campaign.arms import arm as arm_of
from analysis.campaigns.regime_d10 import checks as rc
from analysis.campaigns.regime_d10 import population as pop
from analysis.campaigns.regime_d10.rules import RULES
from analysis.paired_design import Components, Paired, paired, plan, planned_mde
from analysis.runs import Run
from analysis.runs.hosts import cpu_kind
from analysis.verdicts import family as fm
from analysis.verdicts import rules as rv


def checks(arms: Mapping[str, Mapping[int, Run]]) -> list[rc.Check]:
    """B1–B5 on the arms found (a check whose arms have no run is left out)."""
    out = []
    rc_runs = arms.get(pop.RCTP_RC, {})
    if rc_runs:
        out += [rc.bound_gap(rc_runs), rc.low_goal_alive(rc_runs)]
    for arm in pop.FACTORIAL:
        if arms.get(arm):
            out.append(replace(rc.spread_restates_collapse(arms[arm]), id=f"B2 {arm}"))
    for arm in (pop.TEMP_MATCHED, pop.COEF_MATCHED):
        if arms.get(arm) and rc_runs:
            out.append(replace(rc.entropy_matched(arms[arm], rc_runs, arm), id=f"B4 {arm}"))
    if arms.get(pop.RCTP_STRAT) and rc_runs:
        out.append(rc.goals_balanced(arms[pop.RCTP_STRAT], rc_runs))
    return out


def outcomes(arms: Mapping[str, Mapping[int, Run]]) -> tuple[list[rv.Outcome], list[rc.Check]]:
    """Every rule and check on ``arms`` (:func:`analysis.verdicts.rules.load_arms`)."""
    found = checks(arms)
    gates = {c.id: c.passed for c in found}
    return [rv.evaluate(rule, arms, gates) for rule in RULES], found


def _num(x: float, digits: int = 3) -> str:
    return "—" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def _p(x: float) -> str:
    if x is None or not math.isfinite(x):
        return "—"
    return "< 0.001" if x < 0.001 else f"{x:.3f}"


def interval_text(iv: rv.Interval | None, scale: float = 1.0, digits: int = 3) -> str:
    if iv is None:
        return "—"
    m, lo, hi = (_num(scale * v, digits) for v in (iv.mean, iv.low, iv.high))
    return f"{m} [{lo}, {hi}]"


def _size(iv: rv.Interval | None) -> str:
    return "0" if iv is None else f"{iv.seeds} × {iv.tasks or '—'}"


POSTHOC = " (after the runs)"
"""Label of an equivalence verdict on runs that ran before its margin was written."""


@dataclass(frozen=True)
class Report:
    """A verdict table: the registered population's decisions, the intention-to-treat ones,
    and per held-out rule its learning speed, CPU kinds and same-CPU estimate
    (:mod:`analysis.verdicts.family`)."""

    decisions: list[fm.Decision]
    itt: dict[str, fm.Decision]
    """Rule id -> its intention-to-treat decision (rules that read an RCTP-FT arm only)."""
    itt_missing: dict[str, str]
    """Rule id -> the runs its ITT estimate still lacks ("" when none)."""
    speed: dict[str, rv.Interval | None]
    hosts: dict[str, str]
    same_host: dict[str, rv.Interval | None]
    checks: list[rc.Check]
    posthoc: bool = True
    """The registered population's runs predate the equivalence margin."""


def host_mix(rule: rv.Rule, arms: Mapping[str, Mapping[int, Run]]) -> str:
    """The seeds of ``rule`` by the CPU kind their runs ran on (``mixed``: arms on both)."""
    seeds = sorted(set.intersection(*(set(arms.get(a, {})) for a in rule.arms)))
    by: dict[str, list[str]] = {}
    for s in seeds:
        kinds = {cpu_kind(arms[a][s]) for a in rule.arms}
        by.setdefault(kinds.pop() if len(kinds) == 1 else "mixed", []).append(str(s))
    return "; ".join(f"{k}: {', '.join(v)}" for k, v in sorted(by.items())) or "—"


def rctp_arm(preset: str) -> bool:
    a = arm_of(preset)
    return a is not None and a.start == "rctp"


def itt_missing(rule: rv.Rule, itt: Mapping[str, Mapping[int, Run]]) -> str:
    """Which of the rule's arms have no run on the seeds only the ITT population holds
    ("" when the ITT estimate has every seed)."""
    extra = sorted(set(pop.ITT) - set(pop.ADMITTED))
    lacking = {a: [s for s in extra if s not in itt.get(a, {})] for a in rule.arms}
    parts = [f"{a} on {', '.join(map(str, ss))}" for a, ss in lacking.items() if ss]
    return "no run of " + "; ".join(dict.fromkeys(parts)) if parts else ""


def report(
    arms: Mapping[str, Mapping[int, Run]], itt: Mapping[str, Mapping[int, Run]] | None = None
) -> Report:
    """Every rule decided on ``arms`` (the registered population) and, when given, on
    ``itt``; every check on ``arms``."""
    results, found = outcomes(arms)
    treated = {r.id for r in RULES if any(rctp_arm(a) for a in r.arms)}
    itt_all = fm.decide(outcomes(itt)[0], fm.ITT_FAMILIES, labelled={}) if itt else []
    itt_decisions = {d.rule.id: d for d in itt_all if d.rule.id in treated}
    held = [r for r in RULES if r.id in fm.HELD_OUT]
    return Report(
        fm.decide(results),
        itt_decisions,
        {r.id: itt_missing(r, itt) for r in RULES if r.id in treated and itt},
        {r.id: fm.speed(r, arms) for r in held},
        {r.id: host_mix(r, arms) for r in RULES},
        {r.id: fm.same_host(r, arms, cpu_kind) for r in held},
        found,
    )


RULE_HEADER = (
    "rule",
    "claim",
    "quantity",
    "design",
    "estimate [95% CI]",
    "seeds × tasks",
    "test",
    "p",
    "p Holm",
    "p TOST Holm",
    "verdict",
    "ITT estimate [95% CI]",
    "ITT seeds",
    "ITT verdict",
)
HELD_HEADER = (
    "rule",
    "final success [95% CI], pts",
    "learning speed [95% CI], pts",
    "bound (after the runs)",
    "seeds by CPU",
    "same-CPU estimate [95% CI], pts",
    "same-CPU seeds",
)
CHECK_HEADER = ("check", "what", "value", "passed", "detail")


def verdict_text(d: fm.Decision, posthoc: bool) -> str:
    """The decision's verdict, with the outcome's note (why it is not tested) and the
    after-the-runs label of an equivalence on the registered runs."""
    text = d.verdict + (POSTHOC if posthoc and d.verdict.startswith("equivalent") else "")
    note = d.outcome.note if d.outcome.note and not fm.testable(d.outcome) else ""
    return text + (f" ({note})" if note else "")


def rule_cells(
    d: fm.Decision, itt: fm.Decision | None = None, posthoc: bool = True, missing: str = ""
) -> list[str]:
    """One row of the verdict table (:data:`RULE_HEADER`), as plain text."""
    iv, r = d.outcome.interval, d.rule
    test = f"{'>' if r.side == 'above' else '<'} {r.threshold:g}"
    i_iv = None if itt is None else itt.outcome.interval
    return [
        r.id,
        r.claim,
        r.quantity,
        r.design,
        interval_text(iv),
        _size(iv),
        test,
        _p(d.p),
        _p(d.p_holm),
        _p(d.p_tost_holm),
        verdict_text(d, posthoc),
        interval_text(i_iv),
        "—" if itt is None else ", ".join(map(str, itt.outcome.seeds)) or "—",
        "—" if itt is None else verdict_text(itt, False) + (f" ({missing})" if missing else ""),
    ]


def held_cells(rep: Report, d: fm.Decision) -> list[str]:
    """One row of the held-out table (:data:`HELD_HEADER`), in points."""
    rid, same = d.rule.id, rep.same_host.get(d.rule.id)
    return [
        rid,
        interval_text(d.outcome.interval, 100, 1),
        interval_text(rep.speed.get(rid), 100, 1),
        fm.bound(d.outcome),
        rep.hosts.get(rid, "—"),
        interval_text(same, 100, 1),
        "—" if same is None else str(same.seeds),
    ]


def check_cells(c: rc.Check) -> list[str]:
    """One row of the checks table (:data:`CHECK_HEADER`), as plain text."""
    return [c.id, c.label, _num(c.value), str(c.passed), str(c.detail)]


def _rows(header: Sequence[str], rows: Sequence[Sequence[str]], align: str) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    return lines + ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]


def markdown(rep: Report) -> str:
    """The verdict table, the held-out table, then the checks table."""
    rows = [
        rule_cells(d, rep.itt.get(d.rule.id), rep.posthoc, rep.itt_missing.get(d.rule.id, ""))
        for d in rep.decisions
    ]
    held = [held_cells(rep, d) for d in rep.decisions if d.rule.id in fm.HELD_OUT]
    align = ["---"] * 4 + ["--:"] * 6 + ["---", "--:", "--:", "---"]
    lines = _rows(RULE_HEADER, rows, align) + [""]
    lines += _rows(HELD_HEADER, held, ["---"] + ["--:"] * 3 + ["---", "--:", "--:"]) + [""]
    lines += _rows(
        CHECK_HEADER, [check_cells(c) for c in rep.checks], ["---", "---", "--:"] + ["---"] * 2
    )
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
    for rule in RULES:
        if rule.weights is not None:
            c = scaled(comps, rule.weights)
            out.append((rule.id, planned_mde(c, tasks, seeds), plan(c)))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from analysis.runs.sources import collect, layout_resolver

    ap = argparse.ArgumentParser(
        prog="python -m analysis.campaigns.regime_d10.verdict_table",
        description=__doc__.split("\n")[0],
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
        names = sorted({a for r in RULES for a in r.arms})
        found = {n: resolve(n) for n in names}
        arms, itt = pop.load_arms(found, "admitted"), pop.load_arms(found, "itt")
        print(markdown(report(arms, itt)))
        return 0
    if not args.arm:
        ap.error("plan needs --arm")
    names = [args.arm] + ([args.versus] if args.versus else [])
    arms = pop.load_arms(collect(names, resolve))
    p = pilot(arms[args.arm], arms[args.versus] if args.versus else None)
    c = p.components
    print(
        f"pilot: {p.seeds} seeds x {p.tasks} tasks, mean {p.mean:+.4f}, SE {p.se:.4f}, "
        f"df {p.df:.1f}; sigma2 task {c.task:.3g}, seed {c.seed:.3g}, resid {c.resid:.3g}"
    )
    print(
        f"| rule | MDE at {args.tasks} tasks x {args.seeds} seeds | tasks for MDE <= 0.05 "
        "at 3 / 4 / 5 seeds |\n|---|--:|---|"
    )
    for rid, m, need in planned(c, args.tasks, args.seeds):
        print(f"| {rid} | {m:.3f} | {' / '.join(str(need[s]) for s in (3, 4, 5))} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
