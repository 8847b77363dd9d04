"""The readings of ``smollm2-instruments`` (``docs/protocols/smollm2-instruments.md``), fixed
before the diagnostic ran, from its committed JSON and the two Stage-1 runs:

- **F1** the goal token inert: gate R's reading of ``smollm2-collapse``
  (:func:`analysis.campaigns.smollm2_collapse.gates.reading`) on the pooled decisions, behind the
  floor precondition **P0** (the mean of P(right | high) and P(right | low) in
  [:data:`P0_LOW`, :data:`P0_HIGH`]);
- **F2a** ρ̂ ≈ 1: its 95% interval inside 1 ± :data:`RHO_MARGIN` (holds), outside it (does not
  hold), else inconclusive; *not estimable* below :data:`MIN_BATCHES` informative batches;
- **F2b** the gradient cosine ≈ 1: its bootstrap interval above 1 − :data:`RHO_MARGIN` (holds),
  below it (does not hold), else inconclusive;
- **F3** per goal, the zero-variance share of G-groups minus the i.i.d. prediction: *exceeds*,
  *below*, *equivalent within ±* :data:`F3_MARGIN`, else *inconclusive*.

    python -m analysis.campaigns.smollm2_instruments.readings
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from analysis.campaign.mechanics import results_dir
from analysis.campaigns.smollm2_collapse import gates as frozen
from analysis.campaigns.smollm2_instruments.design import DIAGNOSTIC, HOME
from analysis.runs import is_finished, load_run

P0_LOW, P0_HIGH = 0.05, 0.95
RHO_MARGIN = 0.10
MIN_BATCHES = 2
F3_MARGIN = 0.05
RESULTS = results_dir(HOME)


@dataclass(frozen=True)
class Reading:
    id: str
    claim: str
    reading: str
    numbers: str


def _ci(estimate: float, ci, digits: int = 3, sign: str = "") -> str:
    lo, hi = ci
    return f"{estimate:{sign}.{digits}f} [{lo:{sign}.{digits}f}, {hi:{sign}.{digits}f}]"


def f1(ge: dict) -> Reading:
    row = ge["kinds"]["any"]
    level = (row["p_high"] + row["p_low"]) / 2
    said = f"P(right) high {row['p_high']:.3f}, low {row['p_low']:.3f}; "
    said += f"high − low {_ci(row['diff'], row['ci'], 4, '+')}"
    if not P0_LOW <= level <= P0_HIGH:
        side = "floor" if level < P0_LOW else "ceiling"
        return Reading("F1", "the goal token is inert", f"stopped at P0 ({side})", said)
    r = frozen.reading(row)
    verdict = {"inert": "inert: carries over", "separated": "separated: does not carry over"}
    return Reading("F1", "the goal token is inert", verdict.get(r, "unclear"), said)


def _within(ci, lo: float, hi: float) -> str:
    if lo <= ci[0] and ci[1] <= hi:
        return "holds"
    if ci[1] < lo or ci[0] > hi:
        return "does not hold"
    return "inconclusive"


def f2a(tr: dict) -> Reading:
    claim = "ρ̂ ≈ 1 (one low-goal step)"
    est, ci = tr.get("estimate"), tr.get("ci")
    n = int(tr.get("informative_batches") or 0)
    if n < MIN_BATCHES or est is None or ci is None or not all(map(math.isfinite, [est, *ci])):
        return Reading("F2a", claim, "not estimable", f"{n} informative batches")
    said = f"{_ci(est, ci)}, {n} informative batches"
    return Reading("F2a", claim, _within(ci, 1 - RHO_MARGIN, 1 + RHO_MARGIN), said)


def f2b(tr: dict) -> Reading:
    g = tr["gradient"]
    cos, gain = g["cosine"], g["gain_ratio"]
    said = f"cosine {_ci(cos['estimate'], cos['ci'])}; gain ratio "
    said += _ci(gain["estimate"], gain["ci"])
    return Reading("F2b", "gradient cosine ≈ 1", _within(cos["ci"], 1 - RHO_MARGIN, math.inf), said)


def f3(ge: dict) -> list[Reading]:
    out = []
    if "start_collapse" not in ge:  # a diagnostic from before the instrument had it
        return [Reading("F3", "zero-variance share − i.i.d.", "not measured", "")]
    for goal, c in ge["start_collapse"].items():
        lo, hi = c["ci"]
        if lo > 0:
            r = "exceeds"
        elif hi < 0:
            r = "below"
        elif lo > -F3_MARGIN and hi < F3_MARGIN:
            r = f"equivalent within ±{F3_MARGIN}"
        else:
            r = "inconclusive"
        said = f"observed {c['observed']:.3f}, i.i.d. {c['predicted']:.3f} (s̄ {c['success']:.3f}); "
        said += f"difference {_ci(c['diff'], c['ci'], 3, '+')}; all-fail {c['all_fail']:.3f}"
        claim = f"zero-variance share of G = {c['group']} groups − i.i.d., {goal} goal"
        out.append(Reading(f"F3-{goal}", claim, r, said))
    return out


def readings(report: dict) -> list[Reading]:
    """Every reading of the diagnostic ``report`` (module docstring)."""
    ge, tr = report["goal_effect"], report["transfer"]
    return [f1(ge), f2a(tr), f2b(tr), *f3(ge)]


def stated(root: Path = RESULTS) -> dict[str, str]:
    """The greedy held-out successes stated beside the readings (committed runs only)."""
    out = {}
    for name, key in (("sft-base2-s31", "base"), ("rctp-s31", "rctp")):
        if is_finished(root / name):
            run = load_run(root / name)
            success = frozen.stage1_success(run)
            out[key] = " / ".join(f"{v:.3f}" for v in success.values())
            if key == "rctp":
                weak = run.data.get("combined", {}).get("weak_policy_success_rate")
                out["base_sampled"] = "—" if weak is None else f"{weak:.3f}"
    return out


def report(path: Path = DIAGNOSTIC) -> dict | None:
    return frozen.diagnostic(path)


def markdown(path: Path = DIAGNOSTIC, root: Path = RESULTS) -> str:
    """The readings as a table, "not run" before the diagnostic is committed."""
    rep = report(path)
    if rep is None:
        return "Not run: `results/diagnostics/transfer-smol-inst-rctp-s31.json` is not committed.\n"
    lines = ["| id | claim (tiny model) | reading | numbers |", "|---|---|---|---|"]
    lines += [f"| {r.id} | {r.claim} | {r.reading} | {r.numbers} |" for r in readings(rep)]
    said = stated(root)
    lines += ["", "Greedy held-out success (80 tasks): the retry base " + said.get("base", "—")]
    lines[-1] += f"; RCTP-FT high / low {said.get('rctp', '—')}."
    return "\n".join(lines) + "\n"


def findings_block() -> str:
    """The ``smollm2-instruments-readings`` block of docs/findings.md: :func:`markdown`."""
    return markdown()


if __name__ == "__main__":
    print(markdown(), end="")
