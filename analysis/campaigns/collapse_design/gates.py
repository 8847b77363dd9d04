r"""The collapse testbed's gates: does SFT + GRPO really collapse, and is there something to rescue?

Written before any design run of the collapse suites (``docs/protocols/collapse-testbed.md``).
The regime gates (:mod:`analysis.campaigns.regime_design.gates`) select a *calibrated* SFT that
samples the right option 40–60% of the time; these select the paper's premise, a *peaked* SFT
whose groups are all-fail on the planted decision (Definition 4.1, Prop. 4.2), while the
decision stays reachable by sampling and RCTP-FT's goals differ on it. Each gate is a pure
function of the diagnostic's reports (``python -m analysis.diagnostics.regime --samples 32``,
the per-kind block of :mod:`analysis.diagnostics.regime.decisions`) or of a pilot run's
records, and returns a :class:`~analysis.campaigns.regime_design.gates.Gate`. ``kind`` is the
collapse decision (a kind of :data:`rcgrpo.env.synth_demo.DECISIONS`, or
:data:`~analysis.diagnostics.regime.decisions.ANY` for every planted kind pooled).

- **C collapse** (an SFT + GRPO pilot at the paper's G = 5 from the SFT checkpoint): the mean
  share of all-fail groups (``group/zero_var_fail_frac``) over steps 1–:data:`C_STEPS` is
  :math:`\ge` :data:`C_ALL_FAIL`, and greedy held-out success at step :data:`C_STEPS` minus
  at step 0 is :math:`<` :data:`C_MAX_GAIN`. Why: half the groups carrying no gradient is the
  premise's "stalls" made countable; 5 points is the effect the regime campaigns are powered
  for (:data:`analysis.paired_design.TARGET_MDE`), so a smaller gain is "no learning" at the
  resolution the factorial has.
- **H headroom** (SFT, no goal, ≥ :data:`H_SAMPLES` samples per task at τ): on the held-out
  tasks with the decision, :math:`\hat p_K` lies in :data:`H_P_RIGHT` and pass@n − greedy
  success :math:`\ge` :data:`H_PASS_GAIN`. Why: below 0.01 a group of 5 holds a right choice
  in < 5% of groups and 32 samples cannot tell the rate from 0 (the decision is unreachable,
  not collapsed); above 0.10, 1 − 0.9⁵ = 41% of groups hold one and GRPO learns (the regime
  suites at 0.44–0.48 did within 25 steps). 32 samples make pass@32 ≥ 1 − 0.99³² = 0.28 at
  the floor, so the gain clause can hold across the whole window.
- **H′ reachable** (a pilot of at least :data:`H2_STEPS` steps, GRPO or RC-GRPO): the share of
  the held-out decisions taken right greedily rises by :math:`\ge` :data:`H2_GAIN` from step 0
  to its last evaluation. Why: the issue's "a longer GRPO pilot or a higher-variance arm does
  move it by step 400": a testbed whose decision no arm can learn tests nothing. ``None`` until
  such a run is committed.
- **R something to rescue** (RCTP-FT, ≥ :data:`H_SAMPLES` samples per task, both goals): on
  the decision, :math:`\hat p_K(\text{high}) \le` :data:`R_HIGH_MAX` and
  :math:`\hat p_K(\text{high}) - \hat p_K(\text{low}) \ge` :data:`R_SEPARATION`. Why: above
  0.30 under high, 1 − 0.7⁵ = 83% of RCTP-FT's groups hold a right choice, so RCTP-FT alone
  removes the collapse and RC sampling has nothing left to add; 0.10 is the admission threshold
  of the regime campaign (goals that separate), here read on the decision itself, where
  regime-d10's goals did not differ (0/284 right under both).
- **G0 fit** and **G5 SFT + RC cell**: the regime gates', unchanged
  (:func:`analysis.campaigns.regime_design.gates.g0_fit`,
  :func:`analysis.campaigns.regime_design.gates.g5_sft_rc`).

A design *holds* when every gate but H′ holds at its design seed and at a fresh confirmation
seed; H′ is decided by the first long pilot.
"""

from __future__ import annotations

from analysis.campaigns.regime_design.gates import EPS, Gate
from analysis.diagnostics.regime.decisions import ANY

C_ALL_FAIL, C_STEPS, C_MAX_GAIN = 0.50, 50, 0.05
H_P_RIGHT, H_SAMPLES, H_PASS_GAIN = (0.01, 0.10), 32, 0.20
H2_STEPS, H2_GAIN = 400, 0.20
R_HIGH_MAX, R_SEPARATION = 0.30, 0.10
PILOT_GROUP = 5
"""The paper's G, which the collapse pilot must use (gate C)."""


def _kind_block(report: dict | None, condition: str, kind: str) -> dict | None:
    cond = (report or {}).get("conditions", {}).get(condition)
    return None if cond is None else cond.get("decision_kinds", {}).get(kind)


def c_collapse(metrics: list[dict], evals: dict[int, float], group_size: int) -> Gate:
    """C (module docstring) from a pilot's ``metrics.jsonl`` rows and its greedy held-out
    success by evaluated step."""
    rule = (
        f"G = {PILOT_GROUP}; mean all-fail share over steps 1-{C_STEPS} >= {C_ALL_FAIL}; "
        f"held-out success(step {C_STEPS}) - success(step 0) < {C_MAX_GAIN}"
    )
    window = [
        r["group/zero_var_fail_frac"]
        for r in metrics
        if 1 <= r.get("step", 0) <= C_STEPS and r.get("group/zero_var_fail_frac") is not None
    ]
    if group_size != PILOT_GROUP:
        raise ValueError(f"gate C reads a pilot at G = {PILOT_GROUP}, got G = {group_size}")
    if len(window) < C_STEPS or 0 not in evals or C_STEPS not in evals:
        return Gate("C collapse", None, {"steps": len(window)}, rule)
    share = sum(window) / len(window)
    gain = evals[C_STEPS] - evals[0]
    checks = {"all_fail": share >= C_ALL_FAIL - EPS, "no_gain": gain < C_MAX_GAIN - EPS}
    values = {"all_fail_share": share, "gain": gain, "steps": len(window)}
    return Gate("C collapse", all(checks.values()), values, rule, checks)


def h_headroom(sft: dict | None, kind: str = ANY) -> Gate:
    """H (module docstring) from the SFT report's no-goal condition."""
    lo, hi = H_P_RIGHT
    rule = (
        f"n >= {H_SAMPLES}; P(right | sampled) at {kind} in [{lo}, {hi}]; "
        f"pass@n - greedy >= {H_PASS_GAIN} on its tasks"
    )
    b = _kind_block(sft, "none", kind)
    if b is None or b["n"] < H_SAMPLES:
        return Gate("H headroom", None, {} if b is None else {"n": b["n"]}, rule)
    gain = b["pass_at_n"] - b["greedy_success"]
    checks = {
        "p_right": lo - EPS <= b["p_right_sampled"] <= hi + EPS,
        "pass_gain": gain >= H_PASS_GAIN - EPS,
    }
    values = {"p_right": b["p_right_sampled"], "pass_n_minus_greedy": gain, "tasks": b["tasks"]}
    return Gate("H headroom", all(checks.values()), values, rule, checks)


def h2_reachable(right_by_step: dict[int, float] | None) -> Gate:
    """H′ (module docstring) from a long pilot's greedy decision-right share by step."""
    rule = f"a pilot of >= {H2_STEPS} steps: decisions right (greedy) rise >= {H2_GAIN}"
    if not right_by_step or max(right_by_step) < H2_STEPS or 0 not in right_by_step:
        return Gate("H′ reachable", None, {}, rule)
    last = max(right_by_step)
    gain = right_by_step[last] - right_by_step[0]
    values = {"right_start": right_by_step[0], "right_end": right_by_step[last], "step": last}
    return Gate("H′ reachable", gain >= H2_GAIN - EPS, values | {"gain": gain}, rule)


def r_rescue(rctp: dict | None, kind: str = ANY) -> Gate:
    """R (module docstring) from the RCTP-FT report's high and low conditions."""
    rule = (
        f"n >= {H_SAMPLES}; P(right | high) <= {R_HIGH_MAX}; "
        f"P(right | high) - P(right | low) >= {R_SEPARATION} at {kind}"
    )
    high, low = _kind_block(rctp, "high", kind), _kind_block(rctp, "low", kind)
    if high is None or low is None or min(high["n"], low["n"]) < H_SAMPLES:
        return Gate("R rescue", None, {}, rule)
    ph, pl = high["p_right_sampled"], low["p_right_sampled"]
    checks = {
        "high_collapses": ph <= R_HIGH_MAX + EPS,
        "goals_differ": ph - pl >= R_SEPARATION - EPS,
    }
    values = {"p_right_high": ph, "p_right_low": pl, "difference": ph - pl}
    return Gate("R rescue", all(checks.values()), values, rule, checks)
