"""The collapse-pairs campaign's entry in the registry (:mod:`analysis.campaign.registry`)."""

from analysis.campaign.entry import Entry
from analysis.campaigns.collapse_pairs import design

ENTRY = Entry(
    design.ID,
    "the fair test of RC sampling on collapse1-d10: matched Stage 1, minimal-pair "
    "RCTP-FT; its design runs now (runs/collapse-pairs)",
    design.build,
    design.experiments,
    design.run,
)
