r"""Stage 1 on the synth suite: SFT and RCTP-FT of the tiny Qwen2 from scratch (CPU).

(a) SFT training loss on assistant tokens (trailing mean over 50 logged steps) against the
run's own CPU time, one line per seed; the dotted vertical line is the 15-CPU-minute budget
of the recipe (``sft-synth-cpu``); (b) held-out success (greedy) of the final SFT model and
of the RCTP-FT model conditioned on ``<|high_reward|>`` and on ``<|low_reward|>``, per
episode mode, seed mean with 95% t-CI and a dot per seed (the Stage-1 targets: SFT in
[0.5, 1), RCTP-FT high >= 0.5, low <= 0.1 as dotted lines); (c) failure modes of the
reward-0 trajectories in the RCTP-FT mix (sampled from the SFT run's early ``weak``
snapshot), summed over seeds.
"""

from __future__ import annotations

import math
from collections import Counter

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from analysis.figures import style as fs
from analysis.runs import Run, load_runs
from analysis.stats import mean_ci

REQUIRES: tuple[str, ...] = ("stage1",)
CAPTION = (
    "Stage 1 (tiny Qwen2 from scratch, synth suite, CPU): (a) SFT loss per seed against the "
    "run's CPU time (50-step trailing mean; dotted: 15 CPU minutes); (b) "
    "held-out success of SFT and of RCTP-FT under the high and low reward token, mean over "
    "seeds with 95% t-CI (dots: seeds; dotted: the targets); (c) failure modes of the "
    "reward-0 trajectories in the RCTP-FT training mix."
)

LOSS_SMOOTH = 50
"""Trailing mean (logged steps) of the SFT loss curves."""
BUDGET_S = 900.0
"""The Stage-1 SFT budget: 15 CPU minutes."""

BARS = (  # (label, stage, metric suffix, colour)
    ("SFT", "sft", "", fs.BLACK),
    ("RCTP-FT, high token", "rctp", "", fs.VERMILION),
    ("RCTP-FT, low token", "rctp", "_low", fs.SKY),
)


def _modes(runs: list[Run]) -> list[str]:
    modes: list[str] = []
    for r in runs:
        for m in r.config.get("sft", {}).get("eval_modes", []):
            if m not in modes:
                modes.append(m)
    return modes


def _bars(ax, by_stage: dict[str, list[Run]]) -> None:
    modes = _modes([r for rs in by_stage.values() for r in rs])
    width = 0.8 / len(BARS)
    for j, (name, stage, suffix, col) in enumerate(BARS):
        for i, mode in enumerate(modes):
            vals = np.array(
                [
                    r.summary.get("final_metrics", {}).get(f"sft/eval_{mode}{suffix}", math.nan)
                    for r in by_stage.get(stage, [])
                ],
                dtype=float,
            )
            est = mean_ci(vals)
            if est is None:
                continue
            x = i + (j - 1) * width
            err = None if est.half_width is None else [[est.half_width], [est.half_width]]
            ax.bar(
                x,
                est.mean,
                width * 0.95,
                color=col,
                alpha=0.8,
                yerr=err,
                capsize=3,
                label=name if i == 0 else None,
                edgecolor="black",
                linewidth=0.5,
            )
            finite = vals[np.isfinite(vals)]
            ax.scatter(np.full(len(finite), x), finite, s=9, color="black", zorder=3)
    ax.axhline(0.5, ls=":", color="grey", lw=1)
    ax.axhline(0.1, ls=":", color="grey", lw=1)
    ax.set_xticks(range(len(modes)))
    ax.set_xticklabels([f"{m} mode" for m in modes])
    ax.set_ylim(0, 1.02)
    ax.set_ylabel("held-out success (greedy)")
    ax.legend(loc="upper right")


def _failure_modes(ax, rctp: list[Run]) -> None:
    """Shares of the failure modes over all seeds' mixes (``data.json`` holds per-run shares
    and the failure count; weighted by the counts)."""
    counts: Counter = Counter()
    for r in rctp:
        mix = r.data.get("mix", {})
        n = mix.get("failures", 0)
        counts.update({k: v * n for k, v in mix.get("failure_modes", {}).items()})
    items = sorted(((k, v) for k, v in counts.items() if v), key=lambda kv: -kv[1])
    total = sum(v for _, v in items) or 1
    ax.barh([k for k, _ in items][::-1], [v / total for _, v in items][::-1], color=fs.SKY)
    ax.set_xlabel(f"share of failure trajectories (n = {round(total)})")


def by_stage(paths) -> dict[str, list[Run]]:
    """Stage-1 runs grouped by their config's ``stage`` (``sft`` / ``rctp``)."""
    out: dict[str, list[Run]] = {}
    for run in load_runs(p for p in paths if p is not None):
        out.setdefault(run.config.get("stage", "sft"), []).append(run)
    return out


def _loss(ax, sft: list[Run]) -> None:
    for k, run in enumerate(sft):
        df = run.metrics
        if "loss/sft" not in df or "perf/cpu_time_s" not in df:
            continue
        ax.plot(
            df["perf/cpu_time_s"],
            df["loss/sft"].rolling(LOSS_SMOOTH, min_periods=1).mean(),
            lw=1.0,
            label=f"seed {run.config['run']['seed']}",
            color=(fs.BLACK, fs.ORANGE, fs.BLUE, fs.GREEN)[k % 4],
        )
    ax.axvline(BUDGET_S, ls=":", color="grey", lw=1)
    ax.set_yscale("log")
    ax.set_xlabel("CPU time of the run (s)")
    ax.set_ylabel("SFT loss (nats/token)")
    ax.legend()


def make_figure(runs: dict) -> Figure:
    stages = by_stage(runs["stage1"])
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, 3, figsize=(13, 3.4), constrained_layout=True)
        _loss(axes[0], stages.get("sft", []))
        _bars(axes[1], stages)
        _failure_modes(axes[2], stages.get("rctp", []))
        for k, a in enumerate(axes):
            fs.panel_label(a, "abc"[k])
    return fig
