"""The ``smollm2-collapse`` campaign's entry in the registry (:mod:`analysis.campaign.registry`).

``make campaign C=smollm2-collapse`` trains the runs of the part the protocol's order calls for
next (:func:`~analysis.campaigns.smollm2_collapse.gates.status`), with a run found where
:func:`analysis.campaign.mechanics.locate` finds it; it prints the transfer diagnostic's and the
prediction's commands when they are what is missing, and why the reading stopped when a gate
fails. ``--list`` shows every run, ``--runs NAME`` trains a named one.
"""

from __future__ import annotations

import shlex

from analysis.campaign import mechanics as cp
from analysis.campaign.entry import Block, Entry, Table
from analysis.campaign.mechanics import Campaign
from analysis.campaigns.smollm2_collapse import design, gates

TAG = f"[{design.ID}]"
PREDICTION_COMMAND = "python -m analysis.campaigns.smollm2_collapse.prediction --write"


def build() -> Campaign:
    """Every run, downstream of the base gate B chose (the committed runs decide)."""
    return design.build(retry=gates.measure().base == "sft-base2-s31")


def _where(camp: Campaign, force_train: bool) -> gates.Where:
    return lambda name: cp.locate(camp.runs[name], force_train) if name in camp.runs else None


def follow_ups(where: gates.Where) -> list[str]:
    """The commands the protocol's order needs beside the trainer: the transfer diagnostic once
    RCTP-FT is done, the prediction once the diagnostic and the pilot are committed."""
    out = []
    have_diagnostic = design.DIAGNOSTIC.is_file()
    if where("rctp-s31") is not None and not have_diagnostic:
        out.append("OMP_NUM_THREADS=1 " + shlex.join(design.transfer_command()))
    pilot = where("pilot-sft-grpo-s31") is not None
    if have_diagnostic and pilot and not gates.PREDICTION.is_file():
        out.append(PREDICTION_COMMAND)
    return out


def run(names: list[str], jobs: int, force_train: bool, dry_run: bool) -> None:
    """Train the next part's runs whose experiment is among ``names`` (module docstring)."""
    camp = build()
    where = _where(camp, force_train)
    before = follow_ups(where)
    for command in before:  # can run beside the trainer (the diagnostic beside Part 3)
        print(f"{TAG} run beside: {command}")
    st = gates.status(where)
    if st.not_run:
        print(f"{TAG} not run by the protocol's rules: {', '.join(st.not_run)}")
    if st.kind in ("stopped", "done"):
        print(f"{TAG} {st.kind}{': ' + st.said if st.said else ''}; nothing to train")
    elif st.kind == "measure":
        print(f"{TAG} next: {st.said}")
    else:
        chosen = {n for e in names for n in camp.experiments.get(e, [])}
        todo = [n for n in st.runs if n in chosen]
        print(f"{TAG} next: part {st.part} ({', '.join(st.runs)})")
        cp.run_all(camp, todo, jobs, force_train, dry_run)
    for command in follow_ups(where):
        if command not in before:
            print(f"{TAG} then: {command}")


ENTRY = Entry(
    design.ID,
    "SmolLM2-135M-Instruct on collapse1-d10: matched Stage 1 with LoRA, the gates, the four "
    "RL arms in the protocol's parts (runs/smollm2-collapse)",
    build,
    design.experiments,
    run,
    blocks=(Block("smollm2-side-by-side", "side_by_side:findings_block", "docs/findings.md"),),
    tables=(Table("smollm2_side_by_side.tex", "side_by_side:latex_table"),),
)
