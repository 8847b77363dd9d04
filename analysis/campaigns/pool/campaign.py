"""The pool campaign's entry in the registry (:mod:`analysis.campaign.registry`)."""

from analysis.campaign.entry import Entry
from analysis.campaigns.pool import driver

ENTRY = Entry(
    "pool",
    "the CPU campaign on the cpu suite: Stage 1, the 2x2 factorial, the collapse fixes "
    "(runs/campaign)",
    driver.build_campaign,
    lambda camp: list(camp.experiments),
    driver.run,
)
