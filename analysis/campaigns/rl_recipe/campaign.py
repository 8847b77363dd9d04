"""The rl-recipe study trains nothing of its own: its runs are the pool campaign's."""

from analysis.campaign.entry import Entry

ENTRY = Entry(
    "rl-recipe",
    data_only="its runs (campaign/sweep-*) are the pool campaign's experiment rl-sweep: "
    "make campaign C=pool ARGS='--only rl-sweep'",
    trained_by="pool",
)
