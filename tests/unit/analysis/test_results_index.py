"""results/INDEX.toml: every committed run folder belongs to exactly one study, every row
points at files that exist, and the reader's checks catch an orphan and a double."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis import REPO_ROOT
from analysis.runs import index as ix


@pytest.mark.results
def test_every_run_folder_belongs_to_exactly_one_study():
    rows = ix.studies()
    assert ix.unindexed(rows) == []
    assert ix.doubled(rows) == {}


@pytest.mark.results
def test_every_row_names_existing_pages_and_modules():
    for s in ix.studies():
        assert (REPO_ROOT / s.protocol).is_file(), (s.id, s.protocol)
        assert (REPO_ROOT / s.verdicts).is_file(), (s.id, s.verdicts)
    assert len({s.id for s in ix.studies()}) == len(ix.studies())


def _tree(tmp_path: Path, *folders: str) -> Path:
    for f in folders:
        (tmp_path / f).mkdir(parents=True)
    (tmp_path / "regime" / "hosts.json").write_text("{}")  # files are not run folders
    return tmp_path


def test_an_orphan_and_a_double_are_found(tmp_path):
    results = _tree(tmp_path, "regime/a-s1", "regime/b-s1", "regime/c-s1")
    rows = [
        ix.Study("x", "X", "s", "current", ("regime/a-*", "regime/b-*"), "p", "v", "f"),
        ix.Study("y", "Y", "s", "complete", ("regime/b-s1",), "p", "v", "f"),
    ]
    assert ix.unindexed(rows, results) == ["regime/c-s1"]
    assert ix.doubled(rows, results) == {"regime/b-s1": ["x", "y"]}
    table = ix.markdown(rows, results).splitlines()
    assert table[2] == "| X | s | running now | 2 |  | [reference](p) |"


def test_an_unknown_status_is_refused(tmp_path):
    index = tmp_path / "INDEX.toml"
    index.write_text(
        '[[study]]\nid = "x"\ntitle = "X"\nsuite = "s"\nstatus = "done"\nfolders = []\n'
        'protocol = "p"\nverdicts = "v"\nfinding = "f"\n'
    )
    with pytest.raises(ValueError, match="status must be one of"):
        ix.studies(index)


@pytest.mark.results
def test_every_listed_figure_reads_its_entries_and_names_a_history_row():
    from analysis.figures.__main__ import modules

    rows = {s.id: s for s in ix.studies()}
    listed = ix.figures()
    assert listed, "the design-history figures read their runs from results/FIGURES.toml"
    for name, fig in listed.items():
        assert rows[fig["study"]].status == "design history", name
        module = REPO_ROOT / (modules()[name].replace(".", "/") + ".py")
        assert f'figure_entries("{name}")' in module.read_text(), name


def test_figure_entries_are_read_in_order(tmp_path):
    path = tmp_path / "FIGURES.toml"
    path.write_text('[x]\nstudy = "a"\nentries = [{ run = "r1", seed = 7 }, { run = "r0" }]\n')
    assert ix.figure_entries("x", path) == ({"run": "r1", "seed": 7}, {"run": "r0"})
    with pytest.raises(KeyError, match="no figure 'y'"):
        ix.figure_entries("y", path)


RULE_CODE = r"\b([KMTCXGHFDIQRS][0-9]+[a-z′]?|[CHR]′|gate [A-Z]\b)"
"""A rule code of a protocol (K1, M2s, X1, T3, C1, G0, H′, gate R, ...)."""


def test_every_row_has_a_plain_summary_and_the_table_shows_it():
    import re

    rows = ix.studies()
    for s in rows:
        assert s.summary and not re.search(RULE_CODE, s.summary + s.title), (s.id, s.summary)
    table = ix.markdown(rows).splitlines()
    assert len(table) == 2 + len(rows)
    for s, line in zip(rows, table[2:], strict=True):
        cells = line.strip("| ").split(" | ")
        assert cells[2] == ix.STATUS_WORDS[s.status] and cells[4] == s.summary
        assert cells[5] == f"[{ix.page_kind(s.protocol)}]({s.protocol})"
    assert [
        ix.page_kind(p) for p in ("docs/protocols/a.md", "docs/lab-notes/b.md", "docs/c.md")
    ] == [
        "protocol",
        "lab note",
        "reference",
    ]


def test_generated_fields_are_rewritten_in_place(tmp_path):
    index = tmp_path / "INDEX.toml"
    row = 'title = "{0}"\nsuite = "s"\nstatus = "current"\nfolders = []\nprotocol = "p"\n'
    row += 'verdicts = "v"\nfinding = "f"\nsummary = "old"\n'
    text = '# a comment\n[[study]]\nid = "x"\n' + row.format("X")
    text += '\n[[study]]\nid = "y"\n' + row.format("Y")
    index.write_text(text)
    new = {"finding": 'R: P1 −0.001 "quoted" \\ ×4', "summary": "plain", "status": "complete"}
    assert ix.set_fields("y", new, index, check=True) == ["finding", "summary", "status"]
    assert index.read_text() == text  # check leaves the file alone
    assert ix.set_fields("y", new, index) == ["finding", "summary", "status"]
    x, y = ix.studies(index)
    assert (y.finding, y.summary, y.status) == (new["finding"], "plain", "complete")
    assert (x.finding, x.summary, x.status) == ("f", "old", "current")
    assert index.read_text().startswith("# a comment\n")
    assert ix.set_fields("y", new, index) == []
    with pytest.raises(ValueError, match="no study 'z'"):
        ix.set_fields("z", new, index)
    with pytest.raises(ValueError, match="not generated"):
        ix.set_fields("y", {"title": "T"}, index)
