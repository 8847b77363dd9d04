"""The results index ``results/INDEX.toml``: one row per campaign or study, and which row a
committed run folder belongs to.

Each row (:class:`Study`) names its task suite, status, the fnmatch patterns of its run
folders (relative to ``results/``), its protocol page, its verdict module, a one-line
finding (with the rule codes of its protocol) and a plain ``summary`` of it (no rule codes).
Every run folder belongs to exactly one row (:func:`unindexed`, :func:`doubled`;
``tests/unit/analysis/test_results_index.py``). The README's studies table is
:func:`markdown`, in plain words: title, suite, status in words (:data:`STATUS_WORDS`), runs,
summary and a link to the protocol or lab note (``python -m analysis.report --write-readme``). A
row whose verdict module says its status, finding and summary has them rewritten in place by the
same command (:func:`set_fields`, or :func:`add_study` for a campaign not in the index yet;
:func:`analysis.report.readme_results.index_rows`). The design-history figures
read the runs they draw from ``results/FIGURES.toml`` (:func:`figure_entries`; each names its
index row), so a new design run adds an entry, not code.
"""

from __future__ import annotations

import fnmatch
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis import REPO_ROOT

RESULTS = REPO_ROOT / "results"
INDEX = RESULTS / "INDEX.toml"
FIGURES = RESULTS / "FIGURES.toml"
FIGURES_FILE = FIGURES.relative_to(REPO_ROOT).as_posix()
"""``results/FIGURES.toml``, repository-relative: an input of every figure that reads it."""
STATUSES = ("current", "complete", "planned", "design history")
STATUS_WORDS = {
    "current": "running now",
    "complete": "done",
    "planned": "planned, no runs yet",
    "design history": "done (design runs)",
}
"""A status as the README's studies table says it."""


@dataclass(frozen=True)
class Study:
    """One row of the index (module docstring)."""

    id: str
    title: str
    suite: str
    status: str
    folders: tuple[str, ...]
    protocol: str
    verdicts: str
    finding: str
    summary: str = ""
    """The finding in plain words, without rule codes (the README's table)."""

    def owns(self, folder: str) -> bool:
        """Whether ``folder`` (relative to ``results/``) matches one of the row's patterns."""
        return any(fnmatch.fnmatchcase(folder, p) for p in self.folders)


def studies(path: Path = INDEX) -> list[Study]:
    """The rows of the index, in order; a row with an unknown status is an error."""
    return studies_of(path.read_text(), path)


def studies_of(text: str, path: Path = INDEX) -> list[Study]:
    """The rows of the index text ``text`` (:func:`studies`; ``path`` names it in errors)."""
    rows = tomllib.loads(text)["study"]
    out = []
    for row in rows:
        row = {**row, "folders": tuple(row["folders"])}
        if row["status"] not in STATUSES:
            raise ValueError(f"{path}: study {row['id']}: status must be one of {STATUSES}")
        out.append(Study(**row))
    return out


GENERATED_FIELDS = ("status", "finding", "summary")
"""The fields of a row that a verdict module may generate (:func:`set_fields`)."""


def set_fields(
    study: str, fields: dict[str, str], path: Path = INDEX, check: bool = False
) -> list[str]:
    """Rewrite the :data:`GENERATED_FIELDS` ``fields`` of row ``study`` in ``path`` in place
    (comments and layout kept: each field is one ``key = "..."`` line of the row); returns the
    names that changed. With ``check`` the file is left alone. Raises :class:`ValueError` for
    an unknown row or field, or a row that lacks the field's line."""
    if unknown := set(fields) - set(GENERATED_FIELDS):
        raise ValueError(f"{path}: fields {sorted(unknown)} are not generated")
    lines = path.read_text().splitlines(keepends=True)
    starts = [i for i, ln in enumerate(lines) if ln.strip() == "[[study]]"] + [len(lines)]
    rows = [range(a, b) for a, b in zip(starts, starts[1:], strict=False)]
    row = next((r for r in rows if any(lines[i].strip() == f'id = "{study}"' for i in r)), None)
    if row is None:
        raise ValueError(f"{path}: no study {study!r}")
    changed = []
    for key, value in fields.items():
        at = [i for i in row if lines[i].startswith(f"{key} = ")]
        if len(at) != 1:
            raise ValueError(f"{path}: study {study!r} needs one line {key} = ...")
        # A JSON string of ordinary text is a TOML basic string (same escapes).
        new = f"{key} = {json.dumps(value, ensure_ascii=False)}\n"
        if lines[at[0]] != new:
            lines[at[0]] = new
            changed.append(key)
    text = "".join(lines)
    parsed = {s.id: s for s in studies_of(text, path)}[study]
    if any(getattr(parsed, k) != v for k, v in fields.items()):
        raise ValueError(f"{path}: study {study!r}: a field did not survive the TOML round trip")
    if changed and not check:
        path.write_text(text)
    return changed


def add_study(fields: dict[str, Any], path: Path = INDEX, check: bool = False) -> list[str]:
    """Append row ``fields`` (every field of :class:`Study`, ``folders`` a list of patterns) to
    ``path`` (with ``check`` the file is left alone); returns ``["row"]``. A row the index
    already has, or one that does not read back as ``fields``, is a :class:`ValueError`."""
    text = path.read_text()
    if any(s.id == fields.get("id") for s in studies_of(text, path)):
        raise ValueError(f"{path}: study {fields.get('id')!r} is there already")
    lines = ["", "[[study]]"]
    lines += [f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in fields.items()]
    new = text.rstrip("\n") + "\n" + "\n".join(lines) + "\n"
    try:
        parsed = {s.id: s for s in studies_of(new, path)}[fields["id"]]
    except (KeyError, TypeError) as err:
        raise ValueError(f"{path}: a new study needs every field of a row ({err})") from err
    want = {**fields, "folders": tuple(fields["folders"])}
    if any(getattr(parsed, k) != v for k, v in want.items()):
        raise ValueError(f"{path}: study {fields['id']!r} did not survive the TOML round trip")
    if not check:
        path.write_text(new)
    return ["row"]


def figures(path: Path = FIGURES) -> dict[str, dict[str, Any]]:
    """Figure name (``analysis/figures/fig_<name>.py``) -> ``{"study": index row id,
    "entries": (entry, ...)}`` of ``results/FIGURES.toml``."""
    return {
        name: {"study": f["study"], "entries": tuple(f["entries"])}
        for name, f in tomllib.loads(path.read_text()).items()
    }


def figure_entries(name: str, path: Path = FIGURES) -> tuple[dict[str, Any], ...]:
    """The runs the design-history figure ``name`` draws, in order (KeyError: not listed)."""
    listed = figures(path)
    if name not in listed:
        raise KeyError(f"{path}: no figure {name!r}")
    return listed[name]["entries"]


def run_folders(results: Path = RESULTS) -> list[str]:
    """Every run folder, ``<area>/<run>`` relative to ``results/``."""
    return sorted(
        f"{area.name}/{run.name}"
        for area in results.iterdir()
        if area.is_dir()
        for run in area.iterdir()
        if run.is_dir()
    )


def owners(folder: str, rows: list[Study]) -> list[str]:
    """The ids of the rows that own ``folder``."""
    return [s.id for s in rows if s.owns(folder)]


def unindexed(rows: list[Study], results: Path = RESULTS) -> list[str]:
    """Run folders no row owns."""
    return [f for f in run_folders(results) if not owners(f, rows)]


def doubled(rows: list[Study], results: Path = RESULTS) -> dict[str, list[str]]:
    """Run folders two or more rows own -> those rows."""
    return {f: o for f in run_folders(results) if len(o := owners(f, rows)) > 1}


def page_kind(path: str) -> str:
    """How the studies table names a row's page: ``protocol``, ``lab note`` or ``reference``."""
    if "/protocols/" in path:
        return "protocol"
    return "lab note" if "/lab-notes/" in path else "reference"


def markdown(rows: list[Study], results: Path = RESULTS) -> str:
    """The README's studies table (module docstring): study, suite, status in words, runs
    committed, the plain summary, a link to the row's protocol or lab note."""
    folders = run_folders(results)
    head = (
        "| study | suite | status | runs | what it found | read more |\n|---|---|---|--:|---|---|"
    )
    lines = [head]
    for s in rows:
        n = sum(s.owns(f) for f in folders)
        link = f"[{page_kind(s.protocol)}]({s.protocol})"
        status = STATUS_WORDS[s.status]
        lines.append(f"| {s.title} | {s.suite} | {status} | {n} | {s.summary} | {link} |")
    return "\n".join(lines) + "\n"
