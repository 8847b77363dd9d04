"""The ``regime-d10`` campaign's RL arms (regime ``regime-d10``, synth suite ``regime-d10``):
the factorial's four cells, stratified goals, RCTP-FT + GRPO at a matched temperature and
entropy coefficient, the other collapse fixes from RCTP-FT. Record:
:class:`analysis.campaign.arms.Arm`; their presets: ``presets.py`` here."""

from __future__ import annotations

from analysis.campaign.arms import Arm

ARMS: tuple[Arm, ...] = (
    Arm(
        "regime-grpo",
        "sft",
        "SFT + GRPO",
        "GRPO",
        "black",
        "regime-factorial",
        "sft_grpo",
        "regime-d10",
    ),
    Arm(
        "regime-sft-rc",
        "sft",
        "SFT + RC sampling",
        "RC sampling",
        "orange",
        "regime-factorial",
        "sft_rc",
        "regime-d10",
    ),
    Arm(
        "regime-rctp-grpo",
        "rctp",
        "RCTP-FT + GRPO",
        "GRPO (high goal)",
        "sky",
        "regime-factorial",
        "rctp_grpo",
        "regime-d10",
    ),
    Arm(
        "regime-rcgrpo",
        "rctp",
        "RCTP-FT + RC-GRPO",
        "RC-GRPO",
        "vermilion",
        "regime-factorial",
        "rctp_rc",
        "regime-d10",
    ),
    Arm(
        "regime-rcgrpo-strat",
        "rctp",
        "RC-GRPO, stratified goals",
        "RC-GRPO, stratified goals",
        "green",
        "regime-stratified",
        "rctp_strat",
        "regime-d10",
    ),
    Arm(
        "regime-rctp-grpo-temp",
        "rctp",
        "RCTP-FT + GRPO, matched temperature",
        "GRPO (high goal), matched temperature",
        "yellow",
        "regime-matched",
        "temp_matched",
        "regime-d10",
    ),
    Arm(
        "regime-rctp-grpo-entcoef",
        "rctp",
        "RCTP-FT + GRPO, matched entropy bonus",
        "GRPO (high goal), matched entropy bonus",
        "purple",
        "regime-matched",
        "coef_matched",
        "regime-d10",
    ),
    Arm(
        "regime-rctp-dapo",
        "rctp",
        "RCTP-FT + DAPO dynamic sampling",
        "GRPO (high goal) + DAPO",
        "black",
        "regime-baselines",
        "dapo",
        "regime-d10",
    ),
    Arm(
        "regime-rctp-drgrpo",
        "rctp",
        "RCTP-FT + Dr. GRPO",
        "Dr. GRPO (high goal)",
        "blue",
        "regime-baselines",
        "drgrpo",
        "regime-d10",
        tex="Dr.~GRPO (high goal)",
    ),
)
"""The arms, in the order of legends, bars and table rows."""
