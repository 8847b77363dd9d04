"""Notebook parameter injection, stripping, and the committed notebooks' cleanliness."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from analysis.notebook.__main__ import main
from analysis.notebook.runner import (
    EXECUTED,
    INJECTED_TAG,
    executed_path,
    inject_parameters,
    problems,
    strip_outputs,
)

NOTEBOOKS = sorted((Path(__file__).resolve().parents[3] / "notebooks").glob("*.ipynb"))


def _nb():
    params = new_code_cell("CONFIGS = 200\nG = 5", metadata={"tags": ["parameters"]})
    return new_notebook(cells=[new_markdown_cell("# t"), params, new_code_cell("print(CONFIGS)")])


def test_injected_cell_follows_the_parameters_cell():
    nb = inject_parameters(_nb(), {"CONFIGS": 3, "RUNS": [Path("/tmp/r")], "NAME": "x'y"})
    cell = nb.cells[2]
    assert cell.metadata["tags"] == [INJECTED_TAG]
    assert cell.source == "CONFIGS = 3\nRUNS = ['/tmp/r']\nNAME = \"x'y\""
    assert len(nb.cells) == 4 and len(_nb().cells) == 3  # a copy; the input is untouched


def test_injection_without_parameters_cell_goes_first_and_rejects_non_literals():
    nb = new_notebook(cells=[new_code_cell("x = 1")])
    assert inject_parameters(nb, {"A": 1.5}).cells[0].source == "A = 1.5"
    assert inject_parameters(nb, {}).cells == nb.cells
    with pytest.raises(ValueError, match="literal"):
        inject_parameters(nb, {"A": object()})
    with pytest.raises(ValueError, match="identifier"):
        inject_parameters(nb, {"not a name": 1})


def test_strip_and_problems():
    nb = _nb()
    nb.cells[2].outputs = [nbformat.v4.new_output("stream", name="stdout", text="200\n")]
    nb.cells[2].execution_count = 4
    nb.cells[2].metadata["execution"] = {"iopub.status.busy": "x"}
    nb.cells.append(new_code_cell("%matplotlib inline\ndef helper():\n    return 1"))
    found = problems(nb)
    assert found == [
        "cell 2: has outputs or an execution count",
        "cell 3: defines helper (reusable code belongs in analysis/)",
    ]
    clean = strip_outputs(nb)
    assert clean.cells[2].outputs == [] and clean.cells[2].execution_count is None
    assert clean.cells[2].metadata == {} and clean.cells[1].metadata == {"tags": ["parameters"]}
    assert problems(clean) == ["cell 3: defines helper (reusable code belongs in analysis/)"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_committed_notebooks_are_clean(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert problems(nb) == []  # no outputs, nothing reusable defined
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, "exactly one parameters cell"


def test_the_four_notebooks_exist():
    assert [p.name for p in NOTEBOOKS] == [
        "01_theory.ipynb",
        "02_environment.ipynb",
        "03_training_dynamics.ipynb",
        "04_real_model.ipynb",
    ]


def test_run_keeps_the_executed_outputs_beside_not_over_the_notebook(tmp_path, capsys):
    # python -m analysis.notebook run used to execute and discard the outputs: the executed
    # copy now goes to --out DIR/<name>, the source notebook's bytes unchanged
    source = tmp_path / "nb" / "t.ipynb"
    source.parent.mkdir()
    nbformat.write(_nb(), source)
    before = source.read_bytes()
    assert main(["run", str(source), "-p", "CONFIGS=6*7", "--out", str(tmp_path / "out")]) == 0
    executed = nbformat.read(tmp_path / "out" / "t.ipynb", as_version=4)
    # the injected cell follows the parameters cell; print(CONFIGS) shows the bare string
    # "6*7" (not a literal), then a re-run with CONFIGS=42 overwrites the copy
    assert executed.cells[3].outputs[0]["text"] == "6*7\n"
    assert source.read_bytes() == before and problems(nbformat.read(source, as_version=4)) == []
    assert capsys.readouterr().out == f"ran {source}: outputs in {tmp_path / 'out' / 't.ipynb'}\n"
    main(["run", str(source), "-p", "CONFIGS=42", "--out", str(tmp_path / "out")])
    executed = nbformat.read(tmp_path / "out" / "t.ipynb", as_version=4)
    assert executed.cells[3].outputs[0]["text"] == "42\n" and executed.cells[3].execution_count
    assert executed_path(source) == EXECUTED / "t.ipynb" == Path("runs/notebooks/t.ipynb")


def test_run_refuses_an_out_folder_that_is_the_notebooks_own(tmp_path, capsys):
    source = tmp_path / "t.ipynb"
    nbformat.write(_nb(), source)
    before = source.read_bytes()
    with pytest.raises(SystemExit) as stop:
        main(["run", str(source), "--out", str(tmp_path)])
    assert stop.value.code == 2 and source.read_bytes() == before
    assert f"--out {tmp_path} would overwrite {source} with outputs" in capsys.readouterr().err
