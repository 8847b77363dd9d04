r"""The transfer model against the collapse campaign: predicted and measured K3, M4 and M2, and
the measured coupling ρ̂ of every diagnosed RCTP-FT checkpoint (``docs/results/collapse.md``, blocks
``transfer-diagnostics`` and ``transfer-predictions``).

**Inputs.** ρ̂ per seed from ``results/diagnostics/transfer-rctp-collapse-s<seed>.json``
(:mod:`analysis.diagnostics.transfer`; a seed without a diagnostic takes the mean ρ̂ of those
with one, and the table says which). The start (s_h, s_l) of each seed: RC-GRPO's training
success under each goal over steps 1–10 (its rollouts; the ``collapse-seeds`` block's numbers).

**Model.** :func:`analysis.theory.transfer.simulate` from that start, 200 steps, in both
variants (expected update; noise-bound). The model has no network step size: one effective η
per variant is fitted by least squares between the simulated high-goal success and RCTP-FT +
GRPO's measured training success in 10-step blocks (an unbounded Brent search on log η; a fit
outside [1e-6, 1e6] raises :class:`FitOffScale` rather than report a clipped η). Two fits:

- **in-sample**: η from the seed's own RCTP-FT + GRPO curve. K3s subtracts that same curve, so
  its prediction is partly fitted; M4s and M2s are genuine predictions.
- **leave-one-seed-out**: η from the other seeds' RCTP-FT + GRPO curves (their summed loss, each
  from its own start and ρ̂). No contrast of the seed is seen by its fit: all three are genuine.

**Outcome.** Learning speed in training success: the mean high-goal training success over steps
25–175 (each arm's rollouts; RC arms: their high-goal rollouts), differenced as the rules are:
K3 = RC-GRPO − RCTP-FT + GRPO, M4 = RC-GRPO − GRPO at G = 3 (``grpo_n``, n = 3), M2 = anchored
low mode − RC-GRPO. Beside the prediction: the same contrast measured on training success, and
the registered rule's held-out estimate (``collapse-verdicts``), which the model does not read.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from analysis import REPO_ROOT
from analysis.campaigns.collapse import verdicts as kv
from analysis.campaigns.collapse.driver import SEEDS
from analysis.campaigns.regime_separation import tables as st
from analysis.runs import is_finished, load_run
from analysis.stats import mean_ci
from analysis.theory.transfer import simulate

RESULTS = REPO_ROOT / "results" / "collapse"
DIAGNOSTICS = REPO_ROOT / "results" / "diagnostics"
STEPS, BLOCK, SPEED = 200, 10, (25, 175)
ETA_SCALE = (1e-6, 1e6)
"""A fitted η outside this range is a fit that ran off, not a step size (:class:`FitOffScale`)."""
ETA_BRACKET = (float(np.log(1e-3)), float(np.log(1e-1)))
"""Where the search on log η starts (a bracket for Brent's method, not a bound)."""
ARMS = {  # model arm, its keyword arguments, the campaign preset
    "rctp_grpo": ("rctp_grpo", {}, kv.RCTP_GRPO),
    "rc_grpo": ("rc_grpo", {}, kv.RC),
    "g3": ("grpo_n", {"n_high": 3}, "collapse-rctp-grpo-g3"),
    "anchored": ("anchored", {}, "collapse-rcgrpo-anchored"),
}
RULES = {"K3s": ("rc_grpo", "rctp_grpo"), "M4s": ("rc_grpo", "g3"), "M2s": ("anchored", "rc_grpo")}
"""Rule -> (arm, versus): the contrast arm − versus."""
DIAGNOSED = (
    "rctp-collapse-s3",
    "rctp-collapse-s4",
    "rctp-collapse-s5",
    "rctp-v11-s3",
    "rctp-v11-s4",
    "rctp-v11-s5",
    "rctp-p1-s31",
)
"""The checkpoints whose transfer diagnostic the ``transfer-diagnostics`` block lists."""


def report(run: str, diagnostics: Path = DIAGNOSTICS) -> dict | None:
    path = diagnostics / f"transfer-{run}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def rhos(diagnostics: Path = DIAGNOSTICS) -> dict[int, float]:
    """ρ̂ of each campaign seed with a diagnostic."""
    out = {}
    for seed in SEEDS:
        rep = report(f"rctp-collapse-s{seed}", diagnostics)
        if rep is not None:
            out[seed] = float(rep["transfer"]["estimate"])
    return out


def training_curve(root: Path, preset: str, seed: int) -> np.ndarray | None:
    """[STEPS] mean reward per step of the run's high-goal rollouts (every rollout of a run
    without goals); None when the run is not committed."""
    folder = root / f"{preset}-s{seed}"
    if not is_finished(folder):
        return None
    rows = load_run(folder).rollouts
    if "reward_token" in rows and rows["reward_token"].notna().any():
        rows = rows[rows["reward_token"].isin(["high"]) | rows["reward_token"].isna()]
    by_step = rows.groupby("step")["reward"].mean()
    return by_step.reindex(range(1, STEPS + 1)).to_numpy(dtype=float)


def start(root: Path, seed: int) -> tuple[float, float] | None:
    """(s_h, s_l): RC-GRPO's training success per goal over steps 1–10."""
    folder = root / f"{kv.RC}-s{seed}"
    if not is_finished(folder):
        return None
    rows = load_run(folder).rollouts
    early = rows[rows["step"].between(1, BLOCK)].groupby("reward_token")["reward"].mean()
    return float(early["high"]), float(early["low"])


def _blocks(curve: np.ndarray) -> np.ndarray:
    return np.nanmean(curve[: STEPS // BLOCK * BLOCK].reshape(-1, BLOCK), axis=1)


def speed(curve: np.ndarray) -> float:
    """Mean of a [STEPS] (or [STEPS + 1] from step 0) curve over steps 25–175."""
    steps = np.arange(1, STEPS + 1) if len(curve) == STEPS else np.arange(STEPS + 1)
    return float(np.nanmean(curve[(steps >= SPEED[0]) & (steps <= SPEED[1])]))


def _predict(arm: str, s0, rho: float, eta: float, noise: bool) -> np.ndarray:
    name, kwargs, _ = ARMS[arm]
    return simulate(name, s0[0], s0[1], rho, eta, STEPS, noise=noise, **kwargs)[1:, 0]


class FitOffScale(ValueError):
    """The least-squares η left :data:`ETA_SCALE`: the curves do not pin a step size."""


Reference = tuple[np.ndarray, tuple[float, float], float]
"""One curve η is fitted on: (training success [STEPS], start (s_h, s_l), ρ̂)."""


def fit_eta(references: list[Reference], noise: bool) -> float:
    r"""The η minimising :math:`\sum_{\text{refs}}\sum_b(\bar s^{sim}_b(\eta)-\bar s_b)^2`, the
    squared error of the simulated RCTP-FT + GRPO high-goal success against each reference
    curve's 10-step block means (Brent's method on log η, unbounded; :class:`FitOffScale`
    when the minimum leaves :data:`ETA_SCALE`)."""
    from scipy.optimize import minimize_scalar

    wants = [(_blocks(curve), s0, rho) for curve, s0, rho in references]

    def loss(log_eta: float) -> float:
        eta = float(np.exp(log_eta))
        return float(
            sum(
                np.nansum((_blocks(_predict("rctp_grpo", s0, rho, eta, noise)) - want) ** 2)
                for want, s0, rho in wants
            )
        )

    fit = minimize_scalar(loss, bracket=ETA_BRACKET, method="brent", options={"xtol": 1e-4})
    eta = float(np.exp(fit.x))
    if not ETA_SCALE[0] < eta < ETA_SCALE[1]:
        raise FitOffScale(f"fitted η = {eta:.3g} is outside {ETA_SCALE}: no step size fits")
    return eta


FITS = ("in-sample", "leave-one-seed-out")
VARIANTS = (("expected", False), ("noise", True))
GENUINE = {"in-sample": {"K3s": False, "M4s": True, "M2s": True}}
"""Whether a fit's prediction of a rule is genuine (its fit never saw the rule's curves):
in-sample K3s subtracts the curve η is fitted on; every leave-one-seed-out prediction is."""


def is_genuine(fit: str, rule: str) -> bool:
    return GENUINE.get(fit, {}).get(rule, True)


def _seed_inputs(root: Path, seed: int, rho: float):
    curves = {a: training_curve(root, ARMS[a][2], seed) for a in ARMS}
    s0 = start(root, seed)
    if s0 is None or any(c is None for c in curves.values()):
        return None
    return curves, s0, rho


def all_contrasts(root: Path, rho_of: dict[int, float]) -> dict[int, dict]:
    """{seed: {"eta": {fit: {variant: η}}, rule: {"measured", fit: {variant: predicted}}}} for
    every seed of ``rho_of`` whose arms are committed."""
    inputs = {s: _seed_inputs(root, s, r) for s, r in rho_of.items()}
    inputs = {s: v for s, v in inputs.items() if v is not None}
    out = {}
    for seed, (curves, s0, rho) in inputs.items():
        refs = {
            "in-sample": [(curves["rctp_grpo"], s0, rho)],
            "leave-one-seed-out": [
                (c["rctp_grpo"], s, r) for other, (c, s, r) in inputs.items() if other != seed
            ],
        }
        measured = {a: speed(c) for a, c in curves.items()}
        etas, predicted = {}, {}
        for fit in FITS:
            etas[fit], predicted[fit] = {}, {}
            for label, noise in VARIANTS:
                eta = fit_eta(refs[fit], noise)
                etas[fit][label] = eta
                predicted[fit][label] = {a: speed(_predict(a, s0, rho, eta, noise)) for a in ARMS}
        row = {"eta": etas}
        for rule, (a, b) in RULES.items():
            row[rule] = {"measured": measured[a] - measured[b]}
            for fit in FITS:
                row[rule][fit] = {
                    label: predicted[fit][label][a] - predicted[fit][label][b]
                    for label, _ in VARIANTS
                }
        out[seed] = row
    return out


def _points(est) -> str:
    if est is None:
        return "—"
    pm = f" ± {100 * est.half_width:.1f}" if est.half_width is not None else ""
    return f"{100 * est.mean:+.1f}{pm}"


PREDICTIONS_HEADER = (
    "rule",
    "contrast",
    "η fitted on",
    "prediction",
    "held-out estimate, registered rule [95% CI]",
    "training speed, measured",
    "expected update: predicted",
    "error",
    "noise-bound: predicted",
    "error",
)
FIT_NAMES = {"in-sample": "the seed's RCTP-FT + GRPO", "leave-one-seed-out": "the other seeds'"}


def predictions_markdown(root: Path = RESULTS, diagnostics: Path = DIAGNOSTICS) -> str:
    """The ``transfer-predictions`` block: per rule and fit, the mean over seeds ± 95% t, in
    points; error = predicted − measured, per seed, then averaged."""
    from analysis.campaigns.collapse import tables as ct

    held = {d.rule.id: d.outcome.interval for d in ct.decisions(ct.collapse_arms(root))}
    measured_rho = rhos(diagnostics)
    pooled = float(np.mean(list(measured_rho.values()))) if measured_rho else 1.0
    per_seed = all_contrasts(root, {s: measured_rho.get(s, pooled) for s in SEEDS})
    names = {"K3s": "RC-GRPO − RCTP-FT + GRPO", "M4s": "RC-GRPO − GRPO at G = 3"}
    names["M2s"] = "anchored low mode − RC-GRPO"
    body = []
    for rule in RULES:
        iv = held.get(rule)
        cell = (
            "—" if iv is None else f"{100 * iv.mean:+.1f} [{100 * iv.low:.1f}, {100 * iv.high:.1f}]"
        )
        measured = _points(mean_ci([p[rule]["measured"] for p in per_seed.values()]))
        for fit in FITS:
            cols = []
            for label, _ in VARIANTS:
                pred = [p[rule][fit][label] for p in per_seed.values()]
                err = [p[rule][fit][label] - p[rule]["measured"] for p in per_seed.values()]
                cols += [_points(mean_ci(pred)), _points(mean_ci(err))]
            kind = "genuine" if is_genuine(fit, rule) else "fitted (its versus arm is the fit's)"
            body.append([rule, names[rule], FIT_NAMES[fit], kind, cell, measured, *cols])
    align = ["---"] * 4 + ["--:"] * 6
    lines = st.markdown_table(PREDICTIONS_HEADER, body, align)
    seeds_rho = ", ".join(f"s{s} {r:.3f}" for s, r in measured_rho.items())
    etas = {
        (fit, label): [p["eta"][fit][label] for p in per_seed.values()]
        for fit in FITS
        for label, _ in VARIANTS
    }
    eta_text = "; ".join(
        f"{fit}, {'noise-bound' if label == 'noise' else 'expected update'} "
        f"{min(v):.4f}–{max(v):.4f}"
        for (fit, label), v in etas.items()
    )
    note = (
        f"Points of success, mean over {len(per_seed)} seeds ± 95% t half-width; error = "
        "predicted − measured training speed (an interval that holds 0: the prediction is "
        f"within the measurement). ρ̂ per seed (transfer probe): {seeds_rho or 'none'}; the "
        f"other seeds take their mean, {pooled:.3f}. η per seed ({eta_text}): an unbounded "
        "least-squares fit to RCTP-FT + GRPO's training success, the seed's own or the other "
        "seeds' (analysis/campaigns/collapse/transfer_table.py)."
    )
    return "\n".join([*lines, "", note]) + "\n"


DIAGNOSTICS_HEADER = (
    "checkpoint",
    "ρ̂, one SGD step [95% CI]",
    "informative batches",
    "cos(∇z_h, ∇z_l) [95% CI]",
    "gain ratio ‖∇z_l‖ / ‖∇z_h‖ [95% CI]",
    "ρ_l = cos / gain ratio",
    "finite-difference max rel. error",
    "right share high − low, planted decisions pooled [95% CI]",
    "right share, high",
    "identical share",
    "tasks × samples",
)


OLD_SCORE = " (whole-call z)"
"""Marks a ρ̂ from a report made before the probe scored the decision token (its log-odds then
summed the whole call text, arguments included)."""


def _decisions(goal_effect: dict) -> dict:
    return goal_effect["kinds"].get("any") or {}


def _interval(value: float, ci: list[float]) -> str:
    """``value [lo, hi]``, or the value alone with "(no interval)" when an end is not finite."""
    if all(np.isfinite(ci)):
        return f"{value:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"
    return f"{value:.3f} (no interval)"


def _gradient_cells(transfer: dict) -> list[str]:
    """The cosine, the gain ratio (each with its bootstrap interval) and ρ_l of a report's
    ``gradient`` block; dashes for a report made before the probe measured it."""
    grad = transfer.get("gradient")
    if grad is None:
        return ["—", "—", "—"]
    cells = [_interval(grad[k]["estimate"], grad[k]["ci"]) for k in ("cosine", "gain_ratio")]
    return [*cells, f"{grad['rho_low']['estimate']:.3f}"]


def diagnostics_markdown(diagnostics: Path = DIAGNOSTICS) -> str:
    """The ``transfer-diagnostics`` block: one row per diagnosed checkpoint of :data:`DIAGNOSED`:
    the one-step ρ̂ and the coupling in gradient form (:mod:`analysis.diagnostics.transfer.probe`)
    beside the goal effect."""
    body = []
    for run in DIAGNOSED:
        rep = report(run, diagnostics)
        if rep is None:
            body.append([run, *["not measured"] + ["—"] * (len(DIAGNOSTICS_HEADER) - 2)])
            continue
        tr, ge = rep["transfer"], rep["goal_effect"]
        pooled = _decisions(ge)
        diff = "—"
        if pooled:
            diff = f"{pooled['diff']:+.3f} [{pooled['ci'][0]:.3f}, {pooled['ci'][1]:.3f}]"
        body.append(
            [
                run,
                _interval(tr["estimate"], tr["ci"]) + ("" if "gradient" in tr else OLD_SCORE),
                str(tr["informative_batches"]),
                *_gradient_cells(tr),
                f"{tr['finite_difference']['max_rel_err']:.4f}",
                diff,
                f"{pooled['p_high']:.3f}" if pooled else "—",
                f"{ge['identical_share']['identical']:.3f}",
                f"{ge['tasks']} × {ge['samples']}",
            ]
        )
    align = ["---", *["--:"] * (len(DIAGNOSTICS_HEADER) - 1)]
    return "\n".join(st.markdown_table(DIAGNOSTICS_HEADER, body, align)) + "\n"
