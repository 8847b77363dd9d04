"""The figures of the diagnose report, one ``make_*(rows) -> Figure`` per figure, each drawn
from the per-step rows of :func:`rcgrpo.diagnose.analysis.step_row` (no pyplot state: a
``matplotlib.figure.Figure`` per call).

- ``collapse``: zero-variance share split into all-pass / all-fail / other (stacked), with
  the i.i.d. prediction s̄^G + (1-s̄)^G;
- ``spread``: the within-group advantage spread max A - min A (mean, and min-max over groups);
- ``variance``: mean group reward variance σ_g², split between / within goal when the run
  has goals, with Prop. 4.3's bound κ ε² when P(high) is known.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from matplotlib.figure import Figure


def _series(rows: list[dict], key: str) -> list[float]:
    return [r.get(key, math.nan) if r.get(key) is not None else math.nan for r in rows]


def _axes(title: str, ylabel: str):
    fig = Figure(figsize=(7.0, 3.2), dpi=100, layout="constrained")
    ax = fig.add_subplot()
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("step")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    return fig, ax


def make_collapse(rows: list[dict]) -> Figure:
    steps = [r["step"] for r in rows]
    fig, ax = _axes("Groups with identical rewards (zero advantage)", "share of groups")
    parts = [
        _series(rows, "group/zero_var_success_frac"),
        _series(rows, "group/zero_var_fail_frac"),
        _series(rows, "group/zero_var_other_frac"),
    ]
    ax.stackplot(steps, *parts, labels=["all pass", "all fail", "constant, other"], alpha=0.6)
    pred = _series(rows, "group/zero_var_predicted_pooled")
    ax.plot(steps, pred, "k--", lw=1.2, label="i.i.d. prediction s^G + (1-s)^G")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8, loc="upper left")
    return fig


def make_spread(rows: list[dict]) -> Figure:
    steps = [r["step"] for r in rows]
    fig, ax = _axes("Within-group advantage spread (max A - min A)", "spread")
    low, high = _series(rows, "adv/gap_min"), _series(rows, "adv/gap_max")
    ax.fill_between(steps, low, high, alpha=0.25, label="min-max over groups")
    ax.plot(steps, _series(rows, "adv/gap_mean"), lw=1.5, label="mean over groups")
    ax.legend(fontsize=8, loc="upper right")
    return fig


def make_variance(rows: list[dict]) -> Figure:
    steps = [r["step"] for r in rows]
    fig, ax = _axes("Group reward variance σ_g² (ddof 0)", "mean σ_g²")
    if "group/var_between_mean" in rows[0]:
        ax.stackplot(
            steps,
            _series(rows, "group/var_between_mean"),
            _series(rows, "group/var_within_mean"),
            labels=["between goals", "within goal"],
            alpha=0.6,
        )
    else:
        ax.plot(steps, _series(rows, "group/var_mean"), lw=1.5, label="mean σ_g²")
    if "theory/var_bound_iid" in rows[0]:
        ax.plot(
            steps, _series(rows, "theory/var_bound_iid"), "k--", lw=1.2, label="κ ε² (Prop. 4.3)"
        )
    ax.legend(fontsize=8, loc="upper right")
    return fig


FIGURES: dict[str, tuple[str, Callable[[list[dict]], Figure]]] = {
    "collapse": ("Collapse against its i.i.d. prediction", make_collapse),
    "spread": ("Advantage spread", make_spread),
    "variance": ("Where the group variance comes from", make_variance),
}
"""Figure name -> (caption, maker), in report order."""
