"""The regime-d10 campaign's entry in the registry (:mod:`analysis.campaign.registry`): its
driver, the blocks of its results page and of ``docs/findings.md`` and its LaTeX tables
(:mod:`analysis.campaigns.regime_d10.report`)."""

from analysis.campaign.entry import Block, Entry, Table
from analysis.campaigns.regime_d10 import driver

ENTRY = Entry(
    driver.ID,
    "the regime-d10 campaign: Stage 1, admission, the arms, pass@k (runs/regime)",
    driver.build,
    driver.experiments,
    driver.run,
    driver.finished,
    blocks=(
        Block("regime-verdicts", "report:findings_block", "docs/findings.md"),
        Block("regime-verdicts", "report:verdicts_block"),
        Block("regime-table1", "report:table1_block"),
        Block("regime-passk", "tables:passk_block"),
        Block("regime-entropy", "report:entropy_block"),
        Block("regime-calibration", "report:calibration_block"),
        Block("regime-admission", "tables:admission_block"),
    ),
    tables=(
        Table("regime_table1.tex", "report:table1_tex"),
        Table("regime_categories.tex", "report:categories_tex"),
        Table("regime_passk.tex", "tables:passk_latex"),
        Table("regime_verdicts.tex", "report:verdicts_tex"),
        Table("regime_entropy.tex", "report:entropy_tex"),
    ),
)
