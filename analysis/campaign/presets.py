"""What the campaigns' presets share: the section-wise merge they are stated with and the
reward-goal settings the arms switch between. Each campaign's presets are in its folder
(``analysis/campaigns/<pkg>/presets.py``); :mod:`analysis.campaigns.presets` gathers them and
hands them to ``python -m rcgrpo`` (entry point "rcgrpo.presets")."""

from __future__ import annotations

import copy
from typing import Any

RC = {"conditioning": "iid", "p_high": 0.5, "eval_condition": "high", "eval_low": True}
"""RC-GRPO's reward goals: i.i.d. high with p = 0.5, evaluated on high (and low)."""
HIGH = {"conditioning": "high", "eval_condition": "high"}
"""GRPO under the high goal (an RCTP-FT start's GRPO)."""


def merge(base: dict[str, Any], **sections: Any) -> dict[str, Any]:
    """A copy of the config sections ``base`` with each of ``sections`` updated over its own
    (a dict value) or set (any other value, e.g. ``init``); ``base`` is not changed."""
    out = copy.deepcopy(base)
    for name, values in sections.items():
        if isinstance(values, dict):
            out.setdefault(name, {}).update(values)
        else:
            out[name] = values
    return out
