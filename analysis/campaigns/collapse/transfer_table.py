r"""The transfer model against the collapse campaign: predicted and measured K3, M4 and M2, and
the measured coupling ρ̂ of every diagnosed RCTP-FT checkpoint (``docs/results.md``, blocks
``transfer-diagnostics`` and ``transfer-predictions``).

**Inputs.** ρ̂ per seed from ``results/diagnostics/transfer-rctp-collapse-s<seed>.json``
(:mod:`analysis.diagnostics.transfer`; a seed without a diagnostic takes the mean ρ̂ of those
with one, and the table says which). The start (s_h, s_l) of each seed: RC-GRPO's training
success under each goal over steps 1–10 (its rollouts; the ``collapse-seeds`` block's numbers).

**Model.** :func:`analysis.theory.transfer.simulate` from that start, 200 steps, in both
variants (expected update; noise-bound). The model has no network step size: one effective η
per seed and variant is fitted on the reference arm, RCTP-FT + GRPO (least squares between the
simulated high-goal success and the arm's measured training success in 10-step blocks, a
bounded search over log η); the other arms are predicted with it.

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
LOG_ETA = (float(np.log(1e-2)), float(np.log(1e4)))
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


def fit_eta(reference: np.ndarray, s0, rho: float, noise: bool) -> float:
    """The η in [1e-2, 1e4] whose simulated RCTP-FT + GRPO curve is closest to ``reference``
    in 10-step blocks (bounded Brent search on log η)."""
    from scipy.optimize import minimize_scalar

    want = _blocks(reference)

    def loss(log_eta: float) -> float:
        sim = _predict("rctp_grpo", s0, rho, float(np.exp(log_eta)), noise)
        return float(np.nansum((_blocks(sim) - want) ** 2))

    fit = minimize_scalar(loss, bounds=LOG_ETA, method="bounded", options={"xatol": 1e-3})
    return float(np.exp(fit.x))


def seed_contrasts(root: Path, seed: int, rho: float) -> dict[str, dict[str, float]] | None:
    """{rule: {measured, expected, noise}} training-speed contrasts of one seed."""
    curves = {a: training_curve(root, ARMS[a][2], seed) for a in ARMS}
    s0 = start(root, seed)
    if s0 is None or any(c is None for c in curves.values()):
        return None
    predicted = {}
    for noise, label in ((False, "expected"), (True, "noise")):
        eta = fit_eta(curves["rctp_grpo"], s0, rho, noise)
        predicted[label] = {a: speed(_predict(a, s0, rho, eta, noise)) for a in ARMS}
    measured = {a: speed(c) for a, c in curves.items()}
    return {
        rule: {
            "measured": measured[a] - measured[b],
            **{k: predicted[k][a] - predicted[k][b] for k in predicted},
        }
        for rule, (a, b) in RULES.items()
    }


def _points(est) -> str:
    if est is None:
        return "—"
    pm = f" ± {100 * est.half_width:.1f}" if est.half_width is not None else ""
    return f"{100 * est.mean:+.1f}{pm}"


PREDICTIONS_HEADER = (
    "rule",
    "contrast",
    "held-out estimate, registered rule [95% CI]",
    "training speed, measured",
    "predicted: expected update",
    "predicted: noise-bound",
    "error (noise-bound − measured)",
)


def predictions_markdown(root: Path = RESULTS, diagnostics: Path = DIAGNOSTICS) -> str:
    """The ``transfer-predictions`` block: per rule, the mean over seeds ± 95% t, in points."""
    from analysis.campaigns.collapse import tables as ct

    held = {d.rule.id: d.outcome.interval for d in ct.decisions(ct.collapse_arms(root))}
    measured_rho = rhos(diagnostics)
    pooled = float(np.mean(list(measured_rho.values()))) if measured_rho else 1.0
    per_seed = [seed_contrasts(root, s, measured_rho.get(s, pooled)) for s in SEEDS]
    per_seed = [p for p in per_seed if p is not None]
    names = {"K3s": "RC-GRPO − RCTP-FT + GRPO", "M4s": "RC-GRPO − GRPO at G = 3"}
    names["M2s"] = "anchored low mode − RC-GRPO"
    body = []
    for rule in RULES:
        iv = held.get(rule)
        cell = (
            "—" if iv is None else f"{100 * iv.mean:+.1f} [{100 * iv.low:.1f}, {100 * iv.high:.1f}]"
        )
        col = {
            k: mean_ci([p[rule][k] for p in per_seed]) for k in ("measured", "expected", "noise")
        }
        err = mean_ci([p[rule]["noise"] - p[rule]["measured"] for p in per_seed])
        row = [
            rule,
            names[rule],
            cell,
            *(_points(col[k]) for k in ("measured", "expected", "noise")),
        ]
        body.append([*row, _points(err)])
    lines = st.markdown_table(PREDICTIONS_HEADER, body, ["---", "---", *["--:"] * 5])
    seeds_rho = ", ".join(f"s{s} {r:.3f}" for s, r in measured_rho.items())
    note = (
        f"Points of success, mean over {len(per_seed)} seeds ± 95% t half-width. ρ̂ per seed "
        f"(transfer probe): {seeds_rho or 'none'}; the other seeds take their mean, "
        f"{pooled:.3f}. One effective η per seed and variant fitted on RCTP-FT + GRPO's "
        "training success; the other arms predicted with it "
        "(analysis/campaigns/collapse/transfer_table.py)."
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
