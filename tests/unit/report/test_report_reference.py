r"""The paper's generated LaTeX equals its committed reference, byte for byte.

``python -m analysis.report`` writes ``paper/generated/`` (git-ignored: ``make paper`` rewrites
it, and its ``macros.tex`` names the commit it was built at). What it writes from the
committed runs is committed in :data:`REFERENCE`: every file, built by :func:`build` from
``results/campaign`` only (a run trained into ``runs/`` never changes it; on a clean clone
this is what ``make paper`` writes), experiments without a committed run as *not yet run*
rows, and ``\ReportCommit`` set to :data:`COMMIT_PLACEHOLDER`. A change to a table, a
verdict, the setup table, the figure list or a macro fails here, naming the files.

The figures are checked by ``make figures-check`` and the README / docs blocks by
``tests/unit/test_docs_generated.py``; ``make report-check`` runs this file and that one.
After an intended change (new committed runs, a changed table), rewrite the reference with
``make report-reference`` and review its diff.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from analysis.report.__main__ import FIGURES_DIR, generate
from analysis.runs.sources import THEORY_REPORT

REFERENCE = Path(__file__).resolve().parents[2] / "reference" / "paper_generated"
"""The committed reference of ``paper/generated/``."""
UPDATE_ENV = "RCGRPO_UPDATE_REFERENCE"
"""Set to 1 to rewrite :data:`REFERENCE` instead of comparing (``make report-reference``)."""
COMMIT_PLACEHOLDER = "(commit)"
_COMMIT = re.compile(rb"(\\newcommand\{\\ReportCommit\}\{)[^}]*(\})")


def without_commit(macros: bytes) -> bytes:
    """``macros.tex`` with the argument of ``\\ReportCommit`` (the commit the report was
    built at, different in every commit) replaced by :data:`COMMIT_PLACEHOLDER`."""
    text, count = _COMMIT.subn(rb"\g<1>" + COMMIT_PLACEHOLDER.encode() + rb"\g<2>", macros)
    if count != 1:
        raise ValueError(f"macros.tex: {count} \\ReportCommit macros, expected 1")
    return text


def build(out: Path) -> list[str]:
    """Write the report from the committed runs into ``out``; returns the file names."""
    # the committed light copies, each campaign's tables reading its own runs
    generate(THEORY_REPORT, None, FIGURES_DIR, out, allow_missing=True, committed=True)
    macros = out / "macros.tex"
    macros.write_bytes(without_commit(macros.read_bytes()))
    return sorted(p.name for p in out.iterdir())


def differences(new: Path, reference: Path) -> list[str]:
    """Names of the files of ``new`` and ``reference`` that are not byte-identical in both,
    each with the reason: ``name: differs`` | ``name: not in the reference`` |
    ``name: no longer written``."""
    new_names = {p.name for p in new.iterdir()}
    ref_names = {p.name for p in reference.iterdir()} if reference.is_dir() else set()
    out = []
    for name in sorted(new_names | ref_names):
        if name not in ref_names:
            out.append(f"{name}: not in the reference")
        elif name not in new_names:
            out.append(f"{name}: no longer written")
        elif (new / name).read_bytes() != (reference / name).read_bytes():
            out.append(f"{name}: differs")
    return out


@pytest.mark.results
def test_generated_latex_is_byte_identical_to_the_committed_reference(tmp_path):
    written = build(tmp_path)
    assert "macros.tex" in written and "setup_table.tex" in written
    if os.environ.get(UPDATE_ENV) == "1":
        shutil.rmtree(REFERENCE, ignore_errors=True)
        shutil.copytree(tmp_path, REFERENCE)
    diff = differences(tmp_path, REFERENCE)
    rel = REFERENCE.relative_to(REFERENCE.parents[2])
    assert diff == [], (
        f"paper/generated from the committed runs != {rel}: {'; '.join(diff)}. "
        "If intended: `make report-reference`, then review the diff."
    )


def test_differences_name_every_kind_of_difference(tmp_path):
    new, ref = tmp_path / "new", tmp_path / "ref"
    new.mkdir()
    ref.mkdir()
    for folder in (new, ref):
        (folder / "same.tex").write_bytes(b"a\n")
    (new / "table.tex").write_bytes(b"0.50\n")
    (ref / "table.tex").write_bytes(b"0.50 \n")  # one trailing space: not byte-identical
    (new / "added.tex").write_bytes(b"")
    (ref / "dropped.tex").write_bytes(b"")
    assert differences(new, ref) == [
        "added.tex: not in the reference",
        "dropped.tex: no longer written",
        "table.tex: differs",
    ]
    assert differences(new, tmp_path / "none") == [
        "added.tex: not in the reference",
        "same.tex: not in the reference",
        "table.tex: not in the reference",
    ]


def test_without_commit_replaces_only_the_commit_argument():
    other = b"\\newcommand{\\ReportMissingRuns}{none}\n"
    built = other + b"\\newcommand{\\ReportCommit}{654fd67}\n"
    assert without_commit(built) == other + b"\\newcommand{\\ReportCommit}{(commit)}\n"
    assert without_commit(without_commit(built)) == without_commit(built)
    with pytest.raises(ValueError, match="0 .ReportCommit"):
        without_commit(other)
