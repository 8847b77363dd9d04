r"""The RL recipe sweep: which SFT + GRPO setting learns (:mod:`analysis.campaigns.rl_recipe.recipe_sweep`).

(a) Training success rate over RL steps per setting (trailing mean over ``dynamics.SMOOTH``
steps), with the two 20-step windows of the criterion shaded; (b) KL to π_ref over steps,
the cost of moving; (c) held-out success (greedy, 200 synth test tasks) at each evaluation
step. The legend marks the settings that meet the criterion (Δ_train ≥ 0.10 and held-out not
down by more than 0.03) and the chosen recipe, and each setting's Δ_train against the frozen
start policy on the same task sequence; dashed: the diagnosis runs (never candidates). One
run per setting (the sweep seed).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from analysis.campaigns.rl_recipe import recipe_sweep as sw
from analysis.figures import dynamics as dyn
from analysis.figures import style as fs
from analysis.runs import load_runs

REQUIRES: tuple[str, ...] = ("rl-sweep",)
CAPTION = (
    "RL recipe sweep, SFT + GRPO from the seed-3 SFT model (one run per setting): (a) training "
    f"success rate ({dyn.SMOOTH}-step trailing mean; shaded: the first 20 steps and the last 20 of each "
    "run length, which the criterion compares); (b) KL to the reference policy; (c) held-out "
    "success at each evaluation. "
    "'learns' = training success up by >= 0.10 and held-out not down by more than 0.03; the "
    "chosen recipe is starred. Dashed: the diagnosis runs (the same update on 16 training "
    "tasks; the frozen start policy on the same task sequence), never recipe candidates. 'vs "
    "frozen': Δ_train of the per-step difference from the frozen run (a diagnosis: it removes "
    "the share of Δ_train that comes from which tasks each window drew; only for the 100-step "
    "settings on the full task set, which draw the frozen run's tasks)."
)
COLORS = (fs.BLACK, fs.SKY, fs.VERMILION, fs.GREEN, fs.PURPLE, fs.ORANGE, fs.BLUE, fs.YELLOW)
COLORS += ("0.55", "#8C564B")  # grey and brown: the settings outnumber the Okabe-Ito eight


def make_figure(runs: dict) -> Figure:
    by_name = {r.name: r for r in load_runs(p for p in runs["rl-sweep"] if p is not None)}
    settings = [s for s in (*sw.CANDIDATES, *sw.DIAGNOSES) if f"sweep-{s.tag}" in by_name]
    outcomes = {s.tag: sw.outcome(s, by_name[f"sweep-{s.tag}"].metrics) for s in settings}
    chosen = sw.choose([o for o in outcomes.values() if o.setting in sw.CANDIDATES])
    frozen = by_name.get("sweep-diag-frozen")
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, 3, figsize=(13.0, 3.4), constrained_layout=True)
        for k, setting in enumerate(settings):
            color = COLORS[k % len(COLORS)]  # diagnoses are dashed where a colour repeats
            run, out = by_name[f"sweep-{setting.tag}"], outcomes[setting.tag]
            star = " *" if chosen is not None and chosen.setting == setting else ""
            verdict = "learns" if out.learns else "does not"
            name = f"{setting.tag}: {out.train_rise:+.2f} ({verdict}){star}"
            same_draw = setting.train_tasks == 0 and setting.steps == sw.STEPS
            if frozen is not None and run is not frozen and same_draw:
                name += f"; vs frozen {sw.paired_rise(run.metrics, frozen.metrics):+.2f}"
            ls = "--" if setting in sw.DIAGNOSES else "-"  # diagnoses: never a recipe
            success = dyn.series(run, "reward/success_rate")
            axes[0].plot(success.index, success.values, color=color, ls=ls, lw=1.2, label=name)
            kl = dyn.series(run, "policy/kl_ref")
            axes[1].plot(kl.index, kl.values, color=color, ls=ls, lw=1.2)
            evals = dyn.series(run, "reward/eval_success", smooth=1)
            axes[2].plot(evals.index, evals.values, color=color, ls=ls, marker="o", ms=3, lw=1.0)
        ends = sorted({s.steps for s in settings})
        for lo, hi in ((1, sw.WINDOW), *((end - sw.WINDOW + 1, end) for end in ends)):
            axes[0].axvspan(lo, hi, color="0.5", alpha=0.12, lw=0)
        labels = ("training success rate", r"KL to $\pi_{ref}$", "held-out success")
        for k, (ax, ylabel) in enumerate(zip(axes, labels, strict=True)):
            ax.set_xlabel("RL step")
            ax.set_ylabel(ylabel)
            fs.panel_label(ax, "abc"[k])
        axes[0].set_ylim(-0.02, 1.02)
        axes[2].set_ylim(-0.02, 1.02)
        axes[1].set_ylim(bottom=0)
        fig.legend(
            *axes[0].get_legend_handles_labels(),
            fontsize=7,
            loc="outside right center",
            title="setting: Δ_train (criterion)",
            title_fontsize=7,
        )
    return fig
