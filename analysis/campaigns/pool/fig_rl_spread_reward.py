r"""The paper's Fig. 2 from the runs: advantage spread and reward over RL, per factorial cell.

(a) Within-group advantage spread :math:`\max_j A_j-\min_j A_j`, mean over the step's groups
(``adv/gap_mean``); (b) training reward, mean over the step's rollouts (``reward/mean``; RC
arms: both goals); (c) held-out success at every evaluation step (greedy; RC arms under
``<|high_reward|>``). (a, b): seed mean ± 95% t-band, trailing mean over ``dynamics.SMOOTH``
steps; (c): seed mean ± 95% t-interval at each step where the runs evaluated.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from analysis.figures import dynamics as dyn
from analysis.figures import style as fs
from analysis.runs import Run
from analysis.stats import mean_ci

REQUIRES: tuple[str, ...] = ("factorial",)
CAPTION = (
    "Fig. 2 analogue on the synth suite (tiny Qwen2, CPU): (a) within-group advantage "
    "spread max A - min A and (b) training reward over RL steps for the four factorial "
    f"cells (seed mean, 95% t-band, {dyn.SMOOTH}-step trailing mean); (c) held-out success at each "
    "evaluation step (RC arms under the high goal; seed mean with 95% t-interval)."
)
EVAL = "reward/eval_success"


def eval_points(runs: list[Run]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(steps, seed means, t half-widths, 0 for one seed) of held-out success per eval step."""
    table = [dyn.series(r, EVAL, smooth=1) for r in runs]
    steps = sorted({int(s) for t in table for s in t.index})
    means, halves = [], []
    for step in steps:
        est = mean_ci(t.get(step, np.nan) for t in table)
        means.append(np.nan if est is None else est.mean)
        halves.append(0.0 if est is None or est.half_width is None else est.half_width)
    return np.array(steps), np.array(means), np.array(halves)


def make_figure(runs: dict) -> Figure:
    groups = dyn.by_preset(runs["factorial"])
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, 3, figsize=(12.5, 3.3), layout="constrained")
        for ax, key, ylabel in (
            (axes[0], "adv/gap_mean", r"advantage spread $\max_j A_j-\min_j A_j$"),
            (axes[1], "reward/mean", "training reward"),
        ):
            for preset, rs in groups.items():
                dyn.plot_band(ax, rs, key, preset)
            ax.set(xlabel="RL step", ylabel=ylabel)
            ax.set_ylim(bottom=0)
        last = max((int(r.metrics["step"].max()) for rs in groups.values() for r in rs), default=1)
        for i, (preset, rs) in enumerate(groups.items()):
            steps, mean, half = eval_points(rs)
            offset = (i - (len(groups) - 1) / 2) * 0.015 * last  # keep the error bars apart
            axes[2].errorbar(
                steps + offset,
                mean,
                yerr=half,
                fmt="o-",
                ms=4,
                capsize=3,
                color=dyn.color(preset),
                lw=1.2,
            )
        axes[2].set(xlabel="RL step", ylabel="held-out success", ylim=(0, 1.02))
        for k, ax in enumerate(axes):
            fs.panel_label(ax, "abc"[k])
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncol=max(1, len(groups)))
    return fig
