"""The regime-d10 campaign's generated blocks and LaTeX tables, for its entry in the registry
(``campaign.py`` here), every one from the committed runs under ``results/regime``
(:data:`ROOT`): its page's verdicts, Table 1 analogue, entropy and calibration tables
(:mod:`analysis.campaigns.regime_d10.tables`,
:mod:`analysis.campaigns.regime_d10.entropy_tables`), the ``regime-verdicts`` block of
``docs/findings.md`` and the report's ``regime_*.tex``."""

from __future__ import annotations

from analysis import REPO_ROOT
from analysis.campaigns.regime_d10 import entropy_tables as et
from analysis.campaigns.regime_d10 import tables as tb
from analysis.campaigns.regime_d10 import verdict_table as vt

ROOT = REPO_ROOT / "results" / "regime"
"""The regime suite's committed runs."""


def verdicts_block() -> str:
    """Every rule and check of the campaign (:func:`analysis.campaigns.regime_d10.verdict_table.markdown`)."""
    return vt.markdown(tb.regime_report(ROOT))


def findings_block() -> str:
    """The ``regime-verdicts`` block of ``docs/findings.md``."""
    return tb.readme_block(ROOT)


def table1_block() -> str:
    return tb.table1_block(ROOT)


def entropy_block() -> str:
    return et.entropy_block(ROOT)


def calibration_block() -> str:
    return et.calibration_block(ROOT)


def table1_tex() -> str:
    return tb.table1_latex(ROOT)


def categories_tex() -> str:
    return tb.categories_latex(ROOT)


def verdicts_tex() -> str:
    return tb.verdicts_latex(ROOT)


def entropy_tex() -> str:
    return et.entropy_latex(ROOT)
