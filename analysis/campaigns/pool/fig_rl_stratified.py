r"""Stratified reward goals against i.i.d. goals in RC-GRPO (our proposal, verdicts 6a/6b).

Under i.i.d. goals the number of high goals in a group of G is Binomial(G, p), so a group
can draw all-high or all-low goals and lose its between-mode variance; stratified goals draw
exactly :math:`k = \mathrm{round}(pG)` high goals per group (``theory_variance``). Both arms
start from the same RCTP-FT checkpoints, same seeds and recipe: (a) zero-variance fraction
of the groups; (b) mean group reward variance :math:`\sigma_g^2`; (c) the 6a quantity,
paired by seed: the zero-variance fraction averaged over training, i.i.d. − stratified, with
the verdict's threshold; (d) held-out success under ``<|high_reward|>`` (greedy), the 6b
quantity at the last step.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from analysis.campaign.arms import roles
from analysis.campaigns.pool.verdicts import RULES
from analysis.figures import dynamics as dyn
from analysis.figures import style as fs
from analysis.stats import mean_ci

REQUIRES: tuple[str, ...] = ("factorial", "stratified")
CAPTION = (
    "RC-GRPO with stratified goals (exactly round(pG) high goals per group) against i.i.d. "
    "goals, same RCTP-FT checkpoints and seeds: (a) zero-variance group fraction and (b) "
    "mean group reward variance over RL; (c) zero-variance fraction averaged over training, "
    "i.i.d. minus stratified, paired by seed (verdict 6a: holds if the CI lies above the "
    "dashed threshold; dots are seeds); (d) held-out success under the high goal (verdict "
    "6b). Mean over seeds with 95% t-bands / CIs."
)

IID, STRAT = roles("pool")["rctp_rc"], roles("pool")["rctp_strat"]
"""RC-GRPO with i.i.d. and with stratified goals (:data:`analysis.campaign.arms.ARMS`, by role)."""
RULE_6A = next(r for r in RULES if r.claim.startswith("6a"))
"""The pre-registered rule panel (c) draws: its per-seed value and threshold."""


def _paired(iid: list, strat: list) -> list[float]:
    """Per seed, the 6a value of the rule (i.i.d. run, stratified run of that seed)."""
    seed = lambda r: r.config.get("run", {}).get("seed")  # noqa: E731
    by_seed = {seed(r): r for r in strat}
    return [RULE_6A.value([r, by_seed[seed(r)]]) for r in iid if seed(r) in by_seed]


def make_figure(runs: dict) -> Figure:
    strat = dyn.by_preset(runs["stratified"])
    seeds = {r.config.get("run", {}).get("seed") for rs in strat.values() for r in rs}
    iid = [
        r
        for r in dyn.by_preset(runs["factorial"]).get(IID, [])
        if r.config.get("run", {}).get("seed") in seeds
    ]
    groups = {IID: iid, **strat}
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, 4, figsize=(13.5, 3.2), constrained_layout=True)
        for ax, key, ylabel in (
            (axes[0], "group/zero_var_frac", "zero-variance groups"),
            (axes[1], "group/var_mean", r"mean group variance $\sigma_g^2$"),
        ):
            for preset, rs in groups.items():
                dyn.plot_band(ax, rs, key, preset)
            ax.set_xlabel("RL step")
            ax.set_ylabel(ylabel)
        diffs = _paired(iid, strat.get(STRAT, []))
        est = mean_ci(diffs)
        ax = axes[2]
        if est is not None:
            half = est.half_width
            ax.bar(0, est.mean, 0.6, color=fs.STRATIFIED, alpha=0.75, edgecolor="black", lw=0.5)
            if half is not None:
                ax.errorbar(0, est.mean, yerr=half, color="black", capsize=4)
            ax.scatter([0] * len(diffs), diffs, s=12, color="black", zorder=3)
        ax.axhline(RULE_6A.threshold, color=fs.BOUND, ls="--", lw=1)
        ax.axhline(0, color="black", lw=0.6)
        ax.set_xlim(-1, 1)
        ax.set_xticks([0])
        ax.set_xticklabels([f"i.i.d. − stratified\n(n={len(diffs)})"])
        ax.set_ylabel("Δ zero-variance groups")
        for preset, rs in groups.items():
            dyn.plot_band(axes[3], rs, "reward/eval_success", preset, smooth=1, marker="o", ms=3)
        axes[3].set_xlabel("RL step")
        axes[3].set_ylabel("held-out success (high goal)")
        axes[0].set_ylim(-0.02, 1.02)
        axes[3].set_ylim(-0.02, 1.02)
        for k, ax in enumerate(axes):
            fs.panel_label(ax, "abcd"[k])
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncol=2)
    return fig
