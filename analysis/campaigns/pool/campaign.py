"""The pool campaign's entry in the registry (:mod:`analysis.campaign.registry`): its driver, the
findings page's result and verdict tables, the experiments' and dynamics tables of
``docs/experiments.md``, and the report's verdict, setup and experiment tables
(:mod:`analysis.campaigns.pool.report`, :mod:`~analysis.campaigns.pool.setup_table`,
:mod:`~analysis.campaigns.pool.tables`)."""

from analysis.campaign.entry import Block, Entry, Table
from analysis.campaigns.pool import driver

FINDINGS, EXPERIMENTS = "docs/findings.md", "docs/experiments.md"

ENTRY = Entry(
    "pool",
    "the CPU campaign on the cpu suite: Stage 1, the 2x2 factorial, the collapse fixes "
    "(runs/campaign)",
    driver.build_campaign,
    lambda camp: list(camp.experiments),
    driver.run,
    blocks=(
        Block("results", "report:results_block", FINDINGS, runs=True),
        Block("verdicts", "report:verdicts_block", FINDINGS, runs=True),
        Block("campaign", "report:campaign_block", EXPERIMENTS),
        Block("dynamics", "report:dynamics_block", EXPERIMENTS, runs=True),
    ),
    tables=(
        Table("verdicts.tex", "report:verdicts_tex", runs=True),
        Table("setup_table.tex", "setup_table:setup_table", runs=True),
    ),
    run_tables="tables:tables",
)
