"""The rules of ``smollm2-collapse`` (``docs/protocols/smollm2-collapse.md``, "Questions and
rules"), registered before its runs, decided on the committed RL runs.

Arms: :data:`analysis.campaigns.smollm2_collapse.design.ARMS`, one run per seed of
:data:`~analysis.campaigns.smollm2_collapse.design.SEEDS`, every run counting (intention to
treat). Outcomes, paired by task and seed (:mod:`analysis.verdicts.rules`'s task × seed
design): **learning speed** (primary), the mean held-out success at steps 10, 20 and 30 on the 40
tasks all three evaluated; **final success** (secondary), step 40 on 80 tasks; group shares per
seed. Families (Holm within each, :func:`analysis.verdicts.family.decide`): ``premise`` S1–S3,
``claims`` Q1–Q3, ``mechanism`` Q4; every θ = 0 difference (Q1–Q4, and S3 against the i.i.d.
prediction) is also tested for equivalence within ±:data:`MARGIN` (5 points of success; 0.05 of
the share for S3). A rule an arm of which has no run reads *not run*; Q1 under an inert goal
token (gate R) says it restates that gate, and every speed verdict says "no learning within the
budget" when RCTP-FT + GRPO's held-out gain over its 40 steps holds 0 (:data:`LEARNED`).
:func:`prediction_markdown` sets each speed rule beside the transfer model's predictions.

    python -m analysis.campaigns.smollm2_collapse.verdicts
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

from analysis.campaigns.regime_separation.tables import markdown_table
from analysis.campaigns.smollm2_collapse import gates
from analysis.campaigns.smollm2_collapse.design import ARMS, SEEDS, SPEED_STEPS
from analysis.runs import Run, is_finished, load_run
from analysis.verdicts import family as fm
from analysis.verdicts import rules as rv

RCTP_GRPO, RC, SFT_GRPO, ANCHORED = (a.name for a in ARMS)
NAMES = {a.name: a.label for a in ARMS}
MARGIN = 0.05
STALL = 0.05
"""S2: 'stalls' read as a held-out gain under 5 points over the 40 steps (K2's threshold)."""
TINY = {"S1": "K1", "S2": "K2", "Q1": "K3", "Q3": "K6", "Q4": "M2"}
"""Each rule's analogue among the tiny collapse campaign's rules (none for S3 and Q2)."""


def excess_collapse(runs) -> float:
    """S3's per-seed value: the zero-variance share of the run's groups minus the i.i.d.
    prediction from each step's batch success, both averaged over its steps."""
    shares = gates.group_shares(runs[0])
    return shares["zero_var"] - shares["predicted"]


def _pair(k: str, arm: str, versus: str, why: str) -> tuple[rv.Rule, rv.Rule]:
    """``<k>s`` (speed) and ``<k>f`` (final) of arm − versus, θ = 0, 'arm is above'."""
    subject = f"{NAMES[arm]} > {NAMES[versus]}"
    out = []
    for suffix, cell, what in (
        ("s", rv.speed(SPEED_STEPS), "learning speed (mean success, steps 10–30)"),
        ("f", rv.success("last"), "final success (step 40)"),
    ):
        rule = rv.Rule(
            f"{k}{suffix}",
            f"{subject}: {what}",
            f"{what}, difference",
            (arm, versus),
            0.0,
            "above",
            why,
            None,
            (cell, cell),
            (1.0, -1.0),
        )
        out.append(rule)
    return tuple(out)


RULES: tuple[rv.Rule, ...] = (
    rv.Rule(
        id="S1",
        claim="SFT + GRPO: most groups have zero reward variance",
        quantity="zero-variance share over training",
        arms=(SFT_GRPO,),
        threshold=rv.COLLAPSE_MANY,
        side="above",
        why="the tiny model's K1 (0.799)",
        seed_value=rv.one(rv.collapse),
    ),
    rv.Rule(
        id="S2",
        claim="SFT + GRPO stalls",
        quantity="held-out success, step 40 − step 0",
        arms=(SFT_GRPO, SFT_GRPO),
        threshold=STALL,
        side="below",
        why="the tiny model's K2, over 40 steps instead of 200",
        cells=(rv.success("last"), rv.success("first")),
        weights=(1.0, -1.0),
    ),
    rv.Rule(
        id="S3",
        claim="SFT + GRPO collapses more often than i.i.d. rewards would",
        quantity="zero-variance share − s̄^G − (1 − s̄)^G",
        arms=(SFT_GRPO,),
        threshold=0.0,
        side="above",
        why="the tiny model's 2.5–3× the i.i.d. prediction (collapse-seeds)",
        seed_value=excess_collapse,
    ),
    *_pair("Q1", RC, RCTP_GRPO, "the paper's claim: RC sampling on top of RCTP-FT"),
    *_pair("Q2", RCTP_GRPO, SFT_GRPO, "the RCTP-FT init with the successes matched"),
    *_pair("Q3", RC, SFT_GRPO, "the rescue: the full method against the collapsing baseline"),
    *_pair("Q4", ANCHORED, RC, "what the low goal's update adds through the shared weights"),
)
LEARNED = rv.Rule(
    id="L",
    claim="RCTP-FT + GRPO learns within the budget",
    quantity="held-out success, step 40 − step 0",
    arms=(RCTP_GRPO, RCTP_GRPO),
    threshold=0.0,
    side="above",
    why="reported beside the rules, not tested: a speed verdict without learning reads as such",
    cells=(rv.success("last"), rv.success("first")),
    weights=(1.0, -1.0),
)
NO_LEARNING = " (no learning within the budget)"
"""Added to every speed verdict when :data:`LEARNED`'s 95% interval holds 0 (the protocol)."""
FAMILIES: dict[str, tuple[str, ...]] = {
    "premise": ("S1", "S2", "S3"),
    "claims": ("Q1s", "Q1f", "Q2s", "Q2f", "Q3s", "Q3f"),
    "mechanism": ("Q4s", "Q4f"),
}
EQUIVALENCE = ("S3", *FAMILIES["claims"], *FAMILIES["mechanism"])


def committed_arms(root: Path = gates.RESULTS) -> dict[str, dict[int, Run]]:
    """{arm: {seed: run}} of the finished runs under ``root`` on the campaign's seeds."""
    out: dict[str, dict[int, Run]] = {}
    for arm in ARMS:
        runs = {s: root / f"{arm.name}-s{s}" for s in SEEDS}
        out[arm.name] = {s: load_run(p) for s, p in runs.items() if is_finished(p)}
    return out


def decisions(arms: dict[str, dict[int, Run]], r_reading: str | None = None) -> list[fm.Decision]:
    """Every rule decided on ``arms`` (module docstring), in registered order."""
    outs = [rv.evaluate(rule, arms, {}) for rule in RULES]
    decided = fm.decide(outs, FAMILIES, EQUIVALENCE, MARGIN, labelled={})
    gain = rv.evaluate(LEARNED, arms, {}).interval
    no_learning = gain is not None and gain.low <= 0.0 <= gain.high
    out = []
    for d in decided:
        if any(not arms.get(a) for a in d.rule.arms):
            d = dataclasses.replace(d, verdict="not run")
            out.append(d)
            continue
        if d.rule.id.startswith("Q1") and r_reading == "inert":
            d = dataclasses.replace(d, verdict=d.verdict + " (restates gate R: the token is inert)")
        if no_learning and d.rule.id[0] == "Q" and d.rule.id.endswith("s"):
            d = dataclasses.replace(d, verdict=d.verdict + NO_LEARNING)
        out.append(d)
    return out


HEADER = ("rule", "family", "claim", "estimate [95% CI]", "seeds", "p Holm", "p TOST Holm")
HEADER += ("verdict", "tiny analogue")


def _p(p: float) -> str:
    return "—" if math.isnan(p) else "< 0.001" if p < 0.001 else f"{p:.3f}"


def row(d: fm.Decision) -> list[str]:
    """One decision as a table row."""
    iv = d.outcome.interval
    est = "—" if iv is None else f"{iv.mean:+.3f} [{iv.low:+.3f}, {iv.high:+.3f}]"
    seeds = ", ".join(map(str, d.outcome.seeds)) or "—"
    tiny = TINY.get(d.rule.id[:2], "—")
    if tiny != "—" and d.rule.id[-1] in "sf":
        tiny += d.rule.id[-1]
    return [d.rule.id, d.family, d.rule.claim, est, seeds, _p(d.p_holm), _p(d.p_tost_holm)] + [
        d.verdict,
        tiny,
    ]


def _interval(iv) -> str:
    return "—" if iv is None else f"{iv.mean:+.3f} [{iv.low:+.3f}, {iv.high:+.3f}]"


def verdict_markdown(root: Path = gates.RESULTS) -> str:
    """The verdict table on the committed runs under ``root``, and beside it RCTP-FT + GRPO's
    held-out gain over its 40 steps (:data:`LEARNED`)."""
    found = gates.measure(gates.committed(root))
    arms = committed_arms(root)
    body = [row(d) for d in decisions(arms, found.r)]
    align = ["---", "---", "---", "--:", "--:", "--:", "--:", "---", "---"]
    gain = rv.evaluate(LEARNED, arms, {})
    beside = (
        f"Beside the rules: RCTP-FT + GRPO's held-out gain over its 40 steps "
        f"{_interval(gain.interval)} (seeds {', '.join(map(str, gain.seeds)) or 'none'}); an "
        "interval holding 0 makes every speed verdict read 'no learning within the budget'."
    )
    return "\n".join([*markdown_table(HEADER, body, align), "", beside]) + "\n"


PREDICTION_HEADER = ("rule", "registered: expected / noise-bound", "after the runs (LOSO)")
PREDICTION_HEADER += ("training speed, measured", "error (LOSO, noise-bound)", "held-out estimate")


def _points(values: list[float]) -> str:
    x = [v for v in values if v is not None and math.isfinite(v)]
    return "—" if not x else f"{100 * sum(x) / len(x):+.1f}"


def prediction_markdown(root: Path = gates.RESULTS) -> str:
    """Each speed rule's measured estimate beside the registered prediction (``prediction.json``)
    and the leave-one-seed-out one made after the runs
    (:func:`analysis.campaigns.smollm2_collapse.prediction.after_runs`), in points of training
    speed (mean over seeds; error = predicted − measured)."""
    from analysis.campaigns.smollm2_collapse import prediction as pr

    path = root / gates.PREDICTION.name
    registered = json.loads(path.read_text())["contrasts"] if path.is_file() else {}
    report = gates.diagnostic()
    arms = committed_arms(root)
    after = pr.after_runs(arms, float(report["transfer"]["estimate"])) if report else {}
    held = {d.rule.id: d.outcome.interval for d in decisions(arms)}
    body = []
    for q in pr.CONTRASTS:
        reg = [_points([(registered.get(v) or {}).get(q)]) for v in ("expected", "noise")]
        loso = [
            _points([(a.get(v) or {}).get(q) for a in after.values()])
            for v in ("expected", "noise")
        ]
        seen = [a["measured"][q] for a in after.values()]
        err = [(a.get("noise") or {}).get(q, math.nan) - a["measured"][q] for a in after.values()]
        body.append([f"{q}s", " / ".join(reg), " / ".join(loso), _points(seen), _points(err)])
        body[-1].append(_interval(held.get(f"{q}s")))
    return "\n".join(markdown_table(PREDICTION_HEADER, body, ["---"] + ["--:"] * 5)) + "\n"


if __name__ == "__main__":
    print(verdict_markdown() + "\n" + prediction_markdown(), end="")
