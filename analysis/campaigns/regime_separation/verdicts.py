r"""The separation study's rules (``docs/protocols/regime-d10-separation.md``), registered
before its runs: does a stronger anchor or an anchored low mode keep the goals apart, does
keeping them apart change learning, and is RC-GRPO's result unchanged without the
between-goal term.

Arms (:data:`analysis.campaign.arms.ARMS`, experiment ``regime-separation``) start from the
admitted RCTP-FT checkpoints, as RC-GRPO (``regime-rcgrpo``) and RCTP-FT + GRPO
(``regime-rctp-grpo``) do, and every held-out rule pairs them by task and seed
(:mod:`analysis.verdicts.rules`'s task × seed design). Outcomes:

- **learning speed** (primary): the mean held-out success under the high goal over the
  evaluations at steps 25–175 (:func:`analysis.verdicts.rules.speed`);
- **final success** (secondary): the held-out success under the high goal at the end;
- **final separation**: held-out success under the high goal minus under the low goal at the
  end, on the same tasks (the arm evaluates both goals: ``algo.eval_low``).

Families (:data:`FAMILIES`, Holm within each, :mod:`analysis.verdicts.family`), one per
question; "no difference" rules are tested for equivalence within ±:data:`MARGIN`:

1. ``Q1 kept``: X1a–X1c, the final separation of β = 1, β = 3 and the anchored low mode
   exceeds :data:`KEPT_SEPARATION` (the admission threshold: goals that separate);
2. ``Q2 learning``: for each of those arms, speed and final success against RCTP-FT + GRPO
   (differences, θ = 0, equivalence tested);
3. ``Q3 goal-blind``: within-goal normalisation against RC-GRPO, speed and final success
   (θ = 0, equivalence tested): "RC-GRPO's result is unchanged" is the equivalence verdict;
4. ``secondary``: every arm's speed and final success against RC-GRPO, and the
   rollout-matched GRPO (G = 4) against RCTP-FT + GRPO (does the low half of RC-GRPO's group
   add anything beyond G/2 high rollouts).
"""

from __future__ import annotations

from analysis.campaign.arms import roles
from analysis.paired_design import TARGET_MDE
from analysis.verdicts import rules as rv

ROLES = roles("regime-d10")
RC, GRPO = ROLES["rctp_rc"], ROLES["rctp_grpo"]
BETA1, BETA3 = ROLES["rc_beta1"], ROLES["rc_beta3"]
ANCHORED, GOALNORM, G4 = ROLES["rc_anchored"], ROLES["rc_goalnorm"], ROLES["rctp_grpo_g4"]
MARGIN = TARGET_MDE
"""Equivalence margin on both outcomes: 5 points of held-out success, the effect the regime
campaigns are designed to detect (fixed before these runs)."""
KEPT_SEPARATION = 0.10
"""'The goals stay apart': final held-out separation above the admission threshold
(:data:`analysis.campaigns.regime_d10.driver.SEPARATION`)."""
NAMES = {
    BETA1: "β = 1",
    BETA3: "β = 3",
    ANCHORED: "anchored low mode",
    GOALNORM: "within-goal normalisation",
    G4: "GRPO with G = 4",
}


def _diff(rule_id: str, arm: str, versus: str, outcome: str, why: str) -> rv.Rule:
    """arm − versus on ``outcome`` (speed | final), θ = 0, the claim 'arm is above'."""
    return rv.held_out_difference(
        rule_id, f"{NAMES.get(arm, arm)} vs {versus}", arm, versus, outcome, why
    )


def _kept(rule_id: str, arm: str) -> rv.Rule:
    return rv.Rule(
        rule_id,
        f"{NAMES[arm]} keeps the goals apart through 200 steps",
        "final held-out success, high − low",
        (arm, arm),
        KEPT_SEPARATION,
        "above",
        "Prop 4.3's variance needs ε > 0; RC-GRPO's falls to 0–1 points",
        None,
        (rv.success("last", "high"), rv.success("last", "low")),
        (1.0, -1.0),
    )


WHY_KEEP = "does keeping ε change learning (issue 46, question 2)"
WHY_BLIND = "is separation RC-GRPO's mechanism (question 3)"
WHY_SIDE = "each change against RC-GRPO (secondary)"
RULES: tuple[rv.Rule, ...] = (
    _kept("X1a", BETA1),
    _kept("X1b", BETA3),
    _kept("X1c", ANCHORED),
    *(
        _diff(f"X2{k}s", a, GRPO, "speed", WHY_KEEP)
        for k, a in zip("abc", (BETA1, BETA3, ANCHORED), strict=True)
    ),
    *(
        _diff(f"X2{k}f", a, GRPO, "final", WHY_KEEP)
        for k, a in zip("abc", (BETA1, BETA3, ANCHORED), strict=True)
    ),
    _diff("X3s", GOALNORM, RC, "speed", WHY_BLIND),
    _diff("X3f", GOALNORM, RC, "final", WHY_BLIND),
    *(
        _diff(f"X4{k}s", a, RC, "speed", WHY_SIDE)
        for k, a in zip("abcd", (BETA1, BETA3, ANCHORED, G4), strict=True)
    ),
    *(
        _diff(f"X4{k}f", a, RC, "final", WHY_SIDE)
        for k, a in zip("abcd", (BETA1, BETA3, ANCHORED, G4), strict=True)
    ),
    _diff("X5s", G4, GRPO, "speed", "does RC-GRPO's low half add anything beyond G/2 rollouts"),
    _diff("X5f", G4, GRPO, "final", "the same, final success"),
)
"""The registered rules (module docstring)."""

FAMILIES: dict[str, tuple[str, ...]] = {
    "Q1 kept": ("X1a", "X1b", "X1c"),
    "Q2 learning": ("X2as", "X2bs", "X2cs", "X2af", "X2bf", "X2cf"),
    "Q3 goal-blind": ("X3s", "X3f"),
    "secondary": tuple(r.id for r in RULES if r.id[:2] in ("X4", "X5")),
}
"""Holm families, one per question (module docstring)."""
EQUIVALENCE: tuple[str, ...] = tuple(r.id for r in RULES if r.threshold == 0.0)
"""Every θ = 0 difference is tested for equivalence within ±:data:`MARGIN`."""

Q2_GATES: dict[str, str] = {f"X2{arm}{outcome}": f"X1{arm}" for arm in "abc" for outcome in "sf"}
"""Q2 is asked "for the arms of Q1 that hold" (the protocol): each X2 rule's Q1 rule. Where that
rule does not hold, the X2 rule is not tested (not in its family's Holm m) and says so."""
