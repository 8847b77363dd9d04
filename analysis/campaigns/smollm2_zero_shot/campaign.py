"""The zero-shot runs are single ``python -m rcgrpo eval`` commands, each recorded in its
folder's ``run.json``."""

from analysis.campaign.entry import Entry

ENTRY = Entry(
    "smollm2-zero-shot",
    data_only="each run is one eval command, recorded with its commit, host and wall time in "
    "results/real-model/zero-shot-*/run.json (python -m analysis.campaigns.smollm2_zero_shot.zero_shot)",
)
