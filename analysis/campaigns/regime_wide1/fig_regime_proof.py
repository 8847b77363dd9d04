r"""The proof runs: SFT + GRPO raises held-out success on every seed.

Reads the committed proof runs of every suite that has them
(:data:`analysis.diagnostics.regime.proof.PROOF_RUNS`: the ``regime-grpo`` preset from the
regime SFT of each seed, on the regime suite and on ``regime-wide1-d10``; ``docs/regime.md``)
through :func:`analysis.diagnostics.regime.proof.committed_records`, the same code as the
criterion's CLI; one row per suite. (a) greedy success on the 1,000 held-out tasks at every
evaluated step, one line per seed (dashed: the design seed the recipe was chosen on), over the
training rollouts' success at τ = 1 (thin: mean over :data:`WINDOW` steps, the step's fresh
tasks); (b) per seed, success at the first and the last step with the exact McNemar counts
(tasks gained / lost), and the share of planted decision points that are right at the end
against the criterion's 0.8. The title gives each suite's verdict over the proof seeds
(:func:`analysis.campaigns.regime_wide1.proof.seeds_verdict`).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from analysis import REPO_ROOT
from analysis.campaigns.regime_wide1.proof import seeds_verdict
from analysis.diagnostics.regime import proof
from analysis.figures import style as fs
from analysis.runs import Run
from analysis.runs.folder import light_globs

REQUIRES: tuple[str, ...] = ()
INPUTS: tuple[str, ...] = tuple(
    g for runs in proof.PROOF_RUNS.values() for g in light_globs(runs, REPO_ROOT)
)
"""Files the figure reads (repository-relative)."""
WINDOW = 10
"""Steps in the running mean of the training success (panel a)."""
CAPTION = (
    "The proof runs (regime-grpo, 200 steps, 8 fresh training tasks per step, from the regime "
    "SFT of each seed; analysis/diagnostics/regime/proof.py), one row per suite (the regime "
    "suite from variant 3's SFT; regime-wide1-d10 from variant 15's recipe): (a) greedy "
    "success on 1,000 held-out tasks against the RL step (dashed: the design seed 7 the "
    "recipe was chosen on; thin: training success at tau 1, 10-step mean); (b) success at the "
    "first and last step per seed with the exact McNemar counts of tasks gained / lost, and "
    "the share of planted decision points right at the end (criterion: >= 0.8, dotted)."
)


def _colour(i: int, seed: int) -> str:
    cycle = (fs.BLUE, fs.ORANGE, fs.GREEN, fs.PURPLE, fs.SKY, fs.VERMILION)
    return fs.BLACK if seed == proof.DESIGN_SEED else cycle[i % len(cycle)]


def _curves(ax, recs: list[dict], root: Path) -> None:
    for i, r in enumerate(recs):
        steps = sorted(r["curve"])
        design = r["seed"] == proof.DESIGN_SEED
        m = Run(root / r["run"]).metrics
        train = m.dropna(subset=["reward/success_rate"])
        rolling = train["reward/success_rate"].rolling(WINDOW, min_periods=1).mean()
        ax.plot(train["step"], rolling, lw=0.7, alpha=0.45, color=_colour(i, r["seed"]))
        ax.plot(
            steps,
            [r["curve"][s] for s in steps],
            "o--" if design else "o-",
            ms=3.5,
            color=_colour(i, r["seed"]),
            label=f"seed {r['seed']}" + (" (design)" if design else ""),
        )
    ax.set_xlabel("RL step")
    ax.set_ylabel("success")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7, loc="lower right")


def _paired(ax, recs: list[dict]) -> None:
    x = np.arange(len(recs))
    start = [r["success_start"] for r in recs]
    end = [r["success_end"] for r in recs]
    ax.bar(x - 0.2, start, 0.4, color="0.75", label="first step")
    ax.bar(x + 0.2, end, 0.4, color=fs.BLUE, label="last step")
    for xi, r in zip(x, recs, strict=True):
        m = r["mcnemar"]
        ax.text(
            xi + 0.2, r["success_end"] + 0.02, f"+{m['c']}/−{m['b']}", ha="center", fontsize=6.5
        )
    right = [r["decisions_right_end"] for r in recs]
    ax.plot(x + 0.2, right, "D", color=fs.VERMILION, ms=4, label="decisions right (end)")
    ax.axhline(proof.DECISIONS_RIGHT, color=fs.VERMILION, lw=0.7, ls=":")
    ax.set_xticks(x, [f"seed {r['seed']}" for r in recs])
    ax.set_ylim(0, 1.08)
    ax.set_ylabel("held-out success / share right")
    ax.legend(fontsize=6.5, loc="upper left", ncol=3)


def title(recs: list[dict]) -> str:
    """The verdict over the proof seeds (a missing seed is named)."""
    v = seeds_verdict(recs)
    seeds = ", ".join(map(str, v["seeds"]))
    if v["missing"]:
        return f"proof seeds {seeds}: runs of seed(s) {', '.join(map(str, v['missing']))} to come"
    g = v["gain"]
    word = "holds" if v["holds"] else "does not hold"
    every = "yes" if v["every_seed_qualifies"] else "no"
    return (
        f"proof seeds {seeds}: mean gain {100 * g['mean']:+.1f} ± {100 * g['half_width']:.1f} "
        f"points (95% t, n = {g['n']}); every seed qualifies: {every}; criterion {word}"
    )


def committed() -> dict[str, list[dict]]:
    """Suite -> its proof records, for every suite of
    :data:`~analysis.diagnostics.regime.proof.PROOF_RUNS` with a committed run."""
    return {
        suite: proof.committed_records(REPO_ROOT, suite)
        for suite in proof.PROOF_RUNS
        if proof.has_runs(REPO_ROOT, suite)
    }


def make_figure(runs: dict) -> Figure:
    suites = committed()
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(
            len(suites), 2, figsize=(9.0, 3.3 * len(suites)), constrained_layout=True, squeeze=False
        )
        for row, (suite, recs) in zip(axes, suites.items(), strict=True):
            _curves(row[0], recs, REPO_ROOT)
            _paired(row[1], recs)
            for ax in row:
                ax.set_title(suite, fontsize=8)
        for ax, letter in zip(axes.flat, "abcdef", strict=False):
            fs.panel_label(ax, letter)
        fig.suptitle(
            "\n".join(f"{suite}: {title(recs)}" for suite, recs in suites.items()), fontsize=8.5
        )
    return fig
