r"""The entropy-matched controls of the regime-d10 campaign: the match check and the calibration.

"Not mere entropy" compares RC-GRPO with GRPO arms that sample with the same token entropy.
Two knobs raise GRPO's entropy: the rollout temperature τ (``rollout.temperature``) and the
entropy bonus (``algo.entropy_coef``). Both controls start from the RCTP-FT checkpoint with
every rollout on the high goal (``regime-rctp-grpo``), so they differ from RC-GRPO only in how
rollouts are sampled.

**High-goal-like token entropy** :math:`H` of a run: the mean over its training steps of
``policy/entropy_high`` (the token entropy of the rollouts conditioned on the high goal, at
the sampling temperature: the trainer computes it from logits/τ) when the run logs it, else
``policy/entropy`` (a run without reward tokens: every rollout is high-goal-like).

**Match check.** An arm is entropy-matched to RC-GRPO when
:math:`|\bar H_\text{arm} / \bar H_\text{RC} - 1| \le 0.10`, with :math:`\bar H` the mean of
H over the seeds both have (:func:`relative_gap`, :data:`ENTROPY_TOLERANCE`).

**Calibration rule** (:func:`choose`), on :data:`CALIBRATION_SEED` (no factorial seed, not the
design seed 7): one RC-GRPO run (target :math:`H^*`) and one run per candidate value v of the
knob, all at the regime's recipe and length. Let :math:`g(v) = H(v)/H^* - 1`.

1. Candidates with :math:`|g(v)| \le 0.10`: the value with the smallest :math:`|g|` is chosen
   (ties: the smaller v, the smaller departure from GRPO's recipe).
2. None: when two adjacent candidates (sorted by v) bracket :math:`H^*`, the next calibration
   run is at the linear interpolation
   :math:`v = v_1 + (H^* - H_1)(v_2 - v_1)/(H_2 - H_1)`; otherwise the grid is extended past
   the candidate closest to :math:`H^*`. Nothing is chosen until a run matches.

CLI::

    python -m analysis.campaigns.regime_d10.calibration --knob temperature --target runs/regime/rc-s9 \
        --candidates runs/regime/tau1.2-s9 runs/regime/tau1.4-s9 --out calib-temperature.json
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import pandas as pd

from analysis.runs import Run, load_run, seed_of

ENTROPY_TOLERANCE = 0.10
"""|H_arm / H_RC − 1| at most this: entropy-matched (the protocol's ±10%)."""
CALIBRATION_SEED = 9
"""The seed of every calibration run; the factorial never uses it."""
GRID = {"temperature": (1.0, 1.15), "entropy_coef": (0.0, 0.02)}
"""The first calibration runs per knob (docs/protocols/regime-d10.md, committed before them):
GRPO's own recipe (one run for both knobs) and one step up."""
KNOBS = {"temperature": ("rollout", "temperature"), "entropy_coef": ("algo", "entropy_coef")}
"""Calibrated knob -> its (section, field) in a run's ``config.json``."""


def high_like_entropy(metrics: pd.DataFrame) -> float:
    """Mean over training steps of ``policy/entropy_high``, else ``policy/entropy`` (NaN
    when neither is logged)."""
    rows = metrics[metrics["step"] >= 1] if "step" in metrics else metrics
    for name in ("policy/entropy_high", "policy/entropy"):
        if name in rows and rows[name].notna().any():
            return float(rows[name].dropna().astype(float).mean())
    return math.nan


def relative_gap(h_arm: float, h_ref: float) -> float:
    """g = h_arm / h_ref − 1 (NaN when h_ref is 0 or either is NaN)."""
    if not (math.isfinite(h_arm) and math.isfinite(h_ref)) or h_ref == 0:
        return math.nan
    return h_arm / h_ref - 1.0


def matched(gap: float, tol: float = ENTROPY_TOLERANCE) -> bool:
    """|g| ≤ tol (False for NaN)."""
    return math.isfinite(gap) and abs(gap) <= tol


def seed_mean_gap(arm: Mapping[int, Run], ref: Mapping[int, Run]) -> tuple[float, tuple[int, ...]]:
    """g of the means over the seeds both arms have: mean_s H_arm / mean_s H_ref − 1."""
    seeds = tuple(sorted(set(arm) & set(ref)))
    if not seeds:
        return math.nan, ()
    h_arm = math.fsum(high_like_entropy(arm[s].metrics) for s in seeds) / len(seeds)
    h_ref = math.fsum(high_like_entropy(ref[s].metrics) for s in seeds) / len(seeds)
    return relative_gap(h_arm, h_ref), seeds


@dataclass(frozen=True)
class Choice:
    """The outcome of the calibration rule (module docstring)."""

    knob: str
    target: float
    """H* of the RC-GRPO calibration run."""
    values: tuple[float, ...]
    gaps: tuple[float, ...]
    """g(v) per candidate, in ``values`` order."""
    chosen: float | None
    """The calibrated value (rule 1), or None."""
    next_value: float | None
    """Rule 2: the next candidate to run (interpolated), or None."""
    status: str
    """``matched`` | ``interpolate`` | ``extend grid``."""


def choose(knob: str, values: Sequence[float], entropies: Sequence[float], target: float) -> Choice:
    """Apply the calibration rule to candidates ``values`` with measured ``entropies``."""
    if knob not in KNOBS:
        raise ValueError(f"knob must be one of {sorted(KNOBS)}, got {knob!r}")
    if len(values) != len(entropies) or not values:
        raise ValueError("need one entropy per candidate value, at least one candidate")
    if len(set(values)) != len(values):
        raise ValueError(f"candidate values must be distinct, got {list(values)}")
    order = sorted(range(len(values)), key=lambda i: values[i])
    v = [float(values[i]) for i in order]
    h = [float(entropies[i]) for i in order]
    gaps = [relative_gap(x, target) for x in h]
    ok = [i for i, g in enumerate(gaps) if matched(g)]
    if ok:
        best = min(ok, key=lambda i: (abs(gaps[i]), v[i]))
        return Choice(knob, target, tuple(v), tuple(gaps), v[best], None, "matched")
    for i in range(len(v) - 1):
        lo, hi = sorted((h[i], h[i + 1]))
        if lo <= target <= hi and h[i + 1] != h[i]:
            nxt = v[i] + (target - h[i]) * (v[i + 1] - v[i]) / (h[i + 1] - h[i])
            return Choice(knob, target, tuple(v), tuple(gaps), None, nxt, "interpolate")
    return Choice(knob, target, tuple(v), tuple(gaps), None, None, "extend grid")


def knob_value(run: Run, knob: str) -> float:
    """The knob's value in the run's resolved config."""
    section, field = KNOBS[knob]
    value = run.config.get(section, {}).get(field)
    if value is None:
        raise ValueError(f"run {run.root} has no {section}.{field} in its config")
    return float(value)


def calibrate(target: Run, candidates: Sequence[Run], knob: str) -> Choice:
    """The rule on run folders; every run must be on :data:`CALIBRATION_SEED`."""
    for run in (target, *candidates):
        if seed_of(run) != CALIBRATION_SEED:
            raise ValueError(f"calibration run {run.root} is not on seed {CALIBRATION_SEED}")
    if target.config.get("algo", {}).get("conditioning") not in ("iid", "stratified"):
        raise ValueError(f"target {target.root} is not an RC-GRPO run (no sampled goals)")
    values = [knob_value(r, knob) for r in candidates]
    missing = sorted(set(GRID[knob]) - set(values))
    if missing:
        raise ValueError(
            f"the pre-registered {knob} grid {GRID[knob]} has no run at {missing}: "
            "every grid value is run before the rule chooses"
        )
    entropies = [high_like_entropy(r.metrics) for r in candidates]
    return choose(knob, values, entropies, high_like_entropy(target.metrics))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m analysis.campaigns.regime_d10.calibration",
        description=__doc__.split("\n")[0],
    )
    ap.add_argument("--knob", choices=sorted(KNOBS), required=True)
    ap.add_argument("--target", required=True, help="the RC-GRPO run on the calibration seed")
    ap.add_argument("--candidates", nargs="+", required=True, help="one run per knob value")
    ap.add_argument("--out", help="write the choice as JSON here")
    args = ap.parse_args(argv)
    choice = calibrate(load_run(args.target), [load_run(c) for c in args.candidates], args.knob)
    text = json.dumps(asdict(choice), indent=2)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    print(text)
    return 0 if choice.status == "matched" else 1


if __name__ == "__main__":
    raise SystemExit(main())
