"""The regime-d10-itt runs train with the regime-d10 campaign."""

DATA_ONLY = (
    "its runs are the regime-d10 campaign's experiment itt: "
    "make campaign C=regime-d10 ARGS='--only itt'"
)
