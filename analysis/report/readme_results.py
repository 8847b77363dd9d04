r"""The generated blocks that come from runs: the README's ``campaigns`` (the studies table),
``docs/findings.md``'s ``results``, ``verdicts`` (the pool regime) and ``regime-verdicts`` (the
regime suite), and those of the other docs.

``python -m analysis.report --write-readme`` rewrites them from the committed runs (each
campaign's block reads its own committed light copies, so the tables are the same on every
clone; never starts a run), ``--check-readme`` exits 1 when they are stale. The pool's blocks
are :mod:`analysis.campaigns.pool.report`; the same options rewrite the tables of
``docs/experiments.md``, the proof runs' blocks of ``docs/regime.md`` and the regime-d10
campaign's tables of ``docs/results.md`` (:func:`generated_files` maps each file to its
blocks).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from analysis import REPO_ROOT
from analysis.runs.sources import THEORY_REPORT, Resolver, layout_resolver
from rcgrpo.docblocks import update_file

README = REPO_ROOT / "README.md"
FINDINGS = REPO_ROOT / "docs" / "findings.md"
"""The findings page: the findings in words and the result tables they come from."""
REGIME_RESULTS = REPO_ROOT / "results" / "regime"
"""The regime suite's committed runs (``docs/regime.md``, ``docs/results.md``)."""
DOCS = REPO_ROOT / "docs"


def _resolver(runs_root: Path | None = None) -> Resolver | None:
    """Every finished run below ``runs_root`` when given, else None: each block reads its own
    campaign's runs."""
    return layout_resolver(runs_root) if runs_root is not None else None


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
    from analysis.campaigns.pool import report as pool
    from analysis.campaigns.regime_d10.tables import readme_block

    more = "results.md#collapse-pairs-the-designs-verdict"
    return {
        "results": pool.results_block(resolve),
        "verdicts": pool.verdicts_block(resolve),
        "regime-verdicts": readme_block(REGIME_RESULTS),
        "collapse-pairs-finding": f"{words.plain()} The verdict and its numbers: [{more}]({more}).\n",
    }


def write_readme(path: Path = README, check: bool = False, resolve=None) -> list[str]:
    """Rewrite (``check``: only compare) the blocks of :func:`readme_blocks` in ``path``;
    returns the names of the blocks that were (or would be) changed."""
    return update_file(path, readme_blocks(resolve), check=check)


def docs_blocks(resolve: Resolver | None = None) -> dict[str, str]:
    """Block name -> body for ``docs/experiments.md``: the pool campaign's experiments and RL
    dynamics tables (:mod:`analysis.campaigns.pool.report`) and the figure table
    (:mod:`analysis.report.docs_tables`)."""
    from analysis.campaigns.pool import report as pool
    from analysis.report.docs_tables import figures_markdown

    return {
        "campaign": pool.campaign_block(),
        "figures": figures_markdown(),
        "dynamics": pool.dynamics_block(resolve),
    }


def theory_blocks(theory_json: Path = THEORY_REPORT) -> dict[str, str]:
    """Block name -> body for ``docs/theory-checks.md`` (the committed theory report)."""
    from analysis.report.docs_tables import theory_markdown

    return {"theory": theory_markdown(json.loads(Path(theory_json).read_text()))}


def regime_blocks() -> dict[str, str]:
    """Block name -> body for ``docs/regime.md``: the proof runs' tables, on the regime suite
    and on ``regime-wide1-d10``."""
    from analysis.campaigns.regime_wide1 import proof

    return {"regime-proof": proof.proof_markdown(), "regime-proof-wide1": proof.proof_block_wide1()}


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
    if check and changed:
        print(f"[report] stale block(s) {'; '.join(changed)}; run --write-readme")
        return 1
    print(f"[report] {'rewrote ' + '; '.join(changed) if changed else 'up to date'}")
    return 0
