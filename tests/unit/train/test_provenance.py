"""The commit a run records (:mod:`rcgrpo.train.provenance`), in a temporary git repository:
``summary.json``'s ``git`` field is the commit and whether tracked files differ from it, and
a dirty tree's ``git diff HEAD`` is written beside as ``git.diff``."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from rcgrpo.train import provenance
from rcgrpo.train.provenance import code_version, dirty_paths, git_record, git_state
from rcgrpo.train.run_folder import write_summary
from rcgrpo.train.runlog import RunPaths


def _git(repo: Path, *args: str) -> str:
    ident = ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    done = subprocess.run(["git", *ident, "-C", str(repo), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    """A repository with one commit of ``a.txt`` = "old", taken as the package's checkout."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a.txt").write_text("old\n")
    _git(repo, "add", "a.txt")
    _git(repo, "commit", "-q", "-m", "one")
    monkeypatch.setattr(provenance, "PACKAGE_ROOT", repo)
    return repo


def test_a_clean_checkout_records_its_commit_and_writes_no_diff(repo, tmp_path):
    sha = _git(repo, "rev-parse", "HEAD")
    (repo / "untracked.txt").write_text("not counted\n")
    folder = tmp_path / "run"
    folder.mkdir()
    assert re.fullmatch("[0-9a-f]{40}", sha)
    assert git_record(folder) == git_state() == {"commit": sha, "dirty": False}
    assert dirty_paths() == [] and list(folder.iterdir()) == []
    assert code_version()["git"] == sha


def test_a_dirty_checkout_records_dirty_and_writes_its_diff(repo, tmp_path):
    sha = _git(repo, "rev-parse", "HEAD")
    (repo / "a.txt").write_text("new\n")
    folder = tmp_path / "run"
    folder.mkdir()
    record = git_record(folder)
    assert record == {"commit": sha, "dirty": True, "diff": "git.diff"}
    diff = (folder / "git.diff").read_text()
    assert "-old\n+new\n" in diff and diff.startswith("diff --git a/a.txt b/a.txt")
    assert dirty_paths() == ["a.txt"] and code_version()["git"] == sha + "-dirty"
    # the diff restores the run's tree on a clean checkout of the commit
    _git(repo, "checkout", "--", "a.txt")
    _git(repo, "apply", str(folder / "git.diff"))
    assert (repo / "a.txt").read_text() == "new\n"


def test_outside_git_nothing_is_recorded(tmp_path, monkeypatch):
    monkeypatch.setattr(provenance, "PACKAGE_ROOT", tmp_path)
    assert (git_state(), git_record(tmp_path), dirty_paths()) == (None, None, [])
    assert "git" not in code_version()


def test_summary_json_gets_the_git_field_and_an_extension_keeps_the_first(repo, tmp_path):
    sha = _git(repo, "rev-parse", "HEAD")
    paths = RunPaths(tmp_path / "run").make()
    write_summary(paths, {"steps": 4})
    summary = json.loads((paths.root / "summary.json").read_text())
    assert summary == {"steps": 4, "git": {"commit": sha, "dirty": False}}
    (repo / "a.txt").write_text("new\n")  # an extension from a dirty tree
    write_summary(paths, {"steps": 8})
    summary = json.loads((paths.root / "summary.json").read_text())
    assert summary == {"steps": 8, "git": {"commit": sha, "dirty": False}}
    assert not (paths.root / "git.diff").exists()
    dirty = RunPaths(tmp_path / "dirty").make()
    write_summary(dirty, {"steps": 4})
    record = json.loads((dirty.root / "summary.json").read_text())["git"]
    assert record == {"commit": sha, "dirty": True, "diff": "git.diff"}
    assert "+new" in (dirty.root / "git.diff").read_text()
