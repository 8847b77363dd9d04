r"""The collapse-pairs design in one figure: each minimal-pair variant's gates against their
thresholds (``docs/protocols/collapse-pairs.md``; the numbers of the ``collapse-pairs-verdict``
block of ``docs/results/collapse-pairs.md``, :mod:`analysis.campaigns.collapse_pairs.verdict`).

Every complete measurement the protocol's order reached (design seed 31; seed 32 once a
variant goes on to it), in order, then each registered replication at seed 32 the order did not
call for (:func:`~analysis.campaigns.collapse_pairs.verdict.replications`: P4), marked as such.
(a) Gate R's instrument: P(right) at the planted swap
decisions, pooled, under the high and the low goal (200 held-out tasks × 32 samples per goal,
τ = 1), with R's first window shaded (high ≤ 0.30). (b) Gate R itself: high − low with its 95%
interval over the tasks, against the 0.10 threshold (its interval must clear 0.05), each
value written beside its point. (c) Gates C
and C′: the mean all-fail share over steps 1–50 of the 50-step GRPO pilots (G = 5) from the
matched SFT and from the minimal-pair RCTP-FT, against 0.5. (d) Those pilots per step (5-step
trailing means; solid C′, dotted C).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from analysis import REPO_ROOT
from analysis.campaigns.collapse_design.gates import C_ALL_FAIL, R_HIGH_MAX, R_SEPARATION
from analysis.campaigns.collapse_pairs import gates
from analysis.campaigns.collapse_pairs import verdict as vd
from analysis.figures import style as fs
from analysis.runs import load_run
from analysis.runs.extractors import series
from analysis.runs.folder import light_globs

REQUIRES: tuple[str, ...] = ()
INPUTS: tuple[str, ...] = (
    "results/diagnostics/transfer-rctp-p*-s3*.json",
    *light_globs("results/collapse-pairs/pilot-*", REPO_ROOT),
)
"""Files the figure reads (repository-relative): the gate R / ρ diagnostics and the pilots."""
SMOOTH = 5
CAPTION = (
    "The fair test's design on collapse1-d10 (tiny Qwen2, CPU; minimal-pair RCTP-FT variants "
    "P1-P4 at design seed 31, then the registered seed-32 replication): (a) P(right) at the "
    "planted swap decisions under the high and the low goal (200 held-out tasks x 32 samples "
    "each), R's window high <= 0.30 shaded; "
    "(b) gate R, high - low with 95% interval, against 0.10; (c) gates C and C', the all-fail "
    "share over steps 1-50 of GRPO (G = 5) from the matched SFT and from RCTP-FT, against 0.5; "
    "(d) those pilots per step (5-step trailing means)."
)


def _tick(m: gates.Measure, p4_pairs: int | None, replication: bool) -> str:
    """A measurement's tick label: variant and seed, "replication" if it is one, its design."""
    design = vd.dose(m.variant, p4_pairs).replace(", decision tokens ", ",\ndecision ")
    return "\n".join([f"{m.variant.upper()} s{m.seed}", *["replication"] * replication, design])


def make_figure(runs: dict) -> Figure:
    st = vd.status()
    replicated = vd.replications(st)
    measured = [*st.measured, *replicated]
    p4 = gates.p4_dose()
    labels = [_tick(m, p4, i >= len(st.measured)) for i, m in enumerate(measured)]
    x = np.arange(len(measured))
    colours = (fs.VERMILION, fs.SKY, fs.GREEN, fs.PURPLE, fs.ORANGE, fs.BLACK, "0.5", fs.BLUE)
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, 4, figsize=(17, 3.9), layout="constrained")
        ax = axes[0]
        ax.axhspan(0, R_HIGH_MAX, color=fs.GREEN, alpha=0.08, lw=0, label="R: high ≤ 0.30")
        for key, goal, marker in (("p_high", "high", "o"), ("p_low", "low", "s")):
            colour = fs.VERMILION if goal == "high" else fs.SKY
            y = [m.r[key] for m in measured]
            ax.plot(
                x,
                y,
                marker,
                color=colour,
                ms=6,
                mfc="none" if goal == "low" else colour,
                label=f"P(right | {goal})",
            )
        ax.set(ylabel="P(right) at the swap, sampled", ylim=(0, 1))
        ax.legend(loc="upper left", fontsize=7)
        ax = axes[1]
        diff = np.array([m.r["diff"] for m in measured])
        lo = np.array([m.r["ci"][0] for m in measured])
        hi = np.array([m.r["ci"][1] for m in measured])
        ax.errorbar(
            x,
            diff,
            yerr=[diff - lo, hi - diff],
            fmt="o",
            ms=5,
            capsize=3,
            color=fs.BLACK,
            label="high − low, 95% CI",
        )
        ax.axhline(R_SEPARATION, color=fs.VERMILION, ls="--", lw=1, label="R: ≥ 0.10")
        ax.axhline(gates.R_CI_LOW, color=fs.VERMILION, ls=":", lw=1, label="R: CI above 0.05")
        ax.axhline(0, color="0.6", lw=0.6)
        for xi, d in zip(x, diff, strict=True):
            ax.annotate(
                f"{d:+.3f}", (xi, d), textcoords="offset points", xytext=(6, -3), fontsize=7
            )
        top = max(0.16, float(hi.max()) + 0.05)
        ax.set(ylabel="P(right | high) − P(right | low)", ylim=(-0.05, top))
        ax.legend(loc="upper left", fontsize=7)
        ax = axes[2]
        width = 0.36
        ax.bar(x - width / 2, [m.c for m in measured], width, color=fs.SKY, label="C: SFT + GRPO")
        ax.bar(
            x + width / 2,
            [m.cprime for m in measured],
            width,
            color=fs.VERMILION,
            label="C′: RCTP-FT + GRPO",
        )
        ax.axhline(C_ALL_FAIL, color=fs.BLACK, ls="--", lw=1, label="C, C′: ≥ 0.5")
        ax.set(ylabel="all-fail share of groups, steps 1–50", ylim=(0, 1))
        ax.legend(loc="upper right", fontsize=7)
        for ax in axes[:3]:
            ax.set_xticks(x, labels, fontsize=6.5)
            ax.set_xlim(-0.6, len(measured) - 0.4)
        ax = axes[3]
        for m, colour in zip(measured, colours, strict=False):
            for gate, ls in (("cprime", "-"), ("c", ":")):
                run = load_run(gates.RESULTS / f"pilot-{gate}-{m.variant}-s{m.seed}")
                y = series(run, "group/zero_var_fail_frac").rolling(SMOOTH, min_periods=1)
                y = y.mean()
                name = f"{m.variant.upper()} s{m.seed}" if gate == "cprime" else None
                ax.plot(y.index, y.values, ls=ls, color=colour, lw=1.2, label=name)
        ax.axhline(C_ALL_FAIL, color=fs.BLACK, ls="--", lw=1)
        ax.set(xlabel="RL step", ylabel="all-fail share (solid C′, dotted C)", ylim=(0, 1))
        ax.legend(loc="upper right", fontsize=7)
        for ax, letter in zip(axes, "abcd", strict=True):
            fs.panel_label(ax, letter)
    return fig
