r"""Theory figure: :math:`E[\sigma_g^2]` vs mode separation, i.i.d. and stratified tokens.

(a) G = 5, p = ½, binary rewards with the low-token mode always failing
(:math:`\mu_l=0`, :math:`\mu_h=\Delta`): exact :math:`E[\sigma_g^2]` for i.i.d. tokens (Prop. 4.3)
and stratified tokens (k = 3), Monte Carlo through ``sample_reward_tokens`` and
``group_advantages`` (±5σ), and the bounds :math:`\kappa\Delta^2=0.2\Delta^2` and
:math:`k(G-k)/G^2\,\Delta^2=0.24\Delta^2` (attained by deterministic conditional rewards).
(b) The two constants against G at p = ½.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.figure import Figure

from analysis.figures import style as fs
from analysis.theory.variance_guarantee import (
    expected_group_variance_iid,
    expected_group_variance_stratified,
    group_variance_mc,
    kappa,
    kappa_stratified,
)
from rcgrpo.conditioning import stratified_count

REQUIRES: tuple[str, ...] = ()
CAPTION = (
    "Expected within-group reward variance against the mode separation Delta = mu_h - mu_l "
    "(G = 5, p = 1/2, low token always fails): exact for i.i.d. (Prop. 4.3) and stratified "
    "tokens, Monte Carlo, and the bounds 0.2 Delta^2 and 0.24 Delta^2; right: the bound "
    "constants against G."
)

GROUP, P = 5, 0.5


def bernoulli(mu: float):
    return np.array([0.0, 1.0]), np.array([1.0 - mu, mu])


def point(x: float):
    return np.array([x]), np.array([1.0])


def _mc_points(ax, num_groups: int) -> None:
    """Monte Carlo E[σ_g²] through sample_reward_tokens + group_advantages, ±5σ bars."""
    gen = torch.Generator().manual_seed(0)
    pts = np.linspace(0.1, 1.0, 7)
    for scheme, color in (("iid", fs.EXACT), ("stratified", fs.STRATIFIED)):
        samples = [
            group_variance_mc(bernoulli(d), bernoulli(0.0), P, GROUP, scheme, num_groups, gen)
            for d in pts
        ]
        means = np.array([s.mean() for s in samples])
        errs = np.array([5 * s.std(ddof=1) / np.sqrt(s.size) for s in samples])
        label = "Monte Carlo" if scheme == "iid" else None
        style = {"fmt": "o", "ms": 3.5, "mec": fs.BLACK, "mew": 0.6, "capsize": 2, "lw": 1.0}
        ax.errorbar(pts, means, yerr=errs, color=color, label=label, **style)


def _panel_delta(ax, num_groups: int = 20_000) -> None:
    k = stratified_count(P, GROUP)
    delta = np.linspace(0.0, 1.0, 201)
    iid = [expected_group_variance_iid(bernoulli(d), bernoulli(0.0), P, GROUP) for d in delta]
    strat = [
        expected_group_variance_stratified(bernoulli(d), bernoulli(0.0), k, GROUP) for d in delta
    ]
    ax.plot(delta, iid, color=fs.EXACT, label="i.i.d. tokens (Prop. 4.3), exact")
    ax.plot(delta, strat, color=fs.STRATIFIED, label=rf"stratified tokens ($k={k}$), exact")
    ax.plot(
        delta,
        kappa(GROUP, P) * delta**2,
        color=fs.EXACT,
        ls="--",
        label=r"bound $\kappa\Delta^2=0.2\Delta^2$",
    )
    ax.plot(
        delta,
        kappa_stratified(GROUP, k) * delta**2,
        color=fs.STRATIFIED,
        ls="--",
        label=r"bound $\frac{k(G-k)}{G^2}\Delta^2=0.24\Delta^2$",
    )
    _mc_points(ax, num_groups)
    ax.text(
        0.98,
        0.02,
        "bounds = exact value for\ndeterministic conditional rewards",
        ha="right",
        fontsize=7.5,
        color="0.3",
    )
    ax.set(
        xlim=(0, 1),
        ylim=(0, 0.26),
        xlabel=r"mode separation $\Delta=\mu_h-\mu_l$",
        ylabel=r"$E[\sigma_g^2]$",
        title=rf"$G={GROUP}$, $p=1/2$, $\mu_l=0$, $\mu_h=\Delta$",
    )
    ax.legend(loc="upper left")


def _panel_constants(ax) -> None:
    sizes = list(range(2, 17))
    ax.plot(
        sizes,
        [kappa(g, P) for g in sizes],
        "o-",
        color=fs.EXACT,
        ms=3.5,
        label=r"i.i.d.: $\kappa=\frac{G-1}{G}p(1-p)$",
    )
    ax.plot(
        sizes,
        [kappa_stratified(g, stratified_count(P, g)) for g in sizes],
        "s-",
        color=fs.STRATIFIED,
        ms=3.5,
        label=r"stratified: $\frac{k(G-k)}{G^2}$, $k=\mathrm{round}(pG)$",
    )
    ax.axhline(0.25, color="0.5", lw=0.8, ls=":")
    ax.set_xticks(range(2, 17, 2))
    ax.set(
        xlim=(1.5, 16.5),
        ylim=(0.1, 0.26),
        xlabel=r"group size $G$",
        ylabel=r"bound constant (coefficient of $\varepsilon^2$)",
        title=r"$p=1/2$",
    )
    ax.legend(loc="lower right")


def make_figure(runs: dict) -> Figure:
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(
            1, 2, figsize=(8.6, 3.5), width_ratios=(1.35, 1.0), layout="constrained"
        )
        _panel_delta(axes[0])
        _panel_constants(axes[1])
        for ax, letter in zip(axes, "ab", strict=True):
            fs.panel_label(ax, letter)
    return fig
