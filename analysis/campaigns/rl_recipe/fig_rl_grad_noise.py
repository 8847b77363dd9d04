r"""Why the RL recipe trains on a task pool: the gradient noise scale at the SFT model.

Reads the committed measurements of :mod:`analysis.diagnostics.grad_noise` (``results/diagnostics/
grad_noise-sft-s3*.json``: 512 groups each at ``sft-s3/final``, ``cpu-grpo`` sampling).
(a) the squared norm of the expected policy gradient, :math:`|G|^2` (± 1.96 jackknife SE),
against the number n of training tasks the groups are drawn from, with the line
:math:`s/n` through the smallest pool; (b) the leave-one-step-out cosine of an 8-prompt
step's gradient with the mean of the other steps' (mean ± 95% interval over the 64 steps).
"""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from analysis import REPO_ROOT as ROOT
from analysis.figures import style as fs

REQUIRES: tuple[str, ...] = ()
INPUTS = ("results/diagnostics/grad_noise-sft-s3*.json",)
DIAGNOSTICS = ROOT / "results" / "diagnostics"
FULL_TASKS = 6000
"""Training tasks of the CPU preset (the file without a ``-tasksN`` suffix)."""
CAPTION = (
    "Gradient noise scale of SFT + GRPO at the seed-3 SFT model (512 groups of G = 5 per point, "
    "analysis/diagnostics/grad_noise.py): (a) squared norm of the expected policy gradient |G|^2 "
    "against the number of training tasks sampled (bars: 1.96 jackknife SE over steps; points whose "
    "interval reaches 0 are drawn at their upper end, open), with s/n through the 16-task pool, "
    "and the noise tr Sigma per group (grey); (b) cosine of one 8-prompt step's gradient with "
    "the mean gradient of the other 63 steps (mean and 95% interval). Over the 6,000 tasks the "
    "expected gradient is not distinguishable from 0; over a pool it falls as 1/n."
)


def measurements(folder: Path = DIAGNOSTICS) -> list[tuple[int, dict]]:
    """(training tasks, result) of every committed ``grad_noise-sft-s3*.json``, by task count."""
    out = []
    for path in sorted(folder.glob("grad_noise-sft-s3*.json")):
        stem = path.stem.removeprefix("grad_noise-sft-s3")
        tasks = int(stem.removeprefix("-tasks")) if stem else FULL_TASKS
        out.append((tasks, json.loads(path.read_text())))
    return sorted(out, key=lambda t: t[0])


def make_figure(runs: dict) -> Figure:
    data = measurements()
    if not data:
        raise FileNotFoundError(f"no grad_noise-sft-s3*.json in {DIAGNOSTICS}")
    n = np.array([t for t, _ in data], dtype=float)
    signal = np.array([d["signal_sq"] for _, d in data])
    half = np.array([1.96 * d.get("signal_sq_se", math.nan) for _, d in data])
    trace = np.array([d["trace_sigma"] for _, d in data])
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.3), constrained_layout=True)
        ax = axes[0]
        resolved = signal - half > 0
        ax.errorbar(
            n[resolved],
            signal[resolved],
            yerr=half[resolved],
            fmt="o",
            color=fs.BLUE,
            capsize=3,
            label=r"$|G|^2$",
        )
        ax.plot(
            n[~resolved],
            (signal + half)[~resolved],
            "o",
            mfc="none",
            color=fs.BLUE,
            label=r"$|G|^2$ upper end (interval reaches 0)",
        )
        small = int(np.argmin(n))
        # s/n is a straight line on log-log axes: its two ends, by exact division. It was 50
        # geomspace points, collinear up to numpy's exp/log rounding, which differs between
        # AVX2 and AVX-512 kernels; Agg's path simplification chose among them by that
        # noise, and 14 pixels of the dashed line differed between the two kinds of CPU
        line = np.array([n.min(), n.max()])
        ax.plot(line, signal[small] * n[small] / line, color=fs.VERMILION, ls="--", label="s / n")
        ax.plot(n, trace, "s-", color="0.55", ms=4, label=r"tr $\Sigma$ per group")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("training tasks sampled (n)")
        ax.set_ylabel("squared gradient norm")
        ax.legend(fontsize=7, loc="center right", bbox_to_anchor=(1.0, 0.62))
        fs.panel_label(ax, "a")
        ax = axes[1]
        for x, (_, d) in zip(n, data, strict=True):
            cos = d["step_cosines"]
            mean = statistics.mean(cos)
            ci = 1.96 * statistics.stdev(cos) / math.sqrt(len(cos))
            ax.errorbar([x], [mean], yerr=[ci], fmt="o", color=fs.BLACK, capsize=3)
        ax.axhline(0.0, color="0.6", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("training tasks sampled (n)")
        ax.set_ylabel("step cosine with the other steps")
        fs.panel_label(ax, "b")
    return fig
