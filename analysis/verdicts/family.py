r"""Decisions over a verdict table: family-wise correction, equivalence, learning speed, hosts.

The rules of :mod:`analysis.verdicts.rules` each give an estimate with SE and ν
(:class:`~analysis.verdicts.rules.Interval`); ``docs/protocols/regime-d10-reanalysis.md``
fixes how a table of them is decided, and this module implements it once for every campaign:

1. each testable rule's two-sided p-value against its threshold θ
   (:func:`analysis.inference.t_pvalue`), Holm-adjusted within its family (:data:`FAMILIES`);
   *holds* when the adjusted p < α on the predicted side, *does not hold* on the other side;
2. otherwise, for a rule of :data:`EQUIVALENCE`, the TOST p-value against ±:data:`MARGIN`,
   Holm-adjusted within the same family: *equivalent within ±m* when below α;
3. otherwise *inconclusive* (as is a rule with fewer than 3 seeds, a missing arm or a failed
   gate: it is not tested and does not count towards its family's m);
4. a rule of :data:`BY_CONSTRUCTION` is not tested on the population whose selection makes it
   hold: it is reported as a labelled check (in the intention-to-treat population it is tested
   in a family of its own, :data:`ITT_FAMILIES`).

Beside each held-out rule (:data:`HELD_OUT`): the same contrast on learning speed
(:func:`analysis.verdicts.rules.speed`, the area under the held-out curve at steps 25–175),
and the rule restricted to the seeds on which every arm ran on one kind of CPU
(:func:`analysis.runs.hosts.cpu_kind`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from analysis.inference import holm, t_pvalue, tost_pvalue
from analysis.paired_design import ALPHA, TARGET_MDE
from analysis.runs import Run
from analysis.verdicts import rules as rv

FAMILIES: dict[str, tuple[str, ...]] = {
    "claims": ("C1", "C3", "I1", "I2", "T1", "T2", "T3", "T4", "T5"),
    "mechanisms": ("E1", "E2", "E3", "E4", "E5", "E6", "D1", "D2", "S1", "S2"),
}
"""Family -> its rules: the paper's claims, and the alternative explanations with the
stratified design variant (the protocol's §1)."""
BY_CONSTRUCTION: dict[str, str] = {
    "C2": "by construction: RCTP-FT seeds were admitted only when their goals separated",
}
"""Rules that hold by the admission or the design: reported as labelled checks, not claims."""
ITT_FAMILIES: dict[str, tuple[str, ...]] = {**FAMILIES, "checks": tuple(BY_CONSTRUCTION)}
"""The intention-to-treat population's families: no seed was selected there, so the
by-construction rules are tested, each family corrected on its own."""
MARGIN = TARGET_MDE
"""Equivalence margin m: 5 points of held-out success, the effect the campaign was designed
to detect (:data:`analysis.paired_design.TARGET_MDE`, fixed before the campaign)."""
EQUIVALENCE = ("T1", "T2", "T4", "E3", "E6", "D1", "D2")
"""Rules whose θ = 0 ordering, when not decided, is tested for equivalence within ±m."""
HELD_OUT = ("T1", "T2", "T3", "T4", "T5", "E3", "E6", "D1", "D2", "S2")
"""Rules on final held-out success: each also reports learning speed and the bound."""


@dataclass(frozen=True)
class Decision:
    """One rule's decision in its table (module docstring)."""

    outcome: rv.Outcome
    family: str
    """A key of :data:`FAMILIES`, or ``by construction``."""
    p: float
    """Two-sided p against θ (NaN: not tested)."""
    p_holm: float
    p_tost: float
    """TOST p against ±:data:`MARGIN` (NaN: not an equivalence rule, or not tested)."""
    p_tost_holm: float
    verdict: str

    @property
    def rule(self) -> rv.Rule:
        return self.outcome.rule


def family_of(
    rule_id: str,
    families: dict[str, tuple[str, ...]] | None = None,
    labelled: Mapping[str, str] = BY_CONSTRUCTION,
) -> str:
    """The family of ``rule_id`` in ``families`` (default :data:`FAMILIES`)."""
    if rule_id in labelled:
        return "by construction"
    fams = FAMILIES if families is None else families
    return next((f for f, ids in fams.items() if rule_id in ids), "unassigned")


def testable(out: rv.Outcome) -> bool:
    """Whether a rule can be tested: an interval on ≥ 3 seeds and no failed gate."""
    iv = out.interval
    gated = out.note.startswith("gate")
    return iv is not None and iv.seeds >= rv.MIN_SEEDS and not gated and math.isfinite(iv.se)


def _p(estimate: float, se: float, df: float, theta: float) -> float:
    if se == 0:  # every seed the same value: the test is exact
        return 1.0 if estimate == theta else 0.0
    return t_pvalue(estimate, se, df, theta)


def _tost(estimate: float, se: float, df: float, margin: float = MARGIN) -> float:
    if se == 0:
        return 0.0 if abs(estimate) < margin else 1.0
    return tost_pvalue(estimate, se, df, margin)


def _verdict(
    out: rv.Outcome,
    p_holm: float,
    p_tost_holm: float,
    margin: float = MARGIN,
    labelled: Mapping[str, str] = BY_CONSTRUCTION,
) -> str:
    if out.rule.id in labelled:
        return f"{out.verdict} ({labelled[out.rule.id]})"
    if not testable(out):
        return "inconclusive"
    iv, rule = out.interval, out.rule
    if p_holm < ALPHA:
        above = iv.mean > rule.threshold
        return "holds" if above == (rule.side == "above") else "does not hold"
    if p_tost_holm < ALPHA:
        return f"equivalent within ±{100 * margin:g} points"
    return "inconclusive"


def decide(
    outcomes: Sequence[rv.Outcome],
    families: dict[str, tuple[str, ...]] | None = None,
    equivalence: Sequence[str] = EQUIVALENCE,
    margin: float = MARGIN,
    labelled: Mapping[str, str] = BY_CONSTRUCTION,
) -> list[Decision]:
    """Every outcome decided in its family (module docstring), in the order given; the
    families, the equivalence rules and their margin default to the regime campaign's."""
    fams = FAMILIES if families is None else families
    p, p_tost = [], []
    for out in outcomes:
        iv, rule = out.interval, out.rule
        ok = testable(out) and rule.id not in labelled
        p.append(_p(iv.mean, iv.se, iv.df, rule.threshold) if ok else math.nan)
        eq = ok and rule.id in equivalence
        p_tost.append(_tost(iv.mean, iv.se, iv.df, margin) if eq else math.nan)
    p_holm, p_tost_holm = [math.nan] * len(p), [math.nan] * len(p)
    for name in fams:
        idx = [i for i, o in enumerate(outcomes) if family_of(o.rule.id, fams, labelled) == name]
        for src, dst in ((p, p_holm), (p_tost, p_tost_holm)):
            for i, adj in zip(idx, holm([src[i] for i in idx]), strict=True):
                dst[i] = adj
    out = []
    for i, o in enumerate(outcomes):
        verdict = _verdict(o, p_holm[i], p_tost_holm[i], margin, labelled)
        family = family_of(o.rule.id, fams, labelled)
        out.append(Decision(o, family, p[i], p_holm[i], p_tost[i], p_tost_holm[i], verdict))
    return out


def bound(out: rv.Outcome) -> str:
    """The bound a held-out rule's 95% interval gives, in points: the effect on the claim's
    side beyond the interval is excluded ("" when there is no interval)."""
    iv = out.interval
    if iv is None or out.rule.id not in HELD_OUT:
        return ""
    if out.rule.side == "above":
        return f"> {100 * iv.high:+.1f} excluded"
    return f"< {100 * iv.low:+.1f} excluded"


Arms = Mapping[str, Mapping[int, Run]]


def speed(rule: rv.Rule, arms: Arms) -> rv.Interval | None:
    """The rule's contrast on learning speed (area under the held-out curve, steps 25–175),
    paired by task and seed like final success (None: not a held-out rule, or no data)."""
    if rule.id not in HELD_OUT:
        return None
    cells = tuple(rv.speed() for _ in rule.arms)
    return rv.evaluate(replace(rule, cells=cells, gate=None), arms, {}).interval


def same_host(rule: rv.Rule, arms: Arms, kind: Callable[[Run], str]) -> rv.Interval | None:
    """The rule on the seeds whose runs of every arm of the rule ran on one kind of CPU
    (``kind`` of each run; a run of unknown kind excludes its seed)."""
    keep: dict[str, dict[int, Run]] = {a: {} for a in rule.arms}
    seeds = set.intersection(*(set(arms.get(a, {})) for a in rule.arms))
    for s in seeds:
        kinds = {kind(arms[a][s]) for a in rule.arms}
        if len(kinds) == 1 and "?" not in kinds:
            for a in rule.arms:
                keep[a][s] = arms[a][s]
    return rv.evaluate(replace(rule, gate=None), keep, {}).interval
