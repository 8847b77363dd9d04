"""The regime-separation runs train with the regime-d10 campaign (their arms are its); its
verdicts and half-lives are blocks of its results page and a LaTeX table
(:mod:`analysis.campaigns.regime_separation.report`)."""

from analysis.campaign.entry import Block, Entry, Table

ENTRY = Entry(
    "regime-separation",
    data_only="its runs are the regime-d10 campaign's experiment regime-separation: "
    "make campaign C=regime-d10 ARGS='--only regime-separation'",
    trained_by="regime-d10",
    blocks=(
        Block("separation-verdicts", "report:verdicts_block"),
        Block("separation-half-life", "report:half_life_block"),
    ),
    tables=(Table("separation_verdicts.tex", "report:verdicts_tex"),),
)
