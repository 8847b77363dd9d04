"""The collapse-pairs campaign's entry in the registry (:mod:`analysis.campaign.registry`): the
design runs, with P4 once the gates decide it (:func:`~analysis.campaigns.collapse_pairs.gates.p4_dose`);
its gates and verdict on its results page, its finding in the README and ``docs/findings.md``
(:mod:`analysis.campaigns.collapse_pairs.report`), its LaTeX verdict and the status, finding and
summary of its INDEX row (:func:`~analysis.campaigns.collapse_pairs.words.index_fields`).

``make campaign C=collapse-pairs`` trains only what the protocol's order calls for next
(:func:`~analysis.campaigns.collapse_pairs.verdict.status`): the runs of the variant and seed
it measures next, and it prints the gate R diagnostic's command when that is what is missing.
Once the design has ended it trains nothing and says so. ``--list`` shows every design run
and ``--runs NAME`` trains a named one (as the seed-32 replication of gate R, registered in the
lab note)."""

from analysis.campaign import mechanics as cp
from analysis.campaign.entry import Block, Entry, Table
from analysis.campaigns.collapse_pairs import design


def build():
    """Every design run, P4 included once decided."""
    from analysis.campaigns.collapse_pairs import gates

    return design.build(gates.p4_dose())


def run(names: list[str], jobs: int, force_train: bool, dry_run: bool) -> None:
    """Train the runs of the next measurement the protocol's order calls for, when its
    experiment is among ``names`` (module docstring)."""
    from analysis.campaigns.collapse_pairs import gates, verdict

    st = verdict.status()
    if st.kind != "measuring":
        print(
            f"[collapse-pairs] the design has ended ({st.kind}: docs/results/collapse-pairs.md, "
            "block collapse-pairs-verdict); nothing to train"
        )
        return
    camp = build()
    experiment = f"design-{st.variant}"
    todo = [n for n in camp.experiments[experiment] if n.endswith(f"-s{st.seed}")]
    print(f"[collapse-pairs] next: {st.variant.upper()} at seed {st.seed}")
    cp.run_all(camp, todo if experiment in names else [], jobs, force_train, dry_run)
    if not gates.measure(st.variant, st.seed).r:
        argv = design.transfer_command(st.variant, st.seed, gates.p4_dose())
        print(f"[collapse-pairs] then gate R and rho: {' '.join(argv)}")


ENTRY = Entry(
    design.ID,
    "the fair test of RC sampling on collapse1-d10: matched Stage 1, minimal-pair "
    "RCTP-FT; its design runs in the protocol's order (runs/collapse-pairs)",
    build,
    design.experiments,
    run,
    blocks=(
        Block("collapse-pairs-finding", "report:readme_finding", "README.md"),
        Block("collapse-pairs-finding", "report:findings_finding", "docs/findings.md"),
        Block("collapse-pairs-gates", "gates:gate_markdown"),
        Block("collapse-pairs-verdict", "verdict:verdict_markdown"),
    ),
    tables=(Table("collapse_pairs.tex", "verdict:verdict_latex"),),
    index="words:index_fields",
)
