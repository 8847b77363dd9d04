"""The separation study's generated blocks and LaTeX table, for its entry in the registry
(``campaign.py`` here), from the committed runs under ``results/regime`` (:data:`ROOT`):
:mod:`analysis.campaigns.regime_separation.tables`."""

from __future__ import annotations

from analysis import REPO_ROOT
from analysis.campaigns.regime_separation import tables as st

ROOT = REPO_ROOT / "results" / "regime"
"""The regime suite's committed runs."""


def verdicts_block() -> str:
    return st.verdicts_markdown(ROOT)


def half_life_block() -> str:
    return st.half_life_markdown(ROOT)


def verdicts_tex() -> str:
    return st.verdicts_latex(ROOT)
