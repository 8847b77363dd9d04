"""The ``collapse`` campaign's RL arms: the factorial and the arms that separate RC-GRPO's
mechanisms, repeated on ``collapse1-d10``, and the shuffled-goal control. Record:
:class:`analysis.campaign.arms.Arm`; their presets: ``presets.py`` here."""

from __future__ import annotations

from dataclasses import replace

from analysis.campaign.arms import Arm
from analysis.campaigns.regime_d10.arms import ARMS as REGIME_D10
from analysis.campaigns.regime_separation.arms import ARMS as SEPARATION

REPEATS = {
    "regime-grpo": "collapse-grpo",
    "regime-sft-rc": "collapse-sft-rc",
    "regime-rctp-grpo": "collapse-rctp-grpo",
    "regime-rcgrpo": "collapse-rcgrpo",
    "regime-rcgrpo-anchored": "collapse-rcgrpo-anchored",
    "regime-rcgrpo-goalnorm": "collapse-rcgrpo-goalnorm",
    "regime-rctp-grpo-g4": "collapse-rctp-grpo-g3",
}
"""The ``collapse`` arms, by the ``regime-d10`` arm each repeats on ``collapse1-d10``: the
factorial's four cells (experiment ``collapse-factorial``) and the arms that separate RC-GRPO's
mechanisms (``collapse-mechanisms``), with their labels, colours and roles; the rollout-matched
arm runs G = 3, the nearest whole number of high-goal rollouts at or above RC-GRPO's mean G/2 =
2.5 at G = 5 (it is given the larger share, so RC-GRPO beating it is the conservative reading)."""
_CHANGES = {
    "regime-rcgrpo-anchored": {"colour": "purple"},
    "regime-rctp-grpo-g4": {
        "label": "RCTP-FT + GRPO, G = 3",
        "method": "GRPO (high goal), G = 3",
        "colour": "yellow",
        "role": "rctp_grpo_g3",
    },
}
"""Where a ``collapse`` arm differs from its ``regime-d10`` arm beyond preset, experiment and
regime: one colour per arm within the regime, and the rollout-matched arm's G."""
ARMS: tuple[Arm, ...] = tuple(
    replace(
        a,
        preset=REPEATS[a.preset],
        experiment=(
            "collapse-factorial" if a.experiment == "regime-factorial" else "collapse-mechanisms"
        ),
        regime="collapse",
        **_CHANGES.get(a.preset, {}),
    )
    for a in REGIME_D10 + SEPARATION
    if a.preset in REPEATS
)
ARMS += (
    Arm(
        "collapse-shuffled-grpo",
        "rctp-shuffled",
        "shuffled-goal RCTP-FT + GRPO",
        "GRPO (high goal)",
        "blue",
        "collapse-control",
        "shuffled_grpo",
        "collapse",
    ),
)
"""The arms, in the order of legends, bars and table rows; the last is the control of the
collapse campaign (docs/protocols/collapse-control.md): RCTP-FT + GRPO from an RCTP-FT whose
goal labels were permuted (``rctp-collapse-shuffled``, Stage-1 ``goals.labels shuffled``), so
its init has RCTP-FT's data and recipe but no reward conditioning."""
