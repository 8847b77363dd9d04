"""Tables computed from run folders: one row per experiment, one cell per (column, seeds).

A :class:`TableSpec` declares its rows; each :class:`Row` names the experiment whose runs
fill it (so the table knows what it needs, :attr:`TableSpec.requires`). A :class:`Column`
reduces ONE run to one number (an *extractor*, e.g. the last held-out success); the cell is
the mean and 95% t-interval of that number over the experiment's runs (one per seed,
:func:`analysis.stats.mean_ci`). A row whose experiment has no finished run is an
error (:class:`~analysis.runs.sources.MissingRunsError`) unless ``allow_missing``, where
it becomes an explicit *not yet run* row — never a number.

Extractors live in :mod:`analysis.runs.extractors` (the run-data layer).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from analysis.report.latex import escape, fmt_estimate, span_row, tabular
from analysis.runs import Run, load_run
from analysis.runs.extractors import Extractor
from analysis.runs.sources import MissingRunsError
from analysis.stats import mean_ci

NOT_YET_RUN = r"\textit{not yet run: %s}"


@dataclass(frozen=True)
class Column:
    """One numeric column: a per-run extractor, formatted as mean ± CI over seeds."""

    header: str
    extract: Extractor
    digits: int = 2
    percent: bool = False


@dataclass(frozen=True)
class Row:
    """One row: static label cells, the experiment that fills it, static trailing cells."""

    labels: tuple[str, ...]
    experiment: str
    after: tuple[str, ...] = ()


@dataclass(frozen=True)
class TableSpec:
    """A generated table: ``paper/generated/<name>.tex``."""

    name: str
    caption: str
    label: str
    label_headers: tuple[str, ...]
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    after_headers: tuple[str, ...] = ()
    note: str = ""
    seeds_column: bool = True
    align: str = field(default="")
    size: str = "small"
    colsep: str | None = None

    def __post_init__(self) -> None:
        for row in self.rows:
            if len(row.labels) != len(self.label_headers) or len(row.after) != len(
                self.after_headers
            ):
                raise ValueError(
                    f"table {self.name}: row {row.labels} needs {len(self.label_headers)} label "
                    f"and {len(self.after_headers)} trailing cells"
                )

    @property
    def requires(self) -> tuple[str, ...]:
        """The experiments this table reads, in row order, without repeats."""
        return tuple(dict.fromkeys(r.experiment for r in self.rows))

    def header(self) -> list[str]:
        seeds = ["seeds"] if self.seeds_column else []
        return [*self.label_headers, *(c.header for c in self.columns), *seeds, *self.after_headers]

    def alignment(self) -> str:
        if self.align:
            return self.align
        return "l" * len(self.label_headers) + "r" * (len(self.header()) - len(self.label_headers))


def missing_experiments(spec: TableSpec, found: dict[str, list[Path]]) -> list[str]:
    """Experiments of ``spec`` without a finished run in ``found``."""
    return [e for e in spec.requires if not found.get(e)]


def row_cells(spec: TableSpec, row: Row, runs: Sequence[Run]) -> list[str]:
    """The formatted cells of one row from its experiment's runs."""
    cells = [
        fmt_estimate(mean_ci(c.extract(r) for r in runs), c.digits, percent=c.percent)
        for c in spec.columns
    ]
    seeds = [f"${len(runs)}$"] if spec.seeds_column else []
    return [*row.labels, *cells, *seeds, *row.after]


def render(spec: TableSpec, found: dict[str, list[Path]], allow_missing: bool = False) -> str:
    """The LaTeX of ``spec``; raises :class:`MissingRunsError` for missing experiments
    unless ``allow_missing`` (then each such row reads *not yet run: <experiment>*)."""
    missing = missing_experiments(spec, found)
    if missing and not allow_missing:
        raise MissingRunsError({spec.name: missing})
    loaded = {e: [load_run(p) for p in found[e]] for e in spec.requires if found.get(e)}
    span = len(spec.columns) + int(spec.seeds_column)
    rows: list[list[str] | str] = []
    for row in spec.rows:
        if row.experiment in loaded:
            rows.append(row_cells(spec, row, loaded[row.experiment]))
        else:
            text = NOT_YET_RUN % escape(row.experiment)
            rows.append(span_row(row.labels, text, span, row.after))
    return tabular(
        spec.header(),
        rows,
        spec.alignment(),
        caption=spec.caption,
        label=spec.label,
        note=spec.note or None,
        size=spec.size,
        colsep=spec.colsep,
    )
