"""The ``pool`` campaign's RL arms (the CPU campaign on the ``cpu`` synth suite, a pool of 16
training tasks): the factorial {SFT, RCTP-FT} x {GRPO, reward-conditioned}, the collapse fixes
of the baselines experiment, stratified goals. Record: :class:`analysis.campaign.arms.Arm`;
their presets: ``presets.py`` here."""

from __future__ import annotations

from analysis.campaign.arms import Arm

ARMS: tuple[Arm, ...] = (
    Arm("cpu-grpo", "sft", "SFT + GRPO", "GRPO", "black", "factorial", "sft_grpo"),
    Arm("cpu-sft-rc", "sft", "SFT + RC sampling", "RC sampling", "orange", "factorial", "sft_rc"),
    Arm(
        "cpu-rctp-grpo",
        "rctp",
        "RCTP-FT + GRPO",
        "GRPO (high goal)",
        "sky",
        "factorial",
        "rctp_grpo",
    ),
    Arm("cpu-rcgrpo", "rctp", "RCTP-FT + RC-GRPO", "RC-GRPO", "vermilion", "factorial", "rctp_rc"),
    Arm("cpu-dapo", "sft", "DAPO dynamic sampling", "GRPO + DAPO", "green", "baselines", "dapo"),
    Arm(
        "cpu-entropy",
        "sft",
        "entropy bonus 0.01",
        "GRPO + entropy bonus",
        "purple",
        "baselines",
        "entropy",
    ),
    Arm(
        "cpu-hightemp",
        "sft",
        "temperature 1.5",
        "GRPO, temperature 1.5",
        "yellow",
        "baselines",
        "hightemp",
        tex="GRPO, $\\tau=1.5$",
    ),
    Arm("cpu-drgrpo", "sft", "Dr. GRPO", "Dr. GRPO", "blue", "baselines", "drgrpo", tex="Dr.~GRPO"),
    Arm(
        "cpu-rcgrpo-strat",
        "rctp",
        "RC-GRPO, stratified goals",
        "RC-GRPO, stratified goals",
        "green",
        "stratified",
        "rctp_strat",
    ),
)
"""The arms, in the order of legends, bars and table rows."""
