r"""The generated blocks that come from runs: the README's ``campaigns`` (the studies table),
``docs/findings.md``'s ``results``, ``verdicts`` (the pool regime) and ``regime-verdicts`` (the
regime suite), and those of the other docs.

``python -m analysis.report --write-readme`` rewrites them from the campaign's committed
light copies in ``results/campaign/`` (:func:`analysis.campaigns.pool.driver.campaign_resolver`
of :data:`REPORTED`, committed copies only; not ``runs/``, so the
tables are the same on every clone; never starts a run), ``--check-readme`` exits 1 when they are stale. The experiment groups are the report's
(:data:`analysis.report.tables.EXPERIMENTS`), so a renamed group changes both.

Each cell is the mean over seeds ± the 95% Student-t half-width
(:func:`analysis.stats.mean_ci`; one seed: the mean alone); success rates in %. Collapse
statistics are means over the training steps of a run (``step >= 1``).

``verdicts`` is :func:`analysis.campaigns.pool.verdict_table.verdicts_markdown`; ``regime-verdicts``
is :func:`analysis.campaigns.regime_d10.tables.readme_block` of the committed runs in
``results/regime/``. The same options rewrite the ``campaign`` and ``figures`` tables of
``docs/experiments.md`` (:mod:`analysis.report.docs_tables`), the proof runs' blocks of
``docs/regime.md`` and the regime-d10 campaign's tables of ``docs/results.md``
(:func:`generated_files` maps each file to its blocks).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from analysis import REPO_ROOT
from analysis.campaign.arms import arms
from analysis.campaign.mechanics import RESULTS
from analysis.campaigns.pool import verdict_table
from analysis.campaigns.pool.driver import campaign_resolver
from analysis.report.dynamics_tables import dynamics_tables
from analysis.report.runtable import Column, Row, TableSpec, missing_experiments
from analysis.report.tables import EXPERIMENTS as E
from analysis.runs import load_run
from analysis.runs.extractors import cpu_seconds, first, last, mean_over_training, training_success
from analysis.runs.sources import THEORY_REPORT, Resolver, collect, layout_resolver
from analysis.stats import Estimate, mean_ci
from rcgrpo.docblocks import update_file

README = REPO_ROOT / "README.md"
FINDINGS = REPO_ROOT / "docs" / "findings.md"
"""The findings page: the findings in words and the result tables they come from."""
REGIME_RESULTS = REPO_ROOT / "results" / "regime"
"""The regime suite's committed runs (``docs/regime.md``, ``docs/results.md``)."""
DOCS = REPO_ROOT / "docs"
DASH = "—"
SUCCESS = "reward/eval_success"


REPORTED: tuple[str, ...] = ("stage1", "factorial", "baselines", "stratified")
"""Campaign experiments whose runs the findings page reports (``rl-sweep`` runs, e.g. its own
``sft-s3``, are not seeds of the Stage-1 or factorial tables)."""


def _resolver(runs_root: Path | None = None) -> Resolver:
    """The committed runs of the :data:`REPORTED` experiments
    (:func:`~analysis.campaigns.pool.driver.campaign_resolver`), or every finished run below
    ``runs_root`` when given."""
    if runs_root is not None:
        return layout_resolver(runs_root)
    return campaign_resolver(REPORTED, committed=True)


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


def fmt_markdown(est: Estimate | None, digits: int = 2, percent: bool = False) -> str:
    """``m ± h`` with ``digits`` decimals (``m`` for one seed; ``—`` when nothing is finite)."""
    if est is None or not math.isfinite(est.mean):
        return DASH
    scale = 100.0 if percent else 1.0
    mean = f"{est.mean * scale:.{digits}f}"
    if est.half_width is None or not math.isfinite(est.half_width):
        return mean
    return f"{mean} ± {est.half_width * scale:.{digits}f}"


def markdown_table(spec: TableSpec, found: dict[str, list[Path]]) -> str:
    """``spec`` as a markdown table; a row without finished runs reads *not yet run*."""
    header = spec.header()
    labels = len(spec.label_headers)
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * labels + "--:|" * (len(header) - labels),
    ]
    for row in spec.rows:
        runs = [load_run(p) for p in found.get(row.experiment, [])]
        if runs:
            cells = [
                fmt_markdown(mean_ci(c.extract(r) for r in runs), c.digits, c.percent)
                for c in spec.columns
            ]
            cells.append(str(len(runs)))
        else:
            cells = [f"*not yet run: `{row.experiment}`*", *[""] * len(spec.columns)]
        lines.append("| " + " | ".join([*row.labels, *cells]) + " |")
    return "\n".join(lines) + "\n"


def rl_steps(found: dict[str, list[Path]]) -> str:
    """The RL runs' step counts from their ``summary.json`` (e.g. ``30``, or ``30, 100``)."""
    runs = [p for e in FACTORIAL.requires for p in found.get(e, [])]
    steps = {int(load_run(p).summary.get("steps", 0)) for p in runs}
    return ", ".join(str(n) for n in sorted(steps)) or "no"


def results_markdown(resolve: Resolver | None = None) -> str:
    """The ``results`` block: the Stage-1 table and the RL factorial, from finished runs."""
    resolve = resolve or _resolver()
    found = collect([e for spec in HEADLINE for e in spec.requires], resolve)
    tables = [markdown_table(spec, found) for spec in HEADLINE]
    steps = f"RL runs of {rl_steps(found)} steps; collapse statistics are means over those steps.\n"
    return "\n".join([*tables, steps])


def verdicts_markdown(resolve: Resolver | None = None) -> str:
    """The ``verdicts`` block: :func:`analysis.campaigns.pool.verdict_table.verdicts_markdown` on the
    same runs."""
    return verdict_table.verdicts_markdown(resolve or _resolver())


def readme_blocks(resolve: Resolver | None = None) -> dict[str, str]:
    """Block name -> body, for the run-generated blocks of the README: the studies table of
    ``results/INDEX.toml`` (:func:`analysis.runs.index.markdown`) and the collapse-pairs
    design's finding (:func:`analysis.campaigns.collapse_pairs.words.headline`)."""
    from analysis.campaigns.collapse_pairs import words
    from analysis.runs import index

    more = "docs/results.md#collapse-pairs-the-designs-verdict"
    return {
        "campaigns": index.markdown(index.studies()),
        "collapse-pairs-finding": f"- {words.headline().rstrip('.')} ([more]({more})).\n",
    }


def findings_blocks(resolve: Resolver | None = None) -> dict[str, str]:
    """Block name -> body for ``docs/findings.md`` (:data:`FINDINGS`): the pool regime's
    tables, the regime suite's verdicts from its committed runs (:data:`REGIME_RESULTS`) and
    the collapse-pairs design's finding (:func:`analysis.campaigns.collapse_pairs.words.plain`)."""
    from analysis.campaigns.collapse_pairs import words
    from analysis.campaigns.regime_d10.tables import readme_block

    more = "results.md#collapse-pairs-the-designs-verdict"
    return {
        "results": results_markdown(resolve),
        "verdicts": verdicts_markdown(resolve),
        "regime-verdicts": readme_block(REGIME_RESULTS),
        "collapse-pairs-finding": f"{words.plain()} The verdict and its numbers: [{more}]({more}).\n",
    }


def write_readme(path: Path = README, check: bool = False, resolve=None) -> list[str]:
    """Rewrite (``check``: only compare) the blocks of :func:`readme_blocks` in ``path``;
    returns the names of the blocks that were (or would be) changed."""
    return update_file(path, readme_blocks(resolve), check=check)


def missing(resolve: Resolver | None = None) -> list[str]:
    """Experiments of the headline tables without a finished run."""
    resolve = resolve or _resolver()
    found = collect([e for spec in HEADLINE for e in spec.requires], resolve)
    return sorted({e for spec in HEADLINE for e in missing_experiments(spec, found)})


def dynamics_markdown(found: dict | None = None) -> str:
    """Both tables as markdown (headings included) from ``found`` (experiment -> finished
    run folders; default: the committed light copies, as the findings page's results block)."""
    specs = dynamics_tables(E, markdown=True)
    if found is None:
        found = collect([e for s in specs for e in s.requires], layout_resolver(RESULTS))
    titles = {
        "entropy": "Entropy over RL (Table 4 analogue)",
        "training": "Training statistics (Table 5 analogue)",
    }
    blocks = [f"**{titles[s.name]}**\n\n{markdown_table(s, found)}" for s in specs]
    return "\n".join(blocks)


def docs_blocks(resolve: Resolver | None = None) -> dict[str, str]:
    """Block name -> body for ``docs/experiments.md``: the campaign and figure tables
    (:mod:`analysis.report.docs_tables`) and the RL dynamics tables of the same runs as the
    findings page (:func:`dynamics_markdown`)."""
    from analysis.report.docs_tables import campaign_markdown, figures_markdown

    specs = dynamics_tables(E, markdown=True)
    found = collect([e for s in specs for e in s.requires], resolve or _resolver())
    return {
        "campaign": campaign_markdown(),
        "figures": figures_markdown(),
        "dynamics": dynamics_markdown(found),
    }


def theory_blocks(theory_json: Path = THEORY_REPORT) -> dict[str, str]:
    """Block name -> body for ``docs/theory-checks.md`` (the committed theory report)."""
    from analysis.report.docs_tables import theory_markdown

    return {"theory": theory_markdown(json.loads(Path(theory_json).read_text()))}


def regime_blocks(root: Path | None = None) -> dict[str, str]:
    """Block name -> body for ``docs/regime.md``: the proof runs' tables, on the regime suite
    and on ``regime-wide1-d10``."""
    from analysis.report.docs_tables import regime_proof_markdown

    return {
        "regime-proof": regime_proof_markdown(root),
        "regime-proof-wide1": regime_proof_markdown(root, "regime-wide1-d10"),
    }


def results_blocks(root: Path = REGIME_RESULTS) -> dict[str, str]:
    """Block name -> body for ``docs/results.md``: every rule and check of the regime-d10
    campaign on the committed runs under ``root`` (:mod:`analysis.campaigns.regime_d10.verdict_table`), each seed's
    admission, the Table 1 analogue and pass@k of the final checkpoints (:mod:`analysis.campaigns.regime_d10.tables`), the
    entropy and calibration tables (:mod:`analysis.campaigns.regime_d10.entropy_tables`), and the separation
    study's verdicts and half-lives (:mod:`analysis.campaigns.regime_separation.tables`), and the
    collapse campaign's verdicts and per-seed report (:mod:`analysis.campaigns.collapse.tables`,
    its runs under ``results/collapse``)."""
    from analysis.campaigns.collapse import tables as ct
    from analysis.campaigns.collapse import transfer_table as tt
    from analysis.campaigns.collapse.token import token_markdown
    from analysis.campaigns.collapse_pairs import verdict
    from analysis.campaigns.collapse_pairs.gates import gate_markdown
    from analysis.campaigns.regime_d10 import verdict_table as vt
    from analysis.campaigns.regime_d10.entropy_tables import calibration_block, entropy_block
    from analysis.campaigns.regime_d10.tables import (
        admission_block,
        passk_block,
        regime_report,
        table1_block,
    )
    from analysis.campaigns.regime_separation import tables as st

    return {
        "regime-admission": admission_block(),
        "regime-verdicts": vt.markdown(regime_report(root)),
        "regime-table1": table1_block(root),
        "regime-passk": passk_block(),
        "regime-entropy": entropy_block(root),
        "regime-calibration": calibration_block(root),
        "separation-verdicts": st.verdicts_markdown(root),
        "separation-half-life": st.half_life_markdown(root),
        "collapse-verdicts": ct.verdicts_markdown(),
        "collapse-seeds": ct.seeds_markdown(),
        "collapse-control-init": ct.control_markdown(),
        "collapse-token": token_markdown(),
        "transfer-diagnostics": tt.diagnostics_markdown(),
        "transfer-predictions": tt.predictions_markdown(),
        "collapse-pairs-gates": gate_markdown(),
        "collapse-pairs-verdict": verdict.verdict_markdown(),
    }


def generated_files(
    resolve: Resolver, readme: Path = README, docs: Path = DOCS
) -> dict[Path, dict[str, str]]:
    """Every run- and report-generated block: file -> block name -> body."""
    return {
        readme: readme_blocks(resolve),
        docs / "findings.md": findings_blocks(resolve),
        docs / "experiments.md": docs_blocks(resolve),
        docs / "theory-checks.md": theory_blocks(),
        docs / "regime.md": regime_blocks(),
        docs / "results.md": results_blocks(),
    }


def index_rows() -> dict[str, dict[str, str]]:
    """``results/INDEX.toml`` row id -> the fields its verdict module generates
    (:func:`analysis.runs.index.set_fields`): the collapse-pairs design's status, finding and
    summary (:func:`analysis.campaigns.collapse_pairs.words.index_fields`)."""
    from analysis.campaigns.collapse_pairs import words

    return {"collapse-pairs": words.index_fields()}


def readme_main(
    check: bool,
    runs_root: Path | None = None,
    readme: Path = README,
    docs: Path = DOCS,
    index_path: Path | None = None,
) -> int:
    """``--write-readme`` / ``--check-readme`` on the generated rows of ``results/INDEX.toml``
    (:func:`index_rows`; first, as the README's studies table reads them) and every file of
    :func:`generated_files`: exit 0 done or up to date, 1 stale (check), 2 a file or its markers
    missing."""
    from analysis.runs import index

    index_path = index_path or index.INDEX
    resolve = _resolver(runs_root)
    changed = []
    try:
        for study, fields in index_rows().items():
            names = index.set_fields(study, fields, index_path, check)
            changed += [f"{index_path.name}: {study} {n}" for n in names]
        for path, blocks in generated_files(resolve, readme, docs).items():
            changed += [f"{path.name}: {n}" for n in update_file(path, blocks, check)]
    except (OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for name in missing(resolve):
        print(f"[report] findings: not yet run: {name}")
    if check and changed:
        print(f"[report] stale block(s) {'; '.join(changed)}; run --write-readme")
        return 1
    print(f"[report] {'rewrote ' + '; '.join(changed) if changed else 'up to date'}")
    return 0
