"""Per-step training instrumentation of one or more RL runs, as one grid of panels.

Each :class:`Panel` plots a few registry metrics (``rcgrpo.metrics``) against the RL step;
each run gets one colour, each metric of a panel one line style. Metrics a run did not log
(e.g. per-token metrics of a run without reward tokens) are skipped, and a panel with
nothing to show says so, so a missing series is visible rather than silently absent.
Step 0 (the evaluation of the starting policy) has no training metrics and drops out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from analysis.figures import style as fs
from analysis.runs import Run


@dataclass(frozen=True)
class Panel:
    """One subplot: a title, a y label and ``(metric, legend label)`` pairs."""

    title: str
    ylabel: str
    metrics: tuple[tuple[str, str], ...]


PANELS: tuple[Panel, ...] = (
    Panel(
        "reward per token",
        "mean reward",
        (("reward/mean", "all"), ("reward/mean_high", "high"), ("reward/mean_low", "low")),
    ),
    Panel(
        "zero-variance groups",
        "fraction of groups",
        (
            ("group/zero_var_frac", "observed"),
            ("group/zero_var_success_frac", "all success"),
            ("group/zero_var_fail_frac", "all fail"),
            ("group/zero_var_predicted", r"predicted $s^G+(1-s)^G$"),
        ),
    ),
    Panel(
        "advantage spread",
        r"$\max_j A_j-\min_j A_j$",
        (("adv/gap_mean", "mean"), ("adv/gap_min", "min")),
    ),
    Panel(
        "mode separation",
        r"$\hat\mu_h-\hat\mu_l$",
        (("group/mode_sep_pooled", "pooled"), ("group/mode_sep_mean", "per group")),
    ),
    Panel(
        "group reward variance",
        r"$\sigma_g^2$",
        (
            ("group/var_mean", "total"),
            ("group/var_between_mean", "between tokens"),
            ("group/var_within_mean", "within tokens"),
            ("theory/var_bound_iid", r"$\kappa\hat\varepsilon^2$"),
        ),
    ),
    Panel(
        "entropy",
        "nats / token",
        (("policy/entropy", "all"), ("policy/entropy_high", "high"), ("policy/entropy_low", "low")),
    ),
    Panel("KL to reference", r"$k_3$ per token", (("policy/kl_ref", "KL"),)),
    Panel("gradient norm", r"$\|\nabla_\theta L\|_2$", (("policy/grad_norm", "pre-clip"),)),
)
"""The default grid: the quantities of the paper's Fig. 2 and Tables 4-5, and collapse."""

STYLES = ("-", "--", ":", "-.")
COLORS = (fs.BLUE, fs.VERMILION, fs.GREEN, fs.ORANGE, fs.PURPLE, fs.SKY, fs.BLACK, fs.YELLOW)


def _draw_panel(ax, panel: Panel, frames: dict[str, pd.DataFrame]) -> int:
    """Draw one panel from per-run metric frames (a ``step`` column); returns the series."""
    drawn = 0
    for r, (run_name, df) in enumerate(frames.items()):
        if "step" not in df:
            continue
        train = df[df["step"] >= 1]
        for m, (metric, label) in enumerate(panel.metrics):
            if metric not in train or train[metric].isna().all():
                continue
            rows = train[["step", metric]].dropna()
            name = label if len(frames) == 1 else f"{run_name}: {label}"
            ax.plot(
                rows["step"],
                rows[metric],
                STYLES[m % len(STYLES)],
                color=COLORS[r % len(COLORS)],
                label=name,
                lw=1.3,
            )
            drawn += 1
    ax.set(title=panel.title, xlabel="RL step", ylabel=panel.ylabel)
    if drawn:
        ax.legend(fontsize=6.5, loc="best")
    else:
        ax.text(
            0.5, 0.5, "not logged", ha="center", va="center", transform=ax.transAxes, color="0.4"
        )
    return drawn


def plot_instrumentation(
    runs: Sequence[Run],
    panels: Sequence[Panel] = PANELS,
    ncols: int = 4,
    frames: dict[str, pd.DataFrame] | None = None,
) -> Figure:
    """A grid with one :class:`Panel` per axis, every run overlaid; ``frames`` (run name ->
    metrics with a ``step`` column) replaces the logged metrics, e.g. with recomputed ones."""
    if not runs:
        raise ValueError("runs must hold at least one run")
    if ncols < 1:
        raise ValueError(f"ncols must be >= 1, got {ncols}")
    frames = frames if frames is not None else {run.name: run.metrics for run in runs}
    nrows = -(-len(panels) // ncols)
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(
            nrows, ncols, figsize=(3.2 * ncols, 2.6 * nrows), layout="constrained", squeeze=False
        )
        flat = axes.ravel()
        for ax, panel in zip(flat, panels, strict=False):
            _draw_panel(ax, panel, frames)
        for ax in flat[len(panels) :]:
            ax.set_visible(False)
    return fig
