"""Run tables as Markdown, for the generated blocks of the docs.

A :class:`~analysis.report.runtable.TableSpec` names an experiment group per row; each cell is
the mean over its seeds ± the 95% Student-t half-width (:func:`analysis.stats.mean_ci`; one
seed: the mean alone), success rates in %."""

from __future__ import annotations

import math
from pathlib import Path

from analysis.report.runtable import TableSpec
from analysis.runs import load_run
from analysis.stats import Estimate, mean_ci

DASH = "—"


def fmt_markdown(est: Estimate | None, digits: int = 2, percent: bool = False) -> str:
    """``m ± h`` with ``digits`` decimals (``m`` for one seed; ``—`` when nothing is finite)."""
    if est is None or not math.isfinite(est.mean):
        return DASH
    scale = 100.0 if percent else 1.0
    mean = f"{est.mean * scale:.{digits}f}"
    if est.half_width is None or not math.isfinite(est.half_width):
        return mean
    return f"{mean} ± {est.half_width * scale:.{digits}f}"


def markdown_table(spec: TableSpec, found: dict[str, list[Path]]) -> str:
    """``spec`` as a markdown table; a row without finished runs reads *not yet run*."""
    header = spec.header()
    labels = len(spec.label_headers)
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * labels + "--:|" * (len(header) - labels),
    ]
    for row in spec.rows:
        runs = [load_run(p) for p in found.get(row.experiment, [])]
        if runs:
            cells = [
                fmt_markdown(mean_ci(c.extract(r) for r in runs), c.digits, c.percent)
                for c in spec.columns
            ]
            cells.append(str(len(runs)))
        else:
            cells = [f"*not yet run: `{row.experiment}`*", *[""] * len(spec.columns)]
        lines.append("| " + " | ".join([*row.labels, *cells]) + " |")
    return "\n".join(lines) + "\n"
