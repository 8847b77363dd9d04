"""The collapse campaign's entry in the registry (:mod:`analysis.campaign.registry`): its
driver, the blocks of its results page (the verdicts, the per-seed report, the control's init,
the goal token, the transfer model) and its LaTeX verdict table."""

from analysis.campaign.entry import Block, Entry, Table
from analysis.campaigns.collapse import driver

ENTRY = Entry(
    driver.ID,
    "the collapse1-d10 factorial and mechanism arms, where SFT + GRPO collapses: "
    "Stage 1, the seven arms (runs/collapse)",
    driver.build,
    driver.experiments,
    driver.run,
    blocks=(
        Block("collapse-verdicts", "tables:verdicts_markdown"),
        Block("collapse-seeds", "tables:seeds_markdown"),
        Block("collapse-control-init", "tables:control_markdown"),
        Block("collapse-token", "token:token_markdown"),
        Block("transfer-diagnostics", "transfer_table:diagnostics_markdown"),
        Block("transfer-predictions", "transfer_table:predictions_markdown"),
    ),
    tables=(Table("collapse_verdicts.tex", "tables:verdicts_latex"),),
)
