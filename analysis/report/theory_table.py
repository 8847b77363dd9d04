"""The theory check table and macros, from ``python -m analysis.theory check --json``.

The JSON report (``figures/theory_report.json``) has one entry per statement with
``statement, title, configs, comparisons, violations, worst_slack, max_err_over_tol,
status, seconds``; this module turns it into ``theory_table.tex`` (one row per statement,
same columns as the command's printed table) and ``\\Theory*`` macros for the text.
"""

from __future__ import annotations

from analysis.report.latex import (
    escape,
    fmt_int,
    fmt_number,
    newcommand,
    tabular,
)

# statement id -> how the report names it (the paper's numbering; "ours" = beyond the paper)
STATEMENT_LABELS = {
    "def_4_1": r"Def.~4.1 (collapse)",
    "lemma_a_2": r"Lemma~A.2 (KL bound)",
    "prop_4_2": r"Prop.~4.2 (peaked policies)",
    "lemma_a_3_a_4": r"Lemmas~A.3, A.4",
    "prop_4_3": r"Prop.~4.3 (variance bound)",
    "stratified": r"stratified goals (ours)",
    "near_collapse": r"near-collapse (ours)",
    "remark_4_4": r"Remark~4.4 (dynamics)",
    "separation": r"separation dynamics (ours)",
}
REQUIRED_KEYS = ("statement", "configs", "comparisons", "violations", "status")


def _check_report(report: dict) -> list[dict]:
    entries = report.get("statements") if isinstance(report, dict) else None
    if not isinstance(entries, list) or not entries:
        raise ValueError("report must be a theory report: a dict with a non-empty 'statements'")
    for e in entries:
        missing = [k for k in REQUIRED_KEYS if k not in e]
        if missing:
            raise ValueError(f"report statement {e.get('statement')!r} lacks keys {missing}")
    return entries


def statement_label(statement_id: str) -> str:
    """The report's name for a statement id (escaped id when unknown)."""
    return STATEMENT_LABELS.get(statement_id, escape(statement_id))


def _note(report: dict) -> str:
    return (
        "Worst slack: smallest margin of an exact inequality ($\\geq 0$: holds exactly; "
        "$|\\cdot| \\lesssim 10^{-12}$ is float rounding on attained bounds). "
        "Max err/tol: largest error of an equality relative to its tolerance "
        "($\\leq 1$ passes; Monte Carlo tolerances are distribution-free "
        "half-widths at $\\delta=10^{-9}$). Generated from the JSON report of "
        "\\texttt{python -m analysis.theory check} "
        f"({fmt_int(report.get('configs_per_statement'))} random configurations per statement "
        f"plus the paper's setting, seed {fmt_int(report.get('seed'))})."
    )


def theory_table(report: dict) -> str:
    """``theory_table.tex``: one booktabs row per statement of the JSON report."""
    entries = _check_report(report)
    rows = []
    for e in entries:
        status = r"\textbf{violated}" if e["violations"] else "ok"
        rows.append(
            [
                statement_label(e["statement"]),
                fmt_int(e["configs"]),
                fmt_int(e["comparisons"]),
                fmt_int(e["violations"]),
                fmt_number(e.get("worst_slack"), 3),
                fmt_number(e.get("max_err_over_tol"), 3),
                status,
            ]
        )
    total = sum(e["comparisons"] for e in entries)
    bad = sum(e["violations"] for e in entries)
    rows.append(r"\midrule")
    rows.append(["all", "", fmt_int(total), fmt_int(bad), "", "", "ok" if not bad else "violated"])
    return tabular(
        ["statement", "configs", "compared", "violations", "worst slack", "max err/tol", "status"],
        rows,
        "lrrrrrl",
        colsep="4pt",
        caption="Theory checks: every statement of the paper's Section~4 and Appendix~A, "
        "checked exactly or by Monte Carlo.",
        label="tab:theory",
        note=_note(report),
    )


def theory_macros(report: dict) -> list[str]:
    r"""``\TheoryStatements``, ``\TheoryComparisons``, ``\TheoryViolations``,
    ``\TheoryConfigs``, ``\TheorySeed``, ``\TheorySeconds``."""
    entries = _check_report(report)
    seconds = report.get("seconds")
    return [
        newcommand("TheoryStatements", fmt_int(len(entries))),
        newcommand("TheoryComparisons", fmt_int(sum(e["comparisons"] for e in entries))),
        newcommand("TheoryViolations", fmt_int(sum(e["violations"] for e in entries))),
        newcommand("TheoryConfigs", fmt_int(report.get("configs_per_statement"))),
        newcommand("TheorySeed", fmt_int(report.get("seed"))),
        newcommand("TheorySeconds", fmt_number(seconds, 1)),
    ]
