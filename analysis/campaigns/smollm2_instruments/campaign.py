"""The ``smollm2-instruments`` study's entry in the registry (:mod:`analysis.campaign.registry`).

``make campaign C=smollm2-instruments`` trains the base, then RCTP-FT (one part each), then
prints the diagnostic's command once RCTP-FT is done and the diagnostic is not committed.
``--list`` shows both runs, ``--runs NAME`` trains a named one.
"""

from __future__ import annotations

import shlex

from analysis.campaign import mechanics as cp
from analysis.campaign.entry import Block, Entry
from analysis.campaigns.smollm2_instruments import design

TAG = f"[{design.ID}]"


def run(names: list[str], jobs: int, force_train: bool, dry_run: bool) -> None:
    """Train the first Stage-1 run not done (one part), or print the diagnostic's command."""
    camp = design.build()
    chosen = [n for e in names for n in camp.experiments.get(e, [])]
    todo = [n for n in chosen if cp.locate(camp.runs[n], force_train) is None]
    if todo:
        print(f"{TAG} next: {todo[0]}")
        cp.run_all(camp, todo[:1], jobs, force_train, dry_run)
        return
    if not design.DIAGNOSTIC.is_file():
        print(f"{TAG} then: OMP_NUM_THREADS=2 {shlex.join(design.transfer_command())}")
    else:
        print(f"{TAG} done: python -m analysis.campaigns.smollm2_instruments.readings")


ENTRY = Entry(
    design.ID,
    "SmolLM2-135M-Instruct: the instruments (goal effect, transfer, the start's collapse) on an "
    "RCTP-FT trained with smollm2-collapse's recipe from its gate-B retry base "
    "(runs/smollm2-instruments)",
    design.build,
    design.experiments,
    run,
    blocks=(Block("smollm2-instruments-readings", "readings:findings_block", "docs/findings.md"),),
)
