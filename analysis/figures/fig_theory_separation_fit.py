r"""Predicted against measured mode separation ε(t) for the committed RC-GRPO runs.

Measured: training separation :math:`\hat\varepsilon` = success under the high goal − under
the low goal, in 10-step blocks (:func:`analysis.verdicts.half_life.separation_blocks`),
of ``results/regime/regime-rcgrpo-s{3,4,5,11,15}`` (β = 0.1, G = 8, p = ½, lr 1e-4 AdamW).
Predicted: the exact expected k3 update on the goal-blind two-goal bandit
(:func:`analysis.theory.separation_dynamics.simulate`, β = 0.1, G = 8, p = ½) from each run's
start (mean success per goal over steps 1–5). The tabular model has no network step size, so
one *effective* learning rate η is fitted (log grid, least squares on the blocks) on seeds 3
and 4; seeds 5, 11 and 15 are predicted without fitting. :func:`results` (copied into the
sidecar) gives η, each run's RMSE over the blocks and its binomial noise floor.
"""

from __future__ import annotations

from functools import lru_cache

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from analysis import REPO_ROOT
from analysis.figures import style as fs
from analysis.runs import load_run
from analysis.runs.extractors import series
from analysis.runs.folder import light_globs
from analysis.theory.separation_dynamics import bandit, bandit_rewards, simulate
from analysis.verdicts.half_life import separation_blocks

REQUIRES: tuple[str, ...] = ()
SEEDS, FIT_SEEDS = (3, 4, 5, 11, 15), (3, 4)
BETA, GROUP, P, BLOCK, STEPS = 0.1, 8, 0.5, 10, 200
LRS = np.round(np.exp(np.linspace(np.log(0.05), np.log(5.0), 21)), 6)
INPUTS: tuple[str, ...] = tuple(
    g for s in SEEDS for g in light_globs(f"results/regime/regime-rcgrpo-s{s}", REPO_ROOT)
)
CAPTION = (
    "Mode separation eps = success(high) - success(low) during RL of the committed RC-GRPO runs "
    "(beta = 0.1, G = 8; 10-step blocks, bars: binomial noise sd) against the exact expected "
    "k3-regularised update on a goal-blind two-goal bandit from each run's start, with one "
    "effective learning rate fitted on seeds 3 and 4 and seeds 5, 11, 15 predicted; RMSE per "
    "run in the sidecar."
)


def _start(run) -> tuple[float, float]:
    return tuple(float(series(run, f"reward/success_{g}").loc[1:5].mean()) for g in ("low", "high"))


def _predict(start, lr: float, steps: np.ndarray) -> np.ndarray:
    """Block means of the model's ε over training steps (step k samples after k − 1 updates)."""
    trees = (bandit(start[0]), bandit(start[1]))
    eps = simulate(trees, bandit_rewards(), BETA, lr, STEPS, GROUP, P, "k3")["eps"]
    return np.array([eps[s - BLOCK : s].mean() for s in steps])


@lru_cache(maxsize=1)
def results() -> dict:
    """η, and per run: blocks, measured and predicted ε, RMSE and noise floor (rounded)."""
    runs = {s: load_run(REPO_ROOT / f"results/regime/regime-rcgrpo-s{s}") for s in SEEDS}
    data = {s: (separation_blocks(r, BLOCK), _start(r)) for s, r in runs.items()}

    def loss(lr):
        fit = (data[s] for s in FIT_SEEDS)
        return sum(float(((_predict(st, lr, b["step"]) - b["eps"]) ** 2).sum()) for b, st in fit)

    lr = float(LRS[int(np.argmin([round(loss(x), 10) for x in LRS]))])
    out = {"effective_lr": lr, "fit_seeds": list(FIT_SEEDS), "beta": BETA, "runs": {}}
    for s, (b, st) in data.items():
        pred = _predict(st, lr, b["step"])
        out["runs"][f"regime-rcgrpo-s{s}"] = {
            "start": [round(x, 4) for x in st],
            "steps": b["step"].tolist(),
            "measured": np.round(b["eps"], 4).tolist(),
            "sd": np.round(b["sd"], 4).tolist(),
            "predicted": np.round(pred, 4).tolist(),
            "rmse": round(float(np.sqrt(np.mean((pred - b["eps"]) ** 2))), 4),
            "noise_floor": round(float(np.sqrt(np.mean(b["sd"] ** 2))), 4),
            "fitted": s in FIT_SEEDS,
        }
    return out


def make_figure(runs: dict) -> Figure:
    res = results()
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(
            1, len(SEEDS), figsize=(16, 3.2), sharey=True, constrained_layout=True
        )
        for ax, (name, r) in zip(axes, res["runs"].items(), strict=True):
            label = r"measured $\hat\varepsilon$"
            ax.errorbar(
                r["steps"], r["measured"], yerr=r["sd"], fmt="o", ms=3, color="0.3", label=label
            )
            ax.plot(r["steps"], r["predicted"], color="C3", label="predicted (k3 bandit)")
            ax.axhline(0, color="0.7", lw=0.6)
            tag = "fitted" if r["fitted"] else "predicted"
            ax.set_title(f"{name.removeprefix('regime-')} ({tag}) RMSE {r['rmse']:.3f}", fontsize=8)
            ax.set_xlabel("RL step")
        axes[0].set_ylabel(r"$\varepsilon=s_{high}-s_{low}$")
        axes[0].legend(fontsize=7)
    return fig
