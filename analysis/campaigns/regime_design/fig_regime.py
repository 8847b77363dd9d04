r"""The regime diagnostic at the seed-0 Stage-1 checkpoints: is the testbed in the paper's regime?

Reads the committed reports of :mod:`analysis.diagnostics.regime`
(``results/diagnostics/regime-*.json``, listed in :data:`INPUTS`; the figure never runs the
diagnostic) and the gate verdicts (:mod:`analysis.campaigns.regime_design.gates`). (a) unbiased
pass@k at the RL temperature against k, with the greedy success (k = 0 marker and dashed
line), per checkpoint and reward goal; (b) greedy success and pass@8 per synth category (SFT, no goal); (c) the kinds of SFT's greedy failures:
their share of the failures and, for each, P(right | sampled) against its chance level
(gate G2 asks for 2× chance on every kind with ≥ 10%).
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from analysis import REPO_ROOT
from analysis.campaigns.regime_design.gates import gates
from analysis.figures import style as fs

REQUIRES: tuple[str, ...] = ()
ROOT = REPO_ROOT
SFT_REPORT = "results/diagnostics/regime-sft-s0.json"
RCTP_REPORT = "results/diagnostics/regime-rctp-s0.json"
INPUTS: tuple[str, ...] = (SFT_REPORT, RCTP_REPORT)
"""Files the figure reads (repository-relative)."""


def series(sft: str, rctp: str) -> tuple[tuple[str, str, str, str], ...]:
    """(report, goal, label, colour) of each pass@k curve: SFT without and with the high
    token, RCTP-FT under each goal."""
    return (
        (sft, "none", "SFT", fs.BLACK),
        (sft, "high", "SFT + high token", fs.ORANGE),
        (rctp, "high", "RCTP-FT, high", fs.SKY),
        (rctp, "low", "RCTP-FT, low", fs.VERMILION),
    )


SERIES = series(SFT_REPORT, RCTP_REPORT)
CAPTION = (
    "Regime diagnostic of the seed-0 Stage-1 checkpoints on the 200 held-out synth tasks "
    "(analysis/diagnostics/regime/; cpu-grpo rollouts: tau 1, 96 new tokens, 1,024-token "
    "context, 8 samples per task): (a) unbiased pass@k against k with greedy success at k = 0 "
    "(dashed); (b) greedy success and pass@8 per synth category of SFT; (c) SFT's greedy failure kinds: "
    "share of the failures (bars) and P(right decision | sampled) against chance (points; "
    "gate G2 needs 2x chance on every kind with >= 10% of the failures)."
)


def load_reports(root: Path = ROOT, inputs: tuple[str, ...] = INPUTS) -> dict[str, dict]:
    """The reports of ``inputs`` by path; FileNotFoundError names a missing one."""
    out = {}
    for rel in inputs:
        path = root / rel
        if not path.is_file():
            raise FileNotFoundError(
                f"{rel} is missing: run python -m analysis.diagnostics.regime (docs)"
            )
        out[rel] = json.loads(path.read_text())
    return out


def _short(category: str) -> str:
    return category.removeprefix("synth/").replace("+", "+\n")


def _pass_at_k(ax, reports: dict[str, dict], series: tuple, legend: str) -> None:
    for rel, cond, label, colour in series:
        c = reports[rel]["conditions"].get(cond)
        if c is None:
            continue
        ks, greedy = c["ks"], c["greedy"]["overall"]
        ax.plot(ks, c["pass_at_k"]["overall"], "o-", ms=3, color=colour, label=label)
        ax.plot([0], [greedy], "s", color=colour, ms=5)
        ax.axhline(greedy, color=colour, ls="--", lw=0.8)
    ax.set_xlabel("k (samples at τ = 1; 0: greedy)")
    ax.set_ylabel("held-out success")
    ax.set_ylim(0, 1)
    ax.set_xticks(range(0, 9))
    ax.legend(fontsize=7, loc=legend)


def _categories(ax, sft: dict) -> None:
    c = sft["conditions"]["none"]
    cats = sorted(c["greedy"]["per_category"])
    x = np.arange(len(cats))
    greedy = [c["greedy"]["per_category"][k] for k in cats]
    pass8 = [c["pass_at_k"]["per_category"][k][-1] for k in cats]
    ax.bar(x - 0.2, greedy, 0.4, color=fs.BLACK, label="greedy")
    ax.bar(x + 0.2, pass8, 0.4, color=fs.SKY, label="pass@8")
    counts = c["tasks_per_category"]
    ax.set_xticks(x, [f"{_short(k)}\n({counts[k]})" for k in cats], fontsize=6.5)
    ax.set_ylim(0, 1)
    ax.set_ylabel("held-out success (SFT)")
    ax.legend(fontsize=7, loc="upper left")


def _kinds(ax, sft: dict) -> None:
    support = sft["conditions"]["none"]["support"]
    kinds = sorted(support, key=lambda k: -support[k]["share_of_failures"])
    y = np.arange(len(kinds))
    share = [support[k]["share_of_failures"] for k in kinds]
    ax.barh(y, share, 0.6, color="0.82", label="share of greedy failures")
    p = [support[k]["p_right"] for k in kinds]
    ax.plot(p, y, "o", color=fs.BLUE, label="P(right | sampled)")
    for yi, k in zip(y, kinds, strict=True):
        chance = support[k]["chance"]
        if chance is not None:
            ax.plot([chance], [yi], "|", color=fs.VERMILION, ms=10, mew=1.6)
            ax.plot([2 * chance], [yi], "|", color=fs.VERMILION, ms=6, mew=1.0, alpha=0.6)
    ax.plot([], [], "|", color=fs.VERMILION, ms=8, label="chance (small: 2× chance)")
    ax.axvline(0.10, color="0.5", lw=0.7, ls=":")
    labels = [f"{k} ({support[k]['tasks']})" for k in kinds]
    ax.set_yticks(y, labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share / probability")
    ax.legend(fontsize=6.5, loc="lower right")


def gate_line(reports: dict[str, dict], sft: str = SFT_REPORT, rctp: str = RCTP_REPORT) -> str:
    """One line: each gate's verdict (the figure's title)."""
    marks = {True: "holds", False: "fails", None: "n/a"}
    verdicts = gates(reports[sft], reports.get(rctp))
    return "   ".join(f"{g.name.split()[0]} {marks[g.holds]}" for g in verdicts)


def draw(
    reports: dict[str, dict], sft: str, rctp: str, series: tuple, title: str, legend: str
) -> Figure:
    """The three panels (module docstring) for an SFT report and an RCTP-FT report;
    ``legend``: where panel (a)'s legend goes (clear of the curves)."""
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(
            1, 3, figsize=(11.0, 3.4), constrained_layout=True, width_ratios=[1, 1.1, 1.1]
        )
        _pass_at_k(axes[0], reports, series, legend)
        _categories(axes[1], reports[sft])
        _kinds(axes[2], reports[sft])
        for ax, letter in zip(axes, "abc", strict=True):
            fs.panel_label(ax, letter)
        fig.suptitle(f"{title}: {gate_line(reports, sft, rctp)}", fontsize=8.5)
    return fig


def make_figure(runs: dict) -> Figure:
    title = "gates at sft-s0 / rctp-s0"
    return draw(load_reports(), SFT_REPORT, RCTP_REPORT, SERIES, title, "lower right")
