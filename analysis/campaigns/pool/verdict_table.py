"""The verdicts of :mod:`analysis.campaigns.pool.verdicts` as tables: the report's LaTeX table
(``paper/generated/verdicts.tex``) and the ``verdicts`` block of ``docs/findings.md`` (markdown).

Each row: the claim, the measured quantity, the estimate with its 95% t-interval, the number
of seeds with every arm, the test and the verdict (naming the arms not yet run).
"""

from __future__ import annotations

import math

from analysis.campaign.mechanics import RESULTS
from analysis.campaigns.pool.verdicts import Outcome, outcomes
from analysis.report.latex import escape, tabular
from analysis.runs.sources import Resolver, layout_resolver


def fmt_outcome(out: Outcome, digits: int = 3) -> str:
    """``m [ℓ, u]``; ``m`` alone below two seeds; ``—`` without a value."""
    est = out.estimate
    if est is None or not math.isfinite(est.mean):
        return "—"
    if est.half_width is None:
        return f"{est.mean:.{digits}f}"
    lo, hi = est.mean - est.half_width, est.mean + est.half_width
    return f"{est.mean:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def _cells(out: Outcome) -> list[str]:
    n = out.estimate.n if out.estimate is not None else 0
    verdict = out.verdict
    if out.missing:
        verdict += f" (not yet run: {', '.join(out.missing)})"
    return [out.rule.claim, out.rule.quantity, fmt_outcome(out), str(n), out.rule.test, verdict]


HEADER = ("claim", "quantity", "estimate [95% CI]", "n", "test", "verdict")
NOTE = (
    "Rules and thresholds fixed in analysis/campaigns/pool/verdicts.py before the long runs. "
    "Estimate: mean "
    "over seeds of the per-seed value with its 95% t-interval; n = seeds with every arm; "
    "n < 3 is inconclusive."
)


def verdicts_latex(resolve: Resolver | None = None) -> str:
    """The report's verdict table (``paper/generated/verdicts.tex``)."""
    rows = [[escape(c) for c in _cells(out)] for out in outcomes(resolve)]
    return tabular(
        [escape(h) for h in HEADER],
        rows,
        ["p{3.3cm}", "p{3.9cm}", "r", "r", "p{2.3cm}", "p{1.6cm}"],
        caption="Verdicts on the paper's claims (and ours), by rules written down before the runs.",
        label="tab:verdicts",
        note=escape(NOTE),
        size="scriptsize",
        colsep="3pt",
    )


def verdicts_markdown(resolve: Resolver | None = None) -> str:
    """The ``verdicts`` block of ``docs/findings.md`` (default: the committed light copies)."""
    if resolve is None:
        resolve = layout_resolver(RESULTS)
    lines = ["| " + " | ".join(HEADER) + " |", "|---|---|--:|--:|---|---|"]
    for out in outcomes(resolve):
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in _cells(out)) + " |")
    return "\n".join(lines) + "\n\n" + NOTE + "\n"
