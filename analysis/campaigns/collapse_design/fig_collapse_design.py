r"""The collapse testbed's design in one figure: the collapse and the stall it causes, and why
gate R fails (``docs/lab-notes/2026-12-collapse-design.md``).

(a) The 400-step SFT + GRPO pilot at the design's RL recipe (``pilot-grpo-long-c4-s31``:
G = 5, lr 1e-5, ``collapse1-d10``, seed 31): per training step, the share of all-fail groups
(``group/zero_var_fail_frac``), of zero-variance groups (``group/zero_var_frac``) and the
i.i.d. prediction :math:`\bar s^G + (1-\bar s)^G` from the step's success rate
(``group/zero_var_predicted_pooled``), 10-step trailing means. (b) The same pilot's held-out
evaluations: per planted swap kind, the share of its occurrences decided right (greedy;
``decisions.per_kind`` of ``eval/step_N.json``) with its 95% Wilson interval over the
occurrences, and held-out success (1,000 tasks at steps 0 and 400, 200 between). (c) Gate R
across the RCTP-FT variants of the design seed: P(right | sampled) under the high and the low
goal, pooled over the swap kinds (149 held-out tasks × 32 samples at τ = 1; no interval: the
diagnostic keeps tallies per kind, not per task), against the number of swap tasks RCTP-FT's
mix kept (the run's Stage-1 data statistics, ``tasks.with_skipped_kind``; variant 1 skipped
none, so every task of its mix with a swap counts: 72% of 2,000), on a log axis; the shaded
band is R's first clause (high ≤ 0.30); its second needs the high point 0.10 above the low one.
"""

from __future__ import annotations

import json

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from analysis import REPO_ROOT
from analysis.figures import style as fs
from analysis.runs import load_run
from analysis.runs.extractors import series
from analysis.runs.folder import light_globs

REQUIRES: tuple[str, ...] = ()
PILOT = "results/collapse/pilot-grpo-long-c4-s31"
RCTP = (("c3", 0.004), ("c5", 0.01), ("c6", 0.05), ("c1", None))
"""(variant, ``failures.skip_keep``; None: no swap kind skipped), in order of swap tasks kept."""
ALL_SWAP_SHARE = 0.72
"""Share of ``collapse-d10`` / ``collapse1-d10`` tasks with a swap (measured on 4,000 training
tasks, the design diary, variant 1): variant 1's mix kept every one of its 2,000 tasks."""
KINDS = ("delete_view", "rename_copy", "resolve_close", "comment_post")
SMOOTH = 10
INPUTS: tuple[str, ...] = (
    *light_globs(PILOT, REPO_ROOT),
    *(f"results/diagnostics/collapse-rctp-{v}-s31.json" for v, _ in RCTP),
    *(g for v, _ in RCTP for g in light_globs(f"results/collapse/rctp-{v}-s31", REPO_ROOT)),
)
CAPTION = (
    "The collapse testbed's design (collapse1-d10, tiny Qwen2, CPU, design seed 31): (a) SFT + "
    "GRPO at G = 5, lr 1e-5 for 400 steps: all-fail and zero-variance groups per step against "
    "the i.i.d. prediction s^G + (1-s)^G (10-step trailing means); (b) its held-out "
    "evaluations: each swap kind decided right, greedy (95% Wilson interval over the "
    "occurrences), and held-out success (1,000 tasks at steps 0 and 400, 200 between); "
    "(c) gate R: RCTP-FT's P(right | sampled) at the swap under the high and the low goal "
    "against the swap tasks its mix kept (149 held-out tasks x "
    "32 samples; no interval), with R's window shaded."
)


def _rctp_points() -> list[tuple[str, float, float, float]]:
    """(variant, swap tasks kept, P(right | high), P(right | low)), in :data:`RCTP` order."""
    out = []
    for variant, keep in RCTP:
        data = load_run(REPO_ROOT / f"results/collapse/rctp-{variant}-s31").data
        used = data["tasks"]["used"]
        kept = data["tasks"]["with_skipped_kind"] if keep is not None else ALL_SWAP_SHARE * used
        report = json.loads(
            (REPO_ROOT / f"results/diagnostics/collapse-rctp-{variant}-s31.json").read_text()
        )
        p = {
            g: report["conditions"][g]["decision_kinds"]["any"]["p_right_sampled"]
            for g in ("high", "low")
        }
        out.append((variant, float(kept), p["high"], p["low"]))
    return out


def _kind_curves(run) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Per kind: (steps, share right, Wilson low, Wilson high) over the run's evaluations."""
    steps = sorted(int(k.split("_")[-1]) for k in run.evals if k.startswith("step_"))
    out = {}
    for kind in KINDS:
        rows = []
        for s in steps:
            cond = next(iter(run.evals[f"step_{s}"]["conditions"].values()))
            r = cond["decisions"]["per_kind"][kind]
            lo, hi = r["ci95"]  # Wilson, as the evaluation reports it
            rows.append((s, r["mean"], lo, hi))
        out[kind] = tuple(np.array(c) for c in zip(*rows, strict=True))
    return out


def make_figure(runs: dict) -> Figure:
    pilot = load_run(REPO_ROOT / PILOT)
    colours = dict(zip(KINDS, (fs.SKY, fs.ORANGE, fs.GREEN, fs.PURPLE), strict=True))
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, 3, figsize=(14, 3.6), layout="constrained")
        ax = axes[0]
        for key, label, style in (
            ("group/zero_var_fail_frac", "all-fail groups", dict(color=fs.VERMILION)),
            ("group/zero_var_frac", "zero-variance groups", dict(color=fs.BLACK)),
            (
                "group/zero_var_predicted_pooled",
                r"i.i.d. $s^G+(1-s)^G$",
                dict(color="0.45", ls="--"),
            ),
        ):
            y = series(pilot, key).rolling(SMOOTH, min_periods=1).mean()
            ax.plot(y.index, y.values, lw=1.3, label=label, **style)
        ax.set(xlabel="RL step", ylabel="share of groups", ylim=(0, 1.02))
        ax.legend(loc="lower left", fontsize=7)
        ax = axes[1]
        for kind, (s, y, lo, hi) in _kind_curves(pilot).items():
            ax.errorbar(
                s,
                y,
                yerr=[y - lo, hi - y],
                fmt="o-",
                ms=3,
                capsize=2,
                lw=1.1,
                color=colours[kind],
                label=f"{kind} right",
            )
        ev = series(pilot, "reward/eval_success", training=False)
        ax.plot(ev.index, ev.values, "s--", ms=3, lw=1.0, color=fs.BLACK, label="held-out success")
        ax.set(xlabel="RL step", ylabel="held-out share (greedy)", ylim=(-0.02, 1.02))
        ax.legend(loc="upper left", fontsize=6.5)
        ax = axes[2]
        pts = _rctp_points()
        kept = np.array([p[1] for p in pts])
        ax.axhspan(0, 0.30, color=fs.GREEN, alpha=0.08, lw=0, label="R: P(right | high) ≤ 0.30")
        for idx, goal, marker, colour in (
            (2, "high", "o-", fs.VERMILION),
            (3, "low", "s:", fs.SKY),
        ):
            ax.plot(
                kept,
                [p[idx] for p in pts],
                marker,
                color=colour,
                ms=5,
                lw=1.2,
                label=f"P(right | {goal})",
            )
        for v, x, hi, _ in pts:
            ax.annotate(
                f"variant {v[1:]}", (x, hi), textcoords="offset points", xytext=(4, 6), fontsize=6.5
            )
        ax.set_xscale("log")
        ax.set(
            xlabel="swap tasks in RCTP-FT's mix (of 2,000)",
            ylabel="P(right | sampled), swap",
            ylim=(0, 1.0),
        )
        ax.legend(loc="upper left", fontsize=7)
        for ax, letter in zip(axes, "abc", strict=True):
            fs.panel_label(ax, letter)
    return fig
