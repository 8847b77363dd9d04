"""The ``regime-separation`` campaign's RL arms: they separate RC-GRPO's mechanisms on the
``regime-d10`` suite (regime ``regime-d10``, experiment ``regime-separation``;
docs/protocols/regime-d10-separation.md). Record: :class:`analysis.campaign.arms.Arm`; their
presets: ``presets.py`` here."""

from __future__ import annotations

from analysis.campaign.arms import Arm

ARMS: tuple[Arm, ...] = (
    Arm(
        "regime-rcgrpo-beta1",
        "rctp",
        "RC-GRPO, β = 1",
        "RC-GRPO, β = 1",
        "blue",
        "regime-separation",
        "rc_beta1",
        "regime-d10",
        tex="RC-GRPO, $\\beta=1$",
    ),
    Arm(
        "regime-rcgrpo-beta3",
        "rctp",
        "RC-GRPO, β = 3",
        "RC-GRPO, β = 3",
        "purple",
        "regime-separation",
        "rc_beta3",
        "regime-d10",
        tex="RC-GRPO, $\\beta=3$",
    ),
    Arm(
        "regime-rcgrpo-anchored",
        "rctp",
        "RC-GRPO, anchored low mode",
        "RC-GRPO, low goal untrained",
        "black",
        "regime-separation",
        "rc_anchored",
        "regime-d10",
    ),
    Arm(
        "regime-rcgrpo-goalnorm",
        "rctp",
        "RC-GRPO, within-goal normalisation",
        "RC-GRPO, within-goal advantages",
        "green",
        "regime-separation",
        "rc_goalnorm",
        "regime-d10",
    ),
    Arm(
        "regime-rctp-grpo-g4",
        "rctp",
        "RCTP-FT + GRPO, G = 4",
        "GRPO (high goal), G = 4",
        "sky",
        "regime-separation",
        "rctp_grpo_g4",
        "regime-d10",
    ),
)
"""The arms, in the order of legends, bars and table rows."""
