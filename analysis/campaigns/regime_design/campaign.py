"""The regime suites' design runs: committed data, no driver."""

from analysis.campaign.entry import Entry

ENTRY = Entry(
    "regime-design",
    data_only="its design runs are committed under results/regime/; no driver trains them now",
)
