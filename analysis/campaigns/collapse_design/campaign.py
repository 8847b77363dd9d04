"""The collapse testbed's design runs: committed data, no driver."""

from analysis.campaign.entry import Entry

ENTRY = Entry(
    "collapse-design",
    data_only="its design runs are committed under results/collapse/; no driver trains them now",
)
