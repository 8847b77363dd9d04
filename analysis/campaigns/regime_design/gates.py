r"""Gates G1–G5 of the regime suites' design (``docs/regime.md``): is a Stage-1 testbed in the
paper's regime?

Each gate is a pure function of the diagnostic's reports (:mod:`analysis.diagnostics.regime`,
one JSON per checkpoint, ``results/diagnostics/regime-<name>.json``) and returns a :class:`Gate`
with the measured values, the thresholds and the verdict. The thresholds were written here
before the diagnostic ran on any checkpoint:

- **G1 headroom** (SFT, no goal, held-out tasks): :math:`\mathrm{pass@8}(\tau) -
  \mathrm{greedy} \ge 0.20`, and the share of ALL held-out tasks that fail greedily but
  succeed in at least 1 of 8 samples is :math:`\ge 0.25` (denominator: every task, not the
  greedy failures; the report also gives the share of the greedy failures).
- **G2 support** (SFT, no goal): every failure kind :math:`K` with at least 10% of the greedy
  failures has :math:`P(\text{right} \mid \text{sampled}) \ge 2\,\text{chance}` (both defined
  in :mod:`analysis.diagnostics.regime.kinds`). A kind whose options are not countable (chance None:
  parse error, truncation, other) cannot show support and fails when it has 10% or more.
- **G3 signal** (SFT + the RL preset, fresh tasks of the whole training distribution):
  :math:`B_{noise} \le 400` groups (:mod:`analysis.diagnostics.grad_noise`) and the mean
  leave-one-step-out cosine :math:`\bar c \ge 0.1` with :math:`\bar c \ge 3\,\mathrm{SE}`,
  :math:`\mathrm{SE} = s_c/\sqrt{S}` over the S steps (the leave-one-out cosines share the
  other steps, so this SE is a guide, not an exact error).
- **G4 low goal** (RCTP-FT against SFT): under ``<|low_reward|>`` the success at τ
  (pass@1 of the samples) lies in [0.1, 0.5] and parse errors are < 20% of its sampled
  failures; under ``<|high_reward|>`` greedy success :math:`\ge` SFT's greedy success (no
  tolerance: "no worse") and :math:`\mathrm{pass@8} - \mathrm{greedy} \ge 0.15`; and
  (added after variant 3's RCTP-FT scored 0.355 greedy under both goals, before its
  diagnostic ran: the issue's "so the factorial can tell the arms apart") the goals
  separate, :math:`\mathrm{pass@1}_{high} - \mathrm{pass@1}_{low} \ge` :data:`G4_SEPARATION`.
- **G4′ low goal, RL's room** (a second gate for the campaign, written after G4 failed at
  every RCTP-FT length and before the runs that decide it, ``docs/regime.md``): every clause
  of G4 except the high goal's :math:`\mathrm{pass@8} - \mathrm{greedy}`, and in its place
  the question that clause stood for, measured: ``regime-rctp-grpo`` (200 steps) from the
  RCTP-FT checkpoint raises greedy held-out success under the high goal by
  :math:`\ge` :data:`G4P_RL_GAIN` with an exact McNemar :math:`p <` :data:`G4P_ALPHA`
  (criterion (i) of :mod:`analysis.diagnostics.regime.proof`, whose verdict it reads).
- **G5 the SFT + RC cell**: :math:`|\mathrm{greedy}_{high} - \mathrm{greedy}_{none}| \le
  0.03` at the SFT checkpoint (step 0 of ``cpu-sft-rc``; greedy held-out success).

A precondition, added after the regime suite's first design run and before its second
(``docs/regime.md``): **G0 fit**, Stage 1 fits its demonstrations, i.e. the mean training
token accuracy (``sft/token_acc`` of the run's ``metrics.jsonl``) over its last
:data:`G0_WINDOW` steps is :math:`\ge` :data:`G0_TOKEN_ACC`. Every pool-regime seed ends at
0.98; a planted decision costs one uncertain token of ~150, so a fitted demonstrator leaves
the ceiling near 0.99. The gates G1–G5 of a checkpoint that fails G0 measure an underfit
model, not the design.

Comparisons allow :data:`EPS` = 1e-9 (rates are counts over at most ~10^4 tasks, multiples of
1e-4, so it changes no real verdict; it keeps 0.815 − 0.615 from failing ≥ 0.20 by rounding).
A gate whose input is missing from the reports has ``holds = None`` (not measured).

The verdicts of one design, from its reports (:func:`main`)::

    python -m analysis.campaigns.regime_design.gates results/diagnostics/regime-sft-s0.json \
        results/diagnostics/regime-rctp-s0.json [--stage1 SFT_RUN] [--rl RUN]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

from analysis.diagnostics.regime.proof import run_verdict
from analysis.runs import load_run

EPS = 1e-9
"""Slack of every comparison (module docstring)."""
G1_GAIN, G1_SHARE = 0.20, 0.25
G2_MIN_SHARE, G2_RATIO = 0.10, 2.0
G3_B_NOISE, G3_COSINE, G3_SE = 400.0, 0.1, 3.0
G4_LOW, G4_PARSE, G4_GAIN = (0.1, 0.5), 0.20, 0.15
G4_SEPARATION = 0.10
G4P_RL_GAIN, G4P_ALPHA = 0.10, 0.05
G5_POINTS = 0.03
G0_TOKEN_ACC, G0_WINDOW = 0.95, 100
K = 8
"""Samples per task the gates read (pass@8)."""


@dataclass(frozen=True)
class Gate:
    """One gate's verdict: ``holds`` True / False, or None when not measured."""

    name: str
    holds: bool | None
    values: dict[str, float | None]
    """The measured quantities the verdict reads."""
    threshold: str
    """The rule, in words and numbers."""
    detail: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "gate": self.name,
            "holds": self.holds,
            "values": self.values,
            "threshold": self.threshold,
            "detail": self.detail,
        }


def _ge(x: float, bound: float) -> bool:
    return x >= bound - EPS


def _le(x: float, bound: float) -> bool:
    return x <= bound + EPS


def _cond(report: dict | None, condition: str) -> dict | None:
    return None if report is None else report.get("conditions", {}).get(condition)


def _greedy(c: dict) -> float:
    return float(c["greedy"]["overall"])


def _pass1(c: dict) -> float:
    return float(c["pass_at_k"]["overall"][0])


def _pass8(c: dict) -> float:
    return float(c["pass_at_k"]["overall"][K - 1])


def g1_headroom(sft: dict | None, condition: str = "none") -> Gate:
    """G1 (module docstring) on the SFT report's ``condition``."""
    rule = f"pass@8 - greedy >= {G1_GAIN} and share(greedy fail, >=1 of 8 succeed) >= {G1_SHARE}"
    c = _cond(sft, condition)
    if c is None:
        return Gate("G1 headroom", None, {}, rule)
    gain, share = _pass8(c) - _greedy(c), float(c["headroom"]["share_of_tasks"])
    holds = _ge(gain, G1_GAIN) and _ge(share, G1_SHARE)
    return Gate("G1 headroom", holds, {"pass8_minus_greedy": gain, "share": share}, rule)


def g2_support(sft: dict | None, condition: str = "none") -> Gate:
    """G2 (module docstring): the kinds with >= 10% of the greedy failures and their ratio
    P(right | sampled) / chance (None where chance is not countable)."""
    rule = (
        f"every kind with >= {G2_MIN_SHARE:.0%} of failures: P(right|sampled) >= {G2_RATIO}x chance"
    )
    c = _cond(sft, condition)
    if c is None:
        return Gate("G2 support", None, {}, rule)
    detail = {}
    for kind, s in sorted(c["support"].items()):
        if not _ge(float(s["share_of_failures"]), G2_MIN_SHARE):
            continue
        chance, p = s["chance"], float(s["p_right"])
        ratio = p / chance if chance else None  # None: options not countable, no support shown
        ok = ratio is not None and _ge(p, G2_RATIO * chance)
        detail[kind] = {"share": s["share_of_failures"], "p_right": p, "chance": chance}
        detail[kind].update(ratio=ratio, ok=ok)
    holds = all(d["ok"] for d in detail.values())
    ratios = [d["ratio"] or 0.0 for d in detail.values()]
    value = min(ratios) if ratios else None
    return Gate("G2 support", holds, {"min_ratio": value}, rule, detail)


def g3_signal(sft: dict | None) -> Gate:
    """G3 (module docstring) from the report's ``grad_noise`` section."""
    rule = f"B_noise <= {G3_B_NOISE:g} groups and step cosine >= {G3_COSINE}, >= {G3_SE} SE above 0"
    g = None if sft is None else sft.get("grad_noise")
    if not g:
        return Gate("G3 signal", None, {}, rule)
    cos = [float(x) for x in g["step_cosines"]]
    mean = statistics.fmean(cos)
    se = statistics.stdev(cos) / math.sqrt(len(cos)) if len(cos) > 1 else math.inf
    b = float(g["b_noise"])
    holds = _le(b, G3_B_NOISE) and _ge(mean, G3_COSINE) and _ge(mean, G3_SE * se)
    values = {"b_noise": b, "cosine_mean": mean, "cosine_se": se, "groups": g["groups"]}
    return Gate("G3 signal", holds, values, rule)


def g4_goal_clauses(rctp: dict) -> tuple[float, float]:
    """G4's two clauses that read the RCTP-FT report alone: (separation pass@1 high − pass@1
    low, the high goal's headroom pass@8 − greedy)."""
    low, high = _cond(rctp, "low"), _cond(rctp, "high")
    return _pass1(high) - _pass1(low), _pass8(high) - _greedy(high)


def g4_low_goal(rctp: dict | None, sft: dict | None, sft_condition: str = "none") -> Gate:
    """G4 (module docstring): RCTP-FT's low and high goals, against SFT's greedy success."""
    lo, hi = G4_LOW
    rule = (
        f"low: success at tau in [{lo}, {hi}], parse errors < {G4_PARSE:.0%} of its failures; "
        f"high: greedy >= SFT greedy, pass@8 - greedy >= {G4_GAIN}; "
        f"pass@1 high - low >= {G4_SEPARATION}"
    )
    low, high, ref = _cond(rctp, "low"), _cond(rctp, "high"), _cond(sft, sft_condition)
    if low is None or high is None or ref is None:
        return Gate("G4 low goal", None, {}, rule)
    low_success = _pass1(low)
    kinds = low["failure_kinds"]["sampled"]
    failures = sum(kinds.values())
    parse = kinds.get("parse_error", 0) / failures if failures else 0.0
    separation, gain = g4_goal_clauses(rctp)
    checks = {
        "low_success_in_range": _ge(low_success, lo) and _le(low_success, hi),
        "low_parse_share": parse < G4_PARSE - EPS,
        "high_no_worse": _ge(_greedy(high), _greedy(ref)),
        "high_headroom": _ge(gain, G4_GAIN),
        "goals_separate": _ge(separation, G4_SEPARATION),
    }
    values = {
        "low_success": low_success,
        "low_parse_share": parse,
        "high_greedy": _greedy(high),
        "sft_greedy": _greedy(ref),
        "high_pass8_minus_greedy": gain,
        "separation": separation,
    }
    return Gate("G4 low goal", all(checks.values()), values, rule, checks)


def g4_prime(
    rctp: dict | None, sft: dict | None, rl: dict | None, sft_condition: str = "none"
) -> Gate:
    """G4′ (module docstring): G4 without its headroom clause, and ``rl``, the proof verdict
    (:func:`analysis.diagnostics.regime.proof.run_verdict`) of ``regime-rctp-grpo`` from the
    same RCTP-FT checkpoint under the high goal: held-out gain and McNemar p."""
    rule = (
        "G4 without pass@8 - greedy; RCTP-FT + GRPO raises greedy held-out success (high "
        f"goal) by >= {G4P_RL_GAIN} with McNemar p < {G4P_ALPHA}"
    )
    base = g4_low_goal(rctp, sft, sft_condition)
    if base.holds is None or rl is None:
        return Gate("G4′ RL's room", None, {}, rule)
    if rl.get("condition") != "high":
        raise ValueError(f"G4′ reads the high goal's evaluation, got {rl.get('condition')!r}")
    gain, p = float(rl["gain"]), float(rl["mcnemar"]["p"])
    checks = {k: v for k, v in base.detail.items() if k != "high_headroom"}
    checks["rl_room"] = _ge(gain, G4P_RL_GAIN) and p < G4P_ALPHA
    values = {k: v for k, v in base.values.items() if k != "high_pass8_minus_greedy"}
    values.update(rl_gain=gain, rl_mcnemar_p=p)
    return Gate("G4′ RL's room", all(checks.values()), values, rule, checks)


def g5_sft_rc(sft: dict | None) -> Gate:
    """G5 (module docstring): SFT's greedy success with and without the high token."""
    rule = f"|greedy(high token) - greedy(no token)| <= {G5_POINTS}"
    high, none = _cond(sft, "high"), _cond(sft, "none")
    if high is None or none is None:
        return Gate("G5 SFT + RC cell", None, {}, rule)
    diff = _greedy(high) - _greedy(none)
    values = {"greedy_high": _greedy(high), "greedy_none": _greedy(none), "difference": diff}
    return Gate("G5 SFT + RC cell", _le(abs(diff), G5_POINTS), values, rule)


def g0_fit(metrics: list[dict] | None) -> Gate:
    """G0 (module docstring) from a Stage-1 run's ``metrics.jsonl`` rows (training steps)."""
    rule = f"mean sft/token_acc over the last {G0_WINDOW} steps >= {G0_TOKEN_ACC}"
    rows = [r["sft/token_acc"] for r in metrics or () if "sft/token_acc" in r]
    if not rows:
        return Gate("G0 fit", None, {}, rule)
    tail = rows[-G0_WINDOW:]
    acc = statistics.fmean(tail)
    return Gate("G0 fit", _ge(acc, G0_TOKEN_ACC), {"token_acc": acc, "steps": len(tail)}, rule)


def gates(sft: dict | None, rctp: dict | None = None) -> list[Gate]:
    """All five gates from an SFT report and (for G4) an RCTP-FT report."""
    return [
        g1_headroom(sft),
        g2_support(sft),
        g3_signal(sft),
        g4_low_goal(rctp, sft),
        g5_sft_rc(sft),
    ]


def _token_acc_rows(metrics) -> list[dict]:
    """The rows of a Stage-1 run's metrics that log ``sft/token_acc`` (what G0 reads)."""
    if "sft/token_acc" not in metrics:
        return []
    return metrics[["sft/token_acc"]].dropna().to_dict("records")


def print_gates(paths: list[Path], stage1: Path | None = None, rl: Path | None = None) -> None:
    """Gate verdicts from an SFT report and, optionally, an RCTP-FT report; with ``stage1``
    (the SFT run folder) the precondition G0 first; with ``rl`` (the ``regime-rctp-grpo`` run
    from that RCTP-FT checkpoint) G4′ last."""
    sft, *rest = [json.loads(p.read_text()) for p in paths]
    rctp = rest[0] if rest else None
    fit = []
    if stage1 is not None:
        fit = [g0_fit(_token_acc_rows(load_run(stage1).metrics))]
    extra = [] if rl is None else [g4_prime(rctp, sft, run_verdict(rl))]
    for gate in fit + gates(sft, rctp) + extra:
        verdict = {True: "holds", False: "FAILS", None: "not measured"}[gate.holds]
        values = ", ".join(
            f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in gate.values.items()
        )
        print(f"{gate.name:<18} {verdict:<13} {values}   [{gate.threshold}]")


def main(argv: list[str] | None = None) -> int:
    """The gates of an SFT [and an RCTP-FT] report (module docstring)."""
    parser = argparse.ArgumentParser(
        prog="python -m analysis.campaigns.regime_design.gates", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "reports", nargs="+", type=Path, help="the SFT report [and the RCTP-FT one]"
    )
    parser.add_argument("--stage1", type=Path, help="the SFT run folder, for the precondition G0")
    parser.add_argument("--rl", type=Path, help="the regime-rctp-grpo run folder, for G4′")
    args = parser.parse_args(argv)
    try:
        print_gates(args.reports, args.stage1, args.rl)
    except ValueError as err:  # a run of the wrong arm or without two evaluations
        parser.error(str(err))
    return 0


if __name__ == "__main__":
    sys.exit(main())
