r"""The 2×2 factorial in numbers: which half of RC-GRPO does the work?

(a) Held-out success (greedy; RC arms under ``<|high_reward|>``) before RL (step 0,
hatched) and after RL (filled); (b) success on the 16-task training pool over the first 10%
of the steps (hatched) and the last 10% (filled), under the same goal (RC arms: the
high-goal rollouts; :func:`~analysis.runs.extractors.training_success`): what RL learns on
the tasks it revisits; (c) mean zero-variance fraction over all RL steps; (d) mean
advantage gap over all RL steps. Bars: seed mean with 95% t-CI; dots: seeds.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from analysis.figures import dynamics as dyn
from analysis.figures import style as fs
from analysis.runs.extractors import training_success

REQUIRES: tuple[str, ...] = ("factorial",)
CAPTION = (
    "Factorial summary (synth suite, tiny Qwen2, CPU): (a) held-out success at RL step 0 "
    "(hatched) and at the last step (filled); (b) success on the training pool over the first "
    "(hatched) and last (filled) 10% of the steps, RC arms under the high goal; (c) "
    "zero-variance group fraction and (d) advantage gap averaged over all RL steps. Seed "
    "mean with 95% t-CI, dots are seeds."
)


def make_figure(runs: dict) -> Figure:
    groups = dyn.by_preset(runs["factorial"])
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, 4, figsize=(16, 3.4), constrained_layout=True)
        ax = axes[0]
        dyn.seed_bars(
            ax,
            groups,
            lambda r: dyn.first_value(r, "reward/eval_success"),
            "held-out success",
            x0=-0.2,
            width=0.38,
            hatch="//",
            tag="before RL",
        )
        dyn.seed_bars(
            ax,
            groups,
            lambda r: dyn.last_value(r, "reward/eval_success"),
            "held-out success",
            x0=0.2,
            width=0.38,
            tag="after RL",
        )
        ax.set_ylim(0, 1.15)  # headroom for the legend
        ax.legend(loc="upper center", ncol=2)
        for part, x0, hatch, tag in (
            ("early", -0.2, "//", "first 10%"),
            ("late", 0.2, None, "last 10%"),
        ):
            dyn.seed_bars(
                axes[1],
                groups,
                training_success(part),
                "training success (pool)",
                x0=x0,
                width=0.38,
                hatch=hatch,
                tag=f"{tag} of steps",
            )
        axes[1].set_ylim(0, 1.15)
        axes[1].legend(loc="upper center", ncol=2)
        dyn.seed_bars(
            axes[2],
            groups,
            lambda r: dyn.run_mean(r, "group/zero_var_frac"),
            "mean zero-variance fraction",
        )
        axes[2].set_ylim(0, 1.02)
        dyn.seed_bars(
            axes[3], groups, lambda r: dyn.run_mean(r, "adv/gap_mean"), "mean advantage gap"
        )
        for k, a in enumerate(axes):
            fs.panel_label(a, "abcd"[k])
    return fig
