"""The paper's sources name only what exists: every ``\\reportfigure{name}`` is a figure module
(``analysis/figures/fig_<name>.py``) and every ``\\generated{name}`` a file the report writes
(its committed reference, ``tests/reference/paper_generated/<name>.tex``)."""

from __future__ import annotations

import re

from analysis import REPO_ROOT

PAPER = REPO_ROOT / "paper"
SOURCES = sorted(PAPER.rglob("*.tex"))


def _names(macro: str) -> set[str]:
    pattern = re.compile(r"\\" + macro + r"\{([A-Za-z0-9_]+)\}")
    return {m for src in SOURCES for m in pattern.findall(src.read_text())}


def test_every_report_figure_is_a_figure_module():
    names = _names("reportfigure")
    assert {"collapse_spread_reward", "regime_factorial"} <= names
    from analysis.figures.__main__ import modules

    found = modules()
    for name in names:
        assert name in found, name
        assert (REPO_ROOT / (found[name].replace(".", "/") + ".py")).is_file(), name


def test_every_generated_input_is_written_by_the_report():
    reference = REPO_ROOT / "tests" / "reference" / "paper_generated"
    names = _names("generated")
    assert {"collapse_verdicts", "separation_verdicts", "macros"} <= names
    for name in names:
        assert (reference / f"{name}.tex").is_file(), name
