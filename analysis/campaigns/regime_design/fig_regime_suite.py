r"""The regime diagnostic of the regime carried forward at its design seed: does it pass the gates?

The panels of :mod:`analysis.campaigns.regime_design.fig_regime` (pass@k against k per checkpoint and goal;
greedy and pass@8 per synth category; SFT's greedy failure kinds against chance) for the
design-seed Stage-1 checkpoints of the design variant carried forward (``docs/regime.md``, the
chosen design, listed in ``results/FIGURES.toml``: variant 17 on ``regime-wide1-d10``, whose
gates hold at seeds 7 and 21), read from the committed reports of :mod:`analysis.diagnostics.regime` (:data:`INPUTS`); the title gives the verdicts of
the gates G1–G5 (:mod:`analysis.campaigns.regime_design.gates`).
"""

from __future__ import annotations

from matplotlib.figure import Figure

from analysis.campaigns.regime_design import fig_regime as base
from analysis.runs.index import FIGURES_FILE, figure_entries

REQUIRES: tuple[str, ...] = ()
(DESIGN,) = figure_entries("regime_suite")
"""The design variant drawn (docs/regime.md: the chosen design), its suite and its runs at
the design seed (``results/FIGURES.toml``: variant 17 = variant 15's
SFT, then RCTP-FT 4 epochs with the goal rows started apart)."""
SUITE, VARIANT, SEED = DESIGN["suite"], str(DESIGN["variant"]), DESIGN["seed"]
SFT_REPORT = f"results/diagnostics/regime-regime-{DESIGN['sft']}-s{SEED}.json"
RCTP_REPORT = f"results/diagnostics/regime-regime-{DESIGN['rctp']}-s{SEED}.json"
INPUTS: tuple[str, ...] = (FIGURES_FILE, SFT_REPORT, RCTP_REPORT)
"""Files the figure reads (repository-relative)."""
SERIES = base.series(SFT_REPORT, RCTP_REPORT)
CAPTION = (
    f"Regime diagnostic of design variant {VARIANT} on {SUITE} at seed {SEED} (no factorial "
    "seed) on 200 held-out tasks (analysis/diagnostics/regime/; regime-grpo rollouts: tau 1, 8 "
    "samples per task): (a) unbiased pass@k against k with greedy success at k = 0 (dashed); (b) "
    "greedy success and pass@8 per synth category of SFT; (c) SFT's greedy failure kinds: "
    "share of the failures (bars) and P(right decision | sampled) against chance (points; "
    "gate G2 needs 2x chance on every kind with >= 10% of the failures)."
)


def make_figure(runs: dict) -> Figure:
    reports = base.load_reports(inputs=(SFT_REPORT, RCTP_REPORT))
    title = f"{SUITE}, variant {VARIANT}, seed {SEED}, gates"
    return base.draw(reports, SFT_REPORT, RCTP_REPORT, SERIES, title, "lower right")
