"""The regime-d10-itt runs train with the regime-d10 campaign."""

from analysis.campaign.entry import Entry

ENTRY = Entry(
    "regime-d10-itt",
    data_only="its runs are the regime-d10 campaign's experiment itt: "
    "make campaign C=regime-d10 ARGS='--only itt'",
    trained_by="regime-d10",
)
