r"""The measured runs on the theory map: variance follows mode separation, not entropy.

(a, b) One panel per Stage-1 start (SFT, RCTP-FT). Each arm is its seed-mean trajectory of
(pooled mode separation :math:`\hat\mu_h-\hat\mu_l`, policy token entropy) over the RL steps
(trailing mean over ``dynamics.SMOOTH`` steps; circle = first step, square = last; dotted:
the entropy of the high-goal rollouts alone), drawn over the guaranteed
:math:`E[\sigma_g^2]` of the theory model at the runs' G and p
(:mod:`analysis.theory.separation_entropy`: the minimum over every reward-conditioned
policy with separation Δ, which does not depend on entropy). Arms whose groups hold one
goal (RCTP-FT + GRPO samples only the high goal) or none (GRPO and the baselines) have no
between-goal separation inside a group: they sit at Δ = 0, where no entropy guarantees any
variance. (c) Prop. 4.3 on the measured groups: per step, the observed mean group variance
against :math:`\kappa\hat\varepsilon^2` from the step's pooled separation (runs with i.i.d.
goals); points above the diagonal hold the bound.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis.campaign.arms import arm
from analysis.diagnostics.goal_split import two_goals
from analysis.figures import dynamics as dyn
from analysis.figures import style as fs
from analysis.runs import Run
from analysis.theory.separation_entropy import variance_envelope

REQUIRES: tuple[str, ...] = ("factorial", "baselines")
CAPTION = (
    "Runs over theory: (a, b) per Stage-1 start, each arm's seed-mean trajectory of pooled "
    "mode separation and policy token entropy over RL (circle = start, square = end; "
    "dotted: entropy of the high-goal rollouts) over "
    "the guaranteed E[sigma_g^2] of the two-mode model at the runs' G and p; arms without "
    "two goals in a group sit at separation 0; (c) observed mean group variance per step "
    "against the Prop. 4.3 bound kappa * eps^2 from the measured separation (above the "
    "diagonal: the bound holds on the measured groups)."
)
SEP, ENTROPY, ENTROPY_HIGH, VAR, BOUND = (
    "group/mode_sep_pooled",
    "policy/entropy",
    "policy/entropy_high",
    "group/var_mean",
    "theory/var_bound_iid",
)
STARTS = {"sft": "SFT start", "rctp": "RCTP-FT start"}


def start_of(preset: str) -> str:
    """``sft`` or ``rctp``: the Stage-1 checkpoint an arm starts from (its record)."""
    record = arm(preset)
    return record.start if record is not None else "rctp"


def sampling(runs: list[Run]) -> tuple[int, float]:
    """(G, p) of the first run with two goals; without one, G of any run and p = 1/2."""
    rc = [r for r in runs if two_goals(r)]
    cfg = (rc or runs)[0].config if runs else {}
    group = int(cfg.get("rollout", {}).get("group_size", 5))
    return group, float(cfg.get("algo", {}).get("p_high", 0.5)) if rc else 0.5


def guaranteed_variance(delta: np.ndarray, group: int, p: float) -> np.ndarray:
    """min over all policies with separation |Δ| of E[σ_g²] (the map's colour), per Δ."""
    entropy = np.linspace(0.0, np.log(2) + np.log(8), 40)
    lo, _ = variance_envelope(np.abs(delta), entropy, group, p, paraphrases=8, resolution=401)
    return np.nanmin(lo, axis=0)


def trajectory(runs: list[Run], entropy_key: str = ENTROPY) -> tuple[np.ndarray, np.ndarray]:
    """Seed-mean (separation, entropy) per step; separation 0 for one-goal arms."""
    entropy = dyn.band(runs, entropy_key)["mean"]
    if all(two_goals(r) for r in runs):
        sep = dyn.band(runs, SEP)["mean"].reindex(entropy.index)
    else:
        sep = entropy * 0.0
    keep = np.isfinite(sep.to_numpy()) & np.isfinite(entropy.to_numpy())
    return sep.to_numpy()[keep], entropy.to_numpy()[keep]


def _map(ax, group: int, p: float, ylim: tuple[float, float], xlim: tuple[float, float]):
    """The guaranteed E[σ_g²] as a background (constant along the entropy axis)."""
    delta = np.linspace(*xlim, 161)
    colour = np.tile(guaranteed_variance(delta, group, p), (2, 1))
    vmax = (group - 1) / group * 0.25
    kw = {"cmap": "Greys", "vmin": 0, "vmax": vmax, "shading": "auto", "alpha": 0.55}
    mesh = ax.pcolormesh(delta, np.array(ylim), colour, rasterized=True, **kw)
    right = delta >= 0
    for level in (0.05, 0.1, 0.15):  # where the guaranteed variance reaches a level
        x = float(np.interp(level, colour[0][right], delta[right]))
        ax.axvline(x, color="0.35", lw=0.6, ls=":")
        ax.text(x, ylim[1], f" {level:g}", va="top", ha="left", fontsize=6.5, color="0.25")
    return mesh


def _trajectories(ax, groups: dict[str, list[Run]]) -> None:
    for preset, rs in groups.items():
        x, y = trajectory(rs)
        if not len(x):
            continue
        style = "-" if all(two_goals(r) for r in rs) else "--"
        c = dyn.color(preset)
        ax.plot(x, y, style, color=c, lw=1.4, label=f"{dyn.label(preset)} (n={len(rs)})")
        ax.plot(x[0], y[0], "o", color=c, ms=5, mfc="white")
        ax.plot(x[-1], y[-1], "s", color=c, ms=5)
        if style == "-":  # the entropy of the high-goal rollouts, the goal evaluation uses
            xh, yh = trajectory(rs, ENTROPY_HIGH)
            ax.plot(xh, yh, ":", color=c, lw=1.2, label=f"{dyn.label(preset)}, high goal")


def bound_points(runs: list[Run]) -> tuple[np.ndarray, np.ndarray]:
    """(κ·ε̂², observed mean σ_g²) of every training step of ``runs`` that logged both."""
    pairs = [
        pd.concat([dyn.series(r, BOUND, smooth=1), dyn.series(r, VAR, smooth=1)], axis=1).dropna()
        for r in runs
    ]
    both = pd.concat(pairs) if pairs else pd.DataFrame(np.zeros((0, 2)))
    return both.iloc[:, 0].to_numpy(float), both.iloc[:, 1].to_numpy(float)


def _bound_panel(ax, groups: dict[str, list[Run]]) -> None:
    top = 0.05
    for preset, rs in groups.items():
        bound, var = bound_points([r for r in rs if two_goals(r)])
        if not len(bound):
            continue
        above = float(np.mean(var >= bound))
        label = f"{dyn.label(preset)}: {above:.0%} of {len(bound)} steps above"
        ax.scatter(bound, var, s=9, alpha=0.6, color=dyn.color(preset), label=label)
        top = max(top, 1.05 * float(max(bound.max(), var.max())))
    diag = r"$\sigma_g^2=\kappa\hat\varepsilon^2$"
    ax.plot([0, top], [0, top], "--", color=fs.BLACK, lw=1.0, label=diag)
    ax.set(xlim=(0, top), ylim=(0, top), xlabel=r"$\kappa\hat\varepsilon^2$ (Prop. 4.3)")
    ax.set_ylabel(r"observed mean $\sigma_g^2$")
    ax.legend(loc="upper left", fontsize=6.5)


def make_figure(runs: dict) -> Figure:
    groups = dyn.by_preset([*runs["factorial"], *runs["baselines"]])
    every = [r for rs in groups.values() for r in rs]
    group, p = sampling(every)
    entropies = np.concatenate([trajectory(rs)[1] for rs in groups.values()] or [np.zeros(1)])
    ylim = (max(0.0, float(np.min(entropies)) - 0.1), float(np.max(entropies)) + 0.1)
    xlim = (-0.15, 1.0)
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, 3, figsize=(13.5, 3.8), layout="constrained")
        for k, (start, title) in enumerate(STARTS.items()):
            ax = axes[k]
            mesh = _map(ax, group, p, ylim, xlim)
            _trajectories(ax, {a: rs for a, rs in groups.items() if start_of(a) == start})
            ax.axvline(0, color="0.5", lw=0.6)
            ax.set(
                xlim=xlim,
                ylim=ylim,
                title=f"{title} (G = {group}, p = {p:g})",
                xlabel=r"mode separation $\hat\mu_h-\hat\mu_l$",
            )
            ax.legend(loc="center right", fontsize=6.5)
            fs.panel_label(ax, "ab"[k])
        axes[0].set_ylabel("policy entropy (nats / token)")
        cbar = fig.colorbar(mesh, ax=axes[:2], shrink=0.85, pad=0.01)
        cbar.set_label(r"guaranteed $E[\sigma_g^2]$")
        _bound_panel(axes[2], groups)
        fs.panel_label(axes[2], "c")
    return fig
