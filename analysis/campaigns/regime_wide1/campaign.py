"""The regime-wide1 campaign's entry in the registry (:mod:`analysis.campaign.registry`): its
driver and the proof runs' blocks of ``docs/regime.md`` (:mod:`analysis.campaigns.regime_wide1.proof`)."""

from analysis.campaign.entry import Block, Entry
from analysis.campaigns.regime_d10.driver import finished
from analysis.campaigns.regime_wide1 import driver

ENTRY = Entry(
    driver.ID,
    "the regime-wide1-d10 factorial (the regime suites' chosen design, variant 17): "
    "Stage 1, the four arms, pass@k (runs/regime)",
    driver.build,
    driver.experiments,
    driver.run,
    finished,
    blocks=(
        Block("regime-proof", "proof:proof_markdown", "docs/regime.md"),
        Block("regime-proof-wide1", "proof:proof_block_wide1", "docs/regime.md"),
    ),
)
