"""A verdict table: one row per pre-registered rule, as the report's LaTeX table and as a
Markdown block.

Each row: the claim, the measured quantity, the estimate with its 95% t-interval, the number
of seeds with every arm, the test and the verdict (naming the arms not yet run). An outcome is
anything with ``rule`` (``claim``, ``quantity``, ``test``), ``estimate`` (an
:class:`~analysis.stats.Estimate` or None), ``verdict`` and ``missing`` (the arms without a
finished run), as a campaign's rules give them; the campaign passes its note (where its rules
are fixed).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from analysis.report.latex import escape, tabular

HEADER = ("claim", "quantity", "estimate [95% CI]", "n", "test", "verdict")
CAPTION = "Verdicts on the paper's claims (and ours), by rules written down before the runs."


def fmt_outcome(out: Any, digits: int = 3) -> str:
    """``m [ℓ, u]``; ``m`` alone below two seeds; ``—`` without a value."""
    est = out.estimate
    if est is None or not math.isfinite(est.mean):
        return "—"
    if est.half_width is None:
        return f"{est.mean:.{digits}f}"
    lo, hi = est.mean - est.half_width, est.mean + est.half_width
    return f"{est.mean:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def _cells(out: Any) -> list[str]:
    n = out.estimate.n if out.estimate is not None else 0
    verdict = out.verdict
    if out.missing:
        verdict += f" (not yet run: {', '.join(out.missing)})"
    return [out.rule.claim, out.rule.quantity, fmt_outcome(out), str(n), out.rule.test, verdict]


def verdicts_latex(outcomes: Iterable[Any], note: str, label: str = "tab:verdicts") -> str:
    """The verdict table in LaTeX (the report's ``verdicts.tex``)."""
    rows = [[escape(c) for c in _cells(out)] for out in outcomes]
    return tabular(
        [escape(h) for h in HEADER],
        rows,
        ["p{3.3cm}", "p{3.9cm}", "r", "r", "p{2.3cm}", "p{1.6cm}"],
        caption=CAPTION,
        label=label,
        note=escape(note),
        size="scriptsize",
        colsep="3pt",
    )


def verdicts_markdown(outcomes: Iterable[Any], note: str) -> str:
    """The verdict table as a Markdown block, the note below it."""
    lines = ["| " + " | ".join(HEADER) + " |", "|---|---|--:|--:|---|---|"]
    for out in outcomes:
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in _cells(out)) + " |")
    return "\n".join(lines) + "\n\n" + note + "\n"
