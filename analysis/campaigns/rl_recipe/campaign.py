"""The rl-recipe study trains nothing of its own: its runs are the pool campaign's."""

DATA_ONLY = (
    "its runs (campaign/sweep-*) are the pool campaign's experiment rl-sweep: "
    "make campaign C=pool ARGS='--only rl-sweep'"
)
