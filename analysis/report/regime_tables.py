r"""The new regime's Table 1 analogue: held-out success per factorial arm, beside the paper's.

The ``regime-table1`` block of ``docs/regime_verdicts.md`` (``python -m analysis.report
--write-readme``), from the committed runs ``results/regime/<arm>-s<seed>`` of the
``regime-factorial`` arms (:data:`rcgrpo.train.arms.ARMS`) on every seed the verdict rules may
count (:data:`analysis.verdicts.regime.RESERVED_SEEDS` never do). Per arm: the seeds, greedy
held-out success at the first and the last evaluation and their difference (the run's
evaluation goal: high for the RC arms; 1,000 held-out tasks), the last evaluation per task
category, the share of planted decision points that are right at the end, and the paper's
Table 1 (BFCL accuracy of single runs on 80 tasks, for the ordering only: a different model,
scale and task suite). Each cell is the mean over seeds ± the 95% Student-t half-width
(:func:`analysis.stats.mean_ci`), in %; arms differ in their seeds, so the rows are not a
paired comparison (that is the verdict table, paired by task and seed).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from analysis.report.tables import PAPER_LLAMA, PAPER_QWEN
from analysis.runs import Run
from analysis.runs.sources import layout_resolver
from analysis.stats import mean_ci
from analysis.verdicts import regime as rv
from rcgrpo.train.arms import arms

DASH = "—"
CATEGORY_PREFIX = "synth/"


def _rate(summary: dict) -> float:
    """A success summary (``{"successes": k, "n": n, ...}``) as a rate."""
    return summary["successes"] / summary["n"] if summary.get("n") else float("nan")


def cell(values: list[float]) -> str:
    """Mean ± 95% t half-width in % (one value: the mean alone; none: a dash)."""
    est = mean_ci(values)
    if est is None:
        return DASH
    pm = f" ± {100 * est.half_width:.1f}" if est.half_width is not None else ""
    return f"{100 * est.mean:.1f}{pm}"


def _columns(categories: list[str]) -> dict[str, Callable[[Run], float]]:
    def start(r: Run) -> float:
        return _rate(rv.evaluation(r, "first")["overall"]["reward"])

    def end(r: Run) -> float:
        return _rate(rv.evaluation(r, "last")["overall"]["reward"])

    def category(name: str) -> Callable[[Run], float]:
        def read(r: Run) -> float:
            per = rv.evaluation(r, "last").get("per_category", {})
            return _rate(per[name]["reward"]) if name in per else float("nan")

        return read

    def decisions(r: Run) -> float:
        right = rv.evaluation(r, "last").get("decisions", {}).get("right")
        return _rate(right) if right else float("nan")

    cols = {"start": start, "end": end, "Δ": lambda r: end(r) - start(r)}
    cols |= {c.removeprefix(CATEGORY_PREFIX): category(c) for c in categories}
    return cols | {"decision points right": decisions}


def table1_markdown(by_arm: Mapping[str, Mapping[int, Run]]) -> str:
    """The block's body from {arm preset: {seed: run}} of the factorial arms."""
    cells = arms("new", "regime-factorial")
    runs = {a.preset: dict(sorted(by_arm.get(a.preset, {}).items())) for a in cells}
    categories = sorted(
        {c for rs in runs.values() for r in rs.values()
         for c in rv.evaluation(r, "last").get("per_category", {})}
    )  # fmt: skip
    columns = _columns(categories)
    head = ["init", "stage 2", "seeds", *columns, "paper Qwen2.5-7B", "paper Llama-3.1-8B"]
    lines = ["| " + " | ".join(head) + " |", "|---|---|---|" + "--:|" * (len(head) - 3)]
    for a in cells:
        rs = list(runs[a.preset].values())
        seeds = ", ".join(map(str, runs[a.preset])) or DASH
        values = [cell([f(r) for r in rs]) for f in columns.values()]
        row = [a.init, a.method, seeds, *values, PAPER_QWEN[a.role], PAPER_LLAMA[a.role]]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def table1_block(root: Path) -> str:
    """:func:`table1_markdown` of the committed runs under ``root``."""
    resolve = layout_resolver(root)
    found = {a.preset: resolve(a.preset) for a in arms("new", "regime-factorial")}
    return table1_markdown(rv.load_arms(found))
