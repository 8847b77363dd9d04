"""The collapse campaign's entry in the registry (:mod:`analysis.campaign.registry`)."""

from analysis.campaign.entry import Entry
from analysis.campaigns.collapse import driver

ENTRY = Entry(
    driver.ID,
    "the collapse1-d10 factorial and mechanism arms, where SFT + GRPO collapses: "
    "Stage 1, the seven arms (runs/collapse)",
    driver.build,
    driver.experiments,
    driver.run,
)
