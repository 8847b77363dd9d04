"""Every file a figure reads is named in its sidecar: a run folder it was given, or a file
matched by its ``INPUTS`` (checked by watching every ``open`` while the figure is built)."""

from __future__ import annotations

import fnmatch
import importlib
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import pytest  # noqa: E402

import analysis.figures.__main__ as builder  # noqa: E402
from analysis.figures.save import run_entry, run_name  # noqa: E402
from analysis.runs.folder import GZ  # noqa: E402

ROOT = builder.ROOT
_OPENED: list[list[str]] = []
"""The paths opened while a figure builds (a stack: the hook records only when non-empty)."""


def _hook(event: str, args: tuple) -> None:
    if event == "open" and _OPENED and isinstance(args[0], str | Path):
        _OPENED[-1].append(str(args[0]))


sys.addaudithook(_hook)  # audit hooks cannot be removed; it is idle outside a build


def _read_inputs(paths: list[str], out_dir: Path) -> set[str]:
    """The repository files among ``paths`` (not the environment, not the outputs)."""
    out = set()
    for p in paths:
        path = Path(p).resolve()
        code = path.suffix in (".py", ".pyc") or "__pycache__" in path.parts
        outside = not path.is_relative_to(ROOT) or path.is_relative_to(ROOT / ".venv")
        if not (code or outside or path.is_relative_to(out_dir.resolve())):
            out.add(path.relative_to(ROOT).as_posix())
    return out


def _reads_committed_files(name: str) -> bool:
    """Whether figure ``name`` reads committed files (runs it ``REQUIRES``, ``INPUTS``)."""
    module = importlib.import_module(builder.modules()[name])
    return bool(getattr(module, "REQUIRES", ()) or getattr(module, "INPUTS", ()))


@pytest.mark.parametrize(
    "name",
    [
        # built from the committed runs and reports: a whole make figures (results, run by
        # make figures-check); a figure that reads no file stays in make test
        pytest.param(n, marks=pytest.mark.results) if _reads_committed_files(n) else n
        for n in builder.discover()
    ],
)
def test_every_file_a_figure_reads_is_declared_and_hashed(name, tmp_path):
    _OPENED.append([])
    try:
        builder.build_one(name, tmp_path, ("png",))
    except builder.MissingRuns as err:
        pytest.skip(f"{err} (not done here)")
    finally:
        opened = _OPENED.pop()
    side = json.loads((tmp_path / f"{name}.json").read_text())
    runs = [entry["path"] for entries in side["runs"].values() for entry in entries]
    files = {f["path"] for f in side["files"]}
    for path in _read_inputs(opened, tmp_path):
        in_run = any(run_name(ROOT / path, ROOT).startswith(run + "/") for run in runs)
        assert in_run or path in files, f"{name} read {path}, which its sidecar does not name"
        if in_run:  # a run file the figure reads is hashed in the run's entry
            run = next(r for r in runs if run_name(ROOT / path, ROOT).startswith(r + "/"))
            rel = run_name(ROOT / path, ROOT).removeprefix(run + "/")
            rel = rel.removesuffix(GZ)  # a compressed file is hashed under its plain name
            entry = next(e for es in side["runs"].values() for e in es if e["path"] == run)
            assert rel in entry["sha256_16"], f"{name} read {path}, not hashed in its sidecar"
    for pattern in getattr(__import__(builder.modules()[name], fromlist=["x"]), "INPUTS", ()):
        assert any(fnmatch.fnmatch(f, pattern) for f in files)


def test_a_run_has_one_name_in_runs_and_results(tmp_path):
    for home in ("runs", "results"):
        run = tmp_path / home / "campaign" / "cpu-grpo-s0"
        (run / "eval").mkdir(parents=True)
        (run / "config.json").write_text("{}")
        (run / "eval" / "synth-test-high.json").write_text("{}")
    here, there = (
        run_entry(tmp_path / h / "campaign" / "cpu-grpo-s0", tmp_path) for h in ("runs", "results")
    )
    assert here == there
    assert here["path"] == "campaign/cpu-grpo-s0"
    # sha256("{}") = 44136fa355b3678a...; files the run does not have are None
    assert here["sha256_16"]["config.json"] == "44136fa355b3678a"
    assert here["sha256_16"]["eval/synth-test-high.json"] == "44136fa355b3678a"
    assert here["sha256_16"]["metrics.jsonl"] is None
