"""The regime-separation runs train with the regime-d10 campaign (their arms are its)."""

DATA_ONLY = (
    "its runs are the regime-d10 campaign's experiment regime-separation: "
    "make campaign C=regime-d10 ARGS='--only regime-separation'"
)
