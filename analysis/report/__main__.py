"""``python -m analysis.report [--allow-missing] [--ensure-theory] [--out DIR] ...``.

Writes into ``paper/generated/`` (see :mod:`analysis.report`):

- ``theory_table.tex`` and the ``\\Theory*`` macros, from ``figures/theory_report.json``;
- one ``<table>.tex`` per experiment table of a campaign (``run_tables`` of its entry of
  :mod:`analysis.campaign.registry`, :func:`run_tables`);
- ``figures_results.tex``, the built figures that read runs;
- every campaign's own tables (its verdicts, its Table 1 analogue, the setup table, ...): the
  ``tables`` of each entry (:func:`campaign_tables`);
- ``macros.tex`` (theory numbers, which experiments are missing, the git commit).

``--write-readme`` instead rewrites only the run-generated Markdown blocks (the README's studies
table, the campaigns' results pages and the other docs' blocks;
:mod:`analysis.report.readme_results`), ``--check-readme`` exits 1 if stale.

Exit 2 with a message naming them when experiments a table needs have no finished run,
unless ``--allow-missing`` (their rows then read *not yet run*). ``--ensure-theory`` first
runs the theory check and builds the theory figures whose PDF is missing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from analysis import REPO_ROOT
from analysis.campaign import registry
from analysis.campaign.find import campaign_resolver
from analysis.report.figure_list import figures_tex, result_sidecars
from analysis.report.latex import escape, newcommand
from analysis.report.readme_results import readme_main
from analysis.report.resolve import default_resolver
from analysis.report.runtable import TableSpec, missing_experiments, render
from analysis.report.theory_table import theory_macros, theory_table
from analysis.runs.sources import THEORY_REPORT, MissingRunsError, Resolver, collect

OUT_DIR = REPO_ROOT / "paper" / "generated"
FIGURES_DIR = REPO_ROOT / "figures"


def ensure_theory(theory_json: Path, figures_dir: Path) -> list[str]:
    """Run the theory check if its JSON is missing; build missing theory figures."""
    import importlib

    from analysis.figures.__main__ import build_one, modules

    done = []
    if not theory_json.is_file():
        from analysis.theory.__main__ import main as theory_main

        if theory_main(["check", "--json", str(theory_json)]) != 0:
            raise SystemExit("theory check reported violations; see its output above")
        done.append(str(theory_json))
    for name, path in modules().items():
        module = importlib.import_module(path)
        if (
            tuple(getattr(module, "REQUIRES", ())) == ()
            and not (figures_dir / f"{name}.pdf").is_file()
        ):
            done.append(str(build_one(name, figures_dir)))
    return done


def _git_commit() -> str:
    out = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True
    )
    return out.stdout.strip() or "unknown"


def _run_table_entries() -> list[tuple[object, TableSpec]]:
    """(entry, table) of every campaign's experiment tables, in registry order."""
    pairs = [
        (entry, spec)
        for entry in registry.entries().values()
        if entry.run_tables
        for spec in registry.function(entry, entry.run_tables)()
    ]
    names = [s.name for _, s in pairs]
    if len(set(names)) != len(names):
        raise ValueError(f"two campaigns' run tables share a name: {sorted(names)}")
    return pairs


def run_tables() -> list[TableSpec]:
    """Every campaign's experiment tables (``run_tables`` of its registry entry), in registry
    order; table names are file names, so two campaigns never share one."""
    return [spec for _, spec in _run_table_entries()]


def campaign_tables(
    out_dir: Path, resolve: Resolver, own: dict[str, Resolver] | None = None
) -> list[str]:
    """Write every campaign's LaTeX tables (``tables`` of its registry entry) into
    ``out_dir``; a table that reads runs gets its campaign's resolver in ``own`` when there is
    one, else ``resolve``. Returns the file names."""
    written = []
    for entry in registry.entries().values():
        mine = (own or {}).get(entry.id, resolve)
        for table in entry.tables:
            render = registry.function(entry, table.render)
            (out_dir / table.file).write_text(render(mine) if table.runs else render())
            written.append(table.file)
    return written


def generate(
    theory_json: Path,
    runs_root: Path | None,
    figures_dir: Path,
    out_dir: Path,
    allow_missing: bool,
    resolve=None,
    committed: bool = False,
) -> dict[str, list[str]]:
    """Write every generated file; returns table -> missing experiments.

    Raises :class:`MissingRunsError` (after writing the theory parts) when experiments are
    missing and ``allow_missing`` is False; no experiment table is written then.
    """
    if not theory_json.is_file():
        raise FileNotFoundError(
            f"no theory report at {theory_json}: run `make theory` (or pass --ensure-theory)"
        )
    report = json.loads(theory_json.read_text())
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "theory_table.tex").write_text(theory_table(report))
    # a campaign's experiment tables read its own runs only, unless a resolver or a runs root
    # is given: an experiment name is a run-name prefix ("rctp" matches rctp-s31), which
    # another campaign's runs can share
    scoped = resolve is None and runs_root is None
    resolve = resolve or default_resolver(runs_root, committed=committed)
    (out_dir / "figures_results.tex").write_text(figures_tex(result_sidecars(figures_dir)))
    own = (
        {
            e.id: campaign_resolver([e.build()], committed=committed)
            for e in registry.entries().values()
            if e.build is not None
        }
        if scoped
        else {}
    )
    campaign_tables(out_dir, resolve, own)
    pairs = _run_table_entries()
    tables = [t for _, t in pairs]
    found_of = {t.name: collect(list(t.requires), own.get(e.id, resolve)) for e, t in pairs}
    missing = {t.name: m for t in tables if (m := missing_experiments(t, found_of[t.name]))}
    names = sorted({e for m in missing.values() for e in m})
    macros = [
        *theory_macros(report),
        newcommand("ReportMissingRuns", escape(", ".join(names)) if names else "none"),
        newcommand("ReportCommit", escape(_git_commit())),
    ]
    (out_dir / "macros.tex").write_text("\n".join(macros) + "\n")
    if missing and not allow_missing:
        raise MissingRunsError(missing)
    for table in tables:
        (out_dir / f"{table.name}.tex").write_text(
            render(table, found_of[table.name], allow_missing)
        )
    return missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.report", description=__doc__)
    parser.add_argument("--theory-json", type=Path, default=THEORY_REPORT)
    parser.add_argument(
        "--runs-root",
        type=Path,
        default=None,
        help="scan this folder (default: the campaigns' runs)",
    )
    parser.add_argument("--figures", type=Path, default=FIGURES_DIR)
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    parser.add_argument(
        "--allow-missing", action="store_true", help="'not yet run' rows for missing runs"
    )
    parser.add_argument(
        "--ensure-theory", action="store_true", help="run the theory check / figures if missing"
    )
    parser.add_argument(
        "--write-readme", action="store_true", help="only rewrite the README / docs blocks"
    )
    parser.add_argument(
        "--check-readme", action="store_true", help="only check them: exit 1 if stale"
    )
    args = parser.parse_args(argv)
    if args.write_readme or args.check_readme:
        return readme_main(args.check_readme, args.runs_root)
    if args.ensure_theory:
        for path in ensure_theory(args.theory_json, args.figures):
            print(f"[report] built {path}", flush=True)
    try:
        missing = generate(
            args.theory_json, args.runs_root, args.figures, args.out, args.allow_missing
        )
    except (MissingRunsError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for table, exps in sorted(missing.items()):
        print(f"[report] {table}: not yet run: {', '.join(exps)}")
    tables = sum(len(e.tables) for e in registry.entries().values())
    print(f"[report] wrote {len(run_tables()) + 3 + tables} files into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
