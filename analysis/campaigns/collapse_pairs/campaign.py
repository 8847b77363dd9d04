"""The collapse-pairs campaign's entry in the registry (:mod:`analysis.campaign.registry`): the
design runs, with P4 once the gates decide it (:func:`~analysis.campaigns.collapse_pairs.gates.p4_dose`)."""

from analysis.campaign.entry import Entry
from analysis.campaigns.collapse_pairs import design, gates


def build():
    """Every design run, P4 included once decided."""
    return design.build(gates.p4_dose())


def run(names: list[str], jobs: int, force_train: bool, dry_run: bool) -> None:
    """Train the design runs of the experiments ``names`` that are not done."""
    design.run(names, jobs, force_train, dry_run, gates.p4_dose())


ENTRY = Entry(
    design.ID,
    "the fair test of RC sampling on collapse1-d10: matched Stage 1, minimal-pair "
    "RCTP-FT; its design runs now (runs/collapse-pairs)",
    build,
    design.experiments,
    run,
)
