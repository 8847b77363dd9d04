"""The regime-d10 campaign's entry in the registry (:mod:`analysis.campaign.registry`)."""

from analysis.campaign.entry import Entry
from analysis.campaigns.regime_d10 import driver

ENTRY = Entry(
    driver.ID,
    "the regime-d10 campaign: Stage 1, admission, the arms, pass@k (runs/regime)",
    driver.build,
    driver.experiments,
    driver.run,
    driver.finished,
)
