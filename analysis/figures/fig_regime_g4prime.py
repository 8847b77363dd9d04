r"""Gate G4′ on the regime suite: does RL from the goal-reading RCTP-FT raise the high goal?

G4′ (``docs/regime.md``; :func:`analysis.diagnostics.regime.gates.g4_prime`) is G4 without
the high goal's pass@8 − greedy, with RL's measured room in its place: ``regime-rctp-grpo``
(the proof recipe, 200 steps) from variant 9's RCTP-FT (3 epochs) raises greedy held-out
success under the high goal by ≥ +0.10 with an exact McNemar p < 0.05. It is decided on seed
:data:`DECIDING_SEED`; seed 7 (the design seed) ran first as an exploratory check.

Reads, per seed of :data:`SEEDS`, the committed RL run ``results/regime/regime-rctp-grpo-v9-s<seed>``
and the regime diagnostics of its SFT and RCTP-FT, plus SFT + GRPO at the design seed
(``regime-grpo-s7``) for reference. (a) greedy held-out success against the RL step (1,000
tasks at the first and last step, the first 200 of them between); (b) G4′'s clauses per
seed, each with its threshold: the low goal's success at τ (in [0.1, 0.5]), the separation
pass@1 high − low, RL's gain under the high goal (both ≥ 0.10), and the high goal's greedy
success over SFT's (≥ 0).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from analysis import REPO_ROOT
from analysis.diagnostics.regime import proof
from analysis.diagnostics.regime.gates import G4_LOW, G4_SEPARATION, G4P_RL_GAIN, g4_prime
from analysis.figures import style as fs
from analysis.figures.fig_regime import load_reports
from analysis.runs.folder import light_globs

REQUIRES: tuple[str, ...] = ()
SEEDS: tuple[int, ...] = (7, 8)
DECIDING_SEED = 8
RL_RUNS = "results/regime/regime-rctp-grpo-v9-s*"
REFERENCE = "results/regime/regime-grpo-s7"
"""SFT + GRPO at the design seed (the proof recipe from variant 3's SFT)."""


def _reports(seed: int) -> tuple[str, str]:
    return (
        f"results/diagnostics/regime-regime-sft-v3-s{seed}.json",
        f"results/diagnostics/regime-regime-rctp-v9-s{seed}.json",
    )


INPUTS: tuple[str, ...] = (
    *light_globs(RL_RUNS, REPO_ROOT),
    *light_globs(REFERENCE, REPO_ROOT),
    *(rel for s in SEEDS for rel in _reports(s)),
)
"""Files the figure reads (repository-relative)."""
CAPTION = (
    "Gate G4' on the regime suite (RCTP-FT variant 9: 3 epochs; decided on seed 8, seed 7 "
    "exploratory): (a) greedy held-out success against the RL step of RCTP-FT + GRPO under "
    "the high goal (1,000 tasks at the first and last step, 200 between), with SFT + GRPO at "
    "seed 7 (grey); (b) G4' clauses per seed with their thresholds (dotted): low-goal success "
    "at tau 1 in [0.1, 0.5], separation pass@1 high - low, RL's gain under the high goal "
    "(McNemar counts gained / lost above), high greedy - SFT greedy."
)
CLAUSES = (
    ("low_success", "low goal\nsuccess at τ", G4_LOW),
    ("separation", "separation\nhigh − low", (G4_SEPARATION, None)),
    ("rl_gain", "RL gain\n(high goal)", (G4P_RL_GAIN, None)),
    ("high_over_sft", "high greedy\n− SFT greedy", (0.0, None)),
)
"""(value key, label, (lower, upper) threshold) of each clause drawn in panel (b)."""


def points() -> list[dict]:
    """Per seed: the RL run's proof record (curve, McNemar) and its G4′ gate."""
    reports = load_reports(inputs=tuple(rel for s in SEEDS for rel in _reports(s)))
    out = []
    for seed in SEEDS:
        sft, rctp = (reports[rel] for rel in _reports(seed))
        rec = proof.proof_record(REPO_ROOT / RL_RUNS.replace("*", str(seed)), REPO_ROOT)
        gate = g4_prime(rctp, sft, rec)
        values = dict(gate.values)
        values["high_over_sft"] = values["high_greedy"] - values["sft_greedy"]
        out.append({"seed": seed, "record": rec, "gate": gate, "values": values})
    return out


def _curves(ax, pts: list[dict]) -> None:
    ref = proof.proof_record(REPO_ROOT / REFERENCE, REPO_ROOT)
    steps = sorted(ref["curve"])
    ax.plot(steps, [ref["curve"][s] for s in steps], "o-", ms=2.5, color="0.6",
            label="SFT + GRPO, seed 7")  # fmt: skip
    for p, colour in zip(pts, (fs.SKY, fs.BLUE), strict=False):
        curve, seed = p["record"]["curve"], p["seed"]
        steps = sorted(curve)
        role = "decides G4′" if seed == DECIDING_SEED else "exploratory"
        ax.plot(steps, [curve[s] for s in steps], "o-" if seed == DECIDING_SEED else "o--",
                ms=3.5, color=colour, label=f"RCTP-FT + GRPO (high), seed {seed}: {role}")  # fmt: skip
    ax.set_xlabel("RL step")
    ax.set_ylabel("greedy held-out success")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=6.5, loc="lower right")


def _clauses(ax, pts: list[dict]) -> None:
    x = np.arange(len(CLAUSES))
    width = 0.8 / len(pts)
    for i, (p, colour) in enumerate(zip(pts, (fs.SKY, fs.BLUE), strict=False)):
        xs = x - 0.4 + width * (i + 0.5)
        ax.bar(xs, [p["values"][k] for k, _, _ in CLAUSES], width, color=colour,
               label=f"seed {p['seed']}")  # fmt: skip
        m = p["record"]["mcnemar"]
        gain = p["values"]["rl_gain"]
        top = max(gain, G4P_RL_GAIN) + 0.015 + 0.035 * i
        ax.text(xs[2], top, f"+{m['c']}/−{m['b']}", ha="center", fontsize=6, color=colour)
    for xi, (_, _, (lo, hi)) in zip(x, CLAUSES, strict=True):
        for bound in (lo, hi):
            if bound is not None:
                ax.plot([xi - 0.45, xi + 0.45], [bound, bound], ":", color="0.2", lw=1.0)
    ax.axhline(0.0, color="0.5", lw=0.6)
    ax.set_xticks(x, [label for _, label, _ in CLAUSES], fontsize=7)
    ax.set_ylabel("clause value")
    ax.set_ylim(min(-0.05, *(p["values"]["high_over_sft"] for p in pts)), 0.7)
    ax.legend(fontsize=6.5, loc="upper right")


def title(pts: list[dict]) -> str:
    """G4′'s verdict at the deciding seed (the failing clauses named)."""
    p = next(p for p in pts if p["seed"] == DECIDING_SEED)
    gate = p["gate"]
    if gate.holds:
        return f"G4′ holds at seed {DECIDING_SEED} (decided); seed 7 exploratory"
    failed = ", ".join(k for k, ok in gate.detail.items() if not ok)
    gain, p_value = gate.values["rl_gain"], gate.values["rl_mcnemar_p"]
    return (
        f"G4′ does not hold at seed {DECIDING_SEED} (fails: {failed}; RL's gain under the high "
        f"goal {gain:+.3f}, McNemar p = {p_value:.2g}); seed 7 exploratory"
    )


def make_figure(runs: dict) -> Figure:
    pts = points()
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, 2, figsize=(9.5, 3.4), constrained_layout=True)
        _curves(axes[0], pts)
        _clauses(axes[1], pts)
        for ax, letter in zip(axes, "ab", strict=True):
            fs.panel_label(ax, letter)
        fig.suptitle(title(pts), fontsize=8.5)
    return fig
