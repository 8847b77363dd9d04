"""Gate I of the positive control (``docs/protocols/collapse-pairs-map.md``, part 2), the
premise before any RL run, and which seeds the arms run on.

Gate I on the goal-effect instrument of ``rctp-inv-s<seed>``, the planted decisions pooled
(``goal_effect.kinds.any``), with the goals' roles exchanged against gate R of
``collapse-pairs``: P(right | low) − P(right | high) ≥ 0.10 with its 95% interval's low end
above 0.05, and P(right | high) ≤ 0.30. The instrument reports the difference high − low and
its interval, so the inverted difference is its negative and the interval's ends swap and
change sign (:func:`inverted`).

Seeds (:func:`plan`): :data:`~analysis.campaigns.collapse_pairs_inverted.design.SEEDS` then
:data:`~analysis.campaigns.collapse_pairs_inverted.design.SPARES`, in order, each measured only
while the seeds passing plus those still being measured are fewer than three; the first three
that pass are admitted; when every seed is measured and fewer than three pass, the control stops
at its gate.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from analysis.campaigns.collapse_design.gates import R_HIGH_MAX, R_SEPARATION
from analysis.campaigns.collapse_pairs.gates import R_CI_LOW
from analysis.campaigns.collapse_pairs_inverted.design import (
    ADMIT,
    DIAGNOSTICS,
    SEEDS,
    SPARES,
    report_path,
)


def inverted(block: dict) -> dict:
    """A goal-effect block's P(right | low) − P(right | high) and its 95% interval: ``diff``
    negated, ``ci`` [lo, hi] -> [−hi, −lo]; the other fields as given."""
    lo, hi = block["ci"]
    return {**block, "diff": -block["diff"], "ci": [-hi, -lo]}


def holds(block: dict) -> bool:
    """Gate I on a pooled goal-effect block (module docstring)."""
    inv = inverted(block)
    separate = inv["diff"] >= R_SEPARATION and inv["ci"][0] > R_CI_LOW
    return separate and block["p_high"] <= R_HIGH_MAX


def pooled(report: dict | None) -> dict | None:
    """The pooled goal-effect block of a transfer diagnostic (None: not measured)."""
    return None if report is None else report["goal_effect"]["kinds"].get("any") or None


def read(seed: int, diagnostics: Path = DIAGNOSTICS) -> dict | None:
    """The committed gate I diagnostic of ``seed`` (None: not measured)."""
    path = report_path(seed, diagnostics)
    return json.loads(path.read_text()) if path.is_file() else None


@dataclass(frozen=True)
class Plan:
    """Where the control's Stage 1 stands."""

    kind: str
    """``measuring`` (``seeds`` to measure), ``admitted`` (``seeds`` the arms run on) or
    ``stopped`` (fewer than three of every seed passed)."""
    seeds: tuple[int, ...]
    passed: tuple[int, ...]
    failed: tuple[int, ...]


def plan(gates: Mapping[int, bool | None]) -> Plan:
    """The seeds to measure or admit, from ``gates`` (seed -> gate I holds; None or absent: not
    measured), by the rule of the module docstring."""
    passed, failed, pending = [], [], []
    for seed in (*SEEDS, *SPARES):
        if len(passed) + len(pending) >= ADMIT:
            break
        g = gates.get(seed)
        if g is None:
            pending.append(seed)
        elif g:
            passed.append(seed)
        else:
            failed.append(seed)
    if len(passed) >= ADMIT:
        return Plan("admitted", tuple(passed), tuple(passed), tuple(failed))
    if pending:
        return Plan("measuring", tuple(pending), tuple(passed), tuple(failed))
    return Plan("stopped", (), tuple(passed), tuple(failed))


def status(diagnostics: Path = DIAGNOSTICS) -> Plan:
    """:func:`plan` on the committed diagnostics."""
    gates = {}
    for seed in (*SEEDS, *SPARES):
        block = pooled(read(seed, diagnostics))
        gates[seed] = None if block is None else holds(block)
    return plan(gates)
