r"""Gate G4 against the share of ``resolve_close`` tasks RCTP-FT's mix keeps (variant 12),
and on the suites with a swap in every class (variants 14 on).

Variant 11 leaves every training task with a ``resolve_close`` point out of RCTP-FT's mix; its
high goal then never makes that choice right, so greedy and 8 samples both miss it and G4's
headroom clause fails. Variant 12 (``docs/lab-notes/2026-12-regime-design-v11-v13.md``) keeps a seeded share of those tasks,
``failures.skip_keep`` (:data:`POINTS`: 0 is variant 11), everything else unchanged, and
decides G4 at the design seed 7 before one share is confirmed on the fresh seed 17.

Reads the committed regime diagnostics (:mod:`analysis.diagnostics.regime`; 200 held-out
tasks, 8 samples at τ = 1). (a) G4's two high-goal clauses against the share, with their
thresholds (both must hold): the separation pass@1 high − low and the high goal's headroom
pass@8 − greedy; (b) under the high goal, greedy and pass@8 overall and on the ticket
category (the home of ``resolve_close``); (c) every committed RCTP-FT diagnostic on the regime
suite (:data:`ALL_RCTP`: variants 2–13, every seed) and on the suites with a swap in every class
(:data:`WIDE_RCTP`: variants 14 on) as its separation against the high goal's headroom, with
the region where both G4 clauses hold shaded. The verdicts are
:func:`analysis.campaigns.regime_design.gates.g4_low_goal`.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import NamedTuple

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from analysis import REPO_ROOT
from analysis.campaigns.regime_design.fig_regime import load_reports
from analysis.campaigns.regime_design.gates import (
    G4_GAIN,
    G4_SEPARATION,
    g4_goal_clauses,
    g4_low_goal,
)
from analysis.figures import style as fs
from analysis.runs import Run
from analysis.runs.index import FIGURES_FILE, figure_entries


class Point(NamedTuple):
    run: str
    """The RCTP-FT run (``results/regime/<run>``)."""
    seed: int
    share: float
    """``failures.skip_keep`` of its mix."""


POINTS: tuple[Point, ...] = tuple(Point(**e) for e in figure_entries("regime_g4_share"))
"""``results/FIGURES.toml``: variants 11, 13, 12a and 12b at the design seed, in order of share,
then variant 13 on the confirmation seed 17."""
TICKET = "synth/ticket"


def reports(p: Point) -> tuple[str, str]:
    """The SFT and RCTP-FT diagnostics the point's G4 reads."""
    return (
        f"results/diagnostics/regime-regime-sft-v3-s{p.seed}.json",
        f"results/diagnostics/regime-regime-{p.run}-s{p.seed}.json",
    )


ALL_RCTP: tuple[str, ...] = tuple(
    str(path.relative_to(REPO_ROOT))
    for path in sorted((REPO_ROOT / "results" / "diagnostics").glob("regime-regime-rctp-v*.json"))
)
"""Every committed RCTP-FT diagnostic on the regime suite (panel c)."""


def _wide(rel: str) -> tuple[int, int]:
    """(variant, seed) of a wide-suite diagnostic ``...-rctp-w<variant>-s<seed>.json``."""
    variant, seed = re.search(r"-w(\d+)-s(\d+)\.json$", rel).groups()
    return int(variant), int(seed)


WIDE_RCTP: tuple[str, ...] = tuple(
    sorted(
        (
            str(path.relative_to(REPO_ROOT))
            for path in (REPO_ROOT / "results" / "diagnostics").glob("regime-regime-rctp-w*.json")
        ),
        key=_wide,
    )
)
"""Every committed RCTP-FT diagnostic on the suites with a swap in every class (variants 14
on: ``regime-wide-d10``, ``regime-wide1-d10``; panel c, diamonds)."""
REQUIRES: tuple[str, ...] = ()


@cache
def _run(rctp_rel: str) -> Run:
    """The RCTP-FT run a diagnostic measured (the folder of its checkpoint)."""
    checkpoint = json.loads((REPO_ROOT / rctp_rel).read_text())["checkpoint"]
    return Run(REPO_ROOT / Path(checkpoint).parent)


def _config(rctp_rel: str) -> str:
    """The config file of the RCTP-FT run a diagnostic measured (repository-relative)."""
    return str(_run(rctp_rel).paths.config.relative_to(REPO_ROOT))


def sft_report(rctp_rel: str) -> str:
    """The SFT diagnostic an RCTP-FT diagnostic is gated against: that of the SFT run the
    RCTP-FT run started from (its config's ``model.path``; variant 16 at seed 7 starts from
    variant 15's SFT)."""
    start = Path(_run(rctp_rel).config["model"]["path"])
    return f"results/diagnostics/regime-regime-{start.parent.name}.json"


WIDE_SFT: tuple[str, ...] = tuple(sft_report(rel) for rel in WIDE_RCTP)
"""The SFT diagnostic each of :data:`WIDE_RCTP` is gated against (:func:`sft_report`)."""
REPORTS: tuple[str, ...] = tuple(
    dict.fromkeys(
        [
            *(rel for p in POINTS for rel in reports(p)),
            *ALL_RCTP,
            *WIDE_RCTP,
            *WIDE_SFT,
            *map(_config, WIDE_RCTP),
        ]
    )
)
"""The JSON files the figure reads: diagnostics and the wide RCTP-FT runs' configs."""
INPUTS: tuple[str, ...] = (FIGURES_FILE, *REPORTS)
"""Files the figure reads (repository-relative)."""
CAPTION = (
    "Gate G4 on the regime suite against failures.skip_keep, the share of the training tasks "
    "with a resolve_close point that RCTP-FT's mix keeps (0 = variant 11; RCTP-FT from the "
    "regime SFT, 3 epochs; 200 held-out tasks, 8 samples at tau 1; variant 11 ran on an "
    "AVX-512 host, the others on an AVX2 host, all fp32): (a) separation pass@1 "
    "high - low and the high goal's headroom pass@8 - greedy with their thresholds (dotted); "
    "(b) the high goal's greedy (squares) and pass@8 (circles), overall and on tickets; (c) "
    "every RCTP-FT diagnostic of the regime suite (variants 2-13, every seed) and of the "
    "suites with a swap in every class (variants 14 on, diamonds labelled with their seed; "
    "AVX-512 host): separation against the high goal's headroom; G4 needs both in the "
    "shaded corner."
)


def points() -> list[dict]:
    """Per point: its G4 gate and the high goal's (greedy, pass@8), overall and on tickets."""
    files = load_reports(inputs=REPORTS)
    out = []
    for p in POINTS:
        sft, rctp = (files[rel] for rel in reports(p))
        high = rctp["conditions"]["high"]
        out.append(
            {
                "point": p,
                "g4": g4_low_goal(rctp, sft),
                "overall": (high["greedy"]["overall"], high["pass_at_k"]["overall"][-1]),
                "ticket": (
                    high["greedy"]["per_category"][TICKET],
                    high["pass_at_k"]["per_category"][TICKET][-1],
                ),
            }
        )
    return out


def _by_seed(pts: list[dict]) -> dict[int, list[dict]]:
    out: dict[int, list[dict]] = {}
    for p in pts:
        out.setdefault(p["point"].seed, []).append(p)
    return out


def _x(pts: list[dict]) -> dict[float, int]:
    """Share -> its position on the axis (the shares are not evenly spaced)."""
    return {s: i for i, s in enumerate(sorted({p["point"].share for p in pts}))}


def _axis(ax, pos: dict[float, int]) -> None:
    ax.set_xticks(list(pos.values()), [f"{s:g}" for s in pos])
    ax.set_xlabel("failures.skip_keep (share of resolve_close tasks in the mix)", fontsize=7.5)


def _clauses(ax, pts: list[dict]) -> None:
    pos = _x(pts)
    styles = {7: ("-", 5.0), 17: ("", 8.0)}
    for seed, group in _by_seed(pts).items():
        line, size = styles.get(seed, ("", 6.0))
        x = [pos[p["point"].share] for p in group]
        sep = [p["g4"].values["separation"] for p in group]
        room = [p["g4"].values["high_pass8_minus_greedy"] for p in group]
        marker = "o" if seed == 7 else "*"
        ax.plot(x, sep, marker + line, ms=size, color=fs.BLUE, label=f"separation, seed {seed}")
        ax.plot(
            x, room, marker + line, ms=size, color=fs.ORANGE, label=f"high headroom, seed {seed}"
        )
    ax.axhline(G4_SEPARATION, color=fs.BLUE, ls=":", lw=0.9)
    ax.axhline(G4_GAIN, color=fs.ORANGE, ls=":", lw=0.9)
    _axis(ax, pos)
    ax.set_ylabel("G4 clause value")
    ax.legend(fontsize=6.5, loc="best")


def _high_goal(ax, pts: list[dict]) -> None:
    pos = _x(pts)
    x = [pos[p["point"].share] for p in pts]
    for key, colour in (("overall", fs.SKY), ("ticket", fs.VERMILION)):
        ax.plot(x, [p[key][0] for p in pts], "s-", color=colour, label=f"{key}, greedy")
        ax.plot(x, [p[key][1] for p in pts], "o--", color=colour, label=f"{key}, pass@8")
    _axis(ax, pos)
    ax.set_ylabel("held-out success, high goal (seed 7)")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=6.5, loc="lower right", ncol=2)


def _variant(rel: str) -> int:
    return int(re.search(r"rctp-v(\d+)", rel).group(1))


def _map(ax) -> None:
    files = load_reports(inputs=ALL_RCTP)
    for label, keep, colour in (
        ("variants 2–10 (RCTP-FT from the base)", lambda v: v <= 10, fs.SKY),
        ("variant 11 (from the regime SFT)", lambda v: v == 11, fs.ORANGE),
        ("variants 12–13 (a share of resolve_close)", lambda v: v >= 12, fs.VERMILION),
    ):
        xy = [g4_goal_clauses(files[rel]) for rel in ALL_RCTP if keep(_variant(rel))]
        ax.scatter(*zip(*xy, strict=True), s=16, color=colour, label=label, zorder=2)
    if WIDE_RCTP:
        wide = load_reports(inputs=WIDE_RCTP)
        xy = [g4_goal_clauses(wide[rel]) for rel in WIDE_RCTP]
        ax.scatter(
            *zip(*xy, strict=True),
            s=30,
            marker="D",
            color=fs.GREEN,
            zorder=3,
            label="variants 14+ (a swap in every class)",
        )
        for i, (rel, (x, y)) in enumerate(zip(WIDE_RCTP, xy, strict=True)):
            ax.annotate(
                "w{} s{}".format(*_wide(rel)),
                (x, y),
                fontsize=5.5,
                xytext=(3, 4 if i % 2 == 0 else -8),
                textcoords="offset points",
            )
    ax.axvline(G4_SEPARATION, color=fs.BLUE, ls=":", lw=0.9)
    ax.axhline(G4_GAIN, color=fs.ORANGE, ls=":", lw=0.9)
    ax.fill_between([G4_SEPARATION, 0.45], G4_GAIN, 0.45, color=fs.GREEN, alpha=0.12, lw=0)
    ax.set_xlim(-0.05, 0.45)
    ax.set_ylim(0, 0.45)
    ax.set_xlabel("separation pass@1 high − low")
    ax.set_ylabel("high headroom pass@8 − greedy")
    ax.legend(fontsize=6, loc="upper right")


def title(pts: list[dict]) -> str:
    """The verdicts: G4 at seed 7 per share, and on seed 17."""
    held = [f"{p['point'].share:g}" for p in pts if p["g4"].holds and p["point"].seed == 7]
    verdict = f"G4 holds at skip_keep {', '.join(held)}" if held else "G4 fails at every share"
    seventeen = [p for p in pts if p["point"].seed == 17]
    more = "".join(
        f"; seed 17 at {p['point'].share:g}: G4 {'holds' if p['g4'].holds else 'fails'}"
        for p in seventeen
    )
    wide = load_reports(inputs=(*WIDE_RCTP, *WIDE_SFT)) if WIDE_RCTP else {}
    verdicts = [
        "w{} s{} ".format(*_wide(r)) + ("holds" if g4_low_goal(wide[r], wide[q]).holds else "fails")
        for r, q in zip(WIDE_RCTP, WIDE_SFT, strict=True)
    ]
    swaps = f"\na swap in every class, G4: {', '.join(verdicts)}" if verdicts else ""
    return f"regime suite, variants 12–13, seed 7: {verdict}{more}{swaps}"


def make_figure(runs: dict) -> Figure:
    pts = points()
    with plt.rc_context(fs.RC):
        fig, axes = plt.subplots(1, 3, figsize=(12.0, 3.4), constrained_layout=True)
        _clauses(axes[0], pts)
        _high_goal(axes[1], [p for p in pts if p["point"].seed == 7])
        _map(axes[2])
        for ax, letter in zip(axes, "abc", strict=True):
            fs.panel_label(ax, letter)
        fig.suptitle(title(pts), fontsize=8.5)
    return fig
