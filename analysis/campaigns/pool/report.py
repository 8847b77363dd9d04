"""The pool campaign's generated blocks and its LaTeX verdict table, for its entry in the
registry (``campaign.py`` here): ``docs/findings.md``'s ``results`` (the Stage-1 table and the
RL factorial) and ``verdicts`` (:mod:`analysis.campaigns.pool.verdicts`), ``docs/experiments.md``'s
``campaign`` (its experiments) and ``dynamics`` (the RL dynamics tables), and the report's
``verdicts.tex``.

The blocks read the committed light copies in ``results/campaign/`` of the :data:`REPORTED`
experiments (committed copies only, not ``runs/``, so the tables are the same on every clone;
never a run), or the runs the report's resolver finds (``python -m analysis.report
--runs-root DIR``). The experiment groups are the report's
(:data:`analysis.campaigns.pool.tables.EXPERIMENTS`), so a renamed group changes both. Collapse
statistics are means over the training steps of a run (``step >= 1``).
"""

from __future__ import annotations

from pathlib import Path

from analysis.campaign.arms import arms
from analysis.campaign.find import campaign_resolver
from analysis.campaign.mechanics import RESULTS
from analysis.campaigns.pool.driver import build_campaign
from analysis.campaigns.pool.dynamics_tables import dynamics_tables
from analysis.campaigns.pool.tables import EXPERIMENTS as E
from analysis.campaigns.pool.verdicts import outcomes
from analysis.report.docs_tables import campaign_markdown
from analysis.report.markdown import markdown_table
from analysis.report.runtable import Column, Row, TableSpec
from analysis.report.verdict_table import verdicts_latex, verdicts_markdown
from analysis.runs import load_run
from analysis.runs.extractors import cpu_seconds, first, last, mean_over_training, training_success
from analysis.runs.sources import Resolver, collect, layout_resolver

SUCCESS = "reward/eval_success"
REPORTED: tuple[str, ...] = ("stage1", "factorial", "baselines", "stratified")
"""Campaign experiments whose runs the findings page reports (``rl-sweep`` runs, e.g. its own
``sft-s3``, are not seeds of the Stage-1 or factorial tables)."""
NOTE = (
    "Rules and thresholds fixed in analysis/campaigns/pool/verdicts.py before the long runs. "
    "Estimate: mean "
    "over seeds of the per-seed value with its 95% t-interval; n = seeds with every arm; "
    "n < 3 is inconclusive."
)
"""The verdict table's note."""


def resolver(resolve: Resolver | None = None) -> Resolver:
    """``resolve`` when given, else the committed runs of the :data:`REPORTED` experiments."""
    return resolve or campaign_resolver(build_campaign(), REPORTED, committed=True)


def _spec(name: str, labels: tuple[str, ...], columns: tuple[Column, ...], rows) -> TableSpec:
    return TableSpec(name, "", "", labels, columns, tuple(rows))


STAGE1: TableSpec = _spec(
    "stage1",
    ("Stage 1 (held-out success, %)",),
    (
        Column("high goal / no goal", last("sft/eval_combined"), 1, True),
        Column("low goal", last("sft/eval_combined_low"), 1, True),
        Column("CPU s", cpu_seconds, 0),
    ),
    (Row(("SFT",), E["sft"]), Row(("RCTP-FT",), E["rctp"])),
)
"""Stage 1 of the campaign: SFT and RCTP-FT, greedy, combined mode."""

FACTORIAL: TableSpec = _spec(
    "factorial",
    ("RL arm", "starts from"),
    (
        Column("held-out start (%)", first(SUCCESS), 1, True),
        Column("held-out end (%)", last(SUCCESS), 1, True),
        Column("train first 10% (%)", training_success("early"), 1, True),
        Column("train last 10% (%)", training_success("late"), 1, True),
        Column("zero-variance groups", mean_over_training("group/zero_var_frac")),
        Column("all-pass", mean_over_training("group/zero_var_success_frac")),
        Column("all-fail", mean_over_training("group/zero_var_fail_frac")),
        Column("advantage gap", mean_over_training("adv/gap_mean")),
        Column("between-goal share", mean_over_training("group/between_frac")),
    ),
    (Row((a.method, a.init), a.preset) for a in arms("pool", "factorial")),
)
"""The paper's 2×2 {SFT, RCTP-FT} × {GRPO, RC sampling}; training success on the 16-task
pool over the first / last 10% of the steps (RC arms: high goal); collapse statistics per
step."""

HEADLINE: tuple[TableSpec, ...] = (STAGE1, FACTORIAL)


def rl_steps(found: dict[str, list[Path]]) -> str:
    """The RL runs' step counts from their ``summary.json`` (e.g. ``30``, or ``30, 100``)."""
    runs = [p for e in FACTORIAL.requires for p in found.get(e, [])]
    steps = {int(load_run(p).summary.get("steps", 0)) for p in runs}
    return ", ".join(str(n) for n in sorted(steps)) or "no"


def results_block(resolve: Resolver | None = None) -> str:
    """The ``results`` block: the Stage-1 table and the RL factorial, from finished runs."""
    found = collect([e for spec in HEADLINE for e in spec.requires], resolver(resolve))
    tables = [markdown_table(spec, found) for spec in HEADLINE]
    steps = f"RL runs of {rl_steps(found)} steps; collapse statistics are means over those steps.\n"
    return "\n".join([*tables, steps])


def verdicts_block(resolve: Resolver | None = None) -> str:
    """The ``verdicts`` block: the verdict table of the same runs as ``results``."""
    return verdicts_markdown(outcomes(resolver(resolve)), NOTE)


def verdicts_tex(resolve: Resolver | None = None) -> str:
    """The report's ``verdicts.tex`` (default: the campaign's done runs)."""
    return verdicts_latex(outcomes(resolve), NOTE)


def dynamics_markdown(found: dict | None = None) -> str:
    """Both RL dynamics tables as markdown (headings included) from ``found`` (experiment ->
    finished run folders; default: every committed light copy in ``results/campaign``)."""
    specs = dynamics_tables(E, markdown=True)
    if found is None:
        found = collect([e for s in specs for e in s.requires], layout_resolver(RESULTS))
    titles = {
        "entropy": "Entropy over RL (Table 4 analogue)",
        "training": "Training statistics (Table 5 analogue)",
    }
    blocks = [f"**{titles[s.name]}**\n\n{markdown_table(s, found)}" for s in specs]
    return "\n".join(blocks)


def dynamics_block(resolve: Resolver | None = None) -> str:
    """The ``dynamics`` block: :func:`dynamics_markdown` of the same runs as ``results``."""
    specs = dynamics_tables(E, markdown=True)
    return dynamics_markdown(collect([e for s in specs for e in s.requires], resolver(resolve)))


def campaign_block() -> str:
    """The ``campaign`` block: :func:`analysis.report.docs_tables.campaign_markdown` of this
    campaign and its committed light copies."""
    return campaign_markdown(build_campaign(), RESULTS)
