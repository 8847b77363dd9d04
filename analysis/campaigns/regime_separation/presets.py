r"""The ``regime-separation`` campaign's presets: one RL preset per arm of ``arms.py`` here, on
the ``regime-d10`` regime's base and checkpoints (:mod:`analysis.campaigns.regime_d10.presets`),
built by :mod:`analysis.campaigns.presets`.

The arms separate RC-GRPO's mechanisms (``docs/protocols/regime-d10-separation.md``); each
differs from ``regime-rcgrpo`` in one value and the equation it changes:

==========================  =============================  ====================================
preset                      change                         what it changes
==========================  =============================  ====================================
``regime-rcgrpo-beta1``     ``algo.kl_beta`` 1             the anchor β of
                                                           :math:`J - \beta\,KL(\pi\|\pi_{ref})`
``regime-rcgrpo-beta3``     ``algo.kl_beta`` 3             the same, β = 3
``regime-rcgrpo-anchored``  ``algo.low_goal_gradient``     low-goal rollouts enter μ_g, σ_g but
                            False                          carry no gradient (no PG, KL or
                                                           entropy term)
``regime-rcgrpo-goalnorm``  ``algo.adv_scope`` goal        :math:`A_j` normalised within its
                                                           goal's sub-group: no between-goal
                                                           term (:mod:`rcgrpo.advantage_scope`)
``regime-rctp-grpo-g4``     as ``regime-rctp-grpo``,       RCTP-FT + GRPO with G/2 = 4 high-goal
                            ``rollout.group_size`` 4       rollouts, RC-GRPO's mean per group
==========================  =============================  ====================================
"""

from __future__ import annotations

from typing import Any

from analysis.campaign.presets import HIGH, RC

CHANGES: dict[str, dict[str, dict[str, Any]]] = {
    "regime-rcgrpo-beta1": {"algo": {**RC, "kl_beta": 1.0}},
    "regime-rcgrpo-beta3": {"algo": {**RC, "kl_beta": 3.0}},
    "regime-rcgrpo-anchored": {"algo": {**RC, "low_goal_gradient": False}},
    "regime-rcgrpo-goalnorm": {"algo": {**RC, "adv_scope": "goal"}},
    "regime-rctp-grpo-g4": {"algo": HIGH, "rollout": {"group_size": 4}},
}
"""Per arm of ``arms.py`` here: its values against the ``regime-d10`` base."""
