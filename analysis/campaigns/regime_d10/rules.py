"""The regime-d10 campaign's pre-registered rules (``docs/protocols/regime-d10.md``), as data.

Each :class:`~analysis.verdicts.rules.Rule` names its claim, the quantity it estimates, its
arms (experiment groups, :data:`analysis.campaigns.regime_d10.population.ROLES`), threshold and
side, why the threshold reads the paper that way, and how a seed (``seed_value``) or a task ×
seed cell (``cells`` and ``weights``) is read from the runs. :func:`analysis.verdicts.rules.evaluate`
decides one rule; :mod:`analysis.campaigns.regime_d10.verdict_table` decides them all, in their families
(:data:`analysis.verdicts.family.FAMILIES`).
"""

from __future__ import annotations

from analysis.campaigns.regime_d10.calibration import high_like_entropy
from analysis.campaigns.regime_d10.population import (
    COEF_MATCHED,
    DAPO,
    DRGRPO,
    FACTORIAL,
    RCTP_GRPO,
    RCTP_RC,
    RCTP_STRAT,
    SFT_GRPO,
    SFT_RC,
    TEMP_MATCHED,
)
from analysis.paired_design import TARGET_MDE
from analysis.runs import Run
from analysis.verdicts.rules import (
    COLLAPSE_MANY,
    Rule,
    collapse,
    diff,
    informative,
    one,
    rel,
    success,
    within,
)

HIGH_LOW_GAP = 0.30
"""2: 'success under high ≫ under low' read as a 30-point gap (the pool's threshold)."""
ENTROPY_RISE = 0.10
"""4a: an entropy rise under 10% counts as not increased (the pool's threshold)."""
NONINFERIORITY = -TARGET_MDE
"""S2: stratified loses no held-out success, at the margin the design is powered for."""


def entropy(run: Run) -> float:
    """The run's high-goal-like token entropy (:func:`~analysis.campaigns.regime_d10.calibration.high_like_entropy`)."""
    return high_like_entropy(run.metrics)


def success_rule(
    id: str,
    claim: str,
    quantity: str,
    arms: tuple[str, ...],
    weights: tuple[float, ...],
    why: str,
    threshold: float = 0.0,
    gate: str | None = None,
) -> Rule:
    """A task × seed rule on the final held-out success, one reader per arm, side above."""
    cells = tuple(success() for _ in arms)
    return Rule(id, claim, quantity, arms, threshold, "above", why, None, cells, weights, gate)


def entropy_rules(arm: str, tag: str, k: int) -> tuple[Rule, ...]:
    """E<k>–E<k+2>: RC-GRPO against GRPO at a calibrated ``tag`` (arm ``arm``), gated by B4."""
    gate, name = f"B4 {arm}", f"GRPO at a calibrated {tag}"
    why = "'not mere entropy': at matched entropy RC-GRPO still does better (paper §1, §3)"
    return (
        Rule(
            id=f"E{k}",
            claim=f"{name} collapses more groups than RC-GRPO",
            quantity="collapse share, arm − RC",
            arms=(arm, RCTP_RC),
            threshold=0.0,
            side="above",
            why=why,
            seed_value=diff(collapse),
            gate=gate,
        ),
        Rule(
            id=f"E{k + 1}",
            claim=f"RC-GRPO keeps more informative groups than {name}",
            quantity="informative share, RC − arm",
            arms=(RCTP_RC, arm),
            threshold=0.0,
            side="above",
            why="our reading of Fig. 1: reward conditioning, not entropy, gives informative groups",
            seed_value=diff(informative),
            gate=gate,
        ),
        success_rule(
            id=f"E{k + 2}",
            claim=f"RC-GRPO beats {name} on held-out success",
            quantity="final success, RC − arm",
            arms=(RCTP_RC, arm),
            weights=(1.0, -1.0),
            why=why,
            gate=gate,
        ),
    )


RULES: tuple[Rule, ...] = (
    Rule(
        id="C1",
        claim="SFT + GRPO: many zero-variance groups",
        quantity="collapse share over training",
        arms=(SFT_GRPO,),
        threshold=COLLAPSE_MANY,
        side="above",
        why="paper §1; 'many' read as most",
        seed_value=one(collapse),
    ),
    Rule(
        id="C2",
        claim="RCTP-FT: success under high ≫ under low",
        quantity="step-0 held-out success of RC-GRPO's start, high − low",
        arms=(RCTP_RC, RCTP_RC),
        threshold=HIGH_LOW_GAP,
        side="above",
        why="'≫' read as 30 points (the pool's rule 2)",
        cells=(success("first", "high"), success("first", "low")),
        weights=(1.0, -1.0),
    ),
    Rule(
        id="C3",
        claim="RC-GRPO: no increased entropy",
        quantity="high-goal token entropy, RC / RCTP+GRPO − 1",
        arms=(RCTP_RC, RCTP_GRPO),
        threshold=ENTROPY_RISE,
        side="below",
        why="the pool's rule 4a",
        seed_value=rel(entropy),
    ),
    Rule(
        id="I1",
        claim="RC-GRPO's groups are more often informative than RCTP-FT + GRPO's",
        quantity="share of groups with mixed same-goal rewards, RC − GRPO",
        arms=(RCTP_RC, RCTP_GRPO),
        threshold=0.0,
        side="above",
        why="Fig. 1: informative advantages; same checkpoint, only sampling differs",
        seed_value=diff(informative),
    ),
    Rule(
        id="I2",
        claim="RC-GRPO carries more within-goal variance than RCTP-FT + GRPO",
        quantity="within-goal part of σ_g², RC − GRPO",
        arms=(RCTP_RC, RCTP_GRPO),
        threshold=0.0,
        side="above",
        why="law of total variance split by goal (Lemma A.3)",
        seed_value=diff(within),
    ),
    success_rule(
        id="T1",
        claim="RCTP-FT + RC-GRPO > RCTP-FT + GRPO",
        quantity="final success, difference",
        arms=(RCTP_RC, RCTP_GRPO),
        weights=(1.0, -1.0),
        why="Table 1: +11.25 / +2.50 points",
    ),
    success_rule(
        id="T2",
        claim="RCTP-FT + GRPO > SFT + GRPO",
        quantity="final success, difference",
        arms=(RCTP_GRPO, SFT_GRPO),
        weights=(1.0, -1.0),
        why="Table 1: +25.0 / +11.25 points",
    ),
    success_rule(
        id="T3",
        claim="init main effect > 0",
        quantity="½ Σ (RCTP-FT − SFT) over sampling",
        arms=FACTORIAL,
        weights=(0.5, 0.5, -0.5, -0.5),
        why="Table 1: +31.9 / +12.5 points",
    ),
    success_rule(
        id="T4",
        claim="sampling main effect > 0",
        quantity="½ Σ (RC − GRPO) over init",
        arms=FACTORIAL,
        weights=(0.5, -0.5, 0.5, -0.5),
        why="Table 1: +4.4 / +1.25 points",
    ),
    success_rule(
        id="T5",
        claim="init matters more than sampling",
        quantity="init − sampling effect (= RCTP+GRPO − SFT+RC)",
        arms=(RCTP_GRPO, SFT_RC),
        weights=(1.0, -1.0),
        why="Table 1: +27.5 / +11.25 points",
    ),
    *entropy_rules(TEMP_MATCHED, "temperature", 1),
    *entropy_rules(COEF_MATCHED, "entropy coefficient", 4),
    success_rule(
        id="D1",
        claim="RC-GRPO beats DAPO dynamic sampling on held-out success",
        quantity="final success, RC − DAPO",
        arms=(RCTP_RC, DAPO),
        weights=(1.0, -1.0),
        why="paper §1: reward conditioning, not discarding collapsed groups, fixes GRPO",
    ),
    success_rule(
        id="D2",
        claim="RC-GRPO beats Dr. GRPO on held-out success",
        quantity="final success, RC − Dr. GRPO",
        arms=(RCTP_RC, DRGRPO),
        weights=(1.0, -1.0),
        why="paper §1: reward conditioning, not the advantage's normalisation, fixes GRPO",
    ),
    Rule(
        id="S1",
        claim="stratified goals collapse fewer groups",
        quantity="collapse share, i.i.d. − stratified",
        arms=(RCTP_RC, RCTP_STRAT),
        threshold=0.0,
        side="above",
        why="Jensen: P(collapse | n_high) is convex in n_high",
        seed_value=diff(collapse),
        gate="B5",
    ),
    success_rule(
        id="S2",
        claim="stratified goals lose no held-out success",
        quantity="final success, stratified − i.i.d.",
        arms=(RCTP_STRAT, RCTP_RC),
        weights=(1.0, -1.0),
        why="non-inferiority at the 5-point MDE the design is powered for",
        threshold=NONINFERIORITY,
        gate="B5",
    ),
)
"""The pre-registered rules (docs/protocols/regime-d10.md)."""
