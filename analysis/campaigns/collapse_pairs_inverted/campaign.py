"""The collapse-pairs-inverted campaign's entry in the registry (:mod:`analysis.campaign.registry`).

``make campaign C=collapse-pairs-inverted`` trains in the protocol's order
(:func:`analysis.campaigns.collapse_pairs_inverted.gate.status`): the inverted RCTP-FT of every
seed gate I still has to measure, printing each missing diagnostic's command; once three seeds
are admitted, the prediction's command of each admitted seed without one; once every admitted
seed's prediction is committed, the three arms on those seeds. Nothing when the control has
stopped at its gate. ``--list`` shows every run; ``--runs NAME`` trains a named one.
"""

from analysis.campaign import mechanics as cp
from analysis.campaign.entry import Block, Entry, Table
from analysis.campaigns.collapse_pairs_inverted import design

TAG = "[collapse-pairs-inverted]"


def dose() -> int:
    """P4's minimal pairs per swap kind, as ``collapse-pairs`` decided it."""
    from analysis.campaigns.collapse_pairs import gates as pairs_gates

    pairs = pairs_gates.p4_dose()
    if pairs is None:
        raise ValueError("collapse-pairs has not decided P4's dose (gates.p4_dose)")
    return pairs


def build():
    """Every run: Stage 1 of every seed, spares included, then every arm."""
    return design.build(dose())


def run(names: list[str], jobs: int, force_train: bool, dry_run: bool) -> None:
    """Train what the protocol's order calls for next, when its experiment is among ``names``
    (module docstring)."""
    from analysis.campaigns.collapse_pairs_inverted import gate as ig

    plan, pairs = ig.status(), dose()
    camp = design.build(pairs)
    if plan.kind == "stopped":
        print(f"{TAG} the control stopped at its gate (seeds passing: {list(plan.passed)})")
        return
    if plan.kind == "measuring":
        todo = [design.stage1(s, pairs).name for s in plan.seeds]
        print(f"{TAG} next: Stage 1 and gate I at seeds {', '.join(map(str, plan.seeds))}")
        cp.run_all(camp, todo if "stage1" in names else [], jobs, force_train, dry_run)
        for s in plan.seeds:
            if not design.report_path(s).is_file():
                print(f"{TAG} then gate I: {' '.join(design.transfer_command(s, pairs))}")
        return
    missing = [s for s in plan.seeds if not design.prediction_path(s).is_file()]
    if missing:
        print(f"{TAG} register the predictions before any arm runs:")
        for s in missing:
            print(f"{TAG}   {' '.join(design.prediction_command(s))}")
        return
    todo = [
        spec.name
        for s in plan.seeds
        for spec in design.arms(s, camp.runs[f"rctp-inv-s{s}"]).values()
    ]
    print(f"{TAG} next: the arms at seeds {', '.join(map(str, plan.seeds))}")
    cp.run_all(camp, todo if "arms" in names else [], jobs, force_train, dry_run)


ENTRY = Entry(
    design.ID,
    "the positive control on collapse1-d10: minimal pairs with inverted labels, gate I, the "
    "registered prediction, then three arms (runs/collapse-pairs-inverted)",
    build,
    design.experiments,
    run,
    blocks=(Block("collapse-pairs-inverted-verdict", "verdict:verdict_markdown"),),
    tables=(Table("collapse_pairs_inverted.tex", "verdict:verdict_latex"),),
)
