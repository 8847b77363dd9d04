r"""Gate G4′ on the regime suite: does RL from the goal-reading RCTP-FT raise the high goal?

G4′ (``docs/regime.md``; :func:`analysis.campaigns.regime_design.gates.g4_prime`) is G4 without
the high goal's pass@8 − greedy, with RL's measured room in its place: ``regime-rctp-grpo``
(the proof recipe, 200 steps) from an RCTP-FT checkpoint raises greedy held-out success under
the high goal by ≥ +0.10 with an exact McNemar p < 0.05. Two RCTP-FT recipes were put to it
(:data:`ENTRIES`), each first on the design seed 7 (exploratory), then decided on a fresh
seed: variant 9 (RCTP-FT from the pool base, every decision kind in its mix) on seed 8, and
variant 11 (RCTP-FT from the regime SFT, its mix without ``resolve_close`` tasks) on seed 10.

Reads, per entry, the committed RL run ``results/regime/regime-rctp-grpo-v<variant>-s<seed>``
and the regime diagnostics of its SFT and RCTP-FT, plus SFT + GRPO at the design seed
(``regime-grpo-s7``) for reference. (a) greedy held-out success against the RL step (1,000
tasks at the first and last step, the first 200 of them between); (b) G4′'s clauses per
entry, each with its threshold: the low goal's success at τ (in [0.1, 0.5]), the separation
pass@1 high − low, RL's gain under the high goal (both ≥ 0.10), and the high goal's greedy
success over SFT's (≥ 0); (c) the held-out decision points right under the high goal, per
kind, at the last step (bars) and at the first (ticks).
"""

from __future__ import annotations

from typing import NamedTuple

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from analysis import REPO_ROOT
from analysis.campaigns.regime_design.fig_regime import load_reports
from analysis.campaigns.regime_design.gates import G4_LOW, G4_SEPARATION, G4P_RL_GAIN, g4_prime
from analysis.diagnostics.regime import proof
from analysis.figures import style as fs
from analysis.runs import Run
from analysis.runs.folder import light_globs
from analysis.runs.index import FIGURES_FILE, figure_entries
from rcgrpo.env.synth_demo import REGIME_DECISIONS as DECISIONS  # its runs: regime-d10


class Entry(NamedTuple):
    variant: int
    seed: int
    decides: bool
    """The seed G4′ is decided on for this recipe (else the exploratory design seed)."""
    colour: str


COLOURS = (fs.SKY, fs.BLUE, fs.ORANGE, fs.VERMILION)
"""Entry colours by position: each recipe's exploratory seed light, its deciding seed dark."""
ENTRIES: tuple[Entry, ...] = tuple(
    Entry(**e, colour=c) for e, c in zip(figure_entries("regime_g4prime"), COLOURS, strict=True)
)
"""The recipes and seeds drawn (``results/FIGURES.toml``)."""
REFERENCE = "results/regime/regime-grpo-s7"
"""SFT + GRPO at the design seed (the proof recipe from variant 3's SFT)."""


def rl_run(e: Entry) -> str:
    return f"results/regime/regime-rctp-grpo-v{e.variant}-s{e.seed}"


def reports(e: Entry) -> tuple[str, str]:
    """The SFT and RCTP-FT diagnostics the entry's gate reads."""
    return (
        f"results/diagnostics/regime-regime-sft-v3-s{e.seed}.json",
        f"results/diagnostics/regime-regime-rctp-v{e.variant}-s{e.seed}.json",
    )


def name(e: Entry) -> str:
    return f"v{e.variant}, seed {e.seed}" + ("" if e.decides else " (expl.)")


REQUIRES: tuple[str, ...] = ()
INPUTS: tuple[str, ...] = tuple(
    dict.fromkeys(
        [
            FIGURES_FILE,
            *(g for e in ENTRIES for g in light_globs(rl_run(e), REPO_ROOT)),
            *light_globs(REFERENCE, REPO_ROOT),
            *(rel for e in ENTRIES for rel in reports(e)),
        ]
    )
)
"""Files the figure reads (repository-relative)."""
CAPTION = (
    "Gate G4' on the regime suite, two RCTP-FT recipes, each exploratory on seed 7 and decided "
    "on a fresh seed: variant 9 (from the pool base, every decision kind in its mix; seed 8) "
    "and variant 11 (from the regime SFT, its mix without resolve_close tasks; seed 10). "
    "(a) greedy held-out success against the RL step of RCTP-FT + GRPO under the high goal "
    "(1,000 tasks at the first and last step, 200 between), with SFT + GRPO at seed 7 (grey); "
    "(b) G4' clauses with their thresholds (dotted): low-goal success at tau 1 in [0.1, 0.5], "
    "separation pass@1 high - low, RL's gain under the high goal (McNemar counts gained / lost "
    "above), high greedy - SFT greedy; (c) held-out decision points right under the high goal "
    "per kind at the last step (bars) and at step 0 (black ticks)."
)
CLAUSES = (
    ("low_success", "low goal\nsuccess at τ", G4_LOW),
    ("separation", "separation\nhigh − low", (G4_SEPARATION, None)),
    ("rl_gain", "RL gain\n(high goal)", (G4P_RL_GAIN, None)),
    ("high_over_sft", "high greedy\n− SFT greedy", (0.0, None)),
)
"""(value key, label, (lower, upper) threshold) of each clause drawn in panel (b)."""


def decisions(run: Run) -> dict[str, tuple[float, float]]:
    """Kind -> share of held-out decision points right under the run's evaluation condition
    at its first and last evaluated step."""
    evals = list(run.step_evals.values())
    out = {}
    for kind in DECISIONS:
        pair = []
        for e in (evals[0], evals[-1]):
            block = next(iter(e["conditions"].values()))["decisions"]["per_kind"]
            pair.append(block[kind]["mean"] if kind in block else float("nan"))
        out[kind] = (pair[0], pair[1])
    return out


def points() -> list[dict]:
    """Per entry: the RL run's proof record (curve, McNemar), its G4′ gate and its decision
    points per kind."""
    found = load_reports(inputs=tuple(rel for e in ENTRIES for rel in reports(e)))
    out = []
    for e in ENTRIES:
        sft, rctp = (found[rel] for rel in reports(e))
        rec = proof.proof_record(REPO_ROOT / rl_run(e), REPO_ROOT)
        gate = g4_prime(rctp, sft, rec)
        values = dict(gate.values)
        values["high_over_sft"] = values["high_greedy"] - values["sft_greedy"]
        out.append(
            {
                "entry": e,
                "record": rec,
                "gate": gate,
                "values": values,
                "decisions": decisions(Run(REPO_ROOT / rl_run(e))),
            }
        )
    return out


def _curves(ax, pts: list[dict]) -> None:
    ref = proof.proof_record(REPO_ROOT / REFERENCE, REPO_ROOT)
    steps = sorted(ref["curve"])
    ax.plot(
        steps,
        [ref["curve"][s] for s in steps],
        "o-",
        ms=2.5,
        color="0.6",
        label="SFT + GRPO, seed 7",
    )
    for p in pts:
        e, curve = p["entry"], p["record"]["curve"]
        steps = sorted(curve)
        ax.plot(
            steps,
            [curve[s] for s in steps],
            "o-" if e.decides else "o--",
            ms=3.0,
            color=e.colour,
            label=f"RCTP-FT + GRPO, {name(e)}",
        )
    ax.set_xlabel("RL step")
    ax.set_ylabel("greedy held-out success")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=6, loc="lower right")


def _grouped(groups: int, pts: list[dict]):
    """Per entry of ``pts``: the entry, its bars' x positions among ``groups`` groups, their
    width and its bar style (solid where it decides G4′, hatched where exploratory)."""
    width = 0.8 / len(pts)
    for i, p in enumerate(pts):
        e = p["entry"]
        style = {"color": e.colour, "hatch": "" if e.decides else "//", "edgecolor": "white"}
        yield p, np.arange(groups) - 0.4 + width * (i + 0.5), width, style


def _clauses(ax, pts: list[dict]) -> None:
    x = np.arange(len(CLAUSES))
    for p, xs, width, style in _grouped(len(CLAUSES), pts):
        e = p["entry"]
        ax.bar(xs, [p["values"][k] for k, _, _ in CLAUSES], width, label=name(e), **style)
        m, gain = p["record"]["mcnemar"], p["values"]["rl_gain"]
        ax.text(
            xs[2],
            max(gain, 0.0) + 0.012,
            f"+{m['c']}/−{m['b']}",
            ha="center",
            fontsize=4.5,
            color=e.colour,
            rotation=90,
            va="bottom",
        )
    for xi, (_, _, (lo, hi)) in zip(x, CLAUSES, strict=True):
        for bound in (lo, hi):
            if bound is not None:
                ax.plot([xi - 0.45, xi + 0.45], [bound, bound], ":", color="0.2", lw=1.0)
    ax.axhline(0.0, color="0.5", lw=0.6)
    ax.set_xticks(x, [label for _, label, _ in CLAUSES], fontsize=6.5)
    ax.set_ylabel("clause value")
    ax.set_ylim(min(-0.05, *(p["values"]["high_over_sft"] for p in pts)), 0.75)
    ax.legend(fontsize=6, loc="upper right")


def _decisions(ax, pts: list[dict]) -> None:
    x = np.arange(len(DECISIONS))
    for p, xs, width, style in _grouped(len(DECISIONS), pts):
        first, last = zip(*(p["decisions"][k] for k in DECISIONS), strict=True)
        ax.bar(xs, last, width, **style)
        ax.plot(xs, first, "_", color="black", ms=9, mew=1.6, clip_on=False, zorder=3)
    ax.set_xticks(x, list(DECISIONS), fontsize=6.5)
    ax.set_ylabel("points right, high goal (tick: step 0)")
    ax.set_ylim(0, 1.05)


def title(pts: list[dict]) -> str:
    """G4′'s verdict at each recipe's deciding seed (the failing clauses named)."""
    parts = []
    for p in pts:
        e, gate = p["entry"], p["gate"]
        if not e.decides:
            continue
        gain = gate.values["rl_gain"]
        if gate.holds:
            parts.append(f"v{e.variant}: G4′ holds at seed {e.seed} (RL gain {gain:+.3f})")
        else:
            failed = ", ".join(k for k, ok in gate.detail.items() if not ok)
            parts.append(
                f"v{e.variant}: G4′ does not hold at seed {e.seed} (fails: {failed}; "
                f"RL gain {gain:+.3f})"
            )
    return "; ".join(parts)


def make_figure(runs: dict) -> Figure:
    pts = points()
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, 3, figsize=(12.5, 3.5), constrained_layout=True)
        _curves(axes[0], pts)
        _clauses(axes[1], pts)
        _decisions(axes[2], pts)
        for ax, letter in zip(axes, "abc", strict=True):
            fs.panel_label(ax, letter)
        fig.suptitle(title(pts), fontsize=8.5)
    return fig
