r"""RC-GRPO against the other fixes for advantage collapse (all from the SFT checkpoint).

DAPO dynamic sampling (drop constant groups and resample), an entropy bonus, a higher
rollout temperature and Dr. GRPO, next to plain GRPO and RC-GRPO of the same seeds:
(a) zero-variance fraction of all generated groups (DAPO: before its filter, over every
resampling round); (b) advantage gap; (c) policy entropy; (d) held-out success.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from analysis.campaign.arms import roles
from analysis.figures import dynamics as dyn
from analysis.figures import style as fs

REQUIRES: tuple[str, ...] = ("factorial", "baselines")
CAPTION = (
    "Other fixes for advantage collapse against GRPO and RC-GRPO (same seeds): (a) "
    "zero-variance fraction of the generated groups (DAPO: before filtering); (b) "
    "advantage gap; (c) policy entropy of the sampled tokens; (d) held-out success "
    "(greedy). Mean over the baseline seeds with 95% t-bands when there are several."
)

PANELS = (
    ("group/zero_var_frac", "zero-variance groups"),
    ("adv/gap_mean", "advantage gap"),
    ("policy/entropy", "policy entropy (nats/token)"),
    ("reward/eval_success", "held-out success"),
)

ROLES = roles("pool")
"""Role -> arm (:data:`analysis.campaign.arms.ARMS`): GRPO and RC-GRPO from the factorial."""


def make_figure(runs: dict) -> Figure:
    base = dyn.by_preset(runs["baselines"])
    seeds = {r.config.get("run", {}).get("seed") for rs in base.values() for r in rs}
    fact = {
        p: [r for r in rs if r.config.get("run", {}).get("seed") in seeds]
        for p, rs in dyn.by_preset(runs["factorial"]).items()
        if p in (ROLES["sft_grpo"], ROLES["rctp_rc"])
    }
    groups = {**fact, **base}
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, 4, figsize=(13.5, 3.2), constrained_layout=True)
        for k, (ax, (key, ylabel)) in enumerate(zip(axes, PANELS, strict=True)):
            smooth = 1 if key.startswith("reward/eval") else dyn.SMOOTH
            for preset, rs in groups.items():
                dyn.plot_band(
                    ax, rs, key, preset, smooth=smooth, marker="o" if smooth == 1 else None, ms=3
                )
            ax.set_xlabel("RL step")
            ax.set_ylabel(ylabel)
            fs.panel_label(ax, "abcd"[k])
        axes[0].set_ylim(-0.02, 1.02)
        axes[3].set_ylim(-0.02, 1.02)
        handles, labels = axes[1].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncol=3)
    return fig
