r"""The registered prediction of ``smollm2-collapse`` (``docs/protocols/smollm2-collapse.md``, "The
registered prediction"): what the transfer model (:mod:`analysis.theory.transfer`, G 5, p ½,
batch-mean aggregation) predicts for the RL arms from the gate measurements alone.

Inputs: ρ̂ with its interval and (s_h, s_l), the sampled success under each goal, from the
transfer diagnostic of RCTP-FT; s_SFT, the pilot's training success over steps 1–5, and its
training-success curve. Outputs (:func:`predict`, one JSON):

1. ``ratios``: ṡ_h(RC-GRPO) / ṡ_h(RCTP-FT + GRPO) (Q1) and ṡ_h(anchored) / ṡ_h(RC-GRPO) (Q4) at
   the start, expected update and noise-bound, at ρ̂ and at its interval's ends; the sign of
   ratio − 1 is the predicted sign; ``crossing``: the ρ at which the noise-bound RC-GRPO and
   anchored speeds are equal (the anchored arm has no transfer, so the RC-GRPO speed is affine
   in ρ and the crossing is one number; it may lie outside [0, 1]);
2. ``zero_var``: the i.i.d. zero-variance share s^G + (1 − s)^G at each arm's start;
3. ``curves``: one η per variant fitted on the pilot (:func:`fit_eta`: least squares over its
   5-step block means of training success, the one-goal arm from s_SFT; Brent on log η as
   :func:`analysis.campaigns.collapse.transfer_table.fit_eta`, a fit off its scale is ``None``),
   then each arm simulated 40 steps; ``contrasts``: Q1–Q4 on the mean training success over
   steps 10–30.

Success rates of exactly 0 or 1 are moved :data:`EDGE` inside, as the model works in log-odds
(the JSON says which). ``python -m analysis.campaigns.smollm2_collapse.prediction --write``
writes ``prediction.json`` in the campaign's results folder (``results/<home>``) and refuses once a main RL run is committed:
the prediction is registered before them.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from analysis.campaigns.smollm2_collapse import gates
from analysis.campaigns.smollm2_collapse.design import ARMS, SEEDS
from analysis.runs import Run, load_run
from analysis.runs.extractors import series
from analysis.theory.transfer import learning_speed, simulate

G, P_HIGH = 5, 0.5
STEPS, BLOCK, WINDOW = 40, 5, (10, 30)
EDGE = 1e-4
VARIANTS = (("expected", False), ("noise", True))
ARM_MODEL = {"rctp": "rctp_grpo", "rc": "rc_grpo", "anchored": "anchored", "sft": "rctp_grpo"}
"""The protocol's arms (RCTP-FT + GRPO, RC-GRPO, anchored, SFT + GRPO) -> the model's arm (SFT +
GRPO is the one-goal arm from the SFT start)."""
CONTRASTS = {
    "Q1": ("rc", "rctp"),
    "Q2": ("rctp", "sft"),
    "Q3": ("rc", "sft"),
    "Q4": ("anchored", "rc"),
}


def inside(s: float) -> float:
    """``s`` moved :data:`EDGE` inside (0, 1)."""
    return min(max(float(s), EDGE), 1.0 - EDGE)


def zero_var(s: float, group: int = G) -> float:
    """P(σ_g = 0) of a group of i.i.d. Bernoulli(s) rewards: s^G + (1 − s)^G (Def. 4.1)."""
    return s**group + (1.0 - s) ** group


def speed_h(arm: str, s_h: float, s_l: float, rho: float, noise: bool) -> float:
    """The high goal's expected speed ṡ_h of the model arm at (s_h, s_l, ρ), per unit η."""
    return learning_speed(arm, inside(s_h), inside(s_l), rho, G, P_HIGH, noise=noise)[0]


def ratios(s_h: float, s_l: float, rho: float) -> dict[str, dict[str, float]]:
    """{variant: {"Q1": ṡ(RC-GRPO)/ṡ(RCTP-FT + GRPO), "Q4": ṡ(anchored)/ṡ(RC-GRPO)}}."""
    out = {}
    for name, noise in VARIANTS:
        rc = speed_h("rc_grpo", s_h, s_l, rho, noise)
        rctp = speed_h("rctp_grpo", s_h, s_l, rho, noise)
        anchored = speed_h("anchored", s_h, s_l, rho, noise)
        out[name] = {"Q1": rc / rctp if rctp else math.nan, "Q4": anchored / rc if rc else math.nan}
    return out


def crossing(s_h: float, s_l: float) -> float:
    """The ρ at which the noise-bound ṡ_h of RC-GRPO equals the anchored arm's (NaN: parallel)."""
    rc0, rc1 = (speed_h("rc_grpo", s_h, s_l, r, True) for r in (0.0, 1.0))
    anchored = speed_h("anchored", s_h, s_l, 0.0, True)
    return (anchored - rc0) / (rc1 - rc0) if rc1 != rc0 else math.nan


def _blocks(curve: np.ndarray) -> np.ndarray:
    n = len(curve) // BLOCK * BLOCK
    return np.nanmean(np.asarray(curve[:n], dtype=float).reshape(-1, BLOCK), axis=1)


def _curve(arm: str, start: tuple[float, float], rho: float, eta: float, noise: bool, steps: int):
    """[steps] simulated high-goal success at steps 1..steps."""
    s_h, s_l = (inside(s) for s in start)
    return simulate(arm, s_h, s_l, rho, eta, steps, group_size=G, p=P_HIGH, noise=noise)[1:, 0]


def fit_eta(refs: Sequence[tuple[np.ndarray, tuple[float, float], float]], noise: bool):
    """The η minimising the squared error between the simulated one-goal arm and each
    reference curve's :data:`BLOCK`-step means (refs: (curve, start, ρ)); None when the fit
    leaves the scale of :func:`analysis.campaigns.collapse.transfer_table.fit_eta`."""
    from scipy.optimize import minimize_scalar

    from analysis.campaigns.collapse.transfer_table import ETA_BRACKET, ETA_SCALE

    wants = [(_blocks(c), s0, rho, len(c)) for c, s0, rho in refs]

    def loss(log_eta: float) -> float:
        eta = float(np.exp(log_eta))
        return float(
            sum(
                np.nansum((_blocks(_curve("rctp_grpo", s0, rho, eta, noise, n)) - w) ** 2)
                for w, s0, rho, n in wants
            )
        )

    fit = minimize_scalar(loss, bracket=ETA_BRACKET, method="brent", options={"xtol": 1e-4})
    eta = float(np.exp(fit.x))
    return eta if ETA_SCALE[0] < eta < ETA_SCALE[1] else None


def window_mean(curve: np.ndarray) -> float:
    """Mean of a [steps] curve (steps 1..n) over :data:`WINDOW`, inclusive."""
    return float(np.nanmean(curve[WINDOW[0] - 1 : WINDOW[1]]))


def contrasts(starts: dict[str, tuple[float, float]], rho: float, eta: float, noise: bool):
    """{Q: predicted difference of mean training success over :data:`WINDOW`} (Q1–Q4)."""
    speed = {
        arm: window_mean(_curve(model, starts[arm], rho, eta, noise, STEPS))
        for arm, model in ARM_MODEL.items()
    }
    return {q: speed[a] - speed[b] for q, (a, b) in CONTRASTS.items()}


SUCCESS = "reward/success_rate"


def training_curve(run: Run, metric: str = SUCCESS) -> np.ndarray:
    """[steps] a run's training success per step (NaN where a step logged none); an RC arm's
    high-goal success with ``metric`` ``reward/success_high``."""
    s = series(run, metric)
    steps = int(run.config.get("run", {}).get("steps", s.index.max() if len(s) else 0))
    return s.reindex(range(1, steps + 1)).to_numpy(dtype=float)


def predict(report: dict, pilot: np.ndarray) -> dict:
    """The registered prediction (module docstring) from the diagnostic ``report`` and the
    pilot's training curve ``pilot`` ([steps])."""
    succ, transfer = report["goal_effect"]["success"], report["transfer"]
    s_h, s_l = float(succ["p_high"]), float(succ["p_low"])
    rho, ci = float(transfer["estimate"]), [float(x) for x in transfer["ci"]]
    s_sft = float(np.nanmean(pilot[: gates.START[1]]))
    starts = {"rctp": (s_h, s_h), "rc": (s_h, s_l), "anchored": (s_h, s_l), "sft": (s_sft, s_sft)}
    out = {
        "inputs": {"s_high": s_h, "s_low": s_l, "rho": rho, "rho_ci": ci, "s_sft": s_sft},
        "edge": [
            k for k, v in (("s_high", s_h), ("s_low", s_l), ("s_sft", s_sft)) if v != inside(v)
        ],
        "ratios": {"rho": ratios(s_h, s_l, rho)},
        "crossing_rho": crossing(s_h, s_l),
        "zero_var": {
            "sft": zero_var(s_sft),
            "rctp": zero_var(s_h),
            "rc": zero_var((s_h + s_l) / 2),
        },
        "eta": {},
        "contrasts": {},
    }
    for end, r in zip(("rho_ci_low", "rho_ci_high"), ci, strict=True):
        if math.isfinite(r):
            out["ratios"][end] = ratios(s_h, s_l, r)
    for name, noise in VARIANTS:
        eta = fit_eta([(pilot, (s_sft, s_sft), rho)], noise)
        out["eta"][name] = eta
        out["contrasts"][name] = None if eta is None else contrasts(starts, rho, eta, noise)
    return out


def rl_start(run: Run) -> tuple[float, float]:
    """(s_h, s_l): an RC-GRPO run's training success per goal over steps 1–5."""
    early = [
        series(run, f"reward/success_{g}").loc[gates.START[0] : gates.START[1]]
        for g in ("high", "low")
    ]
    return float(early[0].mean()), float(early[1].mean())


def after_runs(arms: dict[str, dict[int, Run]], rho: float) -> dict[int, dict]:
    """The post-run prediction, fixed by the protocol: per seed with every arm, η fitted
    leave-one-seed-out on the other seeds' RCTP-FT + GRPO training curves (each from its own
    start), the predicted contrasts Q1–Q4 of training speed beside the measured ones."""
    names = {
        key: arm.name for key, arm in zip(("rctp", "rc", "sft", "anchored"), ARMS, strict=True)
    }
    seeds = [s for s in SEEDS if all(s in arms.get(n, {}) for n in names.values())]
    starts = {s: rl_start(arms[names["rc"]][s]) for s in seeds}
    metric = {k: "reward/success_high" if k in ("rc", "anchored") else SUCCESS for k in names}
    curves = {
        s: {k: training_curve(arms[n][s], metric[k]) for k, n in names.items()} for s in seeds
    }
    out = {}
    for seed in seeds:
        s_h, s_l = starts[seed]
        sft = float(np.nanmean(curves[seed]["sft"][: gates.START[1]]))
        begin = {"rctp": (s_h, s_h), "rc": (s_h, s_l), "anchored": (s_h, s_l), "sft": (sft, sft)}
        measured = {k: window_mean(c) for k, c in curves[seed].items()}
        row = {"measured": {q: measured[a] - measured[b] for q, (a, b) in CONTRASTS.items()}}
        refs = [(curves[o]["rctp"], (starts[o][0], starts[o][0]), rho) for o in seeds if o != seed]
        for name, noise in VARIANTS:
            eta = fit_eta(refs, noise) if refs else None
            row[name] = None if eta is None else contrasts(begin, rho, eta, noise)
        out[seed] = row
    return out


def _main_runs_committed(root: Path) -> list[str]:
    return [p.name for p in root.glob("smol-*") if p.is_dir()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m analysis.campaigns.smollm2_collapse.prediction"
    )
    parser.add_argument("--write", action="store_true", help=f"write {gates.PREDICTION}")
    args = parser.parse_args(argv)
    report = gates.diagnostic()
    pilot = gates.committed()("pilot-sft-grpo-s31")
    if report is None or pilot is None:
        print("error: the transfer diagnostic and the pilot must be committed first")
        return 1
    out = predict(report, training_curve(load_run(pilot)))
    text = json.dumps(out, indent=1) + "\n"
    print(text, end="")
    if args.write:
        if done := _main_runs_committed(gates.RESULTS):
            print(f"error: main RL runs are committed ({', '.join(done)}): the prediction stands")
            return 1
        gates.PREDICTION.write_text(text)
        print(f"wrote {gates.PREDICTION}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
