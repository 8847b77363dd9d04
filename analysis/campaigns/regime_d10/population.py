"""The regime-d10 campaign's arms by role and the seeds each counts on
(``docs/protocols/regime-d10.md``, ``docs/protocols/regime-d10-reanalysis.md``).

An SFT arm counts on every seed but the reserved ones
(:data:`analysis.verdicts.rules.RESERVED_SEEDS`); an RCTP-FT arm on the seeds of a population:
the admitted seeds (:data:`ADMITTED`, the registered analysis) or every trained seed
(:data:`ITT`). :func:`load_arms` reads the runs that count
(:func:`analysis.verdicts.rules.load_arms`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from analysis.campaign.arms import arm, roles
from analysis.runs import Run
from analysis.verdicts import rules

ADMITTED = (3, 4, 5, 11, 15)
"""The registered population of every rule that reads an RCTP-FT arm: the seeds whose RCTP-FT
goals separated (:func:`analysis.campaigns.regime_d10.driver.rl_seeds`; a test checks they
agree)."""
ITT = (3, 4, 5, 6, 11, 12, 13, 14, 15)
"""The intention-to-treat population (``docs/protocols/regime-d10-reanalysis.md`` §3): every
seed whose RCTP-FT was trained and whose checkpoint is committed, admitted or not."""
POPULATIONS = {"admitted": ADMITTED, "itt": ITT}
"""Population -> the seeds the RCTP-FT arms count on (the SFT arms count on every seed)."""

ROLES = roles("regime-d10")
"""Role -> experiment group of the regime-d10 arms (:data:`analysis.campaign.arms.ARMS`)."""
SFT_GRPO, SFT_RC = ROLES["sft_grpo"], ROLES["sft_rc"]
RCTP_GRPO, RCTP_RC = ROLES["rctp_grpo"], ROLES["rctp_rc"]
FACTORIAL = (RCTP_RC, RCTP_GRPO, SFT_RC, SFT_GRPO)
RCTP_STRAT = ROLES["rctp_strat"]
"""RC-GRPO with stratified goals: exactly G/2 = 4 high goals per group."""
TEMP_MATCHED, COEF_MATCHED = ROLES["temp_matched"], ROLES["coef_matched"]
"""RCTP-FT + GRPO at the calibrated temperature / entropy coefficient."""
DAPO, DRGRPO = ROLES["dapo"], ROLES["drgrpo"]
"""The other collapse fixes from RC-GRPO's start under the high goal: DAPO dynamic sampling
(zero-variance groups resampled) and Dr. GRPO (no std normalisation, token-sum loss)."""


def counts(preset: str, seed: int, population: str | None = None) -> bool:
    """Whether a run of arm ``preset`` on ``seed`` counts in ``population``: never on a
    reserved seed; an RCTP-FT arm only on the population's seeds (:data:`POPULATIONS`; None:
    on every seed)."""
    if population is None:
        return seed not in rules.RESERVED_SEEDS
    if population not in POPULATIONS:
        raise ValueError(f"population must be one of {sorted(POPULATIONS)}, got {population!r}")
    a = arm(preset)
    rctp = a is not None and a.start == "rctp"
    return seed not in rules.RESERVED_SEEDS and (not rctp or seed in POPULATIONS[population])


def load_arms(
    found: Mapping[str, Sequence[Path]], population: str | None = None
) -> dict[str, dict[int, Run]]:
    """Experiment → {seed: run} from finished run folders, the runs that count in
    ``population`` (:func:`counts`)."""
    return rules.load_arms(found, lambda preset, seed: counts(preset, seed, population))
