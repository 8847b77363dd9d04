r"""Stage-1 budget: the campaign's SFT recipe vs the length-curriculum recipes (CPU).

(a) SFT loss on assistant tokens (trailing mean over 100 steps) against the run's own CPU
time, one line per seed: the campaign's ``sft-synth-cpu`` (grey),
``sft-synth-cpu-curriculum`` (cosine lr) and ``sft-synth-cpu-wsd`` (warmup-stable-decay
lr, beta2 0.95, 2.1 epochs); the dotted vertical line is the issue's 15-minute budget. A
curriculum run's first 625 steps are its shortest batches, so its early loss is not
comparable. (b) Final held-out success (greedy, the run's own evaluation) of SFT and of
RCTP-FT under ``<|high_reward|>`` and ``<|low_reward|>``, per recipe: bar = seed mean, dots =
seeds; dotted lines: the targets 0.5 and 0.1.
"""

from __future__ import annotations

import numpy as np
from matplotlib import pyplot as plt
from matplotlib.figure import Figure

from analysis.figures import style as fs
from analysis.figures.fig_stage1 import by_stage
from analysis.runs import Run

REQUIRES: tuple[str, ...] = ("stage1", "stage1-curriculum", "stage1-wsd")
CAPTION = (
    "Stage-1 budget (tiny Qwen2 from scratch, synth suite, one CPU core per run): (a) SFT loss "
    "against CPU time per seed, campaign recipe (grey) vs length curriculum with cosine and with "
    "warmup-stable-decay lr (colours), dotted: "
    "15 CPU minutes; (b) held-out success of SFT and RCTP-FT (high / low token) per recipe, "
    "bars = seed mean, dots = seeds."
)
LOSS_SMOOTH = 100
"""Trailing mean (logged steps) of the loss curves."""
BUDGET_S = 900.0
"""The issue's SFT budget: 15 CPU minutes."""
GREY = "#999999"
RECIPES = (
    ("stage1", "campaign recipe", GREY),
    ("stage1-curriculum", "curriculum, cosine lr", fs.VERMILION),
    ("stage1-wsd", "curriculum, WSD lr", fs.BLUE),
)
BARS = (("SFT", "sft", ""), ("RCTP-FT high", "rctp", ""), ("RCTP-FT low", "rctp", "_low"))


def _final(run: Run, suffix: str) -> float:
    return float(run.summary.get("final_metrics", {}).get(f"sft/eval_combined{suffix}", np.nan))


def make_figure(runs: dict) -> Figure:
    with plt.rc_context(fs.RC):
        fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 3.4), constrained_layout=True)
        width = 0.8 / len(RECIPES)
        for k, (exp, label, colour) in enumerate(RECIPES):
            stages = by_stage(runs.get(exp, []))
            for i, run in enumerate(stages.get("sft", [])):
                df = run.metrics
                if "loss/sft" not in df or "perf/cpu_time_s" not in df:
                    continue
                loss = df["loss/sft"].rolling(LOSS_SMOOTH, min_periods=1).mean()
                ax.plot(
                    df["perf/cpu_time_s"],
                    loss,
                    color=colour,
                    lw=1.0,
                    label=label if i == 0 else None,
                )
            for j, (_, stage, suffix) in enumerate(BARS):
                vals = np.array([_final(r, suffix) for r in stages.get(stage, [])], dtype=float)
                vals = vals[np.isfinite(vals)]
                if not len(vals):
                    continue
                x = j + (k - (len(RECIPES) - 1) / 2) * width
                bx.bar(
                    x,
                    vals.mean(),
                    width * 0.95,
                    color=colour,
                    alpha=0.8,
                    edgecolor="black",
                    linewidth=0.5,
                    label=label if j == 0 else None,
                )
                bx.scatter(np.full(len(vals), x), vals, s=9, color="black", zorder=3)
        ax.axvline(BUDGET_S, ls=":", color="grey", lw=1)
        ax.set_yscale("log")
        ax.set_xlabel("CPU time of the run (s)")
        ax.set_ylabel("SFT loss (nats/token)")
        ax.legend()
        for y in (0.5, 0.1):
            bx.axhline(y, ls=":", color="grey", lw=1)
        bx.set_xticks(range(len(BARS)))
        bx.set_xticklabels([name for name, _, _ in BARS])
        bx.set_ylim(0, 1.02)
        bx.set_ylabel("held-out success (greedy)")
        bx.legend(loc="upper right")
        for k, a in enumerate((ax, bx)):
            fs.panel_label(a, "ab"[k])
    return fig
