r"""The registered β predictions against the β runs: mode separation ε(t) and high-goal success.

Predicted: the numbers ``docs/protocols/regime-d10-separation-beta.md`` registered before the β
runs, recomputed by the same code: the exact expected k3-regularised update on the goal-blind
two-goal bandit (:func:`analysis.theory.separation_dynamics.simulate`, G = 8, p = ½) from the
committed RC-GRPO run's start of the same seed (mean training success per goal over steps 1–5),
with the effective η fitted on seeds 3 and 4 at β = 0.1
(:func:`analysis.figures.fig_theory_separation_fit.results`); only β changes. Nothing is fitted
to the β runs.

Measured: in 10-step blocks of training steps, ε̂ = success under the high goal − under the low
goal (:func:`analysis.verdicts.half_life.separation_blocks`) and the high goal's success, each
with its binomial noise sd, of ``results/regime/regime-rcgrpo-beta{1,3}-s{3,4,5}`` and, for
β = 0.1, of the committed ``regime-rcgrpo-s{3,4,5}``.

:func:`results` (copied into the sidecar) gives per run the RMSE of the predicted against the
measured blocks, the noise floor (root mean square of the blocks' sd), and the last block's
measured and predicted ε and high-goal success: the prediction's error, stated per run.
"""

from __future__ import annotations

from functools import lru_cache

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis import REPO_ROOT
from analysis.figures import style as fs
from analysis.figures.fig_theory_separation_fit import INPUTS as FIT_INPUTS
from analysis.figures.fig_theory_separation_fit import results as fit_results
from analysis.runs import Run, load_run
from analysis.runs.extractors import series
from analysis.runs.folder import light_globs
from analysis.theory.separation_dynamics import bandit, bandit_rewards, simulate
from analysis.theory.separation_predictions import GROUP, STEPS, P
from analysis.verdicts.half_life import (
    binomial_var,
    rollouts_per_step,
    separation_blocks,
    step_blocks,
)

REQUIRES: tuple[str, ...] = ()
SEEDS = (3, 4, 5)
"""The seeds with a run of both β arms (the protocol's first three)."""
ARMS = {0.1: "regime-rcgrpo", 1.0: "regime-rcgrpo-beta1", 3.0: "regime-rcgrpo-beta3"}
"""β -> the preset of its runs (β = 0.1: the committed RC-GRPO runs the η was fitted on)."""
COLOURS = {0.1: "0.45", 1.0: "C0", 3.0: "C3"}
BLOCK = 10
INPUTS: tuple[str, ...] = tuple(
    dict.fromkeys(
        FIT_INPUTS
        + tuple(
            g
            for arm in ARMS.values()
            for s in SEEDS
            for g in light_globs(f"results/regime/{arm}-s{s}", REPO_ROOT)
        )
    )
)
"""The fit figure's inputs (η and each seed's start come from them), then the runs drawn."""
CAPTION = (
    "Registered predictions (lines: exact expected k3 update on a goal-blind two-goal bandit "
    "from each seed's RC-GRPO start, effective learning rate fitted at beta = 0.1 on seeds 3 "
    "and 4, only beta changed) against the beta = 0.1, 1 and 3 runs (points: 10-step blocks of "
    "training success, bars: binomial noise sd). Top: mode separation eps = success(high) - "
    "success(low); bottom: success under the high goal. RMSE per run in the sidecar."
)


def high_blocks(run: Run, block: int = BLOCK) -> pd.DataFrame:
    """Per block: ``step`` (last step), ``s`` = mean training success under the high goal and
    ``sd``, its binomial noise sd (the per-step variance h(1 − h)/n_high, as
    :func:`~analysis.verdicts.half_life.separation_blocks` does for ε)."""
    high, frac = series(run, "reward/success_high"), series(run, "reward/high_frac")
    df = pd.concat({"h": high, "f": frac}, axis=1).dropna()
    var = binomial_var(df["h"], df["f"] * rollouts_per_step(run))
    return step_blocks(df["h"], var, block).rename(columns={"mean": "s"})


def _block_means(values: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """Means over the block ending at each step (step k samples after k − 1 updates)."""
    return np.array([values[s - BLOCK : s].mean() for s in steps])


def _rmse(a: np.ndarray, b: np.ndarray) -> float:
    return round(float(np.sqrt(np.mean((np.asarray(a) - np.asarray(b)) ** 2))), 4)


def _floor(sd: np.ndarray) -> float:
    return round(float(np.sqrt(np.mean(np.asarray(sd) ** 2))), 4)


@lru_cache(maxsize=1)
def results() -> dict:
    """η and, per β and run: start, blocks, measured and predicted ε and s_high, RMSEs."""
    fit = fit_results()
    lr = fit["effective_lr"]
    out = {"effective_lr": lr, "fit_seeds": fit["fit_seeds"], "runs": {}}
    for beta, arm in ARMS.items():
        for s in SEEDS:
            start = tuple(fit["runs"][f"regime-rcgrpo-s{s}"]["start"])
            model = simulate(
                (bandit(start[0]), bandit(start[1])),
                bandit_rewards(),
                beta,
                lr,
                STEPS,
                GROUP,
                P,
                "k3",
            )
            run = load_run(REPO_ROOT / f"results/regime/{arm}-s{s}")
            eps, high = separation_blocks(run, BLOCK), high_blocks(run, BLOCK)
            steps = eps["step"].to_numpy()
            if not np.array_equal(steps, high["step"].to_numpy()):
                raise ValueError(f"{run.name}: the ε and success blocks differ")
            p_eps, p_high = _block_means(model["eps"], steps), _block_means(model["s_high"], steps)
            out["runs"][f"{arm}-s{s}"] = {
                "beta": beta,
                "seed": s,
                "start": [round(x, 4) for x in start],
                "steps": steps.tolist(),
                "eps_measured": np.round(eps["eps"], 4).tolist(),
                "eps_sd": np.round(eps["sd"], 4).tolist(),
                "eps_predicted": np.round(p_eps, 4).tolist(),
                "high_measured": np.round(high["s"], 4).tolist(),
                "high_sd": np.round(high["sd"], 4).tolist(),
                "high_predicted": np.round(p_high, 4).tolist(),
                "eps_rmse": _rmse(p_eps, eps["eps"]),
                "eps_noise_floor": _floor(eps["sd"]),
                "high_rmse": _rmse(p_high, high["s"]),
                "high_noise_floor": _floor(high["sd"]),
                "eps_last_block": [
                    round(float(eps["eps"].iloc[-1]), 4),
                    round(float(p_eps[-1]), 4),
                ],
                "high_last_block": [
                    round(float(high["s"].iloc[-1]), 4),
                    round(float(p_high[-1]), 4),
                ],
            }
    return out


def make_figure(runs: dict) -> Figure:
    res = results()
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(
            2,
            len(SEEDS),
            figsize=(12, 5.6),
            sharey="row",
            sharex=True,
            squeeze=False,
            constrained_layout=True,
        )
        for r in res["runs"].values():
            col, c = SEEDS.index(r["seed"]), COLOURS[r["beta"]]
            for row, key in ((0, "eps"), (1, "high")):
                ax = axes[row, col]
                ax.errorbar(
                    r["steps"],
                    r[f"{key}_measured"],
                    yerr=r[f"{key}_sd"],
                    fmt="o",
                    ms=2.5,
                    color=c,
                    alpha=0.8,
                    lw=0.8,
                )
                ax.plot(
                    r["steps"],
                    r[f"{key}_predicted"],
                    color=c,
                    lw=1.4,
                    label=f"β = {r['beta']:g} (RMSE {r[f'{key}_rmse']:.3f})",
                )
        for col, s in enumerate(SEEDS):
            axes[0, col].set_title(f"seed {s}", fontsize=9)
            axes[0, col].axhline(0, color="0.7", lw=0.6)
            axes[1, col].set_xlabel("RL step")
            for row in (0, 1):
                axes[row, col].legend(fontsize=6.5, loc="best")
        axes[0, 0].set_ylabel(r"$\varepsilon=s_{high}-s_{low}$")
        axes[1, 0].set_ylabel(r"$s_{high}$ (training)")
    return fig
