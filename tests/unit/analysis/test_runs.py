"""The run-data layer (analysis.runs): one completion test for every reader and the campaign,
and no other module of analysis/ opening a run folder's files."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from analysis.campaign import mechanics as cp
from analysis.campaigns.pool import driver as ex
from analysis.runs import COMPLETE, is_finished, load_run
from analysis.runs.folder import LIGHT_FILES, digests, light_globs
from analysis.runs.sources import layout_resolver
from rcgrpo.train.runlog import METRICS_GZ, ROLLOUTS_GZ

ANALYSIS = Path(__file__).resolve().parents[3] / "analysis"
RUN_FILES = (*LIGHT_FILES, METRICS_GZ, ROLLOUTS_GZ, "conversations.jsonl", COMPLETE)
"""The names of a run folder's files (its ``eval/`` folder aside)."""


def _run(root: Path, name: str, *files: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}")
    (folder / "metrics.jsonl").write_text('{"step": 1}\n')
    for f in files:
        (folder / f).write_text("{}")
    return folder


def test_a_run_is_finished_by_its_summary_or_the_campaign_marker(tmp_path):
    assert not is_finished(_run(tmp_path, "killed"))  # logs only: still going, killed or failed
    assert is_finished(_run(tmp_path, "trained", "summary.json"))  # the trainer's last file
    assert is_finished(_run(tmp_path, "exited", COMPLETE))  # the campaign's marker
    assert not is_finished(tmp_path / "nowhere")
    resolve = layout_resolver(tmp_path)
    assert [p.name for p in resolve("trained") + resolve("exited") + resolve("killed")] == [
        "trained",
        "exited",
    ]


def test_the_campaign_counts_a_run_by_the_same_test(tmp_path, monkeypatch):
    """A current-spec folder is done when finished by either record, partial with neither."""
    monkeypatch.setattr(cp, "CAMPAIGN", tmp_path / "runs" / "campaign")
    monkeypatch.setattr(cp, "RESULTS", tmp_path / "results" / "campaign")
    sft = ex.stage1(0)["sft"]
    folder = _run(cp.CAMPAIGN, sft.name)
    (folder / cp.SPEC_FILE).write_text(json.dumps(sft.record()))
    assert cp.status(sft) == ("partial", folder)
    (folder / "summary.json").write_text("{}")
    assert cp.status(sft) == ("done", folder)
    copy = cp.export_run(ex.build_campaign(seeds=(0,)), sft.name)  # no marker to copy
    assert is_finished(copy) and not (copy / COMPLETE).exists()


def test_digests_name_every_light_file_and_hash_what_exists(tmp_path):
    folder = _run(tmp_path, "r")
    (folder / "eval").mkdir()
    (folder / "eval" / "step_0.json").write_text("{}")
    got = digests(folder)
    # sha256("{}") = 44136fa355b3678a...
    assert got["config.json"] == got["eval/step_0.json"] == "44136fa355b3678a"
    assert got["summary.json"] is None and set(got) == {*LIGHT_FILES, "eval/step_0.json"}


def test_step_evals_are_in_step_order_not_name_order(tmp_path):
    folder = _run(tmp_path, "r")
    (folder / "eval").mkdir()
    for step in (100, 0, 25):  # by name: step_0 < step_100 < step_25
        (folder / "eval" / f"step_{step}.json").write_text(json.dumps({"step": step}))
    (folder / "eval" / "final.json").write_text("{}")  # not an evaluation at a step
    evals = load_run(folder).step_evals
    assert list(evals) == [0, 25, 100] and evals[25] == {"step": 25}
    assert load_run(_run(tmp_path, "none")).step_evals == {}


def _names_a_run_file(text: str) -> bool:
    """A path-like string constant (no white space) naming a run folder's file."""
    return not re.search(r"\s", text) and (
        text.startswith("eval/") or any(text == f or text.endswith("/" + f) for f in RUN_FILES)
    )


def _run_file_constants(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docs
        and _names_a_run_file(node.value)
    ]


def test_only_the_run_data_layer_names_a_run_folders_files():
    assert _names_a_run_file("summary.json") and _names_a_run_file("eval/step_*.json")
    assert not _names_a_run_file("a run has no config.json")  # a message, not a path
    found = {
        str(p.relative_to(ANALYSIS.parent)): names
        for p in sorted(ANALYSIS.rglob("*.py"))
        if ANALYSIS / "runs" not in p.parents and (names := _run_file_constants(p))
    }
    assert found == {}


def test_light_globs_name_the_light_files_the_matching_runs_have(tmp_path):
    for name, files in (("a-s0", ("config.json", "summary.json")), ("a-s1", ("metrics.jsonl",))):
        (tmp_path / "r" / name / "eval").mkdir(parents=True)
        for f in files:
            (tmp_path / "r" / name / f).write_text("{}")
    (tmp_path / "r" / "a-s1" / "eval" / "step_0.json").write_text("{}")
    (tmp_path / "r" / "b-s0").mkdir()
    (tmp_path / "r" / "b-s0" / "data.json").write_text("{}")  # another run: not matched
    assert light_globs("r/a-s*", tmp_path) == (
        "r/a-s*/config.json",
        "r/a-s*/metrics.jsonl",
        "r/a-s*/summary.json",
        "r/a-s*/eval/*",
    )
    assert light_globs("r/none-*", tmp_path) == ()
    # a clone keeps no empty folder, so only an eval/ with files is an input
    assert light_globs("r/a-s0", tmp_path)[-1] == "r/a-s0/summary.json"
    (tmp_path / "r" / "a-s0" / "eval" / "step_0.json").write_text("{}")
    assert light_globs("r/a-s0", tmp_path)[-1] == "r/a-s0/eval/*"
