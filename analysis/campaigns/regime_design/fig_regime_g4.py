r"""Gate G4 against RCTP-FT epochs: the goals separate only where the high goal has no headroom.

Reads the committed regime diagnostics of the RCTP-FT variants that differ only in epochs
(:data:`VARIANTS`, listed in ``results/FIGURES.toml``: variant 3's seed-7 SFT as the failure
sampler, RCTP-FT from the base, the same 4,000-trajectory mix;
``docs/lab-notes/2026-12-regime-design-g4.md``) and the goal log-probability gaps of
:mod:`analysis.diagnostics.regime.goal_logp` on that mix. (a) G4's two high-goal clauses
against epochs: the separation pass@1(high) − pass@1(low) and the high goal's headroom
pass@8 − greedy, each with its threshold (both must hold); (b) greedy and pass@8 under each
goal; (c) the mean gap log π(τ | high) − log π(τ | low) over the assistant tokens of the mix's
successes and failures (± 1 SE). The verdicts are :func:`analysis.campaigns.regime_design.gates.gates`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from analysis.campaigns.regime_design.fig_regime import load_reports
from analysis.campaigns.regime_design.gates import G4_GAIN, G4_SEPARATION, gates
from analysis.figures import style as fs
from analysis.runs.index import FIGURES_FILE, figure_entries

REQUIRES: tuple[str, ...] = ()
VARIANTS: tuple[tuple[str, float], ...] = tuple(
    (f"v{e['variant']}", e["epochs"]) for e in figure_entries("regime_g4")
)
"""(variant, RCTP-FT epochs), in order of epochs (``results/FIGURES.toml``)."""
NUMBERS = ", ".join(v[1:] for v, _ in VARIANTS)
VARIANT_KEY = (
    f"{', '.join(v for v, _ in VARIANTS)}: RCTP-FT variants {NUMBERS} (the same mix from "
    "variant 3's SFT, from the base; only the epochs differ)"
)
"""What the point labels of panel (a) mean, written under the title."""
SFT_REPORT = "results/diagnostics/regime-regime-sft-v3-s7.json"
REPORTS: tuple[str, ...] = (
    SFT_REPORT,
    *(f"results/diagnostics/regime-regime-rctp-{v}-s7.json" for v, _ in VARIANTS),
    *(f"results/diagnostics/goal-logp-rctp-{v}-s7.json" for v, _ in VARIANTS),
)
INPUTS: tuple[str, ...] = (FIGURES_FILE, *REPORTS)
"""Files the figure reads (repository-relative)."""
CAPTION = (
    f"Gate G4 on the regime suite at seed 7 against RCTP-FT's epochs (variants {NUMBERS}: "
    "the same mix of 2,000 expert successes and 2,000 failures sampled from variant 3's SFT, "
    "RCTP-FT from the base; 200 held-out tasks, 8 samples at tau 1): (a) separation pass@1 "
    "high - low and the high goal's headroom pass@8 - greedy with their thresholds (dotted); "
    "(b) greedy (squares) and pass@8 (circles) under each goal; (c) mean goal gap "
    "log pi(tau|high) - log pi(tau|low) on the mix's successes and failures (+- 1 SE)."
)


def points() -> list[dict]:
    """Per variant: epochs, the G4 values, greedy / pass@8 per goal, the goal gaps."""
    files = load_reports(inputs=REPORTS)
    sft = files[SFT_REPORT]
    out = []
    for variant, epochs in VARIANTS:
        report = files[f"results/diagnostics/regime-regime-rctp-{variant}-s7.json"]
        logp = files[f"results/diagnostics/goal-logp-rctp-{variant}-s7.json"]
        g4 = next(g for g in gates(sft, report) if g.name.startswith("G4"))
        goals = {
            goal: (c["greedy"]["overall"], c["pass_at_k"]["overall"][-1])
            for goal, c in report["conditions"].items()
        }
        out.append({"variant": variant, "epochs": epochs, "g4": g4, "goals": goals, "logp": logp})
    return out


def _clauses(ax, pts: list[dict]) -> None:
    x = [p["epochs"] for p in pts]
    sep = [p["g4"].values["separation"] for p in pts]
    room = [p["g4"].values["high_pass8_minus_greedy"] for p in pts]
    ax.plot(x, sep, "o-", color=fs.BLUE, label="separation pass@1 high − low")
    ax.plot(x, room, "s-", color=fs.ORANGE, label="high headroom pass@8 − greedy")
    ax.axhline(
        G4_SEPARATION,
        color=fs.BLUE,
        ls=":",
        lw=0.9,
        label=f"G4 needs separation ≥ {G4_SEPARATION:.2f}",
    )
    ax.axhline(G4_GAIN, color=fs.ORANGE, ls=":", lw=0.9, label=f"G4 needs headroom ≥ {G4_GAIN:.2f}")
    for p, s in zip(pts, sep, strict=True):
        ax.annotate(
            p["variant"],
            (p["epochs"], s),
            textcoords="offset points",
            xytext=(0, 5),
            ha="center",
            fontsize=6.5,
        )
    ax.set_xlabel("RCTP-FT epochs")
    ax.set_ylabel("G4 clause value")
    ax.set_xticks(x)
    ax.set_ylim(0, 0.45)
    ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, 1.0), ncol=1)


def _success(ax, pts: list[dict]) -> None:
    x = [p["epochs"] for p in pts]
    for goal, colour in (("high", fs.SKY), ("low", fs.VERMILION)):
        ax.plot(x, [p["goals"][goal][0] for p in pts], "s-", color=colour, label=f"{goal}, greedy")
        ax.plot(x, [p["goals"][goal][1] for p in pts], "o--", color=colour, label=f"{goal}, pass@8")
    ax.set_xlabel("RCTP-FT epochs")
    ax.set_ylabel("held-out success")
    ax.set_ylim(0, 1)
    ax.set_xticks(x)
    ax.legend(fontsize=6.5, loc="lower right", ncol=2)


def _gaps(ax, pts: list[dict]) -> None:
    x = [p["epochs"] for p in pts]
    for kind, colour in (("success", fs.GREEN), ("failure", fs.VERMILION)):
        mean = [p["logp"][kind]["mean_gap"] for p in pts]
        se = [p["logp"][kind]["se"] for p in pts]
        ax.errorbar(
            x,
            mean,
            yerr=se,
            fmt="o-",
            ms=3.5,
            capsize=2,
            color=colour,
            label=(f"{kind}es" if kind == "success" else f"{kind}s") + " (± 1 SE)",
        )
    ax.axhline(0.0, color="0.5", lw=0.7)
    ax.set_xlabel("RCTP-FT epochs")
    ax.set_ylabel("log π(τ|high) − log π(τ|low) (nats)")
    ax.set_xticks(x)
    ax.legend(fontsize=6.5, loc="upper left")


def make_figure(runs: dict) -> Figure:
    pts = points()
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, 3, figsize=(11.0, 3.3), constrained_layout=True)
        _clauses(axes[0], pts)
        _success(axes[1], pts)
        _gaps(axes[2], pts)
        for ax, letter in zip(axes, "abc", strict=True):
            fs.panel_label(ax, letter)
        held = [p["variant"] for p in pts if p["g4"].holds]
        verdict = f"G4 holds at {', '.join(held)}" if held else "G4 fails at every length"
        fig.suptitle(
            f"regime suite, seed 7, RCTP-FT epochs: {verdict}\n{VARIANT_KEY}", fontsize=8.5
        )
    return fig
