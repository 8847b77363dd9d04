"""The positive control's verdicts (``docs/protocols/collapse-pairs-map.md``, part 2), each beside
its registered prediction, from the committed runs, diagnostics and predictions; "not run" where
they are missing. ``python -m analysis.campaigns.collapse_pairs_inverted.verdict`` prints the gate
table and the rule table.

Rules (:data:`RULES`; Holm within each family of :data:`FAMILIES`; every θ = 0 difference of
held-out success also tested for equivalence within ±:data:`MARGIN`, TOST):

- ``premise``: P1, RCTP-FT + GRPO collapses (zero-variance share of its groups over training
  ≥ 0.5); P2, RC-GRPO's low rollouts succeed (its training success under the low goal minus
  under the high goal over steps 1–25 > 0.10), both seed design;
- ``control``: I1s, I1f, RC-GRPO − RCTP-FT + GRPO on learning speed (held-out success at the
  high goal over the evaluations at steps 25–175) and final success (step 200), paired by task
  and seed;
- ``mechanism``: I2s, I2f, RC-GRPO − the anchored low mode, the same outcomes.

Beside each I rule: the prediction's contrast on high-goal training success (centre and
interval, the mean over seeds of each seed's registered values), the same contrast measured on
the arms' training rollouts (mean over seeds, 95% t interval) and the reading
(:mod:`analysis.campaigns.collapse_pairs_inverted.readings`).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

from analysis import REPO_ROOT
from analysis.campaigns.collapse import transfer_table as tt
from analysis.campaigns.collapse_pairs_inverted import design
from analysis.campaigns.collapse_pairs_inverted import gate as ig
from analysis.campaigns.collapse_pairs_inverted import readings as rd
from analysis.campaigns.regime_separation.tables import markdown_table
from analysis.report.latex import escape, tabular
from analysis.runs import Run, is_finished
from analysis.verdicts import family as fm

rv = fm.rv
"""The rule type and its evaluation that :func:`analysis.verdicts.family.decide` decides."""
RESULTS = REPO_ROOT / "results" / design.HOME
RCTP_GRPO, RC, ANCHORED = design.ARMS
MARGIN = 0.03
"""Equivalence margin: ±3 points of held-out success (as ``collapse-pairs``)."""
EARLY = (1, 25)
"""P2's steps (inclusive)."""
LOW_SUCCEEDS = 0.10
"""P2's threshold: the low goal's training success above the high goal's by more than this."""
NAMES = {RCTP_GRPO: "RCTP-FT + GRPO", RC: "RC-GRPO", ANCHORED: "anchored low mode"}
NOT_RUN = "not run"


def low_minus_high(run: Run, steps: tuple[int, int] = EARLY) -> float:
    """Mean reward of the run's low-goal rollouts minus its high-goal rollouts over ``steps``."""
    rows = run.rollouts
    rows = rows[rows["step"].between(*steps)]
    by_goal = rows.groupby("reward_token")["reward"].mean()
    return float(by_goal.get("low", math.nan) - by_goal.get("high", math.nan))


def _pair(k: str, arm: str, versus: str, why: str) -> tuple[rv.Rule, rv.Rule]:
    subject = f"{NAMES[arm]} > {NAMES[versus]}"
    return (
        rv.held_out_difference(f"{k}s", subject, arm, versus, "speed", why),
        rv.held_out_difference(f"{k}f", subject, arm, versus, "final", why),
    )


RULES: tuple[rv.Rule, ...] = (
    rv.Rule(
        id="P1",
        claim="RCTP-FT + GRPO collapses from the inverted start",
        quantity="collapse share over training",
        arms=(RCTP_GRPO,),
        threshold=rv.COLLAPSE_MANY,
        side="above",
        why="the high goal is wrong at the decision, so its groups have no variance",
        seed_value=rv.one(rv.collapse),
    ),
    rv.Rule(
        id="P2",
        claim="RC-GRPO's low rollouts succeed",
        quantity="training success, low − high goal, steps 1–25",
        arms=(RC,),
        threshold=LOW_SUCCEEDS,
        side="above",
        why="the inverted pairs put the right decision under the low goal",
        seed_value=rv.one(low_minus_high),
    ),
    *_pair("I1", RC, RCTP_GRPO, "the transfer model predicts a gain where s_l > s_h"),
    *_pair("I2", RC, ANCHORED, "what training on the low rollouts adds"),
)
FAMILIES = {"premise": ("P1", "P2"), "control": ("I1s", "I1f"), "mechanism": ("I2s", "I2f")}
EQUIVALENCE = ("I1s", "I1f", "I2s", "I2f")
PREDICTED = EQUIVALENCE
"""The rules with a registered prediction (and a reading)."""


def arms(root: Path = RESULTS) -> dict[str, dict[int, Run]]:
    """{arm: {seed: run}} of the finished committed runs of every arm."""
    seeds = (*design.SEEDS, *design.SPARES)
    found = {a: [root / f"{a}-s{s}" for s in seeds] for a in design.ARMS}
    return rv.load_arms({a: [p for p in ps if is_finished(p)] for a, ps in found.items()})


def decisions(by_arm: dict[str, dict[int, Run]]) -> list[fm.Decision]:
    """Every rule decided in its family (module docstring), in :data:`RULES` order."""
    outcomes = [rv.evaluate(rule, by_arm, {}) for rule in RULES]
    return fm.decide(outcomes, FAMILIES, EQUIVALENCE, MARGIN, labelled={})


def training_contrast(rule: rv.Rule, seed: int, root: Path = RESULTS) -> float:
    """The rule's contrast on high-goal training success at ``seed``: the mean over steps
    25–175 (``s``) or 191–200 (``f``) of each arm's curve, arm − versus (NaN: not run)."""
    arm, versus = rule.arms
    curves = [tt.training_curve(root, a, seed) for a in (arm, versus)]
    if any(c is None for c in curves):
        return math.nan
    if rule.id.endswith("s"):
        return tt.speed(curves[0]) - tt.speed(curves[1])
    return float(np.nanmean(curves[0][190:200]) - np.nanmean(curves[1][190:200]))


def predicted(rule_id: str, seed: int, diagnostics: Path = design.DIAGNOSTICS) -> dict | None:
    """The registered prediction of ``rule_id`` at ``seed`` on the training-success scale
    (``low``, ``centre``, ``high``; None: no prediction committed)."""
    path = design.prediction_path(seed, diagnostics)
    if not path.is_file():
        return None
    return json.loads(path.read_text())["contrasts"][rule_id]["training_success"]


def _points(x: float) -> str:
    return f"{100 * x:+.1f}"


def _interval(mean: float, lo: float, hi: float) -> str:
    return f"{_points(mean)} [{_points(lo)}, {_points(hi)}]"


HEADER = (
    "rule",
    "claim",
    "n seeds",
    "estimate [95% CI]",
    "p Holm",
    "p TOST Holm",
    "verdict",
    "predicted (training success) [interval]",
    "measured (training success) [95% CI]",
    "reading",
)


def rule_row(d: fm.Decision, premise_failed: list[str], root: Path, diagnostics: Path) -> list:
    """One row of :data:`HEADER`; points for differences."""
    out, rule = d.outcome, d.rule
    if not out.seeds:
        return [rule.id, rule.claim, "0", *[NOT_RUN] * 4, "—", NOT_RUN, NOT_RUN]
    iv = out.interval
    est = "—"
    if iv is not None and rule.id in PREDICTED:
        est = _interval(iv.mean, iv.low, iv.high)
    elif iv is not None:
        est = f"{iv.mean:.3f} [{iv.low:.3f}, {iv.high:.3f}]"
    ps = [f"{p:.3g}" if math.isfinite(p) else "—" for p in (d.p_holm, d.p_tost_holm)]
    cells = [rule.id, rule.claim, str(len(out.seeds)), est, *ps, d.verdict]
    if rule.id not in PREDICTED:
        return [*cells, "—", "—", "—"]
    preds = [predicted(rule.id, s, diagnostics) for s in out.seeds]
    have = [p for p in preds if p is not None]
    pred_iv = rd.predicted_interval([(p["low"], p["high"]) for p in have])
    pred = "—"
    if pred_iv is not None:
        pred = _interval(float(np.mean([p["centre"] for p in have])), *pred_iv)
    measured = rv.seed_interval([training_contrast(rule, s, root) for s in out.seeds])
    meas = "—" if measured is None else _interval(measured.mean, measured.low, measured.high)
    bounds = None if measured is None else (measured.low, measured.high)
    text = rd.reading(d.verdict, len(out.seeds), bounds, pred_iv)
    return [*cells, pred, meas, rd.with_premise(text, premise_failed)]


def rules_markdown(root: Path = RESULTS, diagnostics: Path = design.DIAGNOSTICS) -> str:
    """The rule table (module docstring)."""
    decided = decisions(arms(root))
    premise = [d.rule.id for d in decided if d.family == "premise" and d.verdict != "holds"]
    body = [rule_row(d, premise, root, diagnostics) for d in decided]
    align = ["---", "---", "--:", "--:", "--:", "--:", "---", "--:", "--:", "---"]
    return "\n".join(markdown_table(HEADER, body, align)) + "\n"


GATE_HEADER = (
    "seed",
    "right share, high",
    "right share, low",
    "low − high [95% CI]",
    "gate I",
    "success, high",
    "success, low",
    "cos(∇z_h, ∇z_l) [95% CI]",
    "gain ratio",
    "prediction",
)


def gate_row(seed: int, diagnostics: Path = design.DIAGNOSTICS) -> list[str]:
    """One row of :data:`GATE_HEADER` ("not run" without the seed's diagnostic)."""
    report = ig.read(seed, diagnostics)
    block = ig.pooled(report)
    if block is None:
        return [str(seed), *[NOT_RUN] * (len(GATE_HEADER) - 1)]
    inv = ig.inverted(block)
    success = report["goal_effect"]["success"]
    grad = report["transfer"].get("gradient")
    cos = gain = "—"
    if grad is not None:
        c = grad["cosine"]
        cos = f"{c['estimate']:.3f} [{c['ci'][0]:.3f}, {c['ci'][1]:.3f}]"
        gain = f"{grad['gain_ratio']['estimate']:.3f}"
    has = design.prediction_path(seed, diagnostics).is_file()
    return [
        str(seed),
        f"{block['p_high']:.3f}",
        f"{block['p_low']:.3f}",
        f"{inv['diff']:+.3f} [{inv['ci'][0]:+.3f}, {inv['ci'][1]:+.3f}]",
        "holds" if ig.holds(block) else "fails",
        f"{success['p_high']:.3f}",
        f"{success['p_low']:.3f}",
        cos,
        gain,
        "registered" if has else NOT_RUN,
    ]


def plan_sentence(plan: ig.Plan) -> str:
    """Where Stage 1 stands, in one sentence."""
    if plan.kind == "admitted":
        return f"Gate I admits seeds {', '.join(map(str, plan.seeds))}; the arms run on them."
    if plan.kind == "stopped":
        return (
            f"The control stops at its gate: {len(plan.passed)} of the seeds passed "
            f"(failed: {', '.join(map(str, plan.failed)) or 'none'}), fewer than three."
        )
    return f"Gate I to measure next at seeds {', '.join(map(str, plan.seeds))}."


def verdict_markdown(root: Path = RESULTS, diagnostics: Path = design.DIAGNOSTICS) -> str:
    """The gate table, where Stage 1 stands, and the rule table."""
    seeds = (*design.SEEDS, *design.SPARES)
    gates = [gate_row(s, diagnostics) for s in seeds]
    table = "\n".join(markdown_table(GATE_HEADER, gates, ["--:"] * 4 + ["---"] + ["--:"] * 5))
    sentence = plan_sentence(ig.status(diagnostics))
    return f"{table}\n\n{sentence}\n\n{rules_markdown(root, diagnostics)}"


def verdict_latex(root: Path = RESULTS, diagnostics: Path = design.DIAGNOSTICS) -> str:
    """The report's ``collapse_pairs_inverted.tex``: the rule table, each I rule beside its
    prediction, under a caption saying where Stage 1 stands (gate I, :func:`plan_sentence`)."""
    decided = decisions(arms(root))
    premise = [d.rule.id for d in decided if d.family == "premise" and d.verdict != "holds"]
    keep = (0, 2, 3, 6, 7, 8, 9)  # rule, n, estimate, verdict, predicted, measured, reading
    rows = [
        [escape(str(row[i])) for i in keep]
        for row in (rule_row(d, premise, root, diagnostics) for d in decided)
    ]
    sentence = plan_sentence(ig.status(diagnostics))
    return tabular(
        [escape(HEADER[i]) for i in keep],
        rows,
        ["l", "r", "r", "l", "r", "r", "p{4.2cm}"],
        caption="The inverted positive control on \\code{collapse1-d10} "
        "(\\code{docs/protocols/collapse-pairs-map.md}, part 2): each rule's verdict beside the "
        "transfer model's prediction registered before the arms ran, in points of high-goal "
        "training success. " + escape(sentence),
        label="tab:collapse-pairs-inverted",
        note="Estimates of I rules in points of held-out success, P1 as a share, P2 as a "
        "difference of training success; Holm within each family, TOST $\\pm 3$ points. "
        "The gate table, per seed: \\code{docs/results/collapse-pairs-inverted.md}.",
        size="scriptsize",
    )


if __name__ == "__main__":
    sys.stdout.write(verdict_markdown())
