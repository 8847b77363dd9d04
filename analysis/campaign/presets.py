"""What the campaigns' presets share: the section-wise merge they are stated with
(:func:`rcgrpo.train.presets.merge`) and the
reward-goal settings the arms switch between. Each campaign's presets are in its folder
(``analysis/campaigns/<pkg>/presets.py``); :mod:`analysis.campaigns.presets` gathers them and
hands them to ``python -m rcgrpo`` (entry point "rcgrpo.presets")."""

from __future__ import annotations

RC = {"conditioning": "iid", "p_high": 0.5, "eval_condition": "high", "eval_low": True}
"""RC-GRPO's reward goals: i.i.d. high with p = 0.5, evaluated on high (and low)."""
HIGH = {"conditioning": "high", "eval_condition": "high"}
"""GRPO under the high goal (an RCTP-FT start's GRPO)."""
