"""The gate table of the collapse-pairs design (``docs/protocols/collapse-pairs.md``): R, C, C′
and ρ per variant and design seed, from the committed design runs and transfer diagnostics.

- **R**: the goal-effect instrument on the variant's RCTP-FT, every planted decision pooled
  (``goal_effect.kinds.any``): P(right | high) − P(right | low) ≥ 0.10 with its 95% interval's
  low end above 0.05, and P(right | high) ≤ 0.30
  (:data:`analysis.campaigns.collapse_design.gates.R_SEPARATION`, ``R_HIGH_MAX``);
- **C** / **C′**: the mean all-fail share (``group/zero_var_fail_frac``) over steps 1–50 of the
  matched SFT's / the RCTP-FT's GRPO pilot ≥ 0.5 (``C_ALL_FAIL``; the protocol registers the
  share alone, without gate C's held-out gain clause);
- **ρ**: the transfer probe's ρ̂ and 95% interval, stated.

P4 (:func:`p4_dose`): only when P1–P3 are all measured at seed 31 and none passes every gate,
at the dose of the largest R difference, with the decision tokens weighed ×4.

``python -m analysis.campaigns.collapse_pairs.gates`` prints the table (``—``: not measured).
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

from analysis import REPO_ROOT
from analysis.campaigns.collapse_design.gates import C_ALL_FAIL, R_HIGH_MAX, R_SEPARATION
from analysis.campaigns.collapse_pairs.design import DESIGN_SEEDS, HOME, PILOT_STEPS, VARIANTS
from analysis.campaigns.regime_separation import tables as st
from analysis.runs import is_finished, load_run

RESULTS = REPO_ROOT / "results" / HOME
DIAGNOSTICS = REPO_ROOT / "results" / "diagnostics"
R_CI_LOW = 0.05
HEADER = (
    "variant",
    "seed",
    "R: right share high − low [95% CI]",
    "right share, high",
    "R",
    "C: SFT + GRPO all-fail, steps 1–50",
    "C",
    "C′: RCTP-FT + GRPO all-fail",
    "C′",
    "ρ̂ [95% CI]",
)


def separates(block: dict) -> bool:
    """Gate R's first clause on a goal-effect block: P(right | high) − P(right | low) ≥ 0.10
    with its 95% interval's low end above 0.05."""
    return block["diff"] >= R_SEPARATION and block["ci"][0] > R_CI_LOW


def high_unsolved(block: dict) -> bool:
    """Gate R's second clause: P(right | high) ≤ 0.30 (the high goal has not solved it)."""
    return block["p_high"] <= R_HIGH_MAX


def r_gate(report: dict | None) -> tuple[dict | None, bool | None]:
    """(the pooled goal-effect block, R holds: :func:`separates` and :func:`high_unsolved`) of
    a transfer diagnostic (None: not measured)."""
    block = None if report is None else report["goal_effect"]["kinds"].get("any")
    if not block:
        return None, None
    return block, separates(block) and high_unsolved(block)


def all_fail_share(folder: Path) -> float | None:
    """Mean ``group/zero_var_fail_frac`` over steps 1–50 of a finished pilot (None otherwise)."""
    if not is_finished(folder):
        return None
    m = load_run(folder).metrics
    window = m[m["step"].between(1, PILOT_STEPS)]["group/zero_var_fail_frac"].dropna()
    return float(window.mean()) if len(window) == PILOT_STEPS else None


def collapses(share: float | None) -> bool | None:
    """Whether an all-fail share passes gate C (or C′): ``share >= C_ALL_FAIL`` (None: not
    measured)."""
    return None if share is None else share >= C_ALL_FAIL


def _share(x: float | None) -> tuple[str, str]:
    if x is None:
        return "—", "—"
    return f"{x:.3f}", "holds" if x >= C_ALL_FAIL else "fails"


@dataclass(frozen=True)
class Measure:
    """Every gate of one variant at one design seed (None: not measured yet)."""

    variant: str
    seed: int
    r: dict | None
    """The pooled goal-effect block (``diff``, ``ci``, ``p_high``, ``p_low``, ...)."""
    r_holds: bool | None
    c: float | None
    """Gate C's all-fail share (matched SFT + GRPO, steps 1–50)."""
    cprime: float | None
    """Gate C′'s all-fail share (RCTP-FT + GRPO, steps 1–50)."""
    rho: dict | None
    """The transfer probe's ``estimate`` and ``ci``."""

    @property
    def complete(self) -> bool:
        """R, C and C′ are all measured."""
        return self.r is not None and self.c is not None and self.cprime is not None

    def holds(self) -> dict[str, bool | None]:
        """Gate name (``R``, ``C``, ``C′``) -> holds (None: not measured)."""
        return {"R": self.r_holds, "C": collapses(self.c), "C′": collapses(self.cprime)}

    @property
    def passes(self) -> bool:
        """Every gate is measured and holds."""
        return self.complete and all(self.holds().values())


def measure(
    variant: str, seed: int, root: Path = RESULTS, diagnostics: Path = DIAGNOSTICS
) -> Measure:
    """The gates of ``variant`` at ``seed`` from the committed runs and diagnostic."""
    path = diagnostics / f"transfer-rctp-{variant}-s{seed}.json"
    report = json.loads(path.read_text()) if path.is_file() else None
    block, r_holds = r_gate(report)
    return Measure(
        variant,
        seed,
        block,
        r_holds,
        all_fail_share(root / f"pilot-c-{variant}-s{seed}"),
        all_fail_share(root / f"pilot-cprime-{variant}-s{seed}"),
        None if report is None else report["transfer"],
    )


def gate_row(m: Measure) -> list[str]:
    """One row of :data:`HEADER`."""
    r_cells = ["—", "—", "—"]
    if m.r is not None:
        diff = f"{m.r['diff']:+.3f} [{m.r['ci'][0]:.3f}, {m.r['ci'][1]:.3f}]"
        r_cells = [diff, f"{m.r['p_high']:.3f}", "holds" if m.r_holds else "fails"]
    rho = rho_text(m.rho)
    return [m.variant.upper(), str(m.seed), *r_cells, *_share(m.c), *_share(m.cprime), rho]


def rho_text(rho: dict | None, interval: bool = True) -> str:
    """The probe's ρ̂ (a report's ``transfer`` block) with its 95% interval (or without, if not
    ``interval``); a ρ̂ whose interval could not be formed says so and on how many batches."""
    if rho is None:
        return "—"
    lo, hi = rho["ci"]
    if math.isfinite(lo) and math.isfinite(hi):
        return f"{rho['estimate']:.3f}" + f" [{lo:.3f}, {hi:.3f}]" * interval
    batches = rho.get("informative_batches", "?")
    return f"{rho['estimate']:.3f} (no interval: {batches} informative batch(es))"


def passes(variant: str, seed: int, root: Path = RESULTS, diagnostics: Path = DIAGNOSTICS):
    """(R difference, every gate holds) of a variant at a seed; None when a gate is not
    measured."""
    m = measure(variant, seed, root, diagnostics)
    return (m.r["diff"], m.passes) if m.complete else None


def p4_dose(root: Path = RESULTS, diagnostics: Path = DIAGNOSTICS) -> int | None:
    """The protocol's P4 rule: None unless P1–P3 are all measured at the design seed and none
    passes every gate; then the pairs per kind of the one with the largest R difference
    (the first in P1, P2, P3 order on a tie)."""
    seed = DESIGN_SEEDS[0]
    measured = {v: passes(v, seed, root, diagnostics) for v in VARIANTS}
    if any(m is None for m in measured.values()) or any(m[1] for m in measured.values()):
        return None
    best = max(VARIANTS, key=lambda v: (measured[v][0], -list(VARIANTS).index(v)))
    return VARIANTS[best]


def gate_markdown(root: Path = RESULTS, diagnostics: Path = DIAGNOSTICS) -> str:
    """Every variant at every design seed, in the protocol's order (P4 once decided)."""
    variants = [*VARIANTS, *(["p4"] if p4_dose(root, diagnostics) is not None else [])]
    body = [gate_row(measure(v, s, root, diagnostics)) for v in variants for s in DESIGN_SEEDS]
    return "\n".join(st.markdown_table(HEADER, body, ["---", *["--:"] * 9])) + "\n"


if __name__ == "__main__":
    sys.stdout.write(gate_markdown())
