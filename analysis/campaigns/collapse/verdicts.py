r"""The collapse campaign's rules (``docs/protocols/collapse-campaign.md``), registered before
its first run: on ``collapse1-d10``, where SFT + GRPO's groups are all-fail, does GRPO stall,
and does reward conditioning rescue it?

Arms: the ``collapse`` regime of :data:`analysis.campaign.arms.ARMS` (the factorial {SFT, RCTP-FT}
× {GRPO, RC sampling} and three mechanism arms), one run per seed of
:data:`analysis.campaigns.collapse.driver.SEEDS`, every seed counting (no admission: population None
of :func:`analysis.verdicts.rules.load_arms`). Outcomes, every held-out one paired by task
and seed (:mod:`analysis.verdicts.rules`'s task × seed design):

- **learning speed** (primary): the mean held-out success at the run's evaluation goal over
  the evaluations at steps 25–175 (:func:`analysis.verdicts.rules.speed`);
- **final success** (secondary): the held-out success at step 200, 1,000 tasks;
- group shares over training (seed design): zero-variance (collapsed) and informative groups
  (:mod:`analysis.verdicts.groups`).

Families (:data:`FAMILIES`, Holm within each, :func:`analysis.verdicts.family.decide`); every
θ = 0 difference is also tested for equivalence within ±:data:`MARGIN` (TOST):

1. ``premise``: K1, SFT + GRPO collapses (zero-variance share of its groups over training
   ≥ :data:`~analysis.verdicts.rules.COLLAPSE_MANY`); K2, it stalls (held-out success gains
   less than :data:`STALL` from step 0 to step 200);
2. ``claims``: K3 RC sampling on top of RCTP-FT (RC-GRPO − RCTP-FT + GRPO), K4 RC sampling
   from SFT (SFT + RC − SFT + GRPO), K5 init vs sampling (RCTP-FT + GRPO − SFT + RC), K6 the
   rescue (RC-GRPO − SFT + GRPO), each on speed (``s``) and final success (``f``);
3. ``mechanisms``: M1 RC-GRPO's groups are more often informative than RCTP-FT + GRPO's; M2
   the anchored low mode, M3 within-goal normalisation (against RC-GRPO: "unchanged" is the
   equivalence verdict), M4 RC-GRPO against the rollout-matched GRPO (G = 3), each on speed and
   final success; M5 RC-GRPO's goals are still apart at step 200 (held-out high − low >
   :data:`KEPT_SEPARATION`);
4. ``control`` (``docs/protocols/collapse-control.md``, registered after the factorial's
   verdicts and before any run of its arm): X1 RCTP-FT + GRPO against the same arm from an
   RCTP-FT whose goal labels were permuted (is the init's effect the reward conditioning? the
   equivalence verdict says it is the data), X2 that control against SFT + GRPO (does RCTP-FT's
   data without conditioning rescue GRPO?), each on speed and final success.
"""

from __future__ import annotations

from analysis.campaign.arms import roles
from analysis.paired_design import TARGET_MDE
from analysis.verdicts import rules as rv

ROLES = roles("collapse")
SFT_GRPO, SFT_RC = ROLES["sft_grpo"], ROLES["sft_rc"]
RCTP_GRPO, RC = ROLES["rctp_grpo"], ROLES["rctp_rc"]
ANCHORED, GOALNORM, G3 = ROLES["rc_anchored"], ROLES["rc_goalnorm"], ROLES["rctp_grpo_g3"]
SHUFFLED = ROLES["shuffled_grpo"]
FACTORIAL = (RC, RCTP_GRPO, SFT_RC, SFT_GRPO)
MARGIN = TARGET_MDE
"""Equivalence margin on both held-out outcomes: 5 points of success, the effect the regime
campaigns are designed to detect (fixed before these runs)."""
STALL = 0.05
"""K2: 'GRPO stalls' read as a held-out gain under 5 points over the run (gate C's reading of
the 50-step pilot, over the whole run)."""
KEPT_SEPARATION = 0.10
"""M5: 'the goals are still apart': held-out high − low above the admission threshold of the
regime campaigns (:data:`analysis.campaigns.regime_separation.verdicts.KEPT_SEPARATION`)."""
NAMES = {
    SFT_GRPO: "SFT + GRPO",
    SFT_RC: "SFT + RC sampling",
    RCTP_GRPO: "RCTP-FT + GRPO",
    RC: "RC-GRPO",
    ANCHORED: "anchored low mode",
    GOALNORM: "within-goal normalisation",
    G3: "GRPO with G = 3",
    SHUFFLED: "shuffled-goal RCTP-FT + GRPO",
}


def _diff(rule_id: str, arm: str, versus: str, outcome: str, why: str) -> rv.Rule:
    """arm − versus on ``outcome`` (speed | final), θ = 0, the claim 'arm is above'."""
    return rv.held_out_difference(
        rule_id, f"{NAMES[arm]} > {NAMES[versus]}", arm, versus, outcome, why
    )


def _pair(k: str, arm: str, versus: str, why: str) -> tuple[rv.Rule, rv.Rule]:
    """``<k>s`` (speed, primary) and ``<k>f`` (final success) of arm − versus."""
    return _diff(f"{k}s", arm, versus, "speed", why), _diff(f"{k}f", arm, versus, "final", why)


RULES: tuple[rv.Rule, ...] = (
    rv.Rule(
        id="K1",
        claim="SFT + GRPO: most groups have zero reward variance",
        quantity="collapse share over training",
        arms=(SFT_GRPO,),
        threshold=rv.COLLAPSE_MANY,
        side="above",
        why="paper §1 and Prop 4.2; 'many' read as most (the regime rule C1)",
        seed_value=rv.one(rv.collapse),
    ),
    rv.Rule(
        id="K2",
        claim="SFT + GRPO stalls",
        quantity="held-out success, step 200 − step 0",
        arms=(SFT_GRPO, SFT_GRPO),
        threshold=STALL,
        side="below",
        why="paper §1: collapsed groups carry no gradient, so GRPO after SFT does not improve",
        cells=(rv.success("last"), rv.success("first")),
        weights=(1.0, -1.0),
    ),
    *_pair("K3", RC, RCTP_GRPO, "Table 1: RC sampling on top of RCTP-FT (+11.25 / +2.50 points)"),
    *_pair("K4", SFT_RC, SFT_GRPO, "the sampling effect without the RCTP-FT init"),
    *_pair("K5", RCTP_GRPO, SFT_RC, "Table 1: init matters more than sampling"),
    *_pair("K6", RC, SFT_GRPO, "the rescue: the full method against the collapsing baseline"),
    rv.Rule(
        id="M1",
        claim="RC-GRPO's groups are more often informative than RCTP-FT + GRPO's",
        quantity="share of groups with mixed same-goal rewards, RC − GRPO",
        arms=(RC, RCTP_GRPO),
        threshold=0.0,
        side="above",
        why="Fig. 1: the goals give informative advantages where GRPO's groups collapse",
        seed_value=rv.diff(rv.informative),
    ),
    *_pair("M2", ANCHORED, RC, "does a low mode that cannot learn to succeed change RC-GRPO"),
    *_pair("M3", GOALNORM, RC, "is the between-goal term RC-GRPO's mechanism"),
    *_pair("M4", RC, G3, "does RC-GRPO's low half add anything beyond G/2 high rollouts"),
    rv.Rule(
        id="M5",
        claim="RC-GRPO's goals are still apart at step 200",
        quantity="final held-out success, high − low",
        arms=(RC, RC),
        threshold=KEPT_SEPARATION,
        side="above",
        why="Prop 4.3's variance needs ε > 0; on regime-d10 RL closed it within 25 steps",
        cells=(rv.success("last", "high"), rv.success("last", "low")),
        weights=(1.0, -1.0),
    ),
    *_pair("X1", RCTP_GRPO, SHUFFLED, "is the RCTP-FT init's effect its reward conditioning"),
    *_pair("X2", SHUFFLED, SFT_GRPO, "does RCTP-FT's data without conditioning rescue GRPO"),
)
"""The registered rules (module docstring)."""

FAMILIES: dict[str, tuple[str, ...]] = {
    "premise": ("K1", "K2"),
    "claims": tuple(r.id for r in RULES if r.id[:2] in ("K3", "K4", "K5", "K6")),
    "mechanisms": tuple(r.id for r in RULES if r.id[0] == "M"),
    "control": tuple(r.id for r in RULES if r.id[0] == "X"),
}
"""Holm families (module docstring)."""
EQUIVALENCE: tuple[str, ...] = tuple(
    r.id for r in RULES if r.threshold == 0.0 and r.cells is not None
)
"""Every θ = 0 difference of held-out success is tested for equivalence within ±:data:`MARGIN`."""

RESTATE_GATE_R: tuple[str, ...] = ("K3s", "K3f", "X1s", "X1f")
"""Rules whose reading restates gate R's failure (``docs/results/collapse.md``, ``collapse-token``): with
a goal token the model does not read, K3 compares RC-GRPO with itself plus a prefix token and X1
shuffles labels the model never uses. Their verdicts stand as decided and say so."""
