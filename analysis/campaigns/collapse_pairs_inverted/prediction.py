r"""The positive control's registered prediction (``docs/protocols/collapse-pairs-map.md``, part 2),
written before any RL run from the seed's gate I diagnostic:

    python -m analysis.campaigns.collapse_pairs_inverted.prediction --seed 3

writes ``results/diagnostics/prediction-collapse-pairs-inverted-s<seed>.json``. Choices, as the
protocol fixes them:

- **start** (s_h, s_l): P(success | goal) of the goal-effect instrument on its held-out
  decision tasks, sampled at τ = 1 (``goal_effect.success``); P(right | goal) recorded beside;
- **coupling** ρ (:func:`rho_range`): centre the pooled gradient cosine (the model's equal
  gains), range the union of the cosine's and ρ_h = γ·cos's 95% bootstrap intervals;
- **step size** η (:func:`eta_range`): the collapse campaign's leave-one-seed-out noise-bound
  fit for the seed (:func:`loso_etas`), range over the five seeds' fits;
- **curves**: :func:`analysis.theory.transfer.simulate` (noise-bound, G = 5, p = ½, batch-mean)
  of :data:`MODEL_ARMS`, :data:`STEPS` steps, on the 3 × 3 grid of ρ × η: the centre and the
  envelope of s_h(t);
- **contrasts** (:data:`CONTRASTS`, :data:`OUTCOMES`): the difference of the window means of
  s_h, centre and [min, max] over the grid, on the decision tasks and × f (the share of tasks
  with a planted decision, :func:`decision_share`) on the scale they are compared on, high-goal
  training success over all tasks;
- **speed ratio** (:func:`speed_ratio`): RC-GRPO's initial ṡ_h over RCTP-FT + GRPO's,
  noise-bound (η cancels), at the centre ρ and its range over ρ.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from analysis import REPO_ROOT
from analysis.campaign import mechanics as cp
from analysis.campaigns.collapse_pairs_inverted import design
from analysis.campaigns.collapse_pairs_inverted import gate as ig
from analysis.theory.transfer import learning_speed, simulate

STEPS = 200
"""Steps of every arm (as the collapse campaign)."""
OUTCOMES = {"s": (25, 175), "f": (191, 200)}
"""Outcome suffix -> the steps (inclusive) whose mean s_h it takes: learning speed, final."""
MODEL_ARMS = ("rctp_grpo", "rc_grpo", "anchored")
"""The model's arms (:data:`analysis.theory.transfer.ARMS`) of the control's three arms."""
CONTRASTS = {"I1": ("rc_grpo", "rctp_grpo"), "I2": ("rc_grpo", "anchored")}
"""Rule -> (arm, versus): the contrast arm − versus."""
SHARE_SOURCE = "results/collapse/collapse-rctp-grpo-s3/eval/step_0.json.gz"
"""A committed step-0 evaluation of the suite's 1,000 held-out tasks (any collapse arm's)."""
Range = tuple[float, float, float]
"""(low, centre, high)."""


@dataclass(frozen=True)
class Inputs:
    """What the prediction reads of a gate I diagnostic."""

    s_high: float
    s_low: float
    """P(success | goal) (the model's start)."""
    right_high: float
    right_low: float
    """P(right | goal), the decisions pooled (recorded beside)."""
    cosine: Range
    rho_high: Range
    gain_ratio: Range
    rho_low: float
    one_step: Range
    """The one-step probe's ρ̂ (stated)."""


def _interval(block: Mapping) -> Range:
    lo, hi = block["ci"]
    return float(lo), float(block["estimate"]), float(hi)


def inputs(report: Mapping) -> Inputs:
    """:class:`Inputs` of a transfer diagnostic; ValueError when it lacks the coupling in
    gradient form (a report made before the probe measured it)."""
    grad = report["transfer"].get("gradient")
    if grad is None:
        raise ValueError("the diagnostic has no transfer.gradient block: rerun it (design.py)")
    success, right = report["goal_effect"]["success"], report["goal_effect"]["kinds"]["any"]
    return Inputs(
        float(success["p_high"]),
        float(success["p_low"]),
        float(right["p_high"]),
        float(right["p_low"]),
        _interval(grad["cosine"]),
        _interval(grad["rho_high"]),
        _interval(grad["gain_ratio"]),
        float(grad["rho_low"]["estimate"]),
        _interval(report["transfer"]),
    )


def rho_range(inp: Inputs) -> Range:
    """(low, centre, high) of ρ: the cosine, and the union of its interval with ρ_h's."""
    return min(inp.cosine[0], inp.rho_high[0]), inp.cosine[1], max(inp.cosine[2], inp.rho_high[2])


def eta_range(etas: Mapping[int, float], seed: int) -> Range:
    """(low, centre, high) of η: the seed's own leave-one-seed-out fit, range over all seeds'."""
    return min(etas.values()), etas[seed], max(etas.values())


def window(curve: np.ndarray, steps: tuple[int, int]) -> float:
    """Mean of ``curve`` [STEPS + 1] (index = step) over ``steps`` (inclusive)."""
    lo, hi = steps
    return float(np.mean(curve[lo : hi + 1]))


def curves(s_high: float, s_low: float, rho: float, eta: float, steps: int = STEPS) -> dict:
    """Arm of :data:`MODEL_ARMS` -> s_h(t) [steps + 1] (noise-bound)."""
    return {a: simulate(a, s_high, s_low, rho, eta, steps, noise=True)[:, 0] for a in MODEL_ARMS}


def contrasts(sims: Mapping[str, np.ndarray]) -> dict[str, float]:
    """Rule + outcome (``I1s``, ``I1f``, ...) -> the contrast of window means of s_h."""
    return {
        f"{rule}{o}": window(sims[a], span) - window(sims[b], span)
        for rule, (a, b) in CONTRASTS.items()
        for o, span in OUTCOMES.items()
    }


def speed_ratio(s_high: float, s_low: float, rho: float) -> float | None:
    """ṡ_h of RC-GRPO over RCTP-FT + GRPO's at the start, noise-bound (None: no denominator)."""
    rc = learning_speed("rc_grpo", s_high, s_low, rho, noise=True)[0]
    grpo = learning_speed("rctp_grpo", s_high, s_low, rho, noise=True)[0]
    return rc / grpo if grpo else None


def _span(values: Sequence[float], centre: float, scale: float = 1.0) -> dict[str, float]:
    return {"low": scale * min(values), "centre": scale * centre, "high": scale * max(values)}


def predict(inp: Inputs, rho: Range, eta: Range, share: float, steps: int = STEPS) -> dict:
    """The prediction's ``speed_ratio``, ``contrasts`` and ``curves`` (module docstring)."""
    grid = list(dict.fromkeys((r, e) for r in rho for e in eta))
    sims = {key: curves(inp.s_high, inp.s_low, *key, steps) for key in grid}
    centre = (rho[1], eta[1])
    per = {key: contrasts(s) for key, s in sims.items()}
    out_contrasts = {}
    for name, value in per[centre].items():
        values = [p[name] for p in per.values()]
        out_contrasts[name] = {
            "decision_tasks": _span(values, value),
            "training_success": _span(values, value, share),
        }
    out_curves = {
        a: {
            "centre": [float(x) for x in sims[centre][a]],
            "low": [float(x) for x in np.min([s[a] for s in sims.values()], axis=0)],
            "high": [float(x) for x in np.max([s[a] for s in sims.values()], axis=0)],
        }
        for a in MODEL_ARMS
    }
    ratios = [speed_ratio(inp.s_high, inp.s_low, r) for r in rho]
    finite = [r for r in ratios if r is not None]
    ratio = _span(finite, ratios[1]) if finite and ratios[1] is not None else None
    return {"speed_ratio": ratio, "contrasts": out_contrasts, "curves": out_curves}


def decision_share(path: Path = REPO_ROOT / SHARE_SOURCE) -> float:
    """f: the share of the held-out tasks with a planted decision in a step-0 evaluation."""
    with gzip.open(path, "rt") as fh:
        cond = json.load(fh)["conditions"]["high"]
    return cond["decisions"]["right"]["n"] / cond["overall"]["n"]


def loso_etas() -> dict[int, float]:
    """Collapse seed -> its leave-one-seed-out noise-bound η
    (:func:`analysis.campaigns.collapse.transfer_table.fit_eta` on the other seeds' RCTP-FT +
    GRPO curves, each from its own start and ρ̂; a seed without a diagnostic takes their mean)."""
    from analysis.campaigns.collapse import transfer_table as tt
    from analysis.campaigns.collapse.driver import SEEDS

    measured = tt.rhos()
    pooled = float(np.mean(list(measured.values()))) if measured else 1.0
    refs = {}
    for seed in SEEDS:
        curve = tt.training_curve(tt.RESULTS, tt.ARMS["rctp_grpo"][2], seed)
        s0 = tt.start(tt.RESULTS, seed)
        if curve is None or s0 is None:
            raise ValueError(f"the collapse campaign's seed {seed} is not committed")
        refs[seed] = (curve, s0, measured.get(seed, pooled))
    return {s: tt.fit_eta([r for o, r in refs.items() if o != s], noise=True) for s in SEEDS}


def prediction(report: Mapping, seed: int, etas: Mapping[int, float], share: float) -> dict:
    """The whole JSON of ``seed`` (module docstring) from its diagnostic ``report``."""
    inp = inputs(report)
    rho, eta = rho_range(inp), eta_range(etas, seed)
    out = {"campaign": design.ID, "seed": seed, "protocol": "docs/protocols/collapse-pairs-map.md"}
    coupling = {k: _named(getattr(inp, k), "estimate") for k in COUPLING}
    out["inputs"] = {
        "report_command": report.get("command"),
        "success": {"high": inp.s_high, "low": inp.s_low},
        "right": {"high": inp.right_high, "low": inp.right_low},
        **coupling,
        "rho_low": inp.rho_low,
        "decision_share": share,
    }
    loso = {str(s): e for s, e in etas.items()}
    out["model"] = {
        "variant": "noise-bound",
        "group_size": 5,
        "p_high": 0.5,
        "aggregation": "batch-mean",
        "steps": STEPS,
        "rho": _named(rho),
        "eta": {**_named(eta), "loso": loso},
    }
    return {**out, **predict(inp, rho, eta, share)}


COUPLING = ("cosine", "rho_high", "gain_ratio", "one_step")
"""The coupling's statistics a prediction records, each with its interval."""


def _named(r: Range, middle: str = "centre") -> dict[str, float]:
    return dict(zip(("low", middle, "high"), r, strict=True))


def problem(seed: int, out: Path, force: bool, report: Mapping | None) -> str | None:
    """Why no prediction may be written for ``seed`` now (None: it may)."""
    block = ig.pooled(report)
    if block is None:
        return "no gate I diagnostic"
    if not ig.holds(block):
        return "gate I fails"
    names = [f"{a}-s{seed}" for a in design.ARMS]
    homes = (cp.runs_dir(design.HOME), cp.results_dir(design.HOME))
    ran = [n for n in names if any((h / n).exists() for h in homes)]
    if ran:
        return f"arms have run ({', '.join(ran)}): a prediction now is not registered before RL"
    if out.exists() and not force:
        return f"{out} exists (--force overwrites)"
    return None


def main(argv: list[str] | None = None) -> int:
    prog = "analysis.campaigns.collapse_pairs_inverted.prediction"
    parser = argparse.ArgumentParser(prog=f"python -m {prog}")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--out", type=Path, default=None, help="default: the registered path")
    parser.add_argument("--force", action="store_true", help="overwrite a prediction")
    args = parser.parse_args(argv)
    out = args.out or design.prediction_path(args.seed)
    report = ig.read(args.seed)
    why = problem(args.seed, out, args.force, report)
    if why:
        print(f"error: seed {args.seed}: {why}; no prediction written", file=sys.stderr)
        return 1
    result = prediction(report, args.seed, loso_etas(), decision_share())
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False)
    result["command"] = ["python", "-m", prog, *(sys.argv[1:] if argv is None else argv)]
    result["git_commit"] = head.stdout.strip()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    c = {k: 100 * v for k, v in result["contrasts"]["I1s"]["training_success"].items()}
    print(f"wrote {out}: I1s {c['centre']:+.1f} [{c['low']:+.1f}, {c['high']:+.1f}] points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
